// The export document's shape: its header, and for each kind of record the
// fields as they appear in the file with the rule each must meet. Export
// writes records through these tables and import reads them back through the
// same ones, so the two cannot drift apart.
import { UUID_RE } from '../domain/ids.js';
import { CHANNEL_KINDS } from '../domain/channel-kinds.js';
import { normalizeTimezone } from '../domain/timezones.js';
import type { ChannelRecord, CheckRecord, ProjectRecord } from '../domain/types.js';

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
export interface FieldRule {
  json: string;
  check(value: unknown): string | null;
  /** An extension field (alert-policies.md): absent from record and file while at its default. */
  optional?: boolean;
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
export const PING_KEY_RE = /^[-a-zA-Z0-9_]{1,64}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;

// Keyed by the record's own field names, so that a field added to a record
// type is a compile error here until export and import handle it. everStarted
// and lastPingRev are about the ping log, which is not exported: an imported
// check has none.
// hold and downAlert are the notifier's (what channels were told, and when),
// which is not exported either.
export const CHECK_FIELDS: Record<Exclude<keyof CheckRecord, 'projectId' | 'everStarted' | 'lastPingRev' | 'hold' | 'downAlert'>, FieldRule> = {
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
  maxDuration: { json: 'max_duration', check: rules.int(DURATION_MIN, DURATION_MAX), optional: true },
  failureTolerance: { json: 'failure_tolerance', check: rules.int(1, 100), optional: true },
  consecutiveFailures: { json: 'consecutive_failures', check: rules.int(1), optional: true },
  mutedUntil: { json: 'muted_until', check: rules.int(0), optional: true },
  dependsOn: { json: 'depends_on', check: uuid, optional: true },
};

export const CHANNEL_FIELDS: Record<Exclude<keyof ChannelRecord, 'projectId'>, FieldRule> = {
  id: { json: 'id', check: uuid },
  kind: { json: 'kind', check: rules.oneOf(CHANNEL_KINDS) },
  name: {
    json: 'name',
    check: (v) => rules.string(100)(v) ?? ((v as string).includes(',') ? 'must not contain a comma' : null),
  },
  value: { json: 'value', check: rules.string() },
  createdAt: { json: 'created_at', check: rules.int(0) },
  repeatEvery: { json: 'repeat_every', check: rules.int(300, 604_800), optional: true },
};

export const PROJECT_FIELDS: Record<keyof ProjectRecord, FieldRule> = {
  id: { json: 'id', check: uuid },
  name: { json: 'name', check: (v) => rules.string(200)(v) ?? ((v as string).trim() === '' ? 'must not be empty' : null) },
  checkLimit: { json: 'check_limit', check: rules.int(0, 1_000_000) },
  pingLogLimit: { json: 'ping_log_limit', check: rules.int(1, 100_000) },
  pingKey: { json: 'ping_key', check: rules.pattern(PING_KEY_RE, 'a ping key ([-a-zA-Z0-9_], 1 to 64)') },
  badgeKey: { json: 'badge_key', check: uuid },
  createdAt: { json: 'created_at', check: rules.int(0) },
};

export const KEY_FIELDS: Record<keyof ExportedApiKey, FieldRule> = {
  sha256: { json: 'sha256', check: rules.pattern(SHA256_RE, '64 lowercase hex digits (a SHA-256 digest)') },
  read_only: { json: 'read_only', check: rules.bool() },
  created_at: { json: 'created_at', check: rules.int(0) },
};

export const PROJECT_LISTS = ['api_keys', 'channels', 'checks'] as const;

export function toJson<R extends object>(record: R, fields: Record<string, FieldRule>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, rule] of Object.entries(fields)) {
    const value = (record as Record<string, unknown>)[key];
    if (value !== undefined || !rule.optional) out[rule.json] = value as Json;
  }
  return out;
}

/**
 * A check of a validated export as its record: fromJson for CHECK_FIELDS, as
 * an object literal. An import builds one per check; Object.fromEntries is
 * far slower for a record of thirty-odd fields (docs/performance.md). A test
 * holds the two to the same result.
 */
export function checkFromJson(o: Record<string, unknown>, projectId: string): CheckRecord {
  const check: CheckRecord = {
    projectId,
    everStarted: false,
    uuid: o.uuid as string,
    badgeKey: o.badge_key as string,
    createdAt: o.created_at as number,
    name: o.name as string,
    slug: o.slug as string,
    tags: o.tags as string,
    desc: o.desc as string,
    kind: o.kind as CheckRecord['kind'],
    timeout: o.timeout as number,
    grace: o.grace as number,
    schedule: o.schedule as string,
    tz: o.tz as string,
    manualResume: o.manual_resume as boolean,
    methods: o.methods as CheckRecord['methods'],
    startKw: o.start_kw as string,
    successKw: o.success_kw as string,
    failureKw: o.failure_kw as string,
    filterSubject: o.filter_subject as boolean,
    filterBody: o.filter_body as boolean,
    filterHttpBody: o.filter_http_body as boolean,
    filterDefaultFail: o.filter_default_fail as boolean,
    status: o.status as CheckRecord['status'],
    lastPing: o.last_ping as number | null,
    lastStart: o.last_start as number | null,
    lastStartRid: o.last_start_rid as string | null,
    lastDuration: o.last_duration as number | null,
    alertAfter: o.alert_after as number | null,
    nPings: o.n_pings as number,
    channels: [...(o.channels as string[])],
  };
  if (o.max_duration !== undefined) check.maxDuration = o.max_duration as number;
  if (o.failure_tolerance !== undefined) check.failureTolerance = o.failure_tolerance as number;
  if (o.consecutive_failures !== undefined) check.consecutiveFailures = o.consecutive_failures as number;
  if (o.muted_until !== undefined) check.mutedUntil = o.muted_until as number;
  if (o.depends_on !== undefined) check.dependsOn = o.depends_on as string;
  return check;
}

export function fromJson<R>(obj: Record<string, unknown>, fields: Record<string, FieldRule>, extra: Record<string, unknown>): R {
  const entries = Object.entries(fields)
    .filter(([, rule]) => !rule.optional || obj[rule.json] !== undefined)
    .map(([key, rule]) => {
      const v = obj[rule.json];
      return [key, Array.isArray(v) ? [...v] : v];
    });
  // Built in one step: an object given ~30 computed keys one by one becomes a
  // dictionary, several times the size of one built at once.
  return Object.fromEntries([...Object.entries(extra), ...entries]) as R;
}
