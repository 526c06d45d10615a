// The ping journal: how a ping becomes durable cheaply.
//
// A ping's transaction appends two records at the end of two ordered logs
// (its event and this journal entry) instead of rewriting the check's record
// and inserting into the per-check ping log, which touch a random B-tree page
// each. The journal entries are written into those B-trees later, many at a
// time (`applyJournal`): each page is then written once per batch instead of
// once per ping. Every write transaction other than a ping's applies the
// journal first, so it always reads and changes current records; readers see
// the entries not yet applied through PendingPings. Neither an entry nor the
// ping's event holds the check: a ping's effect on its check is a pure
// function of the check and the ping (applySignal), so the check after a
// journaled ping is worked out again, from the stored record and the pings
// journaled before it, when the journal is read. A ping encodes no check.
import { currentRevision } from './events.js';
import { asEncoded, encoderOf, forWriting, type Db, type JournalEntry } from './schema.js';
import { insertPing, pingLogLimitOf } from './ping-log.js';
import { applySignal } from '../domain/status.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

/**
 * Every journal entry is stored with this version, so that a write can be made
 * conditional on an entry still being there (lmdb-js `ifVersion`).
 */
const ENTRY_VERSION = 1;

type JournalKey = [number, string];

/** The journal of an environment opened for writing, where openDb always creates it. */
const writable = (db: Db) => forWriting(db.journal, 'the ping journal');

/** Inside a write transaction: journal a ping recorded at revision `rev`. */
export function journalPing(db: Db, rev: number, uuid: string, ping: PingRecord): void {
  writable(db).put([rev, uuid], { ping, replay: true }, ENTRY_VERSION);
}

/**
 * The check after an entry's ping, given the check before it (the stored
 * record for a check's oldest entry): worked out again, or, for an entry
 * an older version wrote, from the entry or the ping's event (the event log
 * keeps every event the journal still needs, Store.pruneEvents). Undefined
 * for a check deleted since.
 */
function checkAfter(db: Db, key: JournalKey, stored: JournalEntry, before: CheckRecord | undefined): CheckRecord | undefined {
  // What the ping path made of the check before (pings.ts).
  if (stored.replay) return before && applySignal(before, { kind: stored.ping.kind, rid: stored.ping.rid, now: stored.ping.date }).check;
  return stored.check ?? db.events.get(key[0])?.check ?? db.checks.get(key[1]);
}

/** Entries are read oldest first: this gives the check after each, carried through a check's entries from its stored record. */
function checksAfterEntries(db: Db): (key: JournalKey, stored: JournalEntry) => CheckRecord | undefined {
  const current = new Map<string, CheckRecord | undefined>();
  return (key, stored) => {
    const after = checkAfter(db, key, stored, current.has(key[1]) ? current.get(key[1]) : db.checks.get(key[1]));
    current.set(key[1], after);
    return after;
  };
}

type Entries = ReadonlyArray<{ key: JournalKey; value: JournalEntry }>;

/** One check's journaled pings, oldest first, and its record after the newest of them (undefined: gone). */
interface CheckPings {
  check: CheckRecord | undefined;
  pings: PingRecord[];
}

/** Entries (oldest first) by check, with each check's record after its newest entry. */
function byCheck(db: Db, entries: Entries): Map<string, CheckPings> {
  const out = new Map<string, CheckPings>();
  const checkAfterEntry = checksAfterEntries(db);
  for (const { key, value } of entries) {
    let seen = out.get(key[1]);
    if (!seen) out.set(key[1], (seen = { check: undefined, pings: [] }));
    seen.check = checkAfterEntry(key, value);
    seen.pings.push(value.ping);
  }
  return out;
}

/** Is the journal entry of (rev, uuid) visible to the current reader? */
export function isJournaled(db: Db, rev: number, uuid: string): boolean {
  return db.journal?.doesExist([rev, uuid]) ?? false;
}

/** Journal entries, oldest first. */
export function* readJournal(db: Db): Iterable<{ rev: number; uuid: string; check: CheckRecord; ping: PingRecord }> {
  if (!db.journal) return;
  const checkAfterEntry = checksAfterEntries(db);
  for (const { key, value } of db.journal.getRange()) {
    const check = checkAfterEntry(key, value);
    if (check) yield { rev: key[0], uuid: key[1], check, ping: value.ping };
  }
}

/** The oldest revision still in the journal, null when it is empty. */
export function oldestJournaledRevision(db: Db): number | null {
  for (const key of db.journal?.getKeys({ limit: 1 }) ?? []) return key[0];
  return null;
}

/** The journal as a fresh read snapshot sees it, oldest first. */
function currentEntries(db: Db): Entries {
  db.root.resetReadTxn();
  return [...writable(db).getRange()];
}

/** The ping log limit of a check's project, read once per project. */
function pingLogLimits(db: Db): (check: CheckRecord) => number {
  const keepOf = new Map<string, number>();
  return (check) => {
    let keep = keepOf.get(check.projectId);
    if (keep === undefined) keepOf.set(check.projectId, (keep = pingLogLimitOf(db, check)));
    return keep;
  };
}

/**
 * Deleting a check applies the journal first, so a journal entry of a deleted
 * check cannot happen; this guard keeps a stray one from bringing it back.
 */
const checkIsGone = (db: Db, uuid: string): boolean => !db.checks.doesExist(uuid);

/**
 * Write journal entries (oldest first) into the checks and pings B-trees and
 * drop them from the journal: each check's record once, with its newest state.
 */
function writeEntries(db: Db, entries: Entries): void {
  const keepOf = pingLogLimits(db);
  for (const [uuid, { check, pings }] of byCheck(db, entries)) {
    if (!check || checkIsGone(db, uuid)) continue;
    for (const ping of pings) insertPing(db, check, ping, keepOf(check));
    db.checks.put(uuid, check);
  }
  for (const { key } of entries) writable(db).remove(key);
}

/**
 * Inside a write transaction: apply the whole journal. Returns the revision
 * the B-trees are current with.
 */
export function applyJournal(db: Db): number {
  writeEntries(db, [...writable(db).getRange()]);
  return currentRevision(db);
}

/**
 * The oldest entries whose pings take at most `maxBytes` together (all of
 * them when undefined): a move of the journal on a disk with little room left
 * goes in parts, each one's journal pages freed for the next to reuse. None
 * when not even the oldest fits.
 */
function budgeted(entries: Entries, maxBytes: number | undefined): Entries {
  if (maxBytes === undefined) return entries;
  let total = 0;
  let n = 0;
  while (n < entries.length) {
    total += (entries[n]!.value.ping.body?.length ?? 0) + 1024;
    if (total > maxBytes) break;
    n++;
  }
  return n === entries.length ? entries : entries.slice(0, n);
}

/**
 * Apply the journal as it is now with queued (asynchronous) writes, so that
 * the write lock is held only while LMDB itself runs them: the reads and the
 * encoding happen on the calling thread first (prepareApply, as the journal
 * worker does). The writes are conditional on the newest entry read still
 * being in the journal: if another writer applied the journal meanwhile (any
 * transaction does), they are skipped. Resolves with the revision the B-trees
 * are then current with. With `maxBytes`, only the oldest entries that fit in
 * it are moved (budgeted).
 */
export async function applyJournalQueued(db: Db, maxBytes?: number): Promise<number> {
  const all = currentEntries(db);
  const entries = budgeted(all, maxBytes);
  if (entries.length === 0) return all.length === 0 ? currentRevision(db) : all[0]!.key[0] - 1;
  const prepared = prepareApply(db, entries);
  await writable(db).ifVersion(prepared.newest, ENTRY_VERSION, () => writePrepared(db, prepared));
  return prepared.newest[0];
}

/** lmdb-js transactionSync flags: its default (3), plus LMDB's MDB_NOSYNC. */
const SYNC_TXN_OVERLAPPED = 3 | 0x10000;

/** What applying the journal as read at one moment writes, worked out before the write lock is taken. */
export interface PreparedApply {
  /** Newest entry read: still there at write time means nobody applied the journal since. */
  newest: JournalKey;
  entries: JournalKey[];
  /** Each record in the database's own encoding. */
  checks: Array<[string, Uint8Array]>;
  pings: Array<[[string, number], Uint8Array]>;
  dropPings: Array<[string, number]>;
}

/**
 * Old pings dropped per check and apply at most. Normally one per new ping; the
 * bound keeps a backlog (a ping log over its limit for any reason) from holding
 * the write lock for long in one apply: the rest goes in the next ones.
 */
const DROP_PER_CHECK = 1000;

/**
 * Work out, from committed data, what writing these entries into the B-trees
 * takes: each check's newest record, the pings that stay within the ping log
 * limit, the older pings that then fall out, all encoded. A ping pushed out by
 * a newer one of the same batch is not written at all.
 */
function prepareApply(db: Db, entries: Entries): PreparedApply {
  const prepared: PreparedApply = { newest: entries[entries.length - 1]!.key, entries: entries.map((e) => e.key), checks: [], pings: [], dropPings: [] };
  const encodeCheck = encoderOf(db.checks);
  const encodePing = encoderOf(db.pings);
  const keepOf = pingLogLimits(db);
  for (const [uuid, { check, pings }] of byCheck(db, entries)) {
    if (!check || checkIsGone(db, uuid)) continue;
    const firstKept = pings[pings.length - 1]!.n - keepOf(check) + 1;
    for (const ping of pings) if (ping.n >= firstKept) prepared.pings.push([[uuid, ping.n], encodePing.encode(ping)]);
    if (firstKept > 1) {
      const range = { start: [uuid, 0] as [string, number], end: [uuid, firstKept] as [string, number], limit: DROP_PER_CHECK };
      for (const key of db.pings.getKeys(range)) prepared.dropPings.push(key);
    }
    prepared.checks.push([uuid, encodeCheck.encode(check)]);
  }
  return prepared;
}

/**
 * Read the journal as it is now and prepare its apply (prepareApply), of its
 * oldest `maxBytes` of pings when given; null when nothing is to be moved.
 */
export function prepareJournalApply(db: Db, maxBytes?: number): PreparedApply | null {
  const entries = budgeted(currentEntries(db), maxBytes);
  return entries.length === 0 ? null : prepareApply(db, entries);
}

/**
 * Write a prepared apply in one synchronous transaction on the calling thread
 * (the journal worker, which has nothing else to do meanwhile). If another
 * writer applied the journal since it was read (any transaction but a plain
 * ping's does), the preparation is stale, and the journal is applied afresh
 * inside the transaction instead. The commit releases the write lock before
 * its fsync, which the overlapping sync of the environment does on this thread
 * before returning: on return the B-trees are durable. Returns the revision
 * they are current with.
 */
export function writePreparedApply(db: Db, prepared: PreparedApply): number {
  return db.root.transactionSync(() => {
    if (!writable(db).doesExist(prepared.newest)) return applyJournal(db);
    writePrepared(db, prepared);
    return prepared.newest[0];
  }, SYNC_TXN_OVERLAPPED) as number;
}

/**
 * The writes of a prepared apply, in a write transaction or queued: all were
 * worked out before the first of them (prepareApply), so none depends on a
 * read that would miss the apply's own writes, as queued writes' reads do.
 */
function writePrepared(db: Db, prepared: PreparedApply): void {
  for (const [uuid, bytes] of prepared.checks) db.checks.put(uuid, asEncoded<CheckRecord>(bytes));
  for (const [key, bytes] of prepared.pings) db.pings.put(key, asEncoded<PingRecord>(bytes));
  for (const key of prepared.dropPings) db.pings.remove(key);
  for (const key of prepared.entries) writable(db).remove(key);
}

/**
 * Apply the journal from the journal worker. The reading and encoding happen
 * before LMDB's write lock is taken, so the transaction only writes prepared
 * bytes, and the pings that commit behind it wait several times less.
 */
export function applyJournalSync(db: Db, maxBytes?: number): number {
  const prepared = prepareJournalApply(db, maxBytes);
  if (prepared !== null) return writePreparedApply(db, prepared);
  // Nothing moved: the B-trees are current up to the oldest entry left, if any.
  const oldest = readJournal(db)[Symbol.iterator]().next();
  return oldest.done ? currentRevision(db) : oldest.value.rev - 1;
}
