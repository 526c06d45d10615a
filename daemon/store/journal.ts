// The ping journal: how a ping becomes durable cheaply.
//
// A ping's transaction appends two records at the end of two ordered logs:
// its event, and the ping itself in the ping log (ping-log.ts), where it
// stays. It does not rewrite its check's record, which sits on a random
// B-tree page: the pings recorded after the revision the checks are current
// with (meta 'appliedRev') are the journal, and they are written into the
// checks about once a second (applyJournal), each check once with its newest
// state. Every write transaction other than a ping's applies the journal
// first, so it reads and changes current records; readers see the checks not
// yet written through PendingPings. A ping's effect on its check is a pure
// function of the check and the ping (applySignal), so the check after a
// journaled ping is worked out again, from the stored record and the pings
// journaled before it, when the journal is read.
import { currentRevision } from './events.js';
import { asEncoded, encoderOf, type Db, type PingKey, type StoredPing } from './schema.js';
import { noteNewestPing, sweepPings, unlinked, writable } from './ping-log.js';
import { applySignal } from '../domain/status.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

/** The revision the checks are current with: every ping up to it is in its check's record. */
export function appliedRevision(db: Db): number {
  return (db.meta.get('appliedRev') as number | undefined) ?? 0;
}

/** Inside a write transaction: the checks are current with revision `rev`. */
export function markApplied(db: Db, rev: number): void {
  db.meta.put('appliedRev', rev);
}

type Entries = ReadonlyArray<{ key: PingKey; value: StoredPing }>;

/** The journal as the current reader sees it, oldest first. */
function journalEntries(db: Db): Entries {
  return db.pings ? [...db.pings.getRange({ start: [appliedRevision(db) + 1] })] : [];
}

/** The check after a journaled ping, given the check before it (undefined: deleted since). */
function checkAfter(key: PingKey, ping: PingRecord, before: CheckRecord | undefined): CheckRecord | undefined {
  if (!before) return undefined;
  // What the ping path made of the check before (pings.ts).
  const after = applySignal(before, { kind: ping.kind, rid: ping.rid, now: ping.date }).check;
  noteNewestPing(after, key[0]);
  return after;
}

/**
 * Entries are read oldest first: this gives the check after each, carried
 * through a check's entries from its stored record.
 */
function checksAfterEntries(db: Db): (key: PingKey, ping: PingRecord) => CheckRecord | undefined {
  const current = new Map<string, CheckRecord | undefined>();
  return (key, ping) => {
    const after = checkAfter(key, ping, current.has(key[1]) ? current.get(key[1]) : db.checks.get(key[1]));
    current.set(key[1], after);
    return after;
  };
}

/** Each check with entries (read oldest first), and its record after the newest of them (undefined: gone). */
function checksAfter(db: Db, entries: Entries): Map<string, CheckRecord | undefined> {
  const out = new Map<string, CheckRecord | undefined>();
  const checkAfterEntry = checksAfterEntries(db);
  for (const { key, value } of entries) out.set(key[1], checkAfterEntry(key, value));
  return out;
}

/** Is the ping (rev, uuid, n) committed, as the current reader sees it, and not yet in its check's record? */
export function isJournaled(db: Db, rev: number, uuid: string, n: number): boolean {
  return rev > appliedRevision(db) && (db.pings?.doesExist([rev, uuid, n]) ?? false);
}

/** Journaled pings, oldest first, each with its check as it is after it. */
export function* readJournal(db: Db): Iterable<{ rev: number; uuid: string; check: CheckRecord; ping: PingRecord }> {
  const checkAfterEntry = checksAfterEntries(db);
  for (const { key, value } of journalEntries(db)) {
    const check = checkAfterEntry(key, value);
    if (check) yield { rev: key[0], uuid: key[1], check, ping: unlinked(value) };
  }
}

/** The oldest revision still in the journal, null when it is empty. */
export function oldestJournaledRevision(db: Db): number | null {
  for (const key of db.pings?.getKeys({ start: [appliedRevision(db) + 1], limit: 1 }) ?? []) return key[0];
  return null;
}

/**
 * The oldest entries that an apply writing at most `maxBytes` can take (all
 * of them when undefined): a check record rewritten costs about 1 KiB. None
 * when not even the oldest fits.
 */
function budgeted(entries: Entries, maxBytes: number | undefined): Entries {
  if (maxBytes === undefined) return entries;
  return entries.slice(0, Math.floor(maxBytes / APPLY_BYTES_PER_PING));
}

/** About what applying one journaled ping writes: its check's record, once. */
export const APPLY_BYTES_PER_PING = 1024;

/** What applying the journal as read at one moment writes, worked out before the write lock is taken. */
export interface PreparedApply {
  /** The revision the checks were current with when it was read: unchanged at write time means it still holds. */
  from: number;
  /** The revision the checks are current with once it is written. */
  upTo: number;
  /** Each check's newest record, in the database's own encoding. */
  checks: Array<[string, Uint8Array]>;
  /** Pings that fell out of their window (ping-log.ts sweepPings). */
  dropPings: PingKey[];
}

/**
 * Work out, from committed data, what writing these entries into the checks
 * takes: each check's newest record, encoded, and the pings the sweep of the
 * log finds out of their window.
 */
function prepareApply(db: Db, from: number, entries: Entries, sweep: boolean): PreparedApply {
  const upTo = entries.length === 0 ? from : entries[entries.length - 1]!.key[0];
  const prepared: PreparedApply = { from, upTo, checks: [], dropPings: [] };
  const encodeCheck = encoderOf(db.checks);
  const after = checksAfter(db, entries);
  for (const [uuid, check] of after) {
    // Undefined for a check gone from the records read (deleting one applies
    // the journal first, so only a stray ping can): it must not come back.
    if (check) prepared.checks.push([uuid, encodeCheck.encode(check)]);
  }
  if (!sweep) return prepared;
  const known = new Map<string, CheckRecord | undefined>();
  prepared.dropPings = sweepPings(db, upTo, (uuid) => {
    if (after.has(uuid)) return after.get(uuid);
    if (!known.has(uuid)) known.set(uuid, db.checks.get(uuid));
    return known.get(uuid);
  });
  return prepared;
}

/**
 * Read the journal as it is now and prepare its apply (prepareApply), of its
 * oldest `maxBytes` worth when given; null when there is nothing to write.
 */
export function prepareJournalApply(db: Db, maxBytes?: number): PreparedApply | null {
  db.root.resetReadTxn();
  const from = appliedRevision(db);
  const all = journalEntries(db);
  const entries = budgeted(all, maxBytes);
  if (entries.length === 0 && all.length > 0) return null;
  const prepared = prepareApply(db, from, entries, true);
  return prepared.checks.length === 0 && prepared.dropPings.length === 0 && prepared.upTo === from ? null : prepared;
}

/**
 * Inside a write transaction: apply the journal, or its oldest `maxBytes`
 * worth when given; with `sweep`, also drop the pings the next sweep of the
 * log finds out of their window (a bounded piece of work, left to the journal
 * writer's applies). Returns the revision the checks are then current with.
 */
export function applyJournal(db: Db, opts: { sweep?: boolean; maxBytes?: number } = {}): number {
  const all = journalEntries(db);
  const entries = budgeted(all, opts.maxBytes);
  const sweep = (opts.sweep ?? false) && entries.length === all.length;
  if (entries.length > 0 || sweep) writePrepared(db, prepareApply(db, appliedRevision(db), entries, sweep));
  if (entries.length === all.length) return currentRevision(db);
  return entries.length === 0 ? all[0]!.key[0] - 1 : entries[entries.length - 1]!.key[0];
}

/** lmdb-js transactionSync flags: its default (3), plus LMDB's MDB_NOSYNC. */
const SYNC_TXN_OVERLAPPED = 3 | 0x10000;

/**
 * Write a prepared apply in one synchronous transaction on the calling thread
 * (the journal worker, which has nothing else to do meanwhile). If another
 * writer applied the journal since it was read (any transaction but a plain
 * ping's does), the preparation is stale, and the journal is applied afresh
 * inside the transaction instead. The commit releases the write lock before
 * its fsync, which the overlapping sync of the environment does on this thread
 * before returning: on return the checks are durable. Returns the revision
 * they are current with.
 */
export function writePreparedApply(db: Db, prepared: PreparedApply): number {
  return db.root.transactionSync(() => {
    if (appliedRevision(db) !== prepared.from) return applyJournal(db, { sweep: true });
    writePrepared(db, prepared);
    return prepared.upTo;
  }, SYNC_TXN_OVERLAPPED) as number;
}

/** The writes of a prepared apply, inside a write transaction. */
function writePrepared(db: Db, prepared: PreparedApply): void {
  for (const [uuid, bytes] of prepared.checks) db.checks.put(uuid, asEncoded<CheckRecord>(bytes));
  for (const key of prepared.dropPings) writable(db).remove(key);
  if (prepared.upTo !== prepared.from) markApplied(db, prepared.upTo);
}

/**
 * Apply the journal from the journal worker. The reading and encoding happen
 * before LMDB's write lock is taken, so the transaction only writes prepared
 * bytes, and the pings that commit behind it wait several times less.
 * Returns the revision the checks are current with.
 */
export function applyJournalSync(db: Db, maxBytes?: number): number {
  const prepared = prepareJournalApply(db, maxBytes);
  if (prepared !== null) return writePreparedApply(db, prepared);
  // Nothing written: the checks are current up to the oldest ping left, if any.
  const oldest = oldestJournaledRevision(db);
  return oldest === null ? currentRevision(db) : oldest - 1;
}
