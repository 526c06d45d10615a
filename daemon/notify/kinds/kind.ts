// The shape every service integration (daemon/notify/kinds/<kind>.ts) has: it
// parses its channel's `--value` into a configured channel, which knows the
// events it ignores and delivers a notification through what the context
// gives it (an HTTP function, the daemon's integration settings, rate-limit
// buckets, the time). A kind module does no I/O of its own, so its request
// building and answer reading are pure and tested as they are.
import type { IntegrationSettings } from '../../config/integrations.js';
import type { NotifyEventName } from '../../domain/channel-values.js';
import type { Notification } from '../message.js';
import type { Throttle } from '../throttle.js';
import type { DeliveryResult, HttpCall, HttpOutcome } from '../transports.js';

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

export interface ConfiguredChannel {
  /** This channel is set to ignore the event: no delivery, no record. */
  isNoop(event: NotifyEventName): boolean;
  deliver(n: Notification, ctx: KindContext): Promise<DeliveryResult>;
}

export interface KindModule {
  /** Upstream's code, which `GET /api/v3/channels/` shows as `kind`. */
  readonly kind: string;
  /** Throws ValueError (domain/value-rules.ts) with the reason a value is refused. */
  parse(value: string): ConfiguredChannel;
  /** Its messages list the project's other checks that are down (Notification.others). */
  readonly listsOtherChecks?: boolean;
}
