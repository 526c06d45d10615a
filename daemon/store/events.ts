// The revisioned event log. Every write transaction appends here; the monitor,
// the gRPC Watch streams and the notifier read it with a cursor (a revision).
import type { Database, RootDatabase } from 'lmdb';
import type { CheckRecord, FlipRecord, HoldCause, PingKind } from '../domain/types.js';
import type { DueReminder } from '../domain/reminders.js';
import type { StorageReport } from '../domain/storage-alarm.js';

export type EventType =
  | 'check.created'
  | 'check.updated'
  | 'check.paused'
  | 'check.resumed'
  | 'check.deleted'
  | 'ping.received'
  | 'status.changed'
  | 'flip'
  | 'project.changed'
  | 'channel.changed'
  // The alert policies (alert-policies.md §7).
  | 'check.muted'
  | 'check.unmuted'
  | 'hold.changed'
  | 'notification.released'
  | 'window.changed'
  | 'window.opened'
  | 'window.closed'
  | 'reminder.due'
  // The storage alarm went on or off (domain/storage-alarm.ts): one per project.
  | 'storage.alarm';

/** A hold on a check's notifications ended (alert-policies §4, §5): what it released. */
export interface ReleaseInfo {
  /** The event told now, null when the channels already know the current status. */
  event: 'up' | 'down' | null;
  /** What held the notifications. */
  cause: HoldCause;
  /** With an event: the revision of the flip that set the status told (its `flip` is on the event). */
  flipRev?: number;
  /** With a dependency: the down check it waited for. */
  parent?: string;
}

export interface PingSummary {
  n: number;
  kind: PingKind;
  date: number;
  rid: string | null;
  duration: number | null;
  method: string;
  remoteAddr: string | null;
  /** Absent from events recorded before they were added. */
  ua?: string;
  bodySize?: number;
  exitStatus?: number | null;
}

export interface StoredEvent {
  rev: number;
  at: number;
  type: EventType;
  projectId: string;
  checkUuid: string | null;
  /**
   * The check as it is after this event (absent for deletions and non-check
   * events). A ping's ping.received and an import's check.created are stored
   * without it (a flip ping's flip event after it carries it); Store.eventsAfter
   * reads the check's record, as it is then, in its place.
   */
  check?: CheckRecord;
  ping?: PingSummary;
  flip?: FlipRecord;
  release?: ReleaseInfo;
  /** For window events: the maintenance window's id (alert-policies §4.2). */
  windowId?: string;
  /** For reminder.due: the channels reminded, each with the reminder's number (alert-policies §3). */
  reminders?: DueReminder[];
  /** For storage.alarm: the alarm as it went on or off. */
  storage?: StorageReport;
}

/** Where the event log lives in the environment (schema.ts `Db` has all of it). */
export interface EventLog {
  root: RootDatabase;
  /** Small values by name: the log's revision counter ('rev'), the schema version, the log id, the badge secret. */
  meta: Database<unknown, string>;
  /** revision → event */
  events: Database<StoredEvent, number>;
}

/** Current revision of the event log (0 when empty). */
export function currentRevision(log: EventLog): number {
  return (log.meta.get('rev') as number | undefined) ?? 0;
}

/** Events kept in the log: enough for a TUI that reconnects after a long SSH drop. */
export const EVENT_RETENTION = { maxEvents: 200_000, maxAgeMs: 7 * 24 * 3600 * 1000 };

/**
 * Append events. Must be called inside a write transaction: the revision
 * counter is read and bumped in the same transaction, so revisions are
 * gap-free and ordered even when several processes write; it is read and
 * written once for all of them (a bulk load appends thousands). Each event
 * object itself becomes the stored event (it is given its rev: callers hand
 * over fresh ones, and a copy per ping showed in the GC's work); it is also
 * pushed to `appended`, if given. Returns the last revision.
 */
export function appendEvents(db: EventLog, events: Array<Omit<StoredEvent, 'rev'>>, appended?: StoredEvent[]): number {
  let rev = currentRevision(db);
  for (const event of events) {
    const stored = event as StoredEvent;
    stored.rev = ++rev;
    db.events.put(rev, stored);
    appended?.push(stored);
  }
  db.meta.put('rev', rev);
  return rev;
}

/** appendEvents for one event: its revision. */
export function appendEvent(db: EventLog, event: Omit<StoredEvent, 'rev'>, appended?: StoredEvent[]): number {
  return appendEvents(db, [event], appended);
}

/** Events with revision > `after`, oldest first, at most `limit`. */
export function readEventsAfter(db: EventLog, after: number, limit = 1000): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const { value } of db.events.getRange({ start: after + 1, limit })) out.push(value);
  return out;
}

/** Oldest revision still in the log, or null when the log is empty. */
export function oldestRetainedRevision(db: EventLog): number | null {
  for (const { key } of db.events.getRange({ limit: 1 })) return key;
  return null;
}

/**
 * Drop events beyond the retention bounds, never past `keepAfter` (the oldest
 * cursor a durable consumer such as the notifier still needs). Returns how many
 * were removed; call repeatedly until 0 for a large backlog.
 */
export async function pruneEvents(db: EventLog, now: number, keepAfter = Infinity): Promise<number> {
  const latest = currentRevision(db);
  const lastByCount = Math.min(latest - EVENT_RETENTION.maxEvents, keepAfter);
  const batch = 10_000;
  // Past the count bound by their keys alone (no event decoded), then by age.
  const doomed: number[] = [];
  if (lastByCount >= 1) for (const key of db.events.getKeys({ end: lastByCount + 1, limit: batch })) doomed.push(key);
  if (doomed.length < batch) {
    for (const { key, value } of db.events.getRange({ start: (doomed.at(-1) ?? 0) + 1, limit: batch - doomed.length })) {
      if (key > keepAfter || value.at >= now - EVENT_RETENTION.maxAgeMs) break;
      doomed.push(key);
    }
  }
  if (doomed.length === 0) return 0;
  // Queued removes, not a transaction callback: LMDB's write thread does the
  // work, in the same commit as the writes beside them, and the main thread
  // only hands the keys over.
  let last: Promise<boolean> | undefined;
  for (const rev of doomed) last = db.events.remove(rev);
  await last;
  return doomed.length;
}
