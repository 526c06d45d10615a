// Brings an opened environment (db.ts) to the layout of this checkd
// (schema.ts SCHEMA_VERSION), and refuses one written by a newer checkd.
// Version 2 added the (empty at first) ping journal; version 3 the slug index
// and the check counts; version 4 the name index; version 5 the edit counters
// (empty at first: they only need to move from then on); version 6 the
// depends_on index.
import { INDEX_SINCE, indexCheck, INDEXED_FIELDS, setCheckCount } from './check-indexes.js';
import { DataDirError } from './db.js';
import { SCHEMA_VERSION, type Db } from './schema.js';

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
  db.root.transactionSync(() => {
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
}
