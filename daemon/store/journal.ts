// The ping journal: how a ping becomes durable cheaply.
//
// A ping's transaction appends two records at the end of two ordered logs
// (its event and this journal entry) instead of rewriting the check's record
// and inserting into the per-check ping log, which touch a random B-tree page
// each. The journal entries are written into those B-trees later, many at a
// time (`applyJournal`): each page is then written once per batch instead of
// once per ping. Every write transaction other than a ping's applies the
// journal first, so it always reads and changes current records; readers see
// the entries not yet applied through PendingPings.
import { forWriting, type Db } from './db.js';
import { insertPing, pingLogLimitOf } from './ping-log.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

export interface JournalEntry {
  /** The check as it is after this ping. */
  check: CheckRecord;
  ping: PingRecord;
}

/**
 * Every journal entry is stored with this version, so that a write can be made
 * conditional on an entry still being there (lmdb-js `ifVersion`).
 */
const ENTRY_VERSION = 1;

type JournalKey = [number, string];

/** The journal of an environment opened for writing, where openDb always creates it. */
const writable = (db: Db) => forWriting(db.journal, 'the ping journal');

/** Inside a write transaction: journal a ping recorded at revision `rev`. */
export function journalPing(db: Db, rev: number, check: CheckRecord, ping: PingRecord): void {
  writable(db).put([rev, check.uuid], { check, ping }, ENTRY_VERSION);
}

/** Is the journal entry of (rev, uuid) visible to the current reader? */
export function isJournaled(db: Db, rev: number, uuid: string): boolean {
  return db.journal?.doesExist([rev, uuid]) ?? false;
}

/** Journal entries, oldest first. */
export function* readJournal(db: Db): Iterable<{ rev: number; uuid: string } & JournalEntry> {
  if (!db.journal) return;
  for (const { key, value } of db.journal.getRange()) yield { rev: key[0], uuid: key[1], ...value };
}

/**
 * Write journal entries (oldest first) into the checks and pings B-trees and
 * drop them from the journal: each check's record once, with its newest state.
 */
function writeEntries(db: Db, entries: ReadonlyArray<{ key: JournalKey; value: JournalEntry }>): void {
  const latestCheck = new Map<string, CheckRecord>();
  const keepOf = new Map<string, number>();
  for (const { key, value } of entries) {
    const uuid = key[1];
    // Deleting a check applies the journal first, so this cannot happen; the
    // guard keeps a stray entry from bringing a deleted check back.
    if (!latestCheck.has(uuid) && !db.checks.doesExist(uuid)) continue;
    let keep = keepOf.get(value.check.projectId);
    if (keep === undefined) keepOf.set(value.check.projectId, (keep = pingLogLimitOf(db, value.check)));
    insertPing(db, value.check, value.ping, keep);
    latestCheck.set(uuid, value.check);
  }
  for (const [uuid, check] of latestCheck) db.checks.put(uuid, check);
  for (const { key } of entries) writable(db).remove(key);
}

/**
 * Inside a write transaction: apply the whole journal. Returns the revision
 * the B-trees are current with.
 */
export function applyJournal(db: Db): number {
  writeEntries(db, [...writable(db).getRange()]);
  return (db.meta.get('rev') as number | undefined) ?? 0;
}

/**
 * Apply the journal as it is now with queued (asynchronous) writes, so that
 * the write lock is held only while LMDB itself runs them: the reads and the
 * encoding happen on the calling thread first. The writes are conditional on
 * the newest entry read still being in the journal: if another writer applied
 * the journal meanwhile (any transaction does), they are skipped. Resolves
 * with the revision the B-trees are then current with.
 */
export async function applyJournalQueued(db: Db): Promise<number> {
  db.root.resetReadTxn();
  const entries = [...writable(db).getRange()];
  if (entries.length === 0) return (db.meta.get('rev') as number | undefined) ?? 0;
  const newest = entries[entries.length - 1]!.key;
  await writable(db).ifVersion(newest, ENTRY_VERSION, () => writeEntries(db, entries));
  return newest[0];
}

/** lmdb-js transactionSync flags: its default (3), plus LMDB's MDB_NOSYNC. */
const SYNC_TXN_OVERLAPPED = 3 | 0x10000;

/**
 * Apply the whole journal in one synchronous transaction on the calling thread
 * (the journal worker, which has nothing else to do meanwhile). The commit
 * releases LMDB's write lock before its fsync, which the overlapping sync of
 * the environment does on this thread before returning: on return the B-trees
 * are durable. Returns the revision they are current with.
 */
export function applyJournalSync(db: Db): number {
  return db.root.transactionSync(() => applyJournal(db), SYNC_TXN_OVERLAPPED) as number;
}
