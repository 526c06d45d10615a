// The service integrations checkd delivers to besides its own kinds (email,
// webhook, shell, slack, discord, ntfy), under upstream's kind codes, and
// their `--value` formats parsed into what the notifier delivers with
// (spec/integrations.md, docs/notifications.md). Pure: no I/O.
import { httpUrlValue } from '../value-rules.js';
import { parseGotifyValue, type GotifyConf } from './gotify.js';
import { parseGroupValue } from './group.js';
import { parseMatrixValue } from './matrix.js';
import { parseMattermostValue } from './mattermost.js';
import { parseOpsgenieValue, type OpsgenieConf } from './opsgenie.js';
import { parsePdValue } from './pd.js';
import { parsePoValue, type PoConf } from './po.js';
import { parseTelegramValue, type TelegramConf } from './telegram.js';
import { parseZulipValue, type ZulipConf } from './zulip.js';

export const INTEGRATION_KINDS = [
  'telegram',
  'pd',
  'opsgenie',
  'po',
  'gotify',
  'mattermost',
  'msteamsw',
  'googlechat',
  'matrix',
  'zulip',
  'rocketchat',
  'victorops',
  'spike',
  'group',
] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** The kinds whose value is one webhook URL, with what the URL is (for the error). */
const WEBHOOK_URL_KINDS = {
  msteamsw: 'the Workflows webhook',
  googlechat: 'the space webhook',
  rocketchat: 'the incoming webhook',
  victorops: 'the REST endpoint with its routing key',
  spike: 'the webhook of a "Healthchecks" integration',
} as const;
type WebhookUrlKind = keyof typeof WEBHOOK_URL_KINDS;

/** A service integration's channel value, parsed. */
export type IntegrationSpec =
  | ({ kind: 'telegram' } & TelegramConf)
  | { kind: 'pd'; routingKey: string }
  | ({ kind: 'opsgenie' } & OpsgenieConf)
  | ({ kind: 'po' } & PoConf)
  | ({ kind: 'gotify' } & GotifyConf)
  | { kind: 'mattermost' | WebhookUrlKind; url: string }
  | { kind: 'matrix'; roomId: string }
  | ({ kind: 'zulip' } & ZulipConf)
  | { kind: 'group'; memberIds: string[] };

export function isIntegrationKind(kind: string): kind is IntegrationKind {
  return (INTEGRATION_KINDS as readonly string[]).includes(kind);
}

/** The parsed value of a service integration; throws ValueError (value-rules.ts) when it is not one. */
export function parseIntegrationValue(kind: IntegrationKind, value: string): IntegrationSpec {
  switch (kind) {
    case 'telegram':
      return { kind, ...parseTelegramValue(value) };
    case 'pd':
      return { kind, routingKey: parsePdValue(value) };
    case 'opsgenie':
      return { kind, ...parseOpsgenieValue(value) };
    case 'po':
      return { kind, ...parsePoValue(value) };
    case 'gotify':
      return { kind, ...parseGotifyValue(value) };
    case 'mattermost':
      return { kind, url: parseMattermostValue(value) };
    case 'matrix':
      return { kind, roomId: parseMatrixValue(value) };
    case 'zulip':
      return { kind, ...parseZulipValue(value) };
    case 'group':
      return { kind, memberIds: parseGroupValue(value) };
    default:
      return { kind, url: httpUrlValue(kind, value, WEBHOOK_URL_KINDS[kind]) };
  }
}
