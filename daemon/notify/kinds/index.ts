// The module that delivers each service integration (spec/integrations.md,
// docs/notifications.md), by upstream's kind code; the values are parsed by
// daemon/domain/integrations/.
import type { IntegrationKind, IntegrationSpec } from '../../domain/integrations/index.js';
import type { Notification } from '../message.js';
import type { DeliveryResult } from '../delivery.js';
import type { KindContext, KindModule } from './kind.js';
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

const MODULES: { readonly [K in IntegrationKind]: KindModule<K> } = {
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

/** Deliver a notification through a service integration's channel. */
export function deliverIntegration(spec: IntegrationSpec, n: Notification, ctx: KindContext): Promise<DeliveryResult> {
  // The module is the one of spec.kind, which TypeScript cannot pair up by itself.
  return (MODULES[spec.kind] as KindModule<IntegrationKind>).deliver(spec, n, ctx);
}

/** Whether a kind's messages list the project's other checks (worth reading them for). */
export function listsOtherChecks(kind: string): boolean {
  return Object.hasOwn(MODULES, kind) && MODULES[kind as IntegrationKind].listsOtherChecks === true;
}
