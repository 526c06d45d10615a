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
import { readFileSync, renameSync, openSync, fsyncSync, closeSync, rmSync, writeSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { Store, type ListPosition } from '../store/store.js';
import { inspectDataDir, type ApiKeyRecord } from '../store/db.js';
import { systemClock } from '../clock.js';
import { UsageError, type Output } from '../admin.js';
import { UUID_RE } from '../domain/ids.js';
import { CHANNEL_KINDS, validateChannel } from '../domain/channel-kinds.js';
import { detectScheduleKind, isValidSchedule } from '../domain/schedule/index.js';
import { normalizeTimezone } from '../domain/timezones.js';
import type { ChannelRecord, CheckRecord, ProjectRecord } from '../domain/types.js';
import { OpsError } from './errors.js';

export const EXPORT_FORMAT = 'checkd-export';
export const EXPORT_VERSION = 1;

// ---- the document ---------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export type ExportedApiKey = {
  sha256: string;
  read_only: boolean;
  created_at: number;
};

export interface ExportDoc {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  badge_secret: string | null;
  projects: Array<Record<string, Json>>;
}

/** A field of a stored record as it appears in the file, with its rule. */
interface FieldRule {
  json: string;
  check(value: unknown): string | null;
}

const DURATION_MIN = 60;
const DURATION_MAX = 31_536_000;

const isInt = (v: unknown, min: number, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

const rules = {
  string:
    (max?: number): FieldRule['check'] =>
    (v) =>
      typeof v !== 'string' ? 'expected a string' : max !== undefined && [...v].length > max ? `longer than ${max} characters` : null,
  nullableString: (): FieldRule['check'] => (v) => (v === null || typeof v === 'string' ? null : 'expected a string or null'),
  pattern:
    (re: RegExp, what: string): FieldRule['check'] =>
    (v) =>
      typeof v === 'string' && re.test(v) ? null : `expected ${what}`,
  int:
    (min: number, max?: number): FieldRule['check'] =>
    (v) =>
      isInt(v, min, max) ? null : `expected a whole number${max === undefined ? ` >= ${min}` : ` from ${min} to ${max}`}`,
  nullableInt:
    (min: number): FieldRule['check'] =>
    (v) =>
      v === null || isInt(v, min) ? null : `expected null or a whole number >= ${min}`,
  bool: (): FieldRule['check'] => (v) => (typeof v === 'boolean' ? null : 'expected true or false'),
  oneOf:
    (values: readonly string[]): FieldRule['check'] =>
    (v) =>
      typeof v === 'string' && values.includes(v) ? null : `expected one of ${values.map((x) => JSON.stringify(x)).join(', ')}`,
  uuids: (): FieldRule['check'] => (v) =>
    Array.isArray(v) && v.every((x) => typeof x === 'string' && UUID_RE.test(x)) ? null : 'expected an array of UUIDs',
};

const uuid = rules.pattern(UUID_RE, 'a lowercase UUID');
const PING_KEY_RE = /^[-a-zA-Z0-9_]{1,64}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;

// Keyed by the record's own field names, so that a field added to a record
// type is a compile error here until export and import handle it. everStarted
// is about the ping log, which is not exported: an imported check has none.
const CHECK_FIELDS: Record<Exclude<keyof CheckRecord, 'projectId' | 'everStarted'>, FieldRule> = {
  uuid: { json: 'uuid', check: uuid },
  badgeKey: { json: 'badge_key', check: uuid },
  createdAt: { json: 'created_at', check: rules.int(0) },
  name: { json: 'name', check: rules.string(100) },
  slug: { json: 'slug', check: rules.pattern(/^[a-z0-9_-]{0,100}$/, 'a slug ([a-z0-9_-], at most 100)') },
  tags: { json: 'tags', check: rules.string() },
  desc: { json: 'desc', check: rules.string() },
  kind: { json: 'kind', check: rules.oneOf(['simple', 'cron', 'oncalendar']) },
  timeout: { json: 'timeout', check: rules.int(DURATION_MIN, DURATION_MAX) },
  grace: { json: 'grace', check: rules.int(DURATION_MIN, DURATION_MAX) },
  schedule: { json: 'schedule', check: rules.string(100) },
  tz: { json: 'tz', check: (v) => (typeof v === 'string' && normalizeTimezone(v) !== null ? null : 'expected a time zone name') },
  manualResume: { json: 'manual_resume', check: rules.bool() },
  methods: { json: 'methods', check: rules.oneOf(['', 'POST']) },
  startKw: { json: 'start_kw', check: rules.string(200) },
  successKw: { json: 'success_kw', check: rules.string(200) },
  failureKw: { json: 'failure_kw', check: rules.string(200) },
  filterSubject: { json: 'filter_subject', check: rules.bool() },
  filterBody: { json: 'filter_body', check: rules.bool() },
  filterHttpBody: { json: 'filter_http_body', check: rules.bool() },
  filterDefaultFail: { json: 'filter_default_fail', check: rules.bool() },
  status: { json: 'status', check: rules.oneOf(['new', 'up', 'down', 'paused']) },
  lastPing: { json: 'last_ping', check: rules.nullableInt(0) },
  lastStart: { json: 'last_start', check: rules.nullableInt(0) },
  lastStartRid: { json: 'last_start_rid', check: rules.nullableString() },
  lastDuration: { json: 'last_duration', check: rules.nullableInt(0) },
  alertAfter: { json: 'alert_after', check: rules.nullableInt(0) },
  nPings: { json: 'n_pings', check: rules.int(0) },
  channels: { json: 'channels', check: rules.uuids() },
};

const CHANNEL_FIELDS: Record<Exclude<keyof ChannelRecord, 'projectId'>, FieldRule> = {
  id: { json: 'id', check: uuid },
  kind: { json: 'kind', check: rules.oneOf(CHANNEL_KINDS) },
  name: {
    json: 'name',
    check: (v) => rules.string(100)(v) ?? ((v as string).includes(',') ? 'must not contain a comma' : null),
  },
  value: { json: 'value', check: rules.string() },
  createdAt: { json: 'created_at', check: rules.int(0) },
};

const PROJECT_FIELDS: Record<keyof ProjectRecord, FieldRule> = {
  id: { json: 'id', check: uuid },
  name: { json: 'name', check: (v) => rules.string(200)(v) ?? ((v as string).trim() === '' ? 'must not be empty' : null) },
  checkLimit: { json: 'check_limit', check: rules.int(0, 1_000_000) },
  pingLogLimit: { json: 'ping_log_limit', check: rules.int(1, 100_000) },
  pingKey: { json: 'ping_key', check: rules.pattern(PING_KEY_RE, 'a ping key ([-a-zA-Z0-9_], 1 to 64)') },
  badgeKey: { json: 'badge_key', check: uuid },
  createdAt: { json: 'created_at', check: rules.int(0) },
};

const KEY_FIELDS: Record<keyof ExportedApiKey, FieldRule> = {
  sha256: { json: 'sha256', check: rules.pattern(SHA256_RE, '64 lowercase hex digits (a SHA-256 digest)') },
  read_only: { json: 'read_only', check: rules.bool() },
  created_at: { json: 'created_at', check: rules.int(0) },
};

const PROJECT_LISTS = ['api_keys', 'channels', 'checks'] as const;

function toJson<R extends object>(record: R, fields: Record<string, FieldRule>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, rule] of Object.entries(fields)) out[rule.json] = (record as Record<string, unknown>)[key] as Json;
  return out;
}

function fromJson<R>(obj: Record<string, unknown>, fields: Record<string, FieldRule>, extra: Record<string, unknown>): R {
  const out: Record<string, unknown> = { ...extra };
  for (const [key, rule] of Object.entries(fields)) {
    const v = obj[rule.json];
    out[key] = Array.isArray(v) ? [...v] : v;
  }
  return out as R;
}

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
  for (const { key, value } of store.db.apiKeys.getRange()) {
    const list = keysByProject.get(value.projectId) ?? [];
    list.push({ sha256: key, read_only: value.readOnly, created_at: value.createdAt });
    keysByProject.set(value.projectId, list);
  }
  const header: Omit<ExportDoc, 'projects'> = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: new Date(now).toISOString(),
    badge_secret: (store.db.meta.get('badgeSecret') as string | undefined) ?? null,
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
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'w', 0o600);
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
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
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

// ---- validation -----------------------------------------------------------

export interface ParsedProject {
  project: ProjectRecord;
  apiKeys: Array<{ digest: string; rec: ApiKeyRecord }>;
  channels: ChannelRecord[];
  checks: CheckRecord[];
}

export interface ParsedExport {
  badgeSecret: string | null;
  projects: ParsedProject[];
}

/** Problems collected while validating; the first few are reported. */
class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkObject(
  value: unknown,
  path: string,
  fields: Record<string, FieldRule>,
  lists: readonly string[],
  problems: Problems,
): value is Record<string, unknown> {
  if (!isObject(value)) {
    problems.add(path, 'expected an object');
    return false;
  }
  const known = new Set([...Object.values(fields).map((f) => f.json), ...lists]);
  for (const k of Object.keys(value)) if (!known.has(k)) problems.add(`${path}.${k}`, 'unknown field');
  let ok = true;
  for (const rule of Object.values(fields)) {
    if (!Object.hasOwn(value, rule.json)) {
      problems.add(`${path}.${rule.json}`, 'missing');
      ok = false;
      continue;
    }
    const err = rule.check(value[rule.json]);
    if (err) {
      problems.add(`${path}.${rule.json}`, err);
      ok = false;
    }
  }
  for (const l of lists) {
    if (!Array.isArray(value[l])) {
      problems.add(`${path}.${l}`, value[l] === undefined ? 'missing' : 'expected an array');
      ok = false;
    }
  }
  return ok;
}

/** Validate a parsed document completely; throws UsageError listing what is wrong. */
export function validateExport(doc: unknown): ParsedExport {
  const problems = new Problems();
  if (!isObject(doc)) throw new UsageError('not a checkd export: expected a JSON object');
  if (doc.format !== EXPORT_FORMAT) throw new UsageError(`not a checkd export: "format" must be "${EXPORT_FORMAT}"`);
  if (doc.version !== EXPORT_VERSION) {
    throw new UsageError(`unsupported export version ${JSON.stringify(doc.version)}; this checkd reads version ${EXPORT_VERSION}`);
  }
  for (const k of Object.keys(doc)) {
    if (!['format', 'version', 'exported_at', 'badge_secret', 'projects'].includes(k)) problems.add(k, 'unknown field');
  }
  if (doc.exported_at !== undefined && typeof doc.exported_at !== 'string') problems.add('exported_at', 'expected a string');
  const badgeSecret = doc.badge_secret ?? null;
  if (badgeSecret !== null && (typeof badgeSecret !== 'string' || badgeSecret.length < 16)) {
    problems.add('badge_secret', 'expected null or a string of at least 16 characters');
  }
  if (!Array.isArray(doc.projects)) {
    problems.add('projects', doc.projects === undefined ? 'missing' : 'expected an array');
    fail(problems);
  }

  const seen = new Map<string, string>();
  const unique = (kind: string, value: unknown, path: string) => {
    if (typeof value !== 'string') return;
    const k = `${kind}\0${value}`;
    const first = seen.get(k);
    if (first) problems.add(path, `duplicate ${kind} ${value} (also at ${first})`);
    else seen.set(k, path);
  };

  const projects: ParsedProject[] = [];
  (doc.projects as unknown[]).forEach((raw, i) => {
    const pp = `projects[${i}]`;
    if (!checkObject(raw, pp, PROJECT_FIELDS, PROJECT_LISTS, problems)) return;
    const project = fromJson<ProjectRecord>(raw, PROJECT_FIELDS, {});
    unique('project id', project.id, `${pp}.id`);
    unique('ping key', project.pingKey, `${pp}.ping_key`);
    unique('project badge key', project.badgeKey, `${pp}.badge_key`);

    const apiKeys: ParsedProject['apiKeys'] = [];
    (raw.api_keys as unknown[]).forEach((k, j) => {
      const kp = `${pp}.api_keys[${j}]`;
      if (!checkObject(k, kp, KEY_FIELDS, [], problems)) return;
      unique('API key digest', k.sha256, `${kp}.sha256`);
      apiKeys.push({
        digest: k.sha256 as string,
        rec: { projectId: project.id, readOnly: k.read_only as boolean, createdAt: k.created_at as number },
      });
    });

    const channels: ChannelRecord[] = [];
    (raw.channels as unknown[]).forEach((c, j) => {
      const cp = `${pp}.channels[${j}]`;
      if (!checkObject(c, cp, CHANNEL_FIELDS, [], problems)) return;
      const channel = fromJson<ChannelRecord>(c, CHANNEL_FIELDS, { projectId: project.id });
      const valid = validateChannel(channel.kind, channel.value);
      if (!valid.ok) problems.add(`${cp}.value`, `not a valid value for a ${channel.kind} channel (${valid.error})`);
      else if (valid.value !== channel.value) problems.add(`${cp}.value`, 'has surrounding blanks');
      unique('channel id', channel.id, `${cp}.id`);
      channels.push(channel);
    });
    const channelIds = new Set(channels.map((c) => c.id));

    const checks: CheckRecord[] = [];
    (raw.checks as unknown[]).forEach((c, j) => {
      const cp = `${pp}.checks[${j}]`;
      if (!checkObject(c, cp, CHECK_FIELDS, [], problems)) return;
      const check = fromJson<CheckRecord>(c, CHECK_FIELDS, { projectId: project.id, everStarted: false });
      if (check.kind !== 'simple' && (!isValidSchedule(check.schedule, check.tz) || detectScheduleKind(check.schedule) !== check.kind)) {
        problems.add(`${cp}.schedule`, `not a valid schedule for a ${check.kind} check`);
      }
      if (normalizeTimezone(check.tz) !== check.tz) problems.add(`${cp}.tz`, `not the canonical name (${normalizeTimezone(check.tz)})`);
      for (const id of check.channels) {
        if (!channelIds.has(id)) problems.add(`${cp}.channels`, `channel ${id} is not a channel of this project`);
      }
      unique('check uuid', check.uuid, `${cp}.uuid`);
      unique('check badge key', check.badgeKey, `${cp}.badge_key`);
      checks.push(check);
    });
    projects.push({ project, apiKeys, channels, checks });
  });
  if (problems.list.length > 0) fail(problems);
  return { badgeSecret: badgeSecret as string | null, projects };
}

function fail(problems: Problems): never {
  const shown = problems.list.slice(0, 20);
  const more = problems.list.length - shown.length;
  throw new UsageError(
    `invalid export file, nothing imported:\n  ${shown.join('\n  ')}${more > 0 ? `\n  ... and ${more} more` : ''}`,
  );
}

/** Parse and validate the text of an export file. */
export function parseExport(text: string, source: string): ParsedExport {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${source} is not valid JSON, nothing imported: ${(err as Error).message}`);
  }
  return validateExport(doc);
}

/**
 * Read and parse an export file (- for standard input). Its text is dropped
 * once parsed, not held through the import: ~94 MB for 100,000 checks.
 */
function readExport(file: string): ParsedExport {
  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return parseExport(text, file === '-' ? 'standard input' : file);
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
 * a project being replaced. Read before the first write.
 */
function findConflicts(store: Store, parsed: ParsedExport, replace: boolean): { conflicts: string[]; replaced: Set<string> } {
  const db = store.db;
  const replaced = new Set<string>();
  const conflicts: string[] = [];
  for (const { project } of parsed.projects) {
    const existing = db.projects.get(project.id);
    if (!existing) continue;
    if (replace) replaced.add(project.id);
    else conflicts.push(`project ${project.id} ("${existing.name}") already exists (--replace replaces it)`);
  }
  // Ids of a project that is refused above need no line of their own.
  const refused = new Set(parsed.projects.map((p) => p.project.id).filter((id) => db.projects.get(id) && !replaced.has(id)));
  const takenBy = (owner: string | undefined, what: string) => {
    if (owner !== undefined && !replaced.has(owner) && !refused.has(owner)) conflicts.push(`${what} is already used by project ${owner}`);
  };
  for (const { project, apiKeys, channels, checks } of parsed.projects) {
    takenBy(db.pingKeys.get(project.pingKey), `ping key of project ${project.id}`);
    takenBy(db.projectBadgeKeys.get(project.badgeKey), `badge key of project ${project.id}`);
    for (const k of apiKeys) takenBy(db.apiKeys.get(k.digest)?.projectId, `API key ${k.digest.slice(0, 12)}... of project ${project.id}`);
    for (const c of channels) takenBy(db.channels.get(c.id)?.projectId, `channel ${c.id}`);
    for (const c of checks) {
      takenBy(db.checks.get(c.uuid)?.projectId, `check ${c.uuid}`);
      const byBadge = db.checkBadgeKeys.get(c.badgeKey);
      takenBy(byBadge === undefined ? undefined : db.checks.get(byBadge)?.projectId, `badge key of check ${c.uuid}`);
    }
  }
  return { conflicts, replaced };
}

/** Remove a project and all it owns. Inside a transaction. */
function deleteProjectInTxn(store: Store, projectId: string, now: number): void {
  const db = store.db;
  const project = db.projects.get(projectId);
  if (!project) return;
  for (const check of store.listChecks(projectId)) store.deleteCheckInTxn(check, now);
  for (const channel of store.listChannels(projectId)) db.channels.remove(channel.id);
  for (const { key, value } of db.apiKeys.getRange()) if (value.projectId === projectId) db.apiKeys.remove(key);
  db.pingKeys.remove(project.pingKey);
  db.projectBadgeKeys.remove(project.badgeKey);
  db.projects.remove(projectId);
  store.appendEventInTxn({ at: now, type: 'project.changed', projectId, checkUuid: null });
}

export async function importData(
  dataDir: string,
  file: string,
  opts: { replace: boolean },
  output: Output,
): Promise<ImportSummary> {
  // All of the input is checked before the data dir is even opened.
  const parsed = readExport(file);
  inspectDataDir(dataDir); // throws DataDirError (exit 2) for an unusable dir
  const store = Store.open(dataDir);
  const now = systemClock.now();
  let summary: ImportSummary;
  try {
    summary = await store.transact(() => {
      // Validation first: a transaction callback must not throw after a write.
      const { conflicts, replaced } = findConflicts(store, parsed, opts.replace);
      if (conflicts.length > 0) {
        const shown = conflicts.slice(0, 20);
        throw new UsageError(
          `refusing to import, nothing written:\n  ${shown.join('\n  ')}${conflicts.length > 20 ? `\n  ... and ${conflicts.length - 20} more` : ''}`,
        );
      }
      const db = store.db;
      for (const id of replaced) deleteProjectInTxn(store, id, now);
      let badge: ImportSummary['badge_secret'] = 'none';
      if (parsed.badgeSecret !== null) {
        const current = db.meta.get('badgeSecret') as string | undefined;
        if (current === undefined) {
          db.meta.put('badgeSecret', parsed.badgeSecret);
          badge = 'imported';
        } else badge = current === parsed.badgeSecret ? 'imported' : 'kept';
      }
      let checks = 0;
      let channels = 0;
      let keys = 0;
      for (const p of parsed.projects) {
        db.projects.put(p.project.id, p.project);
        db.pingKeys.put(p.project.pingKey, p.project.id);
        db.projectBadgeKeys.put(p.project.badgeKey, p.project.id);
        for (const k of p.apiKeys) db.apiKeys.put(k.digest, k.rec);
        keys += p.apiKeys.length;
        store.appendEventInTxn({ at: now, type: 'project.changed', projectId: p.project.id, checkUuid: null });
        for (const c of [...p.channels].sort((a, b) => a.createdAt - b.createdAt)) {
          db.channels.put(c.id, c);
          store.appendEventInTxn({ at: now, type: 'channel.changed', projectId: p.project.id, checkUuid: null });
        }
        channels += p.channels.length;
        // In creation order: the project index keeps list order by created_at.
        for (const c of [...p.checks].sort((a, b) => a.createdAt - b.createdAt)) store.insertCheckInTxn(c, now);
        checks += p.checks.length;
      }
      return {
        projects: parsed.projects.length,
        checks,
        channels,
        api_keys: keys,
        replaced: [...replaced],
        badge_secret: badge,
      };
    });
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
}
