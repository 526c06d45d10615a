// The settings of `checkd serve`, the notifier's and the service
// integrations' included, one row each: flag, environment variable, default,
// help and parser. The CLI builds its options and help from this table,
// resolution follows it (a flag wins over its env var, the env var over the
// default), and a test holds README's table of flags to it.
import {
  bytesAtLeast,
  LOG_LEVELS,
  millisecondsAtLeast,
  optionalSizeAtLeast,
  parseBadgeLabel,
  parseBaseUrl,
  parseCountValue,
  parseDataDir,
  parseFromAddress,
  parseHeartbeatUrl,
  parseHostPort,
  parseHttpUrl,
  parseLogLevel,
  parseMailDomain,
  parseOptionalHostPort,
  parseOptionalHttpUrl,
  parseSiteName,
  parseSmtpUrl,
  parseSwitch,
  parseToken,
  secondsBetween,
  sizeAtLeast,
  validateGrpcAddress,
  type HostPort,
  type Source,
} from './values.js';

export interface Setting<T> {
  /** `--listen`; null for a setting read from the environment only. */
  flag: string | null;
  /** Placeholder of the flag's value (`--listen <host:port>`); null for a switch, which takes none. */
  arg: string | null;
  env: string;
  /** The text parsed when neither the flag nor the env var gives one. */
  default: string;
  /** The default as help and README state it, when the text alone does not say it. */
  shownDefault?: string;
  /** An env var of blanks counts as unset. */
  blankMeansDefault?: boolean;
  /** Holds a password or token: shell channels' commands do not inherit its env var. */
  secret?: boolean;
  help: string;
  /** Validates the text; `source` names the flag or env var it came from, for the error. */
  parse(text: string, source: Source): T;
}

/** One row per field of T, in the order of help and validation. */
export type SettingTable<T> = { readonly [K in keyof T]: Setting<T[K]> };

/** What the serve rows fill: the daemon's own settings (ServeConfig). */
export interface ServeSettingValues {
  dataDir: string;
  listen: HostPort;
  grpcListen: string;
  baseUrl: string;
  apiRateLimit: number;
  pingBodyLimit: number;
  trustProxy: boolean;
  logLevel: string;
  /** The label of the project-wide (`*`) status badge. */
  badgeLabel: string;
  /** Where e-mail pings are received (daemon/email/); null: off. */
  smtpListen: HostPort | null;
  /** The domain of ping addresses; null: the host of baseUrl (pingEmailDomainOf). */
  pingEmailDomain: string | null;
  /** Largest e-mail ping accepted, in bytes; a larger one gets 552. */
  smtpMessageLimit: number;
  /** Pinged every minute while the deadline monitor's loop runs (monitor/self-watch.ts); null: off. */
  heartbeatUrl: string | null;
  /** Most bytes the database may hold before the storage alarm (domain/storage-alarm.ts); null: no quota. */
  storageQuota: number | null;
  /** Free bytes kept on the data dir's file system: below them, the storage alarm. */
  storageReserve: number;
}

/** What the notifier rows fill (NotifyConfig); `checkd channel test` reads them too. */
export interface NotifySettingValues {
  /** smtp://user:pass@host:port or smtps://...; holds a password: never log it. */
  smtpUrl: string | null;
  smtpFrom: string | null;
  /** Shell channels run only when the daemon was started with --allow-shell. */
  allowShell: boolean;
  /** Notification requests may not reach loopback, private or link-local addresses. */
  blockPrivateAddresses: boolean;
  /** Per attempt: HTTP request, SMTP session. */
  timeoutMs: number;
  /** Per attempt: a shell command is killed after this. */
  shellTimeoutMs: number;
  /** First retry delay; doubles on each failure. */
  retryBaseMs: number;
  /** Longest delay between two attempts. */
  retryMaxDelayMs: number;
  /** A delivery still failing this long after its flip is given up. */
  giveUpAfterMs: number;
}

/**
 * What the rows of the service integrations fill (config/integrations.ts
 * makes IntegrationSettings of them); `checkd channel test` reads them too.
 */
export interface IntegrationSettingValues {
  siteName: string;
  siteLogoUrl: string | null;
  /** Secret. */
  telegramBotToken: string | null;
  /** Secret. */
  pushoverAppToken: string | null;
  /** Seconds. */
  pushoverEmergencyRetry: number;
  /** Seconds. */
  pushoverEmergencyExpire: number;
  matrixHomeserver: string | null;
  /** Secret. */
  matrixAccessToken: string | null;
  telegramApiUrl: string;
  pagerdutyApiUrl: string;
  opsgenieApiUrl: string;
  opsgenieEuApiUrl: string;
  pushoverApiUrl: string;
}

export const SERVE_SETTINGS: SettingTable<ServeSettingValues> = {
  dataDir: {
    flag: '--data-dir',
    arg: 'dir',
    env: 'CHECKD_DATA_DIR',
    default: './data',
    help: 'LMDB data directory',
    parse: parseDataDir,
  },
  listen: {
    flag: '--listen',
    arg: 'host:port',
    env: 'CHECKD_LISTEN',
    default: '127.0.0.1:8000',
    help: 'HTTP address',
    parse: parseHostPort,
  },
  grpcListen: {
    flag: '--grpc-listen',
    arg: 'addr',
    env: 'CHECKD_GRPC_LISTEN',
    default: '127.0.0.1:50051',
    help: 'gRPC address or unix:/path',
    parse: validateGrpcAddress,
  },
  baseUrl: {
    flag: '--base-url',
    arg: 'url',
    env: 'CHECKD_BASE_URL',
    default: 'http://localhost:8000',
    help: 'public URL for ping_url etc.',
    parse: parseBaseUrl,
  },
  apiRateLimit: {
    flag: '--api-rate-limit',
    arg: 'n',
    env: 'CHECKD_API_RATE_LIMIT',
    default: '100',
    help: 'API requests per minute per key, 0 = off',
    parse: parseCountValue,
  },
  pingBodyLimit: {
    flag: '--ping-body-limit',
    arg: 'bytes',
    env: 'CHECKD_PING_BODY_LIMIT',
    default: '10000',
    help: 'bytes of a ping body stored',
    parse: parseCountValue,
  },
  trustProxy: {
    flag: '--trust-proxy',
    arg: null,
    env: 'CHECKD_TRUST_PROXY',
    default: 'off',
    help: 'take client addresses from X-Forwarded-For',
    parse: parseSwitch,
  },
  logLevel: {
    flag: '--log-level',
    arg: 'level',
    env: 'CHECKD_LOG_LEVEL',
    default: 'info',
    help: LOG_LEVELS.join('|'),
    parse: parseLogLevel,
  },
  badgeLabel: {
    flag: '--badge-label',
    arg: 'text',
    env: 'CHECKD_BADGE_LABEL',
    default: 'checkd',
    help: 'label of the project-wide (*) badge',
    parse: parseBadgeLabel,
  },
  smtpListen: {
    flag: '--smtp-listen',
    arg: 'host:port',
    env: 'CHECKD_SMTP_LISTEN',
    default: '',
    shownDefault: 'off',
    help: 'SMTP address that takes e-mail pings',
    parse: parseOptionalHostPort,
  },
  pingEmailDomain: {
    flag: '--ping-email-domain',
    arg: 'domain',
    env: 'CHECKD_PING_EMAIL_DOMAIN',
    default: '',
    shownDefault: 'host of --base-url',
    help: 'domain of the ping e-mail addresses',
    parse: parseMailDomain,
  },
  smtpMessageLimit: {
    flag: '--smtp-message-limit',
    arg: 'bytes',
    env: 'CHECKD_SMTP_MESSAGE_LIMIT',
    default: '5000000',
    help: 'largest e-mail ping accepted',
    parse: bytesAtLeast(1000),
  },
  heartbeatUrl: {
    flag: '--heartbeat-url',
    arg: 'url',
    env: 'CHECKD_HEARTBEAT_URL',
    default: '',
    help: 'pinged every minute while the monitor loop runs (another checkd, Healthchecks)',
    parse: parseHeartbeatUrl,
  },
  storageQuota: {
    flag: '--storage-quota',
    arg: 'size',
    env: 'CHECKD_STORAGE_QUOTA',
    default: '',
    shownDefault: 'off',
    help: 'most data the database may hold (500MB, 2GB); past it, pings and API writes get 503',
    parse: optionalSizeAtLeast(1024 * 1024, '1MiB'),
  },
  storageReserve: {
    flag: '--storage-reserve',
    arg: 'size',
    env: 'CHECKD_STORAGE_RESERVE',
    default: '64MB',
    help: "free space kept on the data dir's file system for flips and notifications; below it, pings and API writes get 503",
    parse: sizeAtLeast(0, '0'),
  },
};

/** The delivery timings are read from the environment only (docs/notifications.md). */
function milliseconds(env: string, dflt: number, min: number, help: string): Setting<number> {
  return { flag: null, arg: null, env, default: String(dflt), blankMeansDefault: true, help, parse: millisecondsAtLeast(min) };
}

export const NOTIFY_SETTINGS: SettingTable<NotifySettingValues> = {
  smtpUrl: {
    flag: '--smtp-url',
    arg: 'url',
    env: 'CHECKD_SMTP_URL',
    default: '',
    help: 'SMTP server of email channels: smtp://user:pass@host:port or smtps://...',
    secret: true,
    parse: parseSmtpUrl,
  },
  smtpFrom: {
    flag: '--smtp-from',
    arg: 'address',
    env: 'CHECKD_SMTP_FROM',
    default: '',
    shownDefault: 'checkd@HOSTNAME',
    help: 'From: of notification emails',
    parse: parseFromAddress,
  },
  allowShell: {
    flag: '--allow-shell',
    arg: null,
    env: 'CHECKD_ALLOW_SHELL',
    default: 'off',
    help: 'run the commands of shell channels',
    parse: parseSwitch,
  },
  blockPrivateAddresses: {
    flag: '--block-private-addresses',
    arg: null,
    env: 'CHECKD_BLOCK_PRIVATE_ADDRESSES',
    default: 'off',
    help: 'notifications may not reach loopback, private or link-local addresses',
    parse: parseSwitch,
  },
  timeoutMs: milliseconds('CHECKD_NOTIFY_TIMEOUT_MS', 30_000, 1, 'ms a delivery attempt may take'),
  shellTimeoutMs: milliseconds('CHECKD_SHELL_TIMEOUT_MS', 60_000, 1, 'ms before a shell command is killed'),
  retryBaseMs: milliseconds('CHECKD_NOTIFY_RETRY_BASE_MS', 1000, 1, 'ms to the first retry, then doubled'),
  retryMaxDelayMs: milliseconds('CHECKD_NOTIFY_RETRY_MAX_MS', 15 * 60 * 1000, 1, 'most ms between two attempts'),
  giveUpAfterMs: milliseconds('CHECKD_NOTIFY_GIVE_UP_MS', 6 * 3600 * 1000, 0, 'ms of failing before giving up'),
};

/** A hosted service's API address, which a relay or a test server can stand in for (environment only). */
function serviceApiUrl(env: string, dflt: string, service: string): Setting<string> {
  return { flag: null, arg: null, env, default: dflt, blankMeansDefault: true, help: `API address of ${service}`, parse: parseHttpUrl };
}

/** Whole seconds of Pushover's emergency repeats: Pushover takes 30 to 10800. */
const pushoverSeconds = secondsBetween(30, 10800);

export const INTEGRATION_SETTINGS: SettingTable<IntegrationSettingValues> = {
  siteName: {
    flag: '--site-name',
    arg: 'name',
    env: 'CHECKD_SITE_NAME',
    default: 'checkd',
    blankMeansDefault: true,
    help: 'how messages to services name checkd',
    parse: parseSiteName,
  },
  siteLogoUrl: {
    flag: '--site-logo-url',
    arg: 'url',
    env: 'CHECKD_SITE_LOGO_URL',
    default: '',
    help: 'icon of the chat messages that take one',
    parse: parseOptionalHttpUrl,
  },
  telegramBotToken: {
    flag: '--telegram-bot-token',
    arg: 'token',
    env: 'CHECKD_TELEGRAM_BOT_TOKEN',
    default: '',
    help: 'the bot telegram channels send as',
    secret: true,
    parse: parseToken,
  },
  pushoverAppToken: {
    flag: '--pushover-app-token',
    arg: 'token',
    env: 'CHECKD_PUSHOVER_APP_TOKEN',
    default: '',
    help: 'the application po (Pushover) channels send as',
    secret: true,
    parse: parseToken,
  },
  pushoverEmergencyRetry: {
    flag: '--pushover-emergency-retry',
    arg: 'seconds',
    env: 'CHECKD_PUSHOVER_EMERGENCY_RETRY',
    default: '300',
    blankMeansDefault: true,
    help: 'seconds between repeats of an emergency Pushover message, 30-10800',
    parse: pushoverSeconds,
  },
  pushoverEmergencyExpire: {
    flag: '--pushover-emergency-expire',
    arg: 'seconds',
    env: 'CHECKD_PUSHOVER_EMERGENCY_EXPIRE',
    // Pushover refuses an emergency message whose expiry is over three hours.
    default: '10800',
    blankMeansDefault: true,
    help: 'seconds an emergency Pushover message keeps repeating, 30-10800',
    parse: pushoverSeconds,
  },
  matrixHomeserver: {
    flag: '--matrix-homeserver',
    arg: 'url',
    env: 'CHECKD_MATRIX_HOMESERVER',
    default: '',
    help: 'homeserver of the account matrix channels send as',
    parse: parseOptionalHttpUrl,
  },
  matrixAccessToken: {
    flag: '--matrix-access-token',
    arg: 'token',
    env: 'CHECKD_MATRIX_ACCESS_TOKEN',
    default: '',
    help: 'access token of that Matrix account',
    secret: true,
    parse: parseToken,
  },
  telegramApiUrl: serviceApiUrl('CHECKD_TELEGRAM_API_URL', 'https://api.telegram.org', 'Telegram (a self-hosted Bot API server works too)'),
  pagerdutyApiUrl: serviceApiUrl('CHECKD_PAGERDUTY_API_URL', 'https://events.pagerduty.com', 'PagerDuty Events'),
  opsgenieApiUrl: serviceApiUrl('CHECKD_OPSGENIE_API_URL', 'https://api.opsgenie.com', 'Opsgenie (region us)'),
  opsgenieEuApiUrl: serviceApiUrl('CHECKD_OPSGENIE_EU_API_URL', 'https://api.eu.opsgenie.com', 'Opsgenie (region eu)'),
  pushoverApiUrl: serviceApiUrl('CHECKD_PUSHOVER_API_URL', 'https://api.pushover.net', 'Pushover'),
};

/** The rows the notifier reads, its own and the integrations', as `serve` and `channel test` take them. */
export const DELIVERY_SETTINGS: ReadonlyArray<Setting<unknown>> = [...Object.values(NOTIFY_SETTINGS), ...Object.values(INTEGRATION_SETTINGS)];

/** Every row, serve's first, in help order. */
export const SETTINGS: ReadonlyArray<Setting<unknown>> = [...Object.values(SERVE_SETTINGS), ...DELIVERY_SETTINGS];

/** The env vars of the settings that hold a secret. */
export const SECRET_ENV: readonly string[] = SETTINGS.filter((s) => s.secret).map((s) => s.env);

/** The default as help and README state it: `none` when there is no value. */
export function shownDefault(setting: Setting<unknown>): string {
  return setting.shownDefault ?? (setting.default === '' ? 'none' : setting.default);
}

/** The help of a flag: what it sets, its env var and its default. */
export function settingHelp(setting: Setting<unknown>): string {
  const dflt = shownDefault(setting);
  return `${setting.help} [env ${setting.env}${dflt === 'none' ? '' : `, default ${dflt}`}]`;
}

/** What commander hands over: flag values by the flag's camelCase name (a switch given is `true`). */
export type RawSettings = Readonly<Record<string, unknown>>;

/** Every row of `table`: the flag if given, else the env var if set, else the default; each validated. */
export function resolveSettings<T>(table: SettingTable<T>, raw: RawSettings, env: NodeJS.ProcessEnv): T {
  const values: Partial<T> = {};
  for (const key of Object.keys(table) as Array<keyof T & string>) values[key] = resolveSetting(table[key], raw[key], env);
  return values as T;
}

function resolveSetting<T>(setting: Setting<T>, flagValue: unknown, env: NodeJS.ProcessEnv): T {
  if (setting.flag !== null && flagValue !== undefined) {
    return setting.parse(flagValue === true ? 'true' : String(flagValue), setting.flag);
  }
  const fromEnv = env[setting.env];
  if (fromEnv !== undefined && !(setting.blankMeansDefault && fromEnv.trim() === '')) {
    return setting.parse(fromEnv, `${setting.env} (environment)`);
  }
  return setting.parse(setting.default, `${setting.flag ?? setting.env} (default)`);
}
