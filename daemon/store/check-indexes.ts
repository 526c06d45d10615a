// What the store keeps about checks beside their records, maintained by
// every insert, slug change and delete (store.ts) and built once when an older
// data dir is upgraded (db.ts): the slug index, so a slug ping finds its check
// without reading the project, and the per-project check counts, so the check
// limit is enforced without counting.
import type { Db } from './db.js';
import type { CheckRecord } from '../domain/types.js';

/** Inside a write transaction: make `check` findable by its slug. */
export function indexSlug(db: Db, check: CheckRecord): void {
  if (check.slug !== '') slugIndex(db).put([check.projectId, check.slug, check.uuid], check.uuid);
}

/** Inside a write transaction: forget `check`'s slug. */
export function unindexSlug(db: Db, check: CheckRecord): void {
  if (check.slug !== '') slugIndex(db).remove([check.projectId, check.slug, check.uuid]);
}

/** Uuids of the checks of a project with this slug, or null when the index is absent (read-only, before version 3). */
export function uuidsBySlug(db: Db, projectId: string, slug: string): string[] | null {
  if (!db.checksBySlug) return null;
  const out: string[] = [];
  for (const { value } of db.checksBySlug.getRange({ start: [projectId, slug], end: [projectId, slug, '\uffff'] })) out.push(value);
  return out;
}

function slugIndex(db: Db): NonNullable<Db['checksBySlug']> {
  if (!db.checksBySlug) throw new Error('the slug index is missing: the environment was opened read-only');
  return db.checksBySlug;
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

function counts(db: Db): NonNullable<Db['checkCounts']> {
  if (!db.checkCounts) throw new Error('the check counts are missing: the environment was opened read-only');
  return db.checkCounts;
}

/** How many checks a project has. */
export function checkCount(db: Db, projectId: string): number {
  if (!db.checkCounts) return db.checksByProject.getKeysCount({ start: [projectId], end: [projectId, Infinity] });
  return db.checkCounts.get(projectId) ?? 0;
}
