// Opens the LMDB environment of a data dir: checks that the directory can
// hold one, opens it and its named databases (schema.ts). Upgrading an older
// layout is migrations.ts's job, run by whoever opens the store.
import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { makeDirectory } from '../shared/make-dir.js';
import { join } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { Db } from './schema.js';

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

/**
 * The address space the data file is mapped into: a reservation, not memory
 * (LMDB maps the file read-only and shared; untouched pages cost nothing).
 * Past it lmdb-js grows the map by itself, but it never unmaps the old map
 * (readers may still hold pages of it), so every page touched before a growth
 * stays resident twice (docs/performance.md, "Why the code is as it is").
 * Sized so that that never happens to a data dir of a few million checks. (On a 32-bit system lmdb-js maps such
 * a size in chunks instead.)
 */
export const MAP_SIZE = 16 * 1024 ** 3;

/**
 * Open (creating if needed) the environment in `dir`. Throws DataDirError if
 * unusable. Its layout may be an older schema's: see migrations.ts.
 */
export function openDb(dir: string, opts: { readOnly?: boolean; mapSize?: number } = {}): Db {
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
      mapSize: opts.mapSize ?? MAP_SIZE,
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
  return {
    root,
    meta: root.openDB({ name: 'meta' }),
    projects: root.openDB({ name: 'projects', ...records }),
    apiKeys: root.openDB({ name: 'api_keys', ...records }),
    pingKeys: root.openDB({ name: 'ping_keys' }),
    checks: root.openDB({ name: 'checks', ...records }),
    checksByProject: root.openDB({ name: 'checks_by_project' }),
    checksBySlug: root.openDB({ name: 'checks_by_slug' }),
    checksByName: root.openDB({ name: 'checks_by_name' }),
    checksByDependsOn: root.openDB({ name: 'checks_by_depends_on' }),
    checkCounts: root.openDB({ name: 'check_counts' }),
    checkEdits: root.openDB({ name: 'check_edits' }),
    uniqueKeys: root.openDB({ name: 'unique_keys' }),
    checkBadgeKeys: root.openDB({ name: 'check_badge_keys' }),
    projectBadgeKeys: root.openDB({ name: 'project_badge_keys' }),
    channels: root.openDB({ name: 'channels', ...records }),
    pings: root.openDB({ name: 'ping_log', ...records }),
    flips: root.openDB({ name: 'flips', ...records }),
    events: root.openDB({ name: 'events', ...records }),
    maintenance: root.openDB({ name: 'maintenance', ...records }),
  };
}

export async function closeDb(db: Db): Promise<void> {
  await db.root.flushed;
  await db.root.close();
}
