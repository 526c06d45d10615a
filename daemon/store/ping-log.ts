// The per-check ping log: pings under [checkUuid, n], capped at the project's
// ping_log_limit with the oldest dropped.
import type { Db } from './schema.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

/** Inside a write transaction: append a ping, dropping the oldest beyond `keep`. */
export function insertPing(db: Db, check: CheckRecord, ping: PingRecord, keep: number): void {
  db.pings.put([check.uuid, ping.n], ping);
  const firstKept = ping.n - keep + 1;
  if (firstKept <= 1) return;
  // Each ping pushes exactly one out of the window; a sweep every 100th
  // ping catches anything older (the reference prunes on that cadence too).
  if (ping.n % 100 !== 0) {
    db.pings.remove([check.uuid, firstKept - 1]);
    return;
  }
  for (const key of db.pings.getKeys({ start: [check.uuid, 0], end: [check.uuid, firstKept] })) {
    db.pings.remove(key);
  }
}

/** The ping log limit of a check's project (100, the default, if the project is gone). */
export function pingLogLimitOf(db: Db, check: CheckRecord): number {
  return db.projects.get(check.projectId)?.pingLogLimit ?? 100;
}
