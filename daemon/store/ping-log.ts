// The ping log: every ping stored once, where its transaction put it, under
// [revision, check, n] (schema.ts PingKey), so that recording a ping appends
// at the end of one ordered tree instead of inserting on a random page of a
// per-check one. A check's pings are found from its newest one (the check's
// `lastPingRev` and `nPings`), each linked to the one before it; those stored
// without a revision (imported ones) follow as one range. Pings that fall out
// of a project's ping_log_limit are dropped behind, by the journal's apply
// (`sweepPings`); readers stop at the limit, so a late drop is never seen.
import { forWriting, type Db, type PingKey, type StoredPing } from './schema.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

/** The ping log of an environment opened for writing, where openDb always creates it. */
export const writable = (db: Db) => forWriting(db.pings, 'the ping log');

/**
 * Inside a write transaction: store the ping of `check` recorded at revision
 * `rev` (`check` as it is after the ping), linked to the check's ping before
 * it, and note it on `check`, a record made for this ping, as its newest.
 */
export function putPing(db: Db, check: CheckRecord, ping: PingRecord, rev: number): void {
  const prev = check.lastPingRev ?? 0;
  const stored: StoredPing = prev === 0 ? ping : { ...ping, prev };
  writable(db).put([rev, check.uuid, ping.n], stored);
  noteNewestPing(check, rev);
}

/** `check` (a record made for its newest ping) now has its newest ping at revision `rev`. */
export function noteNewestPing(check: CheckRecord, rev: number): void {
  check.lastPingRev = rev;
}

/** A stored ping as readers see it, without its link to the one before. */
export function unlinked(stored: StoredPing): PingRecord {
  const { prev: _prev, ...ping } = stored;
  return ping;
}

/** Inside a write transaction: store a ping that came with its check from elsewhere (revision 0). */
export function putImportedPing(db: Db, check: CheckRecord, ping: PingRecord): void {
  writable(db).put([0, check.uuid, ping.n], ping);
}

/** A check's stored pings, newest first, each with its key, read as the caller iterates. */
export function* pingsOf(db: Db, check: CheckRecord): Generator<{ key: PingKey; ping: PingRecord }> {
  if (!db.pings) return;
  let rev = check.lastPingRev ?? 0;
  let n = check.nPings;
  while (rev !== 0 && n > 0) {
    const key: PingKey = [rev, check.uuid, n];
    const stored: StoredPing | undefined = db.pings.get(key);
    if (stored === undefined) return;
    yield { key, ping: unlinked(stored) };
    rev = stored.prev ?? 0;
    n -= 1;
  }
  if (n <= 0) return;
  for (const { key, value } of db.pings.getRange({ start: [0, check.uuid, n], end: [0, check.uuid, 0], reverse: true })) {
    yield { key, ping: value };
  }
}

/** The lowest ping number a check keeps under a ping log limit of `keep`. */
export const firstKept = (check: CheckRecord, keep: number): number => check.nPings - keep + 1;

/** The ping log limit of a check's project (100, the default, if the project is gone). */
export function pingLogLimitOf(db: Db, check: CheckRecord): number {
  return db.projects.get(check.projectId)?.pingLogLimit ?? 100;
}

/** Keys looked at by one sweep: a bounded share of the apply's time. */
const SWEEP_KEYS = 5000;

/** Where the next sweep of an environment starts (a process walks the log round and round). */
const sweepFrom = new WeakMap<Db, PingKey>();

/**
 * The keys of pings that fell out of their check's window (or whose check is
 * gone), among the next keys of the walk over the log, up to revision `upTo`
 * (the checks are current with it). `checkOf` gives a check as it will be.
 */
export function sweepPings(db: Db, upTo: number, checkOf: (uuid: string) => CheckRecord | undefined): PingKey[] {
  const start = sweepFrom.get(db);
  const dead: PingKey[] = [];
  const keepOf = new Map<string, number>();
  let last: PingKey | undefined;
  let seen = 0;
  for (const key of writable(db).getKeys(start === undefined ? { limit: SWEEP_KEYS } : { start, limit: SWEEP_KEYS })) {
    if (key[0] > upTo) break;
    seen += 1;
    last = key;
    const check = checkOf(key[1]);
    if (check === undefined) {
      dead.push(key);
      continue;
    }
    let keep = keepOf.get(check.projectId);
    if (keep === undefined) keepOf.set(check.projectId, (keep = pingLogLimitOf(db, check)));
    if (key[2] < firstKept(check, keep)) dead.push(key);
  }
  // At the end of what is applied, the next sweep starts over.
  if (seen < SWEEP_KEYS || last === undefined) sweepFrom.delete(db);
  else sweepFrom.set(db, last);
  return dead;
}
