// The shape every service integration (daemon/notify/kinds/<kind>.ts) has: it
// delivers a notification to its channel's parsed value (daemon/domain/
// integrations/) through what the context gives it (an HTTP function, the
// daemon's integration settings, rate-limit buckets, the time). A kind module
// does no I/O of its own, so its request building and answer reading are pure
// and tested as they are.
import type { IntegrationSettings } from '../../config/integrations.js';
import type { IntegrationKind, IntegrationSpec } from '../../domain/integrations/index.js';
import type { Notification } from '../message.js';
import type { Throttle } from '../throttle.js';
import type { DeliveryResult, HttpCall, HttpOutcome } from '../delivery.js';

/** Delivers a group's notification to its members, each through its own channel. */
export type FanOut = (memberIds: readonly string[]) => Promise<DeliveryResult>;

export interface KindContext {
  settings: IntegrationSettings;
  /** One HTTP request (redirects, timeout, the private-address rule), no retries. */
  http(call: HttpCall): Promise<HttpOutcome>;
  throttle: Throttle;
  now: number;
  fanOut?: FanOut;
}

export interface KindModule<K extends IntegrationKind> {
  /** Upstream's code, which `GET /api/v3/channels/` shows as `kind`. */
  readonly kind: K;
  deliver(spec: Extract<IntegrationSpec, { kind: K }>, n: Notification, ctx: KindContext): Promise<DeliveryResult>;
  /** Its messages list the project's other checks that are down (Notification.others). */
  readonly listsOtherChecks?: boolean;
}
