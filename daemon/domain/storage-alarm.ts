// The storage alarm's rules: when checkd stops taking the writes that grow its
// database (pings, API writes), and when it takes them again. Pure: the
// readings come from daemon/store/storage-watch.ts, which looks at the disk.
//
// Two limits raise it: free space on the data dir's file system below the
// reserve (kept for what must still be written: flips, notifications, the
// ping journal's moves), and the data in the database at its quota. Each
// clears only once the reading is back past its limit by a margin, so that a
// disk hovering at the limit does not raise and clear the alarm (and notify
// every channel) again and again.
import { sizeText } from './text-values.js';

export type StorageCause = 'free_space' | 'quota';

export interface StorageLimits {
  /** Free bytes to keep on the data dir's file system; 0: no free-space alarm. */
  reserveBytes: number;
  /** Most bytes the database may hold; null: no quota. */
  quotaBytes: number | null;
}

export interface StorageReading {
  /** Bytes free for unprivileged writers on the data dir's file system; null: unknown. */
  freeBytes: number | null;
  /** Bytes of the database's pages in use (what a compacted copy would take); null: unknown. */
  usedBytes: number | null;
}

export interface StorageAlarm {
  active: boolean;
  /** Why it is on; null when off. */
  cause: StorageCause | null;
  /** When it went on (epoch ms); null when off. */
  since: number | null;
}

export const ALARM_OFF: StorageAlarm = Object.freeze({ active: false, cause: null, since: null });

/** Free space that clears a free-space alarm: the reserve and half of it again. */
export function freeToClear(limits: StorageLimits): number {
  return limits.reserveBytes + Math.floor(limits.reserveBytes / 2);
}

/**
 * Data that clears a quota alarm: a twentieth below the quota, and at least
 * a MiB (half of a smaller quota), more than the writes under way that a
 * look counts.
 */
export function usedToClear(quotaBytes: number): number {
  const margin = Math.max(Math.ceil(quotaBytes / 20), Math.min(1024 * 1024, Math.ceil(quotaBytes / 2)));
  return quotaBytes - margin;
}

/** The limit the reading is past now (free space first), or null. */
export function crossedLimit(reading: StorageReading, limits: StorageLimits): StorageCause | null {
  if (reading.freeBytes !== null && reading.freeBytes < limits.reserveBytes) return 'free_space';
  if (reading.usedBytes !== null && limits.quotaBytes !== null && reading.usedBytes >= limits.quotaBytes) return 'quota';
  return null;
}

/** The limits an alarm that is on is not yet clear of; an unknown reading holds its own cause. */
function heldBy(reading: StorageReading, limits: StorageLimits, current: StorageCause | null): StorageCause[] {
  const held: StorageCause[] = [];
  const free = reading.freeBytes;
  if (free === null ? current === 'free_space' : free < freeToClear(limits)) held.push('free_space');
  const used = reading.usedBytes;
  if (limits.quotaBytes !== null && (used === null ? current === 'quota' : used > usedToClear(limits.quotaBytes))) held.push('quota');
  return held;
}

export type AlarmChange = 'raised' | 'cleared' | null;

/** The alarm after a reading at `now`, and whether that raised or cleared it. */
export function nextAlarm(
  current: StorageAlarm,
  reading: StorageReading,
  limits: StorageLimits,
  now: number,
): { alarm: StorageAlarm; change: AlarmChange } {
  const crossed = crossedLimit(reading, limits);
  if (!current.active) {
    return crossed === null ? { alarm: current, change: null } : { alarm: { active: true, cause: crossed, since: now }, change: 'raised' };
  }
  const held = heldBy(reading, limits, current.cause);
  if (held.length === 0) return { alarm: ALARM_OFF, change: 'cleared' };
  const cause = crossed ?? (current.cause !== null && held.includes(current.cause) ? current.cause : held[0]!);
  return { alarm: cause === current.cause ? current : { ...current, cause }, change: null };
}

/**
 * What a write is counted as, before the disk is looked at again: a ping is
 * written into the journal with its event, then moved into the ping log.
 */
export function writeCost(bodyBytes: number): number {
  return 3 * (bodyBytes + 1024);
}

/**
 * Whether the writes counted since the last reading may have crossed a limit:
 * time to look again. Also after a quarter of the reserve whatever the last
 * reading said, since something else may have filled the disk meanwhile.
 */
export function mayHaveCrossed(reading: StorageReading, admittedBytes: number, limits: StorageLimits): boolean {
  if (limits.reserveBytes > 0 && admittedBytes >= limits.reserveBytes / 4) return true;
  if (reading.freeBytes !== null && reading.freeBytes - admittedBytes < limits.reserveBytes) return true;
  return reading.usedBytes !== null && limits.quotaBytes !== null && reading.usedBytes + admittedBytes >= limits.quotaBytes;
}

/** Room left after a move of the ping journal, for a flip and its notifications. */
const MOVE_MARGIN = 1024 * 1024;

/** The reading once writes of about `bytes` (writeCost) have landed: a look counts the writes under way. */
export function afterWrites(reading: StorageReading, bytes: number): StorageReading {
  return {
    freeBytes: reading.freeBytes === null ? null : reading.freeBytes - bytes,
    usedBytes: reading.usedBytes === null ? null : reading.usedBytes + bytes,
  };
}

/**
 * How much of the ping journal may be written into the checks at once, given
 * the room LMDB can write into (free space, and data.mdb's pages past its
 * last one in use): null for all of it; otherwise a budget of bytes (0:
 * none). The check records an apply rewrites go to new pages before the old
 * ones are freed, so an apply needs about its size again, and one that does
 * not fit would fail only after taking the last free bytes. In parts, each
 * part frees its old pages for the next to reuse.
 */
export function journalMoveBudget(roomBytes: number | null, journalBytes: number): number | null {
  if (roomBytes === null || roomBytes >= 2 * journalBytes + MOVE_MARGIN) return null;
  return Math.max(0, Math.floor((roomBytes - MOVE_MARGIN) / 2));
}

/** One sentence for the log and the notifications: why the alarm is on, with the figures. */
export function alarmReason(cause: StorageCause, reading: StorageReading, limits: StorageLimits): string {
  if (cause === 'quota') {
    const used = reading.usedBytes === null ? 'its' : sizeText(reading.usedBytes);
    return `the database holds ${used} of data, at its quota of ${sizeText(limits.quotaBytes ?? 0)}: checkd refuses pings and API writes until it is below ${sizeText(usedToClear(limits.quotaBytes ?? 0))}`;
  }
  const free = reading.freeBytes === null ? 'little space' : sizeText(reading.freeBytes);
  return `${free} free on the data dir's file system, below the reserve of ${sizeText(limits.reserveBytes)}: checkd refuses pings and API writes until ${sizeText(freeToClear(limits))} are free`;
}

/** One sentence for the log and the notifications when the alarm clears. */
export function clearedReason(reading: StorageReading): string {
  const parts: string[] = [];
  if (reading.freeBytes !== null) parts.push(`${sizeText(reading.freeBytes)} free`);
  if (reading.usedBytes !== null) parts.push(`${sizeText(reading.usedBytes)} of data`);
  return `storage is back within its limits${parts.length > 0 ? ` (${parts.join(', ')})` : ''}: checkd takes pings and API writes again`;
}

/** What a refused client is told: why, without paths or figures (those are in the log). */
export function refusalText(cause: StorageCause): string {
  return cause === 'quota'
    ? "storage unavailable: the server's storage quota is used up, try again later"
    : 'storage unavailable: the server is low on disk space, try again later';
}

/** The alarm with what it was decided on: what the log, gRPC and the notifications tell. */
export interface StorageReport extends StorageAlarm, StorageReading, StorageLimits {
  /** Why it is on, or, in the event that clears it, that it cleared; "" otherwise. */
  reason: string;
}

/** The report of `alarm` as decided on `reading`; a cleared one says so when `cleared`. */
export function storageReport(alarm: StorageAlarm, reading: StorageReading, limits: StorageLimits, cleared = false): StorageReport {
  const reason = alarm.active && alarm.cause ? alarmReason(alarm.cause, reading, limits) : cleared ? clearedReason(reading) : '';
  return { ...alarm, ...reading, ...limits, reason };
}
