// `checkd import` reads and validates the whole export before it touches the
// data dir. Checks are validated one by one as the stream hands them over and
// kept as records; their raw objects are dropped at once. Everything else (the
// header, projects, keys, channels) is small and validated at the end, when
// the project a check belongs to is fully known.
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
  fromJson,
  type FieldRule,
} from './export-fields.js';
import { InputError, NotJsonError, RepeatedFieldError, parseExportStream, type CheckPlace, type DocumentRest } from './export-parse.js';

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

/** The field names a table allows, built once per table: checkObject runs for every check. */
const knownNames = new WeakMap<object, Set<string>>();

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
  let known = knownNames.get(fields);
  if (!known) knownNames.set(fields, (known = new Set([...Object.values(fields).map((f) => f.json), ...lists])));
  for (const k of Object.keys(value)) if (!known.has(k)) problems.add(`${path}.${k}`, 'unknown field');
  let ok = true;
  for (const rule of Object.values(fields)) {
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

/**
 * The validation of one document, fed as it streams: `header` and `check`
 * while reading, `finish` with what is left at the end.
 */
export class ExportValidation {
  /** Valid checks by project position, then by position in the project (sparse where invalid). */
  private readonly checks = new Map<number, CheckRecord[]>();
  /** Problems of checks by project position, reported after the project's own. */
  private readonly checkProblems = new Map<number, Problems>();
  /** Ids that must be unique in the document, with the path that had them first. */
  private readonly seen = new Map<string, string>();

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

  /** One check, as the stream hands it over. Its project is filled in by `finish`. */
  check(raw: unknown, { project, index }: CheckPlace): void {
    let problems = this.checkProblems.get(project);
    if (!problems) this.checkProblems.set(project, (problems = new Problems()));
    const cp = `projects[${project}].checks[${index}]`;
    if (!checkObject(raw, cp, CHECK_FIELDS, [], problems)) return;
    const check = fromJson<CheckRecord>(raw, CHECK_FIELDS, { projectId: '', everStarted: false });
    if (check.kind !== 'simple' && (!isValidSchedule(check.schedule, check.tz) || detectScheduleKind(check.schedule) !== check.kind)) {
      problems.add(`${cp}.schedule`, `not a valid schedule for a ${check.kind} check`);
    }
    if (normalizeTimezone(check.tz) !== check.tz) problems.add(`${cp}.tz`, `not the canonical name (${normalizeTimezone(check.tz)})`);
    this.unique('check uuid', check.uuid, `${cp}.uuid`, problems);
    this.unique('check badge key', check.badgeKey, `${cp}.badge_key`, problems);
    let list = this.checks.get(project);
    if (!list) this.checks.set(project, (list = []));
    list[index] = check;
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
    (this.checks.get(i) ?? []).forEach((check, j) => {
      check.projectId = project.id;
      for (const id of check.channels) {
        if (!channelIds.has(id)) problems.add(`${pp}.checks[${j}].channels`, `channel ${id} is not a channel of this project`);
      }
      checks.push(check);
    });
    return { project, apiKeys, channels, checks };
  }
}

/**
 * Read, parse and validate an export file (- for standard input), a piece at
 * a time: memory holds the validated records, not the text or the document.
 */
export async function readExport(file: string): Promise<ParsedExport> {
  const source = file === '-' ? 'standard input' : file;
  let fd: number;
  try {
    fd = file === '-' ? 0 : openSync(file, 'r');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const validation = new ExportValidation();
  let rest: DocumentRest;
  try {
    rest = await parseExportStream(
      createReadStream('', { fd, highWaterMark: 1 << 20 }),
      (raw, place) => validation.check(raw, place),
      (field, value) => validation.headerField(field, value),
    );
  } catch (err) {
    if (err instanceof NotJsonError) throw new UsageError(`${source} is not valid JSON, nothing imported: ${err.message}`);
    if (err instanceof InputError) throw new UsageError(`cannot read ${file}: ${err.message}`);
    if (err instanceof RepeatedFieldError) fail([err.message]);
    throw err;
  }
  return validation.finish(rest);
}
