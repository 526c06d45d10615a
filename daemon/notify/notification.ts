// The facts of one notification, shared by the modules that render it.
import type { CheckRecord, FlipRecord, HoldCause, LastPingInfo } from '../domain/types.js';
import type { NotifyEventName } from '../domain/channel-values.js';
import type { StorageReport } from '../domain/storage-alarm.js';

export interface PolicyFacts {
  /** 1, 2, … for a reminder while the check stays down. */
  reminder?: number;
  /** For a reminder: when it was made (the time down is counted to it). */
  remindedAt?: number;
  /** The down flip's instant, for reminders and released notifications. */
  downSince?: number;
  /** Held until now: by what (alert-policies §4, §5). */
  released?: HoldCause;
  /** Held by a dependency: the name of the check it waited for. */
  parentName?: string;
}

export interface Notification {
  event: NotifyEventName;
  /** The check as it was when it flipped. */
  check: CheckRecord;
  flip: FlipRecord;
  lastPing: LastPingInfo | null;
  /** For up events: time since the previous flip, when that flip went down. */
  downtimeMs: number | null;
  /** What the alert policies add (alert-policies.md §6); absent for a plain flip. */
  policy?: PolicyFacts;
  projectName: string;
  /** `$JSON`: the check's API v3 representation, made when the notification is sent. */
  checkJson: string;
  /** The storage alarm went on ("down") or off ("up"): `check` is made up (notify/storage-alarm.ts). */
  storage?: StorageReport;
  /** A `checkd channel test` message, not a real flip. */
  test: boolean;
  /** The same on every attempt of this delivery, restarts included (ids.ts deliveryIdOf): receivers drop repeats by it. */
  deliveryId: string;
  /** When this attempt is made: "10 minutes ago" in messages is counted from here. Default: the flip. */
  sentAt?: number;
  /** The project's other checks at send time, for the kinds that list those still down. */
  others?: OtherChecks;
}

/** The other checks of the check's project, as some messages list them. */
export interface OtherChecks {
  /** How many other checks the project has. */
  total: number;
  /** Those that are down, sorted by name. */
  down: Array<{ name: string; lastPing: number | null }>;
}
