// `checkd import` reads and validates the whole export before it touches the
// data dir. Checks are validated one by one as the stream hands them over;
// their raw objects are dropped at once. Everything else (the header,
// projects, keys, channels) is small and validated at the end, when the
// project a check belongs to is fully known. The import does not keep the
// checks (a large import's records would not fit in memory): it keeps what the
// validation needs (their ids, for duplicates and conflicts, and the channels
// they name), and the import spools their texts on disk (import-checks.ts).
import { createReadStream, openSync } from 'node:fs';
import type { ApiKeyRecord } from '../store/schema.js';
import { UsageError } from '../cli/admin.js';
import { needsValue, validateChannel } from '../domain/channel-kinds.js';
import { detectScheduleKind, isValidSchedule } from '../domain/schedule/index.js';
import { normalizeTimezone } from '../domain/timezones.js';
import type { ChannelRecord, CheckRecord, ProjectRecord } from '../domain/types.js';
import {
  CHANNEL_FIELDS,
  CHECK_FIELDS,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  KEY_FIELDS,
  PROJECT_FIELDS,
  PROJECT_LISTS,
  checkFromJson,
  fromJson,
  type FieldRule,
} from './export-fields.js';
import { numbers, sortByString } from '../store/key-order.js';
import { InputError, NotJsonError, RepeatedFieldError, parseExportStream, type CheckPlace, type CheckSpan, type DocumentRest } from './export-parse.js';

export interface ParsedProject {
  project: ProjectRecord;
  apiKeys: Array<{ digest: string; rec: ApiKeyRecord }>;
  channels: ChannelRecord[];
  /** Its checks as records, in file order; empty unless the validation kept them. */
  checks: CheckRecord[];
  /** How many checks it has. */
  checkCount: number;
}

export interface ParsedExport {
  badgeSecret: string | null;
  projects: ParsedProject[];
}

const DOCUMENT_FIELDS = ['format', 'version', 'exported_at', 'badge_secret', 'projects'];

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

/** A table's rules and the field names it allows, built once per table: checkObject runs for every check. */
const tables = new WeakMap<object, { rules: FieldRule[]; known: Set<string> }>();

function tableOf(fields: Record<string, FieldRule>, lists: readonly string[]): { rules: FieldRule[]; known: Set<string> } {
  let table = tables.get(fields);
  if (!table) {
    const rules = Object.values(fields);
    tables.set(fields, (table = { rules, known: new Set([...rules.map((f) => f.json), ...lists]) }));
  }
  return table;
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
  const { rules, known } = tableOf(fields, lists);
  for (const k in value) if (!known.has(k)) problems.add(`${path}.${k}`, 'unknown field');
  let ok = true;
  for (const rule of rules) {
    if (!Object.hasOwn(value, rule.json)) {
      if (rule.optional) continue;
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

function fail(problems: string[]): never {
  const shown = problems.slice(0, 20);
  const more = problems.length - shown.length;
  throw new UsageError(`invalid export file, nothing imported:\n  ${shown.join('\n  ')}${more > 0 ? `\n  ... and ${more} more` : ''}`);
}

/** The channels named by checks that are not kept, by project: [index in the project, channel ids]. */
type ChannelRefs = Map<number, Array<[number, string[]]>>;

/**
 * The validation of one document, fed as it streams: `header` and `check`
 * while reading, `finish` with what is left at the end. With `keepChecks`,
 * each valid check is also kept as a record (ParsedProject.checks).
 */
export class ExportValidation {
  /** Valid checks by project position, then by position in the project (sparse where invalid), when kept. */
  private readonly checks = new Map<number, CheckRecord[]>();
  private readonly channelRefs: ChannelRefs = new Map();
  /** Channel ids as first read, so that a million checks naming the same channel hold one string. */
  private readonly channelIds = new Map<string, string>();
  /** Valid checks so far by project position. */
  private readonly counts = new Map<number, number>();
  /** Problems of checks by project position, reported after the project's own. */
  private readonly checkProblems = new Map<number, Problems>();
  /** Ids that must be unique in the document, with the path that had them first. */
  private readonly seen = new Map<string, string>();
  /**
   * The ids of checks, which are many, by the check's number in the document
   * (`runs` has the place of each run of numbers): repeats are found by
   * sorting them once all are read, which costs less than a map of a million.
   */
  private readonly checkUuids: unknown[] = [];
  private readonly checkBadgeKeys: unknown[] = [];
  private handed = 0;
  private readonly runs: Array<{ from: number; project: number; index: number }> = [];

  constructor(private readonly opts: { keepChecks?: boolean } = { keepChecks: true }) {}

  /** A header field as soon as it is read: a wrong format or version stops the read. */
  headerField(field: string, value: unknown): void {
    if (field === 'format') this.checkFormat(value);
    if (field === 'version') this.checkVersion(value);
  }

  private checkFormat(format: unknown): void {
    if (format !== EXPORT_FORMAT) throw new UsageError(`not a checkd export: "format" must be "${EXPORT_FORMAT}"`);
  }

  private checkVersion(version: unknown): void {
    if (version === undefined) throw new UsageError(`not a checkd export: "version" is missing`);
    if (version !== EXPORT_VERSION) {
      throw new UsageError(`unsupported export version ${JSON.stringify(version)}; this checkd reads version ${EXPORT_VERSION}`);
    }
  }

  private unique(kind: string, value: unknown, path: string, problems: Problems): void {
    if (typeof value !== 'string') return;
    const k = `${kind}\0${value}`;
    const first = this.seen.get(k);
    if (first) problems.add(path, `duplicate ${kind} ${value} (also at ${first})`);
    else this.seen.set(k, path);
  }

  /** The place of the check numbered `n` in the document. */
  private placeOf(n: number): CheckPlace {
    let lo = 0;
    let hi = this.runs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.runs[mid]!.from <= n) lo = mid;
      else hi = mid - 1;
    }
    const run = this.runs[lo]!;
    return { project: run.project, index: run.index + n - run.from };
  }

  /** Each check id in `ids` (by check number) that an earlier check has too, as a problem of its check's project. */
  private repeatedCheckIds(ids: unknown[], kind: string, field: string): void {
    const ns = numbers(ids.length, (n) => typeof ids[n] === 'string');
    const order = sortByString(ns, (n) => ids[n] as string, (a, b) => a - b);
    for (let i = 1, first = order[0]!; i < order.length; i++) {
      const n = order[i]!;
      if (ids[n] !== ids[first]) {
        first = n;
        continue;
      }
      const { project, index } = this.placeOf(n);
      const at = this.placeOf(first);
      this.problemsOf(project).add(`projects[${project}].checks[${index}].${field}`, `duplicate ${kind} ${ids[n] as string} (also at projects[${at.project}].checks[${at.index}].${field})`);
    }
  }

  private problemsOf(project: number): Problems {
    let problems = this.checkProblems.get(project);
    if (!problems) this.checkProblems.set(project, (problems = new Problems()));
    return problems;
  }

  /** One check, as the stream hands it over. Its project is filled in by `finish`. */
  check(raw: unknown, { project, index }: CheckPlace): void {
    const problems = this.problemsOf(project);
    const n = this.handed++;
    const run = this.runs[this.runs.length - 1];
    if (!run || run.project !== project || run.index + n - run.from !== index) this.runs.push({ from: n, project, index });
    const cp = `projects[${project}].checks[${index}]`;
    if (!checkObject(raw, cp, CHECK_FIELDS, [], problems)) return;
    const kind = raw.kind as CheckRecord['kind'];
    const schedule = raw.schedule as string;
    const tz = raw.tz as string;
    if (kind !== 'simple' && (!isValidSchedule(schedule, tz) || detectScheduleKind(schedule) !== kind)) {
      problems.add(`${cp}.schedule`, `not a valid schedule for a ${kind} check`);
    }
    if (normalizeTimezone(tz) !== tz) problems.add(`${cp}.tz`, `not the canonical name (${normalizeTimezone(tz)})`);
    this.checkUuids[n] = raw.uuid;
    this.checkBadgeKeys[n] = raw.badge_key;
    this.counts.set(project, (this.counts.get(project) ?? 0) + 1);
    if (this.opts.keepChecks) {
      let list = this.checks.get(project);
      if (!list) this.checks.set(project, (list = []));
      list[index] = checkFromJson(raw, '');
      return;
    }
    const channels = raw.channels as string[];
    if (channels.length === 0) return;
    let refs = this.channelRefs.get(project);
    if (!refs) this.channelRefs.set(project, (refs = []));
    refs.push([index, channels.map((id) => this.channelIds.get(id) ?? (this.channelIds.set(id, id), id))]);
  }

  /** Validate the rest of the document; throws UsageError listing what is wrong. */
  finish({ root: doc }: DocumentRest): ParsedExport {
    if (!doc) throw new UsageError('not a checkd export: expected a JSON object');
    this.checkFormat(doc.format);
    this.checkVersion(doc.version);
    const problems = new Problems();
    for (const k of Object.keys(doc)) if (!DOCUMENT_FIELDS.includes(k)) problems.add(k, 'unknown field');
    if (doc.exported_at !== undefined && typeof doc.exported_at !== 'string') problems.add('exported_at', 'expected a string');
    const badgeSecret = doc.badge_secret ?? null;
    if (badgeSecret !== null && (typeof badgeSecret !== 'string' || badgeSecret.length < 16)) {
      problems.add('badge_secret', 'expected null or a string of at least 16 characters');
    }
    this.repeatedCheckIds(this.checkUuids, 'check uuid', 'uuid');
    this.repeatedCheckIds(this.checkBadgeKeys, 'check badge key', 'badge_key');
    if (!Array.isArray(doc.projects)) {
      problems.add('projects', doc.projects === undefined ? 'missing' : 'expected an array');
      fail(problems.list);
    }
    const all = [...problems.list];
    const projects: ParsedProject[] = [];
    (doc.projects as unknown[]).forEach((raw, i) => {
      const own = new Problems();
      const parsed = this.project(raw, i, own);
      all.push(...own.list, ...(this.checkProblems.get(i)?.list ?? []));
      if (parsed) projects.push(parsed);
    });
    if (all.length > 0) fail(all);
    return { badgeSecret: badgeSecret as string | null, projects };
  }

  private project(raw: unknown, i: number, problems: Problems): ParsedProject | null {
    const pp = `projects[${i}]`;
    if (!checkObject(raw, pp, PROJECT_FIELDS, PROJECT_LISTS, problems)) return null;
    const project = fromJson<ProjectRecord>(raw, PROJECT_FIELDS, {});
    this.unique('project id', project.id, `${pp}.id`, problems);
    this.unique('ping key', project.pingKey, `${pp}.ping_key`, problems);
    this.unique('project badge key', project.badgeKey, `${pp}.badge_key`, problems);

    const apiKeys: ParsedProject['apiKeys'] = [];
    (raw.api_keys as unknown[]).forEach((k, j) => {
      const kp = `${pp}.api_keys[${j}]`;
      if (!checkObject(k, kp, KEY_FIELDS, [], problems)) return;
      this.unique('API key digest', k.sha256, `${kp}.sha256`, problems);
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
      // A channel waiting for its value (imported from Healthchecks) travels as it is.
      const valid = needsValue(channel) ? { ok: true as const, value: '' } : validateChannel(channel.kind, channel.value);
      if (!valid.ok) problems.add(`${cp}.value`, `not a valid value for a ${channel.kind} channel (${valid.error})`);
      else if (valid.value !== channel.value) problems.add(`${cp}.value`, 'has surrounding blanks');
      this.unique('channel id', channel.id, `${cp}.id`, problems);
      channels.push(channel);
    });
    const channelIds = new Set(channels.map((c) => c.id));

    const checks: CheckRecord[] = [];
    const dangling = (j: number, ids: string[]) => {
      for (const id of ids) if (!channelIds.has(id)) problems.add(`${pp}.checks[${j}].channels`, `channel ${id} is not a channel of this project`);
    };
    (this.checks.get(i) ?? []).forEach((check, j) => {
      check.projectId = project.id;
      dangling(j, check.channels);
      checks.push(check);
    });
    for (const [j, ids] of this.channelRefs.get(i) ?? []) dangling(j, ids);
    return { project, apiKeys, channels, checks, checkCount: this.counts.get(i) ?? 0 };
  }
}

/**
 * Read, parse and validate an export file, a piece at a time: memory holds
 * what the validation needs, not the text or the document. Checks are kept as
 * records only with `keepChecks`; `also` is handed each check after its
 * validation (valid or not: it is the caller's to use once the document is).
 * `name` is what messages call the file.
 */
export async function readExport(
  file: string,
  opts: { keepChecks?: boolean; name?: string; also?: (raw: unknown, place: CheckPlace, span: CheckSpan) => void } = { keepChecks: true },
): Promise<ParsedExport> {
  const validation = new ExportValidation(opts);
  const rest = await readChecks(
    file,
    opts.name ?? file,
    (raw, place, span) => {
      validation.check(raw, place);
      opts.also?.(raw, place, span);
    },
    (field, value) => validation.headerField(field, value),
  );
  return validation.finish(rest);
}

/**
 * Stream the export file `file` (- for standard input) through
 * parseExportStream, with its errors as UsageErrors that say what is wrong
 * (`name` is what they call the file).
 */
async function readChecks(
  file: string,
  name: string,
  onCheck: (raw: unknown, place: CheckPlace, span: CheckSpan) => void,
  onHeader: (field: string, value: unknown) => void,
): Promise<DocumentRest> {
  const source = name === '-' ? 'standard input' : name;
  let fd: number;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
  } catch (err) {
    throw new UsageError(`cannot read ${name}: ${(err as Error).message}`);
  }
  try {
    return await parseExportStream(createReadStream('', { fd, highWaterMark: 1 << 20 }), onCheck, onHeader);
  } catch (err) {
    if (err instanceof NotJsonError) throw new UsageError(`${source} is not valid JSON, nothing imported: ${err.message}`);
    if (err instanceof InputError) throw new UsageError(`cannot read ${name}: ${err.message}`);
    if (err instanceof RepeatedFieldError) fail([err.message]);
    throw err;
  }
}
