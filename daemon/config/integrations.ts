// Daemon-level settings of the service integrations (docs/notifications.md),
// resolved from their rows in settings.ts: the secrets that belong to the
// daemon rather than to a channel (a Telegram bot, a Pushover application, a
// Matrix account), how checkd names itself in messages, and the API address
// of each hosted service.
import { INTEGRATION_SETTINGS, resolveSettings, type RawSettings } from './settings.js';
import { ConfigError } from './values.js';

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
  /** Seconds between repeats of an emergency-priority Pushover message. */
  pushoverEmergencyRetryS: number;
  /** Seconds an emergency-priority Pushover message keeps repeating. */
  pushoverEmergencyExpireS: number;
  /** Both null or both set; null: matrix deliveries fail with "Matrix notifications are not enabled." */
  matrixHomeserver: string | null;
  /** Secret. */
  matrixAccessToken: string | null;
  apiUrls: ServiceApiUrls;
}

export function resolveIntegrationSettings(opts: RawSettings, env: NodeJS.ProcessEnv): IntegrationSettings {
  const v = resolveSettings(INTEGRATION_SETTINGS, opts, env);
  if ((v.matrixHomeserver === null) !== (v.matrixAccessToken === null)) {
    const { matrixHomeserver: hs, matrixAccessToken: token } = INTEGRATION_SETTINGS;
    throw new ConfigError(`Matrix needs both ${hs.flag} and ${token.flag} (or ${hs.env} and ${token.env})`);
  }
  return {
    siteName: v.siteName,
    siteLogoUrl: v.siteLogoUrl,
    telegramBotToken: v.telegramBotToken,
    pushoverAppToken: v.pushoverAppToken,
    pushoverEmergencyRetryS: v.pushoverEmergencyRetry,
    pushoverEmergencyExpireS: v.pushoverEmergencyExpire,
    matrixHomeserver: v.matrixHomeserver,
    matrixAccessToken: v.matrixAccessToken,
    apiUrls: {
      telegram: v.telegramApiUrl,
      pagerduty: v.pagerdutyApiUrl,
      opsgenie: v.opsgenieApiUrl,
      opsgenieEu: v.opsgenieEuApiUrl,
      pushover: v.pushoverApiUrl,
    },
  };
}

/** The integrations' settings when nothing is set. */
export const INTEGRATION_DEFAULTS: IntegrationSettings = resolveIntegrationSettings({}, {});
