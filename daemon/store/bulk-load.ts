// Writing many new checks at once (`checkd import`): each B-tree a check
// lives in is written in its own key order, in transactions of LOAD_PART
// entries (RECORD_PART checks for the records), instead of check after check.
//
// Check by check, every B-tree keyed by something random (the uuid, the
// badge key, the unique_key, the name) takes each check on a page of its
// own, so that every transaction rewrites nearly every page of those trees:
// a large import rewrote many times its own size, and the pages of each tree
// ended up spread over the whole file, far from full. In key order
// a transaction touches a run of pages at the end of what it wrote before,
// each page is written about once, and is left nearly full (LMDB splits a
// page where a run of ascending keys leaves it): the checks' records end up
// side by side in the file, which is what the monitor reads at start-up.
//
// The indexes go first and the records with their events last: a daemon
// running meanwhile may find an index entry whose check is not written yet,
// which it skips as it skips that of a check deleted meanwhile, and hears of
// each check (check.created) once its record is there.
import type { Database, Key } from 'lmdb';
import type { CheckRecord } from '../domain/types.js';
import { uniqueKeyOf } from '../domain/ids.js';
import { assertIndexable } from './check-indexes.js';
import { compareStrings, concat, groupBy, numbers, sortByNumber, sortByString } from './key-order.js';
import { forWriting, type Db } from './schema.js';

/** Entries written per transaction: a few megabytes of pages. */
export const LOAD_PART = 20_000;
/**
 * Checks written per transaction with their records and events: fewer, since
 * each is held until its transaction commits, and what outlives a few young
 * collections of V8 stays in the heap until the next full one.
 */
export const RECORD_PART = 3_000;

/** A check's record in the store's encoding, with its number and uuid. */
export interface EncodedCheck {
  n: number;
  uuid: string;
  record: Uint8Array;
}

/** The store's encoding of a check: the data dir whose database has it (for another thread to open), and its encoder here. */
export interface CheckEncoding {
  dataDir: string;
  /** A view that the next call may reuse. */
  encode(check: CheckRecord): Uint8Array;
}

/**
 * The checks to load, by number (0 to count - 1): their keys held in memory,
 * their records made meanwhile and handed over in uuid order (an import keeps
 * them in a spool on disk).
 */
export interface BulkChecks {
  readonly count: number;
  readonly uuid: readonly string[];
  readonly projectId: readonly string[];
  readonly createdAt: ArrayLike<number>;
  readonly slug: readonly string[];
  readonly name: readonly string[];
  readonly dependsOn: ReadonlyArray<string | undefined>;
  readonly badgeKey: readonly string[];
  /**
   * Start making every check's record, with `createdAt[n]` as its createdAt:
   * called before the indexes are written, so that they are made meanwhile,
   * and handed over in uuid order, in parts of at most `size`.
   */
  records(encoding: CheckEncoding, createdAt: Float64Array, size: number): AsyncIterable<EncodedCheck[]>;
  /** Once the indexes are written: only uuid, projectId and the records are used from then on. */
  indexesWritten(): void;
}

/** What the load needs of the store: its transactions, and what one write of a check's record entails. */
export interface LoadTarget {
  db: Db;
  transact<T>(fn: () => T): Promise<T>;
  /** The createdAt of the newest check of a project, -Infinity for none. */
  lastCreatedAt(projectId: string): number;
  encoding: CheckEncoding;
  /** Inside a write transaction: a new check's record, encoded. */
  putNewCheck(uuid: string, record: Uint8Array): void;
  /** Inside the write transaction that put it: a new check's record put again, no larger than before. */
  rewriteNewCheck(uuid: string, record: Uint8Array): void;
  /**
   * Inside a write transaction: the check.created events of checks put
   * before. Each names its check without carrying it: a million copies of the
   * records would double what the import writes, for a log that keeps the
   * last 200,000 events.
   */
  announceNewChecks(checks: ReadonlyArray<Pick<CheckRecord, 'uuid' | 'projectId'>>, now: number): void;
  /** Inside a write transaction: `n` checks of the project were added. */
  countAdded(projectId: string, n: number): void;
}

/** Thrown when a check to load exists by the time its record is written (another writer took its uuid). */
export class CheckExistsError extends Error {
  constructor(readonly uuid: string) {
    super(`check ${uuid} exists`);
  }
}

const APPEND = { append: true } as const;

/**
 * Bytes of room left beside each check's record on the checks' pages. Put in
 * key order, the records fill their pages to the brim, and a record that
 * grows by a byte (a check's first ping adds a few fields) then splits its
 * page in two half-empty ones: a ping burst over every check doubled the
 * tree, and what a daemon holds of it (docs/performance.md, "Room to grow").
 */
export const RECORD_ROOM = 48;

/**
 * Inside a write transaction: put an entry with LMDB's MDB_APPEND, which adds
 * a key that sorts after every key of the tree at its end, without a search
 * from the root, and leaves full pages behind (docs/performance.md). A key
 * that does not sort last (the tree had later keys, or JavaScript's order of
 * two strings is not the bytes' order LMDB keeps) is refused, which lmdb-js
 * reports as a put that resolved false at once; then it is put as usual.
 */
export function putInOrder<V, K extends Key>(db: Database<V, K>, key: K, value: V): void {
  // lmdb-js takes put options; its typings only know a version there.
  const putWith = db.put as unknown as (this: Database<V, K>, key: K, value: V, options: typeof APPEND) => { result?: boolean };
  if (putWith.call(db, key, value, APPEND).result !== true) db.put(key, value);
}

/**
 * Start each of `writes` (a transaction each) once the one before the last
 * has finished, so that the next part is made while the one before is
 * written and flushed; the first failure ends it.
 */
async function overlapped(writes: Iterable<() => Promise<void>> | AsyncIterable<() => Promise<void>>): Promise<void> {
  let previous: Promise<void> | null = null;
  for await (const write of writes) {
    const current = write();
    // Seen when it is awaited, below; until then it must not count as unhandled.
    current.catch(() => undefined);
    if (previous) await previous;
    previous = current;
  }
  await previous;
}

/** Write the entries `put` makes for each number of `order`, LOAD_PART per transaction. */
function inParts(target: LoadTarget, order: Int32Array, put: (n: number) => void): Promise<void> {
  return overlapped(
    (function* () {
      for (let i = 0; i < order.length; i += LOAD_PART) {
        const part = order.subarray(i, i + LOAD_PART);
        yield () =>
          target.transact(() => {
            for (const n of part) put(n);
          });
      }
    })(),
  );
}

/**
 * Load `checks` (none of which exists yet: the caller looked) into the store.
 * A check's createdAt is moved as insertChecksInTxn moves it: within each
 * project, in order of createdAt (the file's order among equals), each one
 * strictly later than the one before, starting after the project's newest.
 * A failure part-way leaves the parts already written (see transfer.ts).
 */
export async function bulkLoadChecks(target: LoadTarget, checks: BulkChecks, now: number): Promise<void> {
  const { db } = target;
  const { count } = checks;
  const { uuid, projectId, slug, name, dependsOn, badgeKey } = checks;
  for (let n = 0; n < count; n++) {
    assertIndexable({ uuid: uuid[n]!, projectId: projectId[n]!, slug: slug[n]!, name: name[n]!, dependsOn: dependsOn[n] } as CheckRecord);
  }
  const all = numbers(count);
  const ofProject = (n: number) => projectId[n]!;
  // Creation order within each project, and the createdAt each check is stored with.
  const created = new Float64Array(count);
  const byCreation = concat(groupBy(all, ofProject).map((ns) => sortByNumber(ns, (n) => checks.createdAt[n]!)));
  let project = '';
  let last = -Infinity;
  for (const n of byCreation) {
    if (projectId[n] !== project) {
      project = projectId[n]!;
      last = target.lastCreatedAt(project);
    }
    last = created[n] = Math.max(checks.createdAt[n]!, last + 1);
  }
  const records = checks.records(target.encoding, created, RECORD_PART);

  await inParts(target, byCreation, (n) => putInOrder(db.checksByProject, [projectId[n]!, created[n]!, uuid[n]!], uuid[n]!));
  const byUuid = (a: number, b: number) => compareStrings(uuid[a]!, uuid[b]!);
  const byField = (values: ReadonlyArray<string | undefined>) =>
    concat(groupBy(numbers(count, (n) => values[n] !== undefined), ofProject).map((ns) => sortByString(ns, (n) => values[n]!, byUuid)));
  const slugIndex = forWriting(db.checksBySlug, 'the slug index');
  const nameIndex = forWriting(db.checksByName, 'the name index');
  const dependsOnIndex = forWriting(db.checksByDependsOn, 'the depends_on index');
  // The same entries as check-indexes.ts indexCheck makes: no empty slug, every name, depends_on where set.
  await inParts(target, byField(slug.map((s) => (s === '' ? undefined : s))), (n) => putInOrder(slugIndex, [projectId[n]!, slug[n]!, uuid[n]!], uuid[n]!));
  await inParts(target, byField(name), (n) => putInOrder(nameIndex, [projectId[n]!, name[n]!, uuid[n]!], uuid[n]!));
  await inParts(target, byField(dependsOn), (n) => putInOrder(dependsOnIndex, [projectId[n]!, dependsOn[n]!, uuid[n]!], uuid[n]!));
  const uniqueKeys = Array.from({ length: count }, (_, n) => uniqueKeyOf(uuid[n]!));
  await inParts(target, sortByString(all, (n) => uniqueKeys[n]!, byUuid), (n) => putInOrder(db.uniqueKeys, uniqueKeys[n]!, uuid[n]!));
  uniqueKeys.length = 0;
  await inParts(target, sortByString(all, (n) => badgeKey[n]!, byUuid), (n) => putInOrder(db.checkBadgeKeys, badgeKey[n]!, uuid[n]!));
  checks.indexesWritten();
  // The records last, then their events, and the counts with them.
  await overlapped(
    (async function* () {
      for await (const part of records) yield () => writeRecords(target, part, projectId, now);
    })(),
  );
}

/** One transaction of new checks' records, then their events. */
async function writeRecords(target: LoadTarget, part: EncodedCheck[], projectId: readonly string[], now: number): Promise<void> {
  const { db } = target;
  await target.transact(() => {
    // Nothing is written when any of them exists (validation before the first write).
    for (const { uuid } of part) if (db.checks.doesExist(uuid)) throw new CheckExistsError(uuid);
    const added = new Map<string, number>();
    // All records, then all events: each B-tree's new pages come in one run,
    // so the pages of records lie together in the file, not one in two with
    // events (which would double what reading every check maps in).
    // Each record is put with RECORD_ROOM bytes more, then once the part's
    // pages are filled put again as it is: a smaller record stays where it
    // is, and its page keeps the room.
    for (const { n, uuid, record } of part) {
      const roomy = new Uint8Array(record.length + RECORD_ROOM);
      roomy.set(record);
      target.putNewCheck(uuid, roomy);
      added.set(projectId[n]!, (added.get(projectId[n]!) ?? 0) + 1);
    }
    for (const { uuid, record } of part) target.rewriteNewCheck(uuid, record);
    target.announceNewChecks(
      part.map(({ n, uuid }) => ({ uuid, projectId: projectId[n]! })),
      now,
    );
    for (const [id, n] of added) target.countAdded(id, n);
  });
}
