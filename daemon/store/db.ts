// Owns the LMDB environment: the named databases, the schema version and the
// revision counter of the event log. Nothing outside store/ touches LMDB.
import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { makeDirectory } from '../shared/make-dir.js';
import { join } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type {
  ChannelRecord,
  CheckRecord,
  FlipRecord,
  PingRecord,
  ProjectRecord,
} from '../domain/types.js';
import type { StoredEvent } from './events.js';
import type { JournalEntry } from './journal.js';
import { indexCheck, INDEXED_FIELDS, setCheckCount } from './check-indexes.js';

/** Bumped when the on-disk layout changes; `openDb` migrates older layouts. */
export const SCHEMA_VERSION = 5;

export interface ApiKeyRecord {
  projectId: string;
  readOnly: boolean;
  createdAt: number;
}

export interface Db {
  root: RootDatabase;
  meta: Database<unknown, string>;
  projects: Database<ProjectRecord, string>;
  /** sha256(key) hex → key record; keys are never stored in clear. */
  apiKeys: Database<ApiKeyRecord, string>;
  /** ping key → project id */
  pingKeys: Database<string, string>;
  checks: Database<CheckRecord, string>;
  /** [projectId, createdAt, uuid] → uuid: creation-ordered listing per project. */
  checksByProject: Database<string, [string, number, string]>;
  /**
   * [projectId, slug, uuid] → uuid: a slug ping finds its check without
   * reading every check of the project. Checks with an empty slug are not in it.
   * Absent only when a data dir from before schema version 3 is opened read-only.
   */
  checksBySlug: Database<string, [string, string, string]> | undefined;
  /**
   * [projectId, name, uuid] → uuid, every check: a create with `unique:
   * ["name"]` finds its match without reading every check of the project.
   * Absent only when a data dir from before schema version 4 is opened read-only.
   */
  checksByName: Database<string, [string, string, string]> | undefined;
  /**
   * projectId → how many checks it has (kept by insert and delete), so the
   * check limit is enforced without counting the project's index.
   * Absent only when a data dir from before schema version 3 is opened read-only.
   */
  checkCounts: Database<number, string> | undefined;
  /**
   * projectId → how many times a check of it was created, changed or deleted
   * (check-indexes.ts `noteCheckEdit`): a scan done outside a transaction is
   * still right inside one if this did not move meanwhile.
   * Absent only when a data dir from before schema version 5 is opened read-only.
   */
  checkEdits: Database<number, string> | undefined;
  /** unique_key → uuid */
  uniqueKeys: Database<string, string>;
  /** check badge key → uuid */
  checkBadgeKeys: Database<string, string>;
  /** project badge key → project id */
  projectBadgeKeys: Database<string, string>;
  channels: Database<ChannelRecord, string>;
  /** [checkUuid, n] → ping */
  pings: Database<PingRecord, [string, number]>;
  /** [checkUuid, revision] → flip */
  flips: Database<FlipRecord, [string, number]>;
  /** revision → event */
  events: Database<StoredEvent, number>;
  /**
   * [revision, checkUuid] → ping not yet written into checks and pings (journal.ts).
   * Absent only when a data dir from before schema version 2 is opened read-only.
   */
  journal: Database<JournalEntry, [number, string]> | undefined;
}

/**
 * A database that only a data dir of an older schema opened read-only lacks
 * (openDb creates it on every writable open), for a write: its absence there
 * is a bug in the caller, said in one sentence.
 */
export function forWriting<T>(database: T | undefined, what: string): T {
  if (!database) throw new Error(`${what} is missing: the environment was opened read-only`);
  return database;
}

export class DataDirError extends Error {}

/** The LMDB data file inside a data dir (the environment is a directory, never a single file). */
export const DATA_FILE = 'data.mdb';

/** Bytes of `data.mdb` that hold the first meta page's magic number (LMDB's MDB_MAGIC). */
const MDB_MAGIC = 0xbeefc0de;

/**
 * What is at `dir`: 'absent' (nothing yet; a parent directory can take it),
 * 'empty' (a usable directory without an LMDB environment) or 'env' (a
 * directory holding one). Throws DataDirError when `dir` cannot be a data dir:
 * it is a file, a path component is a file, it is not readable/writable, or
 * its data.mdb is not an LMDB file (opening that would crash the process).
 */
export function inspectDataDir(dir: string): 'absent' | 'empty' | 'env' {
  if (dir.trim() === '') throw new DataDirError('data dir must not be empty');
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return 'absent';
    throw new DataDirError(`data dir ${dir} is not usable: ${describe(e)}`);
  }
  if (!isDir) throw new DataDirError(`data dir ${dir} is not usable: it exists and is not a directory`);
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new DataDirError(`data dir ${dir} is not usable: ${describe(err as NodeJS.ErrnoException)}`);
  }
  const file = join(dir, DATA_FILE);
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new DataDirError(`data dir ${dir} is not usable: ${file} is not a regular file`);
    size = st.size;
  } catch (err) {
    if (err instanceof DataDirError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'empty';
    throw new DataDirError(`data dir ${dir} is not usable: ${describe(err as NodeJS.ErrnoException)}`);
  }
  if (size === 0) return 'empty'; // LMDB initialises an empty file
  // LMDB maps the file and trusts its meta pages: a file that is not an LMDB
  // environment makes the native code segfault instead of returning an error.
  const head = Buffer.alloc(64);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const n = readSync(fd, head, 0, head.length, 0);
    // The magic follows the page header (16 bytes, 24 in lmdb-js's LMDB).
    if (n < 32 || (head.readUInt32LE(24) !== MDB_MAGIC && head.readUInt32LE(16) !== MDB_MAGIC)) {
      throw new DataDirError(`data dir ${dir} is not usable: ${file} is not an LMDB data file`);
    }
  } catch (err) {
    if (err instanceof DataDirError) throw err;
    throw new DataDirError(`data dir ${dir} is not usable: ${describe(err as NodeJS.ErrnoException)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return 'env';
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOTDIR':
      return 'a component of the path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    default:
      return err.message;
  }
}

/** Open (creating if needed) the environment in `dir`. Throws DataDirError if unusable. */
export function openDb(dir: string, opts: { readOnly?: boolean } = {}): Db {
  const state = inspectDataDir(dir);
  if (state === 'absent') {
    try {
      makeDirectory(dir);
      accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    } catch (err) {
      throw new DataDirError(`data dir ${dir} is not usable: ${describe(err as NodeJS.ErrnoException)}`);
    }
  }
  let root: RootDatabase;
  try {
    root = open({
      path: dir,
      // Always a directory holding data.mdb and lock.mdb: without this,
      // lmdb-js takes a path with a dot in its last part ("checkd.data",
      // mktemp's "tmp.X") for a single-file environment.
      noSubdir: false,
      maxDbs: 32,
      // Grows by itself: lmdb-js resizes the map when it fills.
      mapSize: 64 * 1024 * 1024,
      readOnly: opts.readOnly ?? false,
    });
  } catch (err) {
    throw new DataDirError(`cannot open LMDB in ${dir}: ${(err as Error).message}`);
  }
  // Records (checks, pings, events ...) are encoded with msgpackr structures
  // shared through the database instead of repeating every field name in
  // every value: values are less than half the size and decode ~3x faster,
  // which is most of the CPU of the ping path. Values written without them
  // still decode. lmdb-js keeps the structures under this symbol key, which
  // range iteration skips unless given an explicit `start: undefined`.
  const records = { sharedStructuresKey: Symbol.for('structures') };
  const db: Db = {
    root,
    meta: root.openDB({ name: 'meta' }),
    projects: root.openDB({ name: 'projects', ...records }),
    apiKeys: root.openDB({ name: 'api_keys', ...records }),
    pingKeys: root.openDB({ name: 'ping_keys' }),
    checks: root.openDB({ name: 'checks', ...records }),
    checksByProject: root.openDB({ name: 'checks_by_project' }),
    checksBySlug: root.openDB({ name: 'checks_by_slug' }),
    checksByName: root.openDB({ name: 'checks_by_name' }),
    checkCounts: root.openDB({ name: 'check_counts' }),
    checkEdits: root.openDB({ name: 'check_edits' }),
    uniqueKeys: root.openDB({ name: 'unique_keys' }),
    checkBadgeKeys: root.openDB({ name: 'check_badge_keys' }),
    projectBadgeKeys: root.openDB({ name: 'project_badge_keys' }),
    channels: root.openDB({ name: 'channels', ...records }),
    pings: root.openDB({ name: 'pings', ...records }),
    flips: root.openDB({ name: 'flips', ...records }),
    events: root.openDB({ name: 'events', ...records }),
    journal: root.openDB({ name: 'journal', useVersions: true, ...records }),
  };
  const stored = db.meta.get('schemaVersion') as number | undefined;
  // Version 2 added the (empty at first) ping journal; version 3 the slug
  // index and the check counts; version 4 the name index; version 5 the edit
  // counters (empty at first: they only need to move from then on).
  if (stored === undefined || stored < SCHEMA_VERSION) {
    if (!opts.readOnly) {
      root.transactionSync(() => {
        // Pings never change a slug or a name, so the B-tree's checks are current enough.
        const fields = stored === undefined ? [] : INDEXED_FIELDS.filter((f) => (f === 'slug' ? stored < 3 : stored < 4));
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
  } else if (stored > SCHEMA_VERSION) {
    root.close();
    throw new DataDirError(
      `data dir ${dir} has schema version ${stored}, newer than this checkd (${SCHEMA_VERSION}); upgrade checkd`,
    );
  }
  return db;
}

export async function closeDb(db: Db): Promise<void> {
  await db.root.flushed;
  await db.root.close();
}

/** Current revision of the event log (0 when empty). */
export function currentRevision(db: Db): number {
  return (db.meta.get('rev') as number | undefined) ?? 0;
}
