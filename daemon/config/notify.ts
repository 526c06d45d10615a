// Settings of the notifier: SMTP, the shell switch, delivery timings and the
// service integrations,
// resolved from the table in settings.ts (flags win over env vars, env vars
// over defaults); validated before anything is opened (a bad value is a usage
// error, exit 2).
import { hostname } from 'node:os';
import { NOTIFY_SETTINGS, resolveSettings, type NotifySettingValues, type RawSettings } from './settings.js';
import { parseFromAddress } from './values.js';
import { resolveIntegrationSettings, type IntegrationSettings } from './integrations.js';

export interface SmtpConfig {
  /** smtp://user:pass@host:port or smtps://...; holds a password: never log it. */
  url: string;
  from: string;
}

export interface NotifyConfig extends Omit<NotifySettingValues, 'smtpUrl' | 'smtpFrom'> {
  smtp: SmtpConfig | null;
  /** Deliveries in flight at once (each channel has at most one). */
  concurrency: number;
  /** Secrets and API addresses of the service integrations (telegram, po, matrix, ...). */
  integrations: IntegrationSettings;
}

const DELIVERY_CONCURRENCY = 16;

/** The flags of the notifier as commander hands them over (settings.ts). */
export type RawNotifyOptions = RawSettings;

export function resolveNotifyConfig(opts: RawNotifyOptions, env: NodeJS.ProcessEnv): NotifyConfig {
  const { smtpUrl, smtpFrom, ...rest } = resolveSettings(NOTIFY_SETTINGS, opts, env);
  const smtp =
    smtpUrl === null ? null : { url: smtpUrl, from: smtpFrom ?? parseFromAddress(`checkd@${hostname()}`, '--smtp-from (default)')! };
  return { smtp, ...rest, concurrency: DELIVERY_CONCURRENCY, integrations: resolveIntegrationSettings(opts, env) };
}

/** The notifier's settings when nothing is set. */
export const NOTIFY_DEFAULTS: NotifyConfig = resolveNotifyConfig({}, {});
