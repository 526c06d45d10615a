// `checkd backup`: a consistent copy of the LMDB environment, safe while the
// daemon runs. LMDB's copy (mdb_env_copy2, lmdb-js `backup`) reads one
// snapshot in a read transaction: it holds every commit made before it began
// and never a half-written one, and writers are not blocked meanwhile.
// The copy is a data dir (a directory holding data.mdb): `checkd serve
// --data-dir COPY` opens it as it is.
import { chmodSync, existsSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { fsyncPath } from '../shared/fsync.js';
import { makeDirectory } from '../shared/make-dir.js';
import { basename, dirname, join, relative, resolve, isAbsolute } from 'node:path';
import { Store } from '../store/store.js';
import { DATA_FILE, inspectDataDir } from '../store/db.js';
import { SCHEMA_VERSION } from '../store/schema.js';
import { describeWriteFailure } from '../store/write-failure.js';
import { UsageError, type Output } from '../cli/admin.js';
import { OpsError } from './errors.js';

export interface BackupSummary {
  out: string;
  bytes: number;
  revision: number;
  projects: number;
  checks: number;
  compact: boolean;
  ms: number;
}

function inside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The path with symbolic links resolved as far as it exists: `/var/lib/checkd`
 * is itself a link (systemd's DynamicUser), and a backup written into the data
 * dir through one would be a copy of the data inside the data.
 */
function realPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(realPath(parent), basename(absolute));
  }
}

/** Check `--out` before anything is opened: a new or empty directory outside the data dir. */
function checkOut(dataDir: string, out: string): { created: boolean } {
  if (out.trim() === '') throw new UsageError('--out must not be empty');
  const target = realPath(out);
  const data = realPath(dataDir);
  if (inside(target, data) || inside(data, target)) {
    throw new UsageError(`--out ${out} must not be the data dir, inside it or above it`);
  }
  if (!existsSync(target)) return { created: true };
  let st;
  try {
    st = statSync(target);
  } catch (err) {
    throw new UsageError(`--out ${out} is not usable: ${(err as Error).message}`);
  }
  if (!st.isDirectory()) throw new UsageError(`--out ${out} exists and is not a directory; the backup is a directory (a data dir)`);
  if (readdirSync(target).length > 0) throw new UsageError(`--out ${out} is not empty; give a new directory`);
  return { created: false };
}

export async function backupDataDir(
  dataDir: string,
  opts: { out: string; compact: boolean },
  output: Output,
): Promise<BackupSummary> {
  const { created } = checkOut(dataDir, opts.out);
  if (inspectDataDir(dataDir) !== 'env') throw new UsageError(`no checkd data in ${dataDir}: nothing to back up`);
  const target = resolve(opts.out);
  const started = Date.now();
  const store = Store.open(dataDir, { readOnly: true });
  try {
    try {
      makeDirectory(target, 0o700);
      // Before the copy, not after: an --out that existed with a wider mode would
      // let others open the data file while it is being written.
      chmodSync(target, 0o700);
    } catch (err) {
      throw new OpsError(`cannot create ${target}: ${(err as Error).message}`);
    }
    try {
      await store.backupTo(target, opts.compact);
    } catch (err) {
      // Leave nothing behind that could be taken for a backup.
      rmSync(join(target, DATA_FILE), { force: true });
      if (created) rmSync(target, { recursive: true, force: true });
      throw new OpsError(`backup failed: ${describeWriteFailure(target, err as Error)}`);
    }
  } finally {
    await store.close();
  }
  const file = join(target, DATA_FILE);
  // The copy holds what the data dir does (key digests, ping and badge keys,
  // webhook URLs): readable by its owner alone, whatever the umask.
  chmodSync(file, 0o600);
  fsyncPath(file);
  fsyncPath(target);

  // Prove the copy opens as a data dir, and say what it holds.
  const copy = Store.open(target, { readOnly: true });
  let summary: BackupSummary;
  let copySchema: unknown;
  try {
    const projects = copy.listProjects();
    copySchema = copy.schemaVersion();
    summary = {
      out: target,
      bytes: statSync(file).size,
      revision: copy.revision(),
      projects: projects.length,
      checks: projects.reduce((n, p) => n + copy.countChecks(p.id), 0),
      compact: opts.compact,
      ms: Date.now() - started,
    };
  } finally {
    await copy.close();
  }
  // The copy's event log gets a name of its own: restored, its history goes its
  // own way, and a Watch client that resumed into it by revision would be told
  // another log's events. (A copy of an older layout keeps the old name rather
  // than be upgraded by this checkd: the daemon that backed it up would refuse it.)
  if (copySchema === SCHEMA_VERSION) {
    const writable = Store.open(target);
    try {
      await writable.transact(() => writable.renewLogId());
    } finally {
      await writable.close();
    }
    summary.bytes = statSync(file).size;
  }
  // Opening made a lock file; a backup is the data file alone.
  rmSync(join(target, 'lock.mdb'), { force: true });
  output.print(
    { ...summary },
    [
      `backup written to ${summary.out} (${summary.bytes} bytes, ${summary.ms} ms${summary.compact ? ', compacted' : ''})`,
      `  event log revision ${summary.revision}, ${summary.projects} project(s), ${summary.checks} check(s)`,
      `  restore: stop checkd, put this directory in place of the data dir, start checkd (docs/operations.md)`,
    ].join('\n'),
  );
  return summary;
}
