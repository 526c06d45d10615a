// Daemon-level settings of the service integrations (docs/notifications.md):
// the secrets that belong to the daemon rather than to a channel (a Telegram
// bot, a Pushover application, a Matrix account), how checkd names itself in
// messages, and the API address of each hosted service, which a test or a
// relay can point elsewhere. Flags win over env vars, env vars over defaults.
import { ConfigError } from './serve.js';

export interface ServiceApiUrls {
  telegram: string;
  pagerduty: string;
  opsgenie: string;
  opsgenieEu: string;
  pushover: string;
}

export interface IntegrationSettings {
  /** Sent as the sender's name (PagerDuty client, Opsgenie source, chat user names). */
  siteName: string;
  /** An icon for chat messages that take one; null leaves it out. */
  siteLogoUrl: string | null;
  /** Secret. Null: telegram deliveries fail with "Telegram notifications are not enabled." */
  telegramBotToken: string | null;
  /** Secret. Null: po deliveries fail with "Pushover notifications are not enabled." */
  pushoverAppToken: string | null;
  /** Seconds between repeats of an emergency-priority Pushover message (30 or more). */
  pushoverEmergencyRetryS: number;
  /** Seconds an emergency-priority Pushover message keeps repeating (at most 10800). */
  pushoverEmergencyExpireS: number;
  /** Both null or both set; null: matrix deliveries fail with "Matrix notifications are not enabled." */
  matrixHomeserver: string | null;
  /** Secret. */
  matrixAccessToken: string | null;
  apiUrls: ServiceApiUrls;
}

export const SERVICE_API_DEFAULTS: ServiceApiUrls = {
  telegram: 'https://api.telegram.org',
  pagerduty: 'https://events.pagerduty.com',
  opsgenie: 'https://api.opsgenie.com',
  opsgenieEu: 'https://api.eu.opsgenie.com',
  pushover: 'https://api.pushover.net',
};

export const INTEGRATION_DEFAULTS: IntegrationSettings = {
  siteName: 'checkd',
  siteLogoUrl: null,
  telegramBotToken: null,
  pushoverAppToken: null,
  pushoverEmergencyRetryS: 300,
  // Pushover refuses an emergency message whose expiry is over three hours.
  pushoverEmergencyExpireS: 10800,
  matrixHomeserver: null,
  matrixAccessToken: null,
  apiUrls: SERVICE_API_DEFAULTS,
};

export interface RawIntegrationOptions {
  siteName?: string;
  siteLogoUrl?: string;
  telegramBotToken?: string;
  pushoverAppToken?: string;
  pushoverEmergencyRetry?: string;
  pushoverEmergencyExpire?: string;
  matrixHomeserver?: string;
  matrixAccessToken?: string;
}

interface Setting {
  value: string | undefined;
  /** For messages: the flag, or the variable it came from. Never the value of a secret. */
  source: string;
}

function pick(flagValue: string | undefined, flag: string, env: NodeJS.ProcessEnv, name: string): Setting {
  if (flagValue !== undefined) return { value: flagValue, source: flag };
  return { value: env[name], source: `${name} (environment)` };
}

function text(s: Setting): string | null {
  const v = s.value?.trim() ?? '';
  return v === '' ? null : v;
}

/** A token: one line, no spaces (the error never repeats it). */
function secret(s: Setting): string | null {
  const v = text(s);
  if (v !== null && /[\s\0]/.test(v)) throw new ConfigError(`${s.source}: a token is one word, without spaces or line breaks`);
  return v;
}

function httpUrl(s: Setting): string | null {
  const v = text(s);
  if (v === null) return null;
  let url: URL | null = null;
  try {
    url = new URL(v);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`${s.source}: expected an http(s) URL without a query, got "${v}"`);
  }
  return v.replace(/\/+$/, '');
}

function seconds(s: Setting, dflt: number, min: number, max: number): number {
  const v = text(s);
  if (v === null) return dflt;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) {
    throw new ConfigError(`${s.source}: expected whole seconds from ${min} to ${max}, got "${v}"`);
  }
  return n;
}

export function resolveIntegrationSettings(opts: RawIntegrationOptions, env: NodeJS.ProcessEnv): IntegrationSettings {
  const d = INTEGRATION_DEFAULTS;
  const homeserver = httpUrl(pick(opts.matrixHomeserver, '--matrix-homeserver', env, 'CHECKD_MATRIX_HOMESERVER'));
  const matrixToken = secret(pick(opts.matrixAccessToken, '--matrix-access-token', env, 'CHECKD_MATRIX_ACCESS_TOKEN'));
  if ((homeserver === null) !== (matrixToken === null)) {
    throw new ConfigError('Matrix needs both --matrix-homeserver and --matrix-access-token (or CHECKD_MATRIX_HOMESERVER and CHECKD_MATRIX_ACCESS_TOKEN)');
  }
  const siteName = text(pick(opts.siteName, '--site-name', env, 'CHECKD_SITE_NAME')) ?? d.siteName;
  if (siteName.length > 100 || /[\r\n]/.test(siteName)) throw new ConfigError('--site-name: at most 100 characters on one line');
  const api = (name: string, dflt: string) => httpUrl({ value: env[name], source: `${name} (environment)` }) ?? dflt;
  return {
    siteName,
    siteLogoUrl: httpUrl(pick(opts.siteLogoUrl, '--site-logo-url', env, 'CHECKD_SITE_LOGO_URL')),
    telegramBotToken: secret(pick(opts.telegramBotToken, '--telegram-bot-token', env, 'CHECKD_TELEGRAM_BOT_TOKEN')),
    pushoverAppToken: secret(pick(opts.pushoverAppToken, '--pushover-app-token', env, 'CHECKD_PUSHOVER_APP_TOKEN')),
    pushoverEmergencyRetryS: seconds(
      pick(opts.pushoverEmergencyRetry, '--pushover-emergency-retry', env, 'CHECKD_PUSHOVER_EMERGENCY_RETRY'),
      d.pushoverEmergencyRetryS,
      30,
      10800,
    ),
    pushoverEmergencyExpireS: seconds(
      pick(opts.pushoverEmergencyExpire, '--pushover-emergency-expire', env, 'CHECKD_PUSHOVER_EMERGENCY_EXPIRE'),
      d.pushoverEmergencyExpireS,
      30,
      10800,
    ),
    matrixHomeserver: homeserver,
    matrixAccessToken: matrixToken,
    apiUrls: {
      telegram: api('CHECKD_TELEGRAM_API_URL', SERVICE_API_DEFAULTS.telegram),
      pagerduty: api('CHECKD_PAGERDUTY_API_URL', SERVICE_API_DEFAULTS.pagerduty),
      opsgenie: api('CHECKD_OPSGENIE_API_URL', SERVICE_API_DEFAULTS.opsgenie),
      opsgenieEu: api('CHECKD_OPSGENIE_EU_API_URL', SERVICE_API_DEFAULTS.opsgenieEu),
      pushover: api('CHECKD_PUSHOVER_API_URL', SERVICE_API_DEFAULTS.pushover),
    },
  };
}
