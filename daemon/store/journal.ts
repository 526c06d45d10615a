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
import type { Db } from './db.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

export interface JournalEntry {
  /** The check as it is after this ping. */
  check: CheckRecord;
  ping: PingRecord;
}

/** Inside a write transaction: journal a ping recorded at revision `rev`. */
export function journalPing(db: Db, rev: number, check: CheckRecord, ping: PingRecord): void {
  db.journal.put([rev, check.uuid], { check, ping });
}

/** Is the journal entry of (rev, uuid) visible to the current reader? */
export function isJournaled(db: Db, rev: number, uuid: string): boolean {
  return db.journal.doesExist([rev, uuid]);
}

/** Journal entries, oldest first. */
export function* readJournal(db: Db): Iterable<{ rev: number; uuid: string } & JournalEntry> {
  for (const { key, value } of db.journal.getRange()) yield { rev: key[0], uuid: key[1], ...value };
}

/**
 * Inside a write transaction: write every journal entry into the checks and
 * pings B-trees, then drop it. Returns the event log revision the B-trees are
 * current with.
 */
export function applyJournal(db: Db, insertPing: (check: CheckRecord, ping: PingRecord) => void): number {
  const latestCheck = new Map<string, CheckRecord>();
  const applied: Array<[number, string]> = [];
  for (const entry of readJournal(db)) {
    applied.push([entry.rev, entry.uuid]);
    // Deleting a check applies the journal first, so this cannot happen; the
    // guard keeps a stray entry from bringing a deleted check back.
    if (!db.checks.doesExist(entry.uuid)) continue;
    insertPing(entry.check, entry.ping);
    latestCheck.set(entry.uuid, entry.check);
  }
  for (const [uuid, check] of latestCheck) db.checks.put(uuid, check);
  for (const key of applied) db.journal.remove(key);
  return (db.meta.get('rev') as number | undefined) ?? 0;
}
