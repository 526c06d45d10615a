// What the store keeps about checks beside their records, maintained by
// every insert, change and delete (store.ts) and built once when an older
// data dir is upgraded (migrations.ts): the slug index, so a slug ping finds its check
// without reading the project; the name index, so a create with
// `unique: ["name"]` finds its match the same way; the depends_on index, so
// deleting a check finds those that depended on it; the per-project check
// counts, so the check limit is enforced without counting; and the per-project
// edit counters, so a scan of a project's checks done outside a transaction
// can be trusted inside one.
import { forWriting, type Db } from './schema.js';
import type { CheckRecord } from '../domain/types.js';
import { keyFits, KeyTooLongError } from './key-size.js';

/** Check fields with an index [projectId, value, uuid] → uuid. */
export type IndexedField = 'slug' | 'name' | 'dependsOn';
export const INDEXED_FIELDS: readonly IndexedField[] = ['slug', 'name', 'dependsOn'];

const INDEX_OF = { slug: 'checksBySlug', name: 'checksByName', dependsOn: 'checksByDependsOn' } as const;

/** The schema version that added each index (migrations.ts builds it for older data dirs). */
export const INDEX_SINCE: Readonly<Record<IndexedField, number>> = { slug: 3, name: 4, dependsOn: 6 };

/**
 * Slug pings never ask for an empty slug, so checks without one stay out of
 * the slug index; `unique: ["name"]` may ask for the empty name, so every
 * check is in the name index; only checks that depend on one are in the
 * depends_on index.
 */
const indexesEmpty = (field: IndexedField) => field === 'name';

/** The value `check` is indexed under for `field`, or null when it is left out. */
function indexedValue(check: CheckRecord, field: IndexedField): string | null {
  const value = check[field];
  return value === undefined || (value === '' && !indexesEmpty(field)) ? null : value;
}

const index = (db: Db, field: IndexedField) => forWriting(db[INDEX_OF[field]], `the ${field} index`);

/**
 * Throws KeyTooLongError, before anything is written, when an indexed field of
 * `check` (or of those given) is too long for the index's key: the API and the
 * import refuse such values, so this stops one that got past them.
 */
export function assertIndexable(check: CheckRecord, fields: readonly IndexedField[] = INDEXED_FIELDS): void {
  for (const f of fields) {
    const value = indexedValue(check, f);
    if (value !== null && !keyFits([check.projectId, value, check.uuid])) throw new KeyTooLongError(`the check's ${f}`);
  }
}

/** Inside a write transaction: make `check` findable by its indexed fields (or those given). */
export function indexCheck(db: Db, check: CheckRecord, fields: readonly IndexedField[] = INDEXED_FIELDS): void {
  for (const f of fields) {
    const value = indexedValue(check, f);
    if (value !== null) index(db, f).put([check.projectId, value, check.uuid], check.uuid);
  }
}

/** Inside a write transaction: forget `check`'s indexed fields (or those given). */
export function unindexCheck(db: Db, check: CheckRecord, fields: readonly IndexedField[] = INDEXED_FIELDS): void {
  for (const f of fields) {
    const value = indexedValue(check, f);
    if (value !== null) index(db, f).remove([check.projectId, value, check.uuid]);
  }
}

/** Inside a write transaction: follow a check's change from `before` to `after`. */
export function reindexCheck(db: Db, before: CheckRecord, after: CheckRecord): void {
  const changed = INDEXED_FIELDS.filter((f) => before[f] !== after[f]);
  if (changed.length === 0) return;
  assertIndexable(after, changed);
  unindexCheck(db, before, changed);
  indexCheck(db, after, changed);
}

/**
 * Uuids of the checks of a project whose `field` is `value`; null when the
 * index cannot answer (absent: a data dir from before it opened read-only; or
 * an empty slug, which it leaves out).
 */
export function uuidsByField(db: Db, field: IndexedField, projectId: string, value: string): string[] | null {
  const idx = db[INDEX_OF[field]];
  if (!idx || (value === '' && !indexesEmpty(field))) return null;
  // No stored key is longer than the end of this range: none can match a value too long for it.
  if (!keyFits([projectId, value, '\uffff'])) return [];
  const out: string[] = [];
  for (const { value: uuid } of idx.getRange({ start: [projectId, value], end: [projectId, value, '\uffff'] })) out.push(uuid);
  return out;
}

/** Inside a write transaction: a check was added to (+1) or removed from (-1) a project. */
export function countCheck(db: Db, projectId: string, delta: 1 | -1): void {
  setCheckCount(db, projectId, (counts(db).get(projectId) ?? 0) + delta);
}

/** Inside a write transaction: a project has `n` checks. */
export function setCheckCount(db: Db, projectId: string, n: number): void {
  if (n > 0) counts(db).put(projectId, n);
  else counts(db).remove(projectId);
}

const counts = (db: Db) => forWriting(db.checkCounts, 'the check counts');

/** How many checks a project has. */
export function checkCount(db: Db, projectId: string): number {
  if (!db.checkCounts) return db.checksByProject.getKeysCount({ start: [projectId], end: [projectId, Infinity] });
  return db.checkCounts.get(projectId) ?? 0;
}

const edits = (db: Db) => forWriting(db.checkEdits, 'the check edit counters');

/**
 * Inside a write transaction: a check of the project was created, or deleted,
 * or changed in a field other than its status (pings, flips, pause and resume
 * change only that, and leave the counter alone).
 */
export function noteCheckEdit(db: Db, projectId: string): void {
  noteCheckEdits(db, projectId, 1);
}

/** Inside a write transaction: `n` edits at once (an import's checks), as `n` noteCheckEdit calls would count them. */
export function noteCheckEdits(db: Db, projectId: string, n: number): void {
  if (n > 0) edits(db).put(projectId, (edits(db).get(projectId) ?? 0) + n);
}

/** The project's edit counter; null when the data dir has none (opened read-only from before them). */
export function checkEdits(db: Db, projectId: string): number | null {
  return db.checkEdits ? (db.checkEdits.get(projectId) ?? 0) : null;
}
