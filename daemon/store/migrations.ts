// Brings an opened environment (db.ts) to the layout of this checkd
// (schema.ts SCHEMA_VERSION), and refuses one written by a newer checkd.
// Version 2 added the (empty at first) ping journal; version 3 the slug index
// and the check counts; version 4 the name index; version 5 the edit counters
// (empty at first: they only need to move from then on); version 6 the
// depends_on index; version 7 the ping log in recording order, which holds the
// journal too (ping-log.ts, journal.ts).
import type { Database } from 'lmdb';
import { INDEX_SINCE, indexCheck, INDEXED_FIELDS, setCheckCount } from './check-indexes.js';
import { DataDirError } from './db.js';
import { currentRevision } from './events.js';
import { markApplied } from './journal.js';
import { SCHEMA_VERSION, forWriting, type Db, type StoredPing } from './schema.js';
import type { PingRecord } from '../domain/types.js';

/** The databases a layout before version 7 kept its pings in. */
interface OldPingLog {
  /** [checkUuid, n] → ping */
  pings: Database<PingRecord, [string, number]>;
  /** [revision, checkUuid] → a ping not yet written into its check */
  journal: Database<{ ping: PingRecord }, [number, string]>;
}

function openOldPingLog(db: Db): OldPingLog {
  const records = { sharedStructuresKey: Symbol.for('structures') };
  return {
    pings: db.root.openDB({ name: 'pings', ...records }),
    journal: db.root.openDB({ name: 'journal', useVersions: true, ...records }),
  };
}

/**
 * Inside the upgrade's transaction: the pings of a layout before version 7
 * into the ping log. Those in the old per-check log came with no revision of
 * their own (revision 0); those still in the old journal keep theirs, linked
 * check by check, and stay the journal. An entry of the oldest formats, which
 * also held the check after its ping, is worked out again like the others:
 * every other write applied the journal first, so the result is the same.
 */
function movePingLog(db: Db, old: OldPingLog): void {
  const pings = forWriting(db.pings, 'the ping log');
  for (const { key, value } of old.pings.getRange()) pings.put([0, key[0], key[1]], value);
  const newest = new Map<string, number>();
  let oldest: number | null = null;
  for (const { key: [rev, uuid], value } of old.journal.getRange()) {
    oldest ??= rev;
    const prev = newest.get(uuid);
    pings.put([rev, uuid, value.ping.n], prev === undefined ? value.ping : ({ ...value.ping, prev } satisfies StoredPing));
    newest.set(uuid, rev);
  }
  markApplied(db, oldest === null ? currentRevision(db) : oldest - 1);
}

/**
 * Upgrade the layout of the environment in `dir` in one transaction; opened
 * read-only, it is read as it is (the store's reads cope with the databases an
 * older layout lacks). Throws DataDirError when a newer checkd wrote it.
 */
export function upgradeSchema(db: Db, dir: string, opts: { readOnly?: boolean } = {}): void {
  const stored = db.meta.get('schemaVersion') as number | undefined;
  if (stored !== undefined && stored > SCHEMA_VERSION) {
    throw new DataDirError(
      `data dir ${dir} has schema version ${stored}, newer than this checkd (${SCHEMA_VERSION}); upgrade checkd`,
    );
  }
  if (stored === SCHEMA_VERSION || opts.readOnly) return;
  const oldPingLog = stored !== undefined && stored < 7 ? openOldPingLog(db) : null;
  db.root.transactionSync(() => {
    if (oldPingLog) movePingLog(db, oldPingLog);
    // Pings never change an indexed field, so the B-tree's checks are current enough.
    const fields = stored === undefined ? [] : INDEXED_FIELDS.filter((f) => stored < INDEX_SINCE[f]);
    if (stored !== undefined && (fields.length > 0 || stored < 3)) {
      const counts = new Map<string, number>();
      for (const { value: check } of db.checks.getRange()) {
        indexCheck(db, check, fields);
        counts.set(check.projectId, (counts.get(check.projectId) ?? 0) + 1);
      }
      // Whole counts, not increments: converting twice must not count twice.
      if (stored < 3) for (const [projectId, n] of counts) setCheckCount(db, projectId, n);
    }
    db.meta.put('schemaVersion', SCHEMA_VERSION);
  });
  if (oldPingLog) {
    oldPingLog.pings.dropSync();
    oldPingLog.journal.dropSync();
  }
}
