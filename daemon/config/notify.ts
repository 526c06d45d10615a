// Settings of the notifier: SMTP, the shell switch and delivery timings.
// Flags win over env vars, env vars over defaults; validated before anything
// is opened (a bad value is a usage error, exit 2).
import { hostname } from 'node:os';
import { ConfigError } from './serve.js';
import { INTEGRATION_DEFAULTS, resolveIntegrationSettings, type IntegrationSettings, type RawIntegrationOptions } from './integrations.js';

export interface SmtpConfig {
  /** smtp://user:pass@host:port or smtps://...; holds a password: never log it. */
  url: string;
  from: string;
}

export interface NotifyConfig {
  smtp: SmtpConfig | null;
  /** Shell channels run only when the daemon was started with --allow-shell. */
  allowShell: boolean;
  /** Notification requests may not reach loopback, private or link-local addresses. */
  blockPrivateAddresses: boolean;
  /** First retry delay; doubles on each failure. */
  retryBaseMs: number;
  /** Longest delay between two attempts. */
  retryMaxDelayMs: number;
  /** A delivery still failing this long after its flip is given up. */
  giveUpAfterMs: number;
  /** Per attempt: HTTP request, SMTP session. */
  timeoutMs: number;
  /** Per attempt: a shell command is killed after this. */
  shellTimeoutMs: number;
  /** Deliveries in flight at once (each channel has at most one). */
  concurrency: number;
  /** Secrets and API addresses of the service integrations (telegram, po, matrix, ...). */
  integrations: IntegrationSettings;
}

export const NOTIFY_DEFAULTS: NotifyConfig = {
  smtp: null,
  allowShell: false,
  blockPrivateAddresses: false,
  retryBaseMs: 1000,
  retryMaxDelayMs: 15 * 60 * 1000,
  giveUpAfterMs: 6 * 3600 * 1000,
  timeoutMs: 30_000,
  shellTimeoutMs: 60_000,
  concurrency: 16,
  integrations: INTEGRATION_DEFAULTS,
};

export interface RawNotifyOptions extends RawIntegrationOptions {
  smtpUrl?: string;
  smtpFrom?: string;
  allowShell?: boolean;
  blockPrivateAddresses?: boolean;
}

function parseBool(value: string, what: string): boolean {
  const v = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${what}: expected true or false, got "${value}"`);
}

function parseMs(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new ConfigError(`${name} (environment): expected a whole number of milliseconds >= ${min}, got "${raw}"`);
  }
  return n;
}

/** Validates an SMTP URL; the error never repeats the URL (it may hold a password). */
export function parseSmtpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`${what}: not a URL (expected smtp://user:pass@host:port or smtps://...)`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`${what}: must be an smtp:// or smtps:// URL, got a ${url.protocol} URL`);
  }
  if (url.hostname === '') throw new ConfigError(`${what}: the URL has no host`);
  return value.trim();
}

const FROM_RE = /^(?:[^<>\r\n]*<[^\s@<>,]+@[^\s@<>,]+>|[^\s@<>,]+@[^\s@<>,]+)$/;

export function resolveNotifyConfig(opts: RawNotifyOptions, env: NodeJS.ProcessEnv): NotifyConfig {
  const smtpUrlRaw = opts.smtpUrl ?? env.CHECKD_SMTP_URL;
  const smtpSrc = opts.smtpUrl !== undefined ? '--smtp-url' : 'CHECKD_SMTP_URL (environment)';
  const fromRaw = opts.smtpFrom ?? env.CHECKD_SMTP_FROM;
  const fromSrc = opts.smtpFrom !== undefined ? '--smtp-from' : 'CHECKD_SMTP_FROM (environment)';
  let smtp: SmtpConfig | null = null;
  if (smtpUrlRaw !== undefined && smtpUrlRaw.trim() !== '') {
    const url = parseSmtpUrl(smtpUrlRaw, smtpSrc);
    const from = (fromRaw ?? '').trim() || `checkd@${hostname()}`;
    if (!FROM_RE.test(from)) throw new ConfigError(`${fromSrc}: expected an address like checkd@example.org, got "${from}"`);
    smtp = { url, from };
  } else if (fromRaw !== undefined && fromRaw.trim() !== '' && !FROM_RE.test(fromRaw.trim())) {
    throw new ConfigError(`${fromSrc}: expected an address like checkd@example.org, got "${fromRaw}"`);
  }
  const allowShell = opts.allowShell ?? parseBool(env.CHECKD_ALLOW_SHELL ?? '', 'CHECKD_ALLOW_SHELL (environment)');
  const blockPrivateAddresses =
    opts.blockPrivateAddresses ??
    parseBool(env.CHECKD_BLOCK_PRIVATE_ADDRESSES ?? '', 'CHECKD_BLOCK_PRIVATE_ADDRESSES (environment)');
  return {
    smtp,
    allowShell,
    blockPrivateAddresses,
    retryBaseMs: parseMs(env, 'CHECKD_NOTIFY_RETRY_BASE_MS', NOTIFY_DEFAULTS.retryBaseMs, 1),
    retryMaxDelayMs: parseMs(env, 'CHECKD_NOTIFY_RETRY_MAX_MS', NOTIFY_DEFAULTS.retryMaxDelayMs, 1),
    giveUpAfterMs: parseMs(env, 'CHECKD_NOTIFY_GIVE_UP_MS', NOTIFY_DEFAULTS.giveUpAfterMs, 0),
    timeoutMs: parseMs(env, 'CHECKD_NOTIFY_TIMEOUT_MS', NOTIFY_DEFAULTS.timeoutMs, 1),
    shellTimeoutMs: parseMs(env, 'CHECKD_SHELL_TIMEOUT_MS', NOTIFY_DEFAULTS.shellTimeoutMs, 1),
    concurrency: NOTIFY_DEFAULTS.concurrency,
    integrations: resolveIntegrationSettings(opts, env),
  };
}
