// The service integrations checkd delivers to besides its own kinds (email,
// webhook, shell, slack, discord, ntfy): upstream's kind codes, and the module
// of each (spec/integrations.md, docs/notifications.md).
import type { ConfiguredChannel, KindModule } from './kind.js';
import { googlechat } from './googlechat.js';
import { gotify } from './gotify.js';
import { group } from './group.js';
import { matrix } from './matrix.js';
import { mattermost } from './mattermost.js';
import { msteamsw } from './msteamsw.js';
import { opsgenie } from './opsgenie.js';
import { pd } from './pd.js';
import { po } from './po.js';
import { rocketchat } from './rocketchat.js';
import { spike } from './spike.js';
import { telegram } from './telegram.js';
import { victorops } from './victorops.js';
import { zulip } from './zulip.js';

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

const MODULES: Record<IntegrationKind, KindModule> = {
  telegram,
  pd,
  opsgenie,
  po,
  gotify,
  mattermost,
  msteamsw,
  googlechat,
  matrix,
  zulip,
  rocketchat,
  victorops,
  spike,
  group,
};

export function isIntegrationKind(kind: string): kind is IntegrationKind {
  return Object.hasOwn(MODULES, kind);
}

/** The configured channel of a value; throws ValueError when the value is not one. */
export function parseIntegration(kind: IntegrationKind, value: string): ConfiguredChannel {
  return MODULES[kind].parse(value);
}

/** Whether a kind's messages list the project's other checks (worth reading them for). */
export function listsOtherChecks(kind: string): boolean {
  return isIntegrationKind(kind) && MODULES[kind].listsOtherChecks === true;
}
