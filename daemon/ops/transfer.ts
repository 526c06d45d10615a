// `checkd export` / `checkd import`: projects with their API keys, channels and
// checks (settings and status) as one JSON document, to move a checkd to
// another data dir or machine, or to keep a readable copy.
//
// API keys are stored as SHA-256 digests and travel as digests: the keys
// themselves never appear in the file, and the same keys keep working after
// an import. Whoever holds the file can therefore not call the API, but the
// file still carries ping keys, badge keys, the badge secret and channel
// values (webhook URLs, commands): it is written 0600.
//
// Not exported: the ping log, the flip history and the event log. Checks keep
// their status fields and n_pings, so an imported check continues where it was.
import { randomBytes } from 'node:crypto';
import { constants, renameSync, openSync, fsyncSync, closeSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { CheckExistsError, Store, type ListPosition } from '../store/store.js';
import { inspectDataDir } from '../store/db.js';
import { systemClock } from '../shared/clock.js';
import { UsageError, type Output } from '../cli/admin.js';
import { OpsError } from './errors.js';
import {
  CHANNEL_FIELDS,
  CHECK_FIELDS,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  PROJECT_FIELDS,
  toJson,
  type ExportDoc,
  type ExportedApiKey,
  type Json,
} from './export-fields.js';
import { readExport, type ParsedExport } from './import-read.js';
import { ImportChecks } from './import-checks.js';

// ---- export ---------------------------------------------------------------

/** Checks read at a time while exporting: the document is written as it is read. */
const EXPORT_PAGE = 1000;

/** Characters of the document gathered before they are written out. */
const EXPORT_CHUNK = 1 << 20;

/** `value` as JSON.stringify(value, null, 2) writes it at nesting `level`. */
function jsonAt(value: Json, level: number): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', '\n' + '  '.repeat(level));
}

/**
 * A JSON array at nesting `level`, written element by element, exactly as
 * JSON.stringify(array, null, 2) would write it.
 */
function writeArray(items: Iterable<Json>, level: number, write: (text: string) => void): number {
  const inner = '  '.repeat(level + 1);
  let n = 0;
  for (const item of items) {
    write((n === 0 ? '[\n' : ',\n') + inner + jsonAt(item, level + 1));
    n++;
  }
  write(n === 0 ? '[]' : '\n' + '  '.repeat(level) + ']');
  return n;
}

/** A project's checks in creation order, a page at a time. */
function* exportedChecks(store: Store, projectId: string): Iterable<Json> {
  let after: ListPosition | null = null;
  do {
    const page = store.checksPage(projectId, after, EXPORT_PAGE);
    for (const check of page.checks) yield toJson(check, CHECK_FIELDS);
    after = page.next;
  } while (after);
}

/**
 * Write the whole content as one document through `write`, a piece at a
 * time, so that memory holds a page of checks rather than all of them (with
 * 100,000 checks the document is ~90 MB). The text is exactly
 * JSON.stringify(doc, null, 2) plus a newline. Everything is read
 * synchronously, in one event-loop turn, so lmdb-js serves it from one read
 * transaction: a consistent snapshot even while the daemon writes.
 */
export function writeExport(store: Store, write: (text: string) => void, now: number = systemClock.now()): { projects: number; checks: number } {
  const keysByProject = new Map<string, ExportedApiKey[]>();
  for (const { digest, rec } of store.listApiKeys()) {
    const list = keysByProject.get(rec.projectId) ?? [];
    list.push({ sha256: digest, read_only: rec.readOnly, created_at: rec.createdAt });
    keysByProject.set(rec.projectId, list);
  }
  const header: Omit<ExportDoc, 'projects'> = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date(now).toISOString(),
    badge_secret: store.currentBadgeSecret() ?? null,
  };
  write('{\n');
  for (const [key, value] of Object.entries(header)) write(`  ${JSON.stringify(key)}: ${jsonAt(value as Json, 1)},\n`);
  write('  "projects": ');
  let checks = 0;
  const projects = store.listProjects();
  projects.forEach((p, i) => {
    write((i === 0 ? '[\n' : ',\n') + '    {\n');
    const fields: Record<string, Json> = {
      ...toJson(p, PROJECT_FIELDS),
      api_keys: (keysByProject.get(p.id) ?? []).sort((a, b) => a.created_at - b.created_at || a.sha256.localeCompare(b.sha256)),
      channels: store.listChannels(p.id).map((c) => toJson(c, CHANNEL_FIELDS)),
    };
    for (const [key, value] of Object.entries(fields)) write(`      ${JSON.stringify(key)}: ${jsonAt(value, 3)},\n`);
    write('      "checks": ');
    checks += writeArray(exportedChecks(store, p.id), 3, write);
    write('\n    }');
  });
  write(projects.length === 0 ? '[]' : '\n  ]');
  write('\n}\n');
  return { projects: projects.length, checks };
}

/** Collects written pieces and hands them on in pieces of about `size` characters. */
function chunked(size: number, out: (text: string) => void): { write(text: string): void; end(): void } {
  let pending: string[] = [];
  let length = 0;
  const flush = () => {
    if (length === 0) return;
    out(pending.join(''));
    pending = [];
    length = 0;
  };
  return {
    write(text) {
      pending.push(text);
      length += text.length;
      if (length >= size) flush();
    },
    end: flush,
  };
}

/** The whole export through `out`, in pieces of about EXPORT_CHUNK characters. */
function exportThrough(store: Store, out: (text: string) => void): { projects: number; checks: number } {
  const pieces = chunked(EXPORT_CHUNK, out);
  const counts = writeExport(store, pieces.write);
  pieces.end();
  return counts;
}

/**
 * Export into `path` atomically (a temp file beside it, fsync, rename),
 * readable by the owner only. Returns the bytes written.
 */
function exportToFile(store: Store, path: string): { projects: number; checks: number; bytes: number } {
  // A name nobody can guess, created new (never a file or link someone put there
  // first: --out may be in a directory others can write to, such as /tmp).
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    let bytes = 0;
    const file = fd;
    const counts = exportThrough(store, (text) => {
      const buf = Buffer.from(text);
      writeSync(file, buf, 0, buf.length);
      bytes += buf.length;
    });
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, path);
    return { ...counts, bytes };
  } catch (err) {
    if (fd !== undefined) {
      closeSync(fd);
      rmSync(tmp, { force: true });
    }
    throw new OpsError(`cannot write ${path}: ${(err as Error).message}`);
  }
}

export async function exportData(
  dataDir: string,
  opts: { out?: string },
  output: Output,
  write: (s: string) => void = (s) => process.stdout.write(s),
): Promise<void> {
  if (opts.out !== undefined && opts.out.trim() === '') throw new UsageError('--out must not be empty');
  if (inspectDataDir(dataDir) !== 'env') throw new UsageError(`no checkd data in ${dataDir}: nothing to export`);
  const store = Store.open(dataDir, { readOnly: true });
  try {
    if (opts.out === undefined || opts.out === '-') {
      // Writes to a pipe or a file are synchronous on Linux: pieces do not pile up.
      exportThrough(store, write);
      return;
    }
    const done = exportToFile(store, opts.out);
    output.print(
      { out: opts.out, projects: done.projects, checks: done.checks, bytes: done.bytes },
      `exported ${done.projects} project(s) and ${done.checks} check(s) to ${opts.out}`,
    );
  } finally {
    await store.close();
  }
}

// ---- import ---------------------------------------------------------------

export interface ImportSummary {
  projects: number;
  checks: number;
  channels: number;
  api_keys: number;
  replaced: string[];
  badge_secret: 'imported' | 'kept' | 'none';
}

/**
 * Every id of the document that is already taken in the store, other than by
 * a project being replaced. Read before the first write; `checks` are the
 * file's checks (none: their ids are not looked at).
 */
function findConflicts(store: Store, parsed: ParsedExport, replace: boolean, checks: ImportChecks | null): { conflicts: string[]; replaced: Set<string> } {
  const replaced = new Set<string>();
  const conflicts: string[] = [];
  for (const { project } of parsed.projects) {
    const existing = store.getProject(project.id);
    if (!existing) continue;
    if (replace) replaced.add(project.id);
    else conflicts.push(`project ${project.id} ("${existing.name}") already exists (--replace replaces it)`);
  }
  // Ids of a project that is refused above need no line of their own.
  const refused = new Set(parsed.projects.map((p) => p.project.id).filter((id) => store.getProject(id) && !replaced.has(id)));
  const takenBy = (owner: string | undefined, what: string) => {
    if (owner !== undefined && !replaced.has(owner) && !refused.has(owner)) conflicts.push(`${what} is already used by project ${owner}`);
  };
  for (const { project, apiKeys, channels } of parsed.projects) {
    takenBy(store.projectByPingKey(project.pingKey)?.id, `ping key of project ${project.id}`);
    takenBy(store.projectByBadgeKey(project.badgeKey)?.id, `badge key of project ${project.id}`);
    for (const k of apiKeys) takenBy(store.apiKeyByDigest(k.digest)?.projectId, `API key ${k.digest.slice(0, 12)}... of project ${project.id}`);
    for (const c of channels) takenBy(store.getChannel(c.id)?.projectId, `channel ${c.id}`);
  }
  for (let n = 0; n < (checks?.count ?? 0); n++) {
    takenBy(store.getCheck(checks!.uuid[n]!)?.projectId, `check ${checks!.uuid[n]}`);
    takenBy(store.checkByBadgeKey(checks!.badgeKey[n]!)?.projectId, `badge key of check ${checks!.uuid[n]}`);
  }
  return { conflicts, replaced };
}

function refuse(conflicts: string[]): never {
  const shown = conflicts.slice(0, 20);
  throw new UsageError(
    `refusing to import, nothing written:\n  ${shown.join('\n  ')}${conflicts.length > 20 ? `\n  ... and ${conflicts.length - 20} more` : ''}`,
  );
}

export async function importData(dataDir: string, file: string, opts: { replace: boolean }, output: Output): Promise<ImportSummary> {
  const checks = new ImportChecks();
  try {
    const parsed = await readExport(file, { keepChecks: false, also: checks.add });
    checks.setProjects(parsed.projects.map((p) => p.project.id));
    inspectDataDir(dataDir); // throws DataDirError (exit 2) for an unusable dir
    const store = Store.open(dataDir);
    const now = systemClock.now();
    let summary: ImportSummary;
    try {
      // The checks' ids are looked up before the transaction, which would hold
      // the write lock (and a running daemon's pings) meanwhile; the rest is
      // looked up again inside it, where nothing can come in between. (A
      // transaction callback must not throw after a write: validation first.)
      const first = findConflicts(store, parsed, opts.replace, checks);
      if (first.conflicts.length > 0) refuse(first.conflicts);
      summary = await store.transact(() => {
        const { conflicts, replaced } = findConflicts(store, parsed, opts.replace, null);
        if (conflicts.length > 0) refuse(conflicts);
        for (const id of replaced) store.deleteProjectInTxn(id, now);
        let badge: ImportSummary['badge_secret'] = 'none';
        if (parsed.badgeSecret !== null) {
          const current = store.currentBadgeSecret();
          if (current === undefined) {
            store.setBadgeSecretInTxn(parsed.badgeSecret);
            badge = 'imported';
          } else badge = current === parsed.badgeSecret ? 'imported' : 'kept';
        }
        let channels = 0;
        let keys = 0;
        for (const p of parsed.projects) {
          for (const k of p.apiKeys) store.insertApiKeyInTxn(k.digest, k.rec);
          keys += p.apiKeys.length;
          store.insertProjectInTxn(p.project, now);
          for (const c of [...p.channels].sort((a, b) => a.createdAt - b.createdAt)) store.insertChannelInTxn(c, now);
          channels += p.channels.length;
        }
        return {
          projects: parsed.projects.length,
          checks: checks.count,
          channels,
          api_keys: keys,
          replaced: [...replaced],
          badge_secret: badge,
        };
      });
      try {
        await store.bulkInsertChecks(checks, now);
      } catch (err) {
        const why = err instanceof CheckExistsError ? `check ${err.uuid} was created meanwhile` : (err as Error).message;
        throw new OpsError(`import stopped: ${why}; the projects were written with part of their checks, import the file again with --replace`);
      }
    } finally {
      await store.close();
    }
    output.print(
      { ...summary },
      [
        `imported ${summary.projects} project(s), ${summary.checks} check(s), ${summary.channels} channel(s), ${summary.api_keys} API key(s) into ${dataDir}`,
        ...(summary.replaced.length > 0 ? [`  replaced: ${summary.replaced.join(', ')}`] : []),
        ...(summary.badge_secret === 'kept'
          ? ['  note: this data dir has its own badge secret; badge URLs of the imported projects changed']
          : []),
      ].join('\n'),
    );
    return summary;
  } finally {
    await checks.close();
  }
}
