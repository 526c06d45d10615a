// The LMDB environment behind each open Store. The Store keeps it private, so
// that nothing outside daemon/store/ reads or writes around its methods (a
// write there would skip its indexes, its event log or its durability wait).
// The modules of store/ that keep databases of their own in the environment
// (notify.ts), and tests that look at raw records, find it here; no module
// outside daemon/store/ imports this one (test/unit/store-boundary.test.ts).
import type { Db } from './schema.js';

const environments = new WeakMap<object, Db>();

/** Called by the Store that owns `db`. */
export function registerEnvironment(store: object, db: Db): void {
  environments.set(store, db);
}

/** The environment of an open Store. */
export function environmentOf(store: object): Db {
  const db = environments.get(store);
  if (!db) throw new Error('not a Store');
  return db;
}

/** Databases opened by the store's modules beside the Store's own (notify.ts), per environment root. */
const extraDatabases = new WeakMap<object, Set<object>>();

/** Called by a store module that opens databases of its own in the environment of `root`. */
export function noteDatabases(root: object, databases: ReadonlyArray<object | undefined>): void {
  let set = extraDatabases.get(root);
  if (!set) extraDatabases.set(root, (set = new Set()));
  for (const d of databases) if (d) set.add(d);
}

/** The databases noted for the environment of `root`. */
export function notedDatabases(root: object): ReadonlySet<object> {
  return extraDatabases.get(root) ?? new Set();
}
