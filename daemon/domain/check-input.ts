// Validation of create/update input (api-details §6) and applying it to a check.
// Strict: no type coercion; only the first error is reported, in the reference's
// field order, so scripts get the same message the reference would give.
import { detectScheduleKind, isValidSchedule } from './schedule/index.js';
import { normalizeTimezone } from './timezones.js';
import { slugify, UUID_RE } from './ids.js';
import type { ApiVersion, CheckRecord } from './types.js';

export const UNIQUE_FIELDS = ['name', 'slug', 'tags', 'timeout', 'grace'] as const;
export type UniqueField = (typeof UNIQUE_FIELDS)[number];

export interface CheckInput {
  channels?: string;
  desc?: string;
  failure_kw?: string;
  filter_subject?: boolean;
  filter_body?: boolean;
  filter_http_body?: boolean;
  filter_default_fail?: boolean;
  grace?: number;
  manual_resume?: boolean;
  methods?: '' | 'POST';
  name?: string;
  schedule?: string;
  slug?: string;
  start_kw?: string;
  subject?: string;
  subject_fail?: string;
  success_kw?: string;
  tags?: string;
  timeout?: number;
  tz?: string;
  unique?: UniqueField[];
  // Extensions (alert-policies.md).
  max_duration?: number;
  failure_tolerance?: number;
  /** A check UUID, or null for none; that it names a check of the project is the service's to check. */
  depends_on?: string | null;
}

export type ValidationResult = { ok: true; input: CheckInput } | { ok: false; error: string };

export const DURATION_MIN = 60;
export const DURATION_MAX = 31_536_000;

type Rule = (field: string, value: unknown) => { error: string } | { value: unknown };

const str =
  (maxLen?: number): Rule =>
  (field, value) => {
    if (typeof value !== 'string') return { error: `${field} is not a string` };
    // The reference counts characters (code points), not UTF-16 code units: 100 emoji fit in 100.
    if (maxLen !== undefined && value.length > maxLen && [...value].length > maxLen) {
      return { error: `${field} is too long` };
    }
    return { value };
  };

const bool: Rule = (field, value) =>
  typeof value === 'boolean' ? { value } : { error: `${field} is not a boolean` };

// Booleans count as 1/0 (as in the reference); fractions, strings and null do not.
const duration: Rule = (field, value) => {
  const n = typeof value === 'boolean' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || !Number.isInteger(n)) {
    // Only an integer too long for a double (JSON.parse makes it Infinity) is out of
    // range; a fraction is "not a number" whatever its size (§6.6: type before range).
    if (n === Infinity || n === -Infinity) {
      return { error: n > 0 ? `${field} is too large` : `${field} is too small` };
    }
    return { error: `${field} is not a number` };
  }
  if (n < DURATION_MIN) return { error: `${field} is too small` };
  if (n > DURATION_MAX) return { error: `${field} is too large` };
  return { value: n };
};

/** A whole number of seconds in DURATION_MIN … DURATION_MAX, or 0 for off (alert-policies §1). */
const durationOrOff: Rule = (field, value) => {
  if (typeof value !== 'number' || !Number.isInteger(value)) return { error: `${field} is not a number` };
  if (value === 0) return { value };
  return duration(field, value);
};

/** A whole number from `min` to `max`. */
const count =
  (min: number, max: number): Rule =>
  (field, value) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) return { error: `${field} is not a number` };
    if (value < min) return { error: `${field} is too small` };
    if (value > max) return { error: `${field} is too large` };
    return { value };
  };

const checkRef: Rule = (field, value) =>
  value === null || (typeof value === 'string' && UUID_RE.test(value)) ? { value } : { error: `${field} is not a check UUID` };

const methods: Rule = (field, value) =>
  value === '' || value === 'POST' ? { value } : { error: `${field} has unexpected value` };

const slug: Rule = (field, value) => {
  const base = str(100)(field, value);
  if ('error' in base) return base;
  return /^[a-z0-9_-]*$/.test(value as string) ? base : { error: `${field} does not match pattern` };
};

const schedule: Rule = (field, value) => {
  const base = str(100)(field, value);
  if ('error' in base) return base;
  return isValidSchedule(value as string, 'UTC')
    ? base
    : { error: `${field} is not a valid cron or OnCalendar expression` };
};

const tz: Rule = (field, value) => {
  if (typeof value !== 'string') return { error: `${field} is not a string` };
  const canonical = normalizeTimezone(value);
  return canonical === null ? { error: `${field} is not a valid timezone` } : { value: canonical };
};

const unique: Rule = (field, value) => {
  if (!Array.isArray(value)) return { error: `${field} is not an array` };
  for (const item of value) {
    if (!(UNIQUE_FIELDS as readonly unknown[]).includes(item)) {
      return { error: `an item in '${field}' has unexpected value` };
    }
  }
  return { value };
};

/** The reference's validation order; the first failing field is reported. */
const RULES: Array<[keyof CheckInput, Rule]> = [
  ['channels', str()],
  ['desc', str()],
  ['failure_kw', str(200)],
  ['filter_subject', bool],
  ['filter_body', bool],
  ['filter_http_body', bool],
  ['filter_default_fail', bool],
  ['grace', duration],
  ['manual_resume', bool],
  ['methods', methods],
  ['name', str(100)],
  ['schedule', schedule],
  ['slug', slug],
  ['start_kw', str(200)],
  ['subject', str(200)],
  ['subject_fail', str(200)],
  ['success_kw', str(200)],
  ['tags', str()],
  ['timeout', duration],
  ['tz', tz],
  ['unique', unique],
  // checkd's own fields, after the reference's.
  ['max_duration', durationOrOff],
  ['failure_tolerance', count(0, 100)],
  ['depends_on', checkRef],
];

export function validateCheckInput(body: Record<string, unknown>): ValidationResult {
  const input: Record<string, unknown> = {};
  for (const [field, rule] of RULES) {
    if (!Object.hasOwn(body, field)) continue;
    const result = rule(field, body[field]);
    if ('error' in result) return { ok: false, error: `json validation error: ${result.error}` };
    input[field] = result.value;
  }
  return { ok: true, input: input as CheckInput };
}

/**
 * Apply validated input to a check (api-details §6.7, §6.9). `channels` and
 * `unique` are resolved by the caller. The stored status is never changed here.
 */
export function applyCheckInput(check: CheckRecord, input: CheckInput, version: ApiVersion): CheckRecord {
  const next: CheckRecord = { ...check };
  // Legacy subject fields first, so explicit modern fields in the same request win.
  if (input.subject !== undefined) {
    next.successKw = input.subject;
    next.filterSubject = next.successKw !== '' || next.failureKw !== '';
  }
  if (input.subject_fail !== undefined) {
    next.failureKw = input.subject_fail;
    next.filterSubject = next.successKw !== '' || next.failureKw !== '';
  }
  if (input.schedule !== undefined) {
    next.kind = detectScheduleKind(input.schedule);
    next.schedule = input.schedule;
  } else if (input.timeout !== undefined) {
    next.kind = 'simple';
    next.timeout = input.timeout;
  }
  if (input.name !== undefined) {
    next.name = input.name;
    if (version < 3) next.slug = slugify(input.name);
  }
  if (input.slug !== undefined) next.slug = input.slug;
  if (input.tags !== undefined) next.tags = input.tags;
  if (input.desc !== undefined) next.desc = input.desc;
  if (input.grace !== undefined) next.grace = input.grace;
  if (input.tz !== undefined) next.tz = input.tz;
  if (input.manual_resume !== undefined) next.manualResume = input.manual_resume;
  if (input.methods !== undefined) next.methods = input.methods;
  if (input.start_kw !== undefined) next.startKw = input.start_kw;
  if (input.success_kw !== undefined) next.successKw = input.success_kw;
  if (input.failure_kw !== undefined) next.failureKw = input.failure_kw;
  if (input.filter_subject !== undefined) next.filterSubject = input.filter_subject;
  if (input.filter_body !== undefined) next.filterBody = input.filter_body;
  if (input.filter_http_body !== undefined) next.filterHttpBody = input.filter_http_body;
  if (input.filter_default_fail !== undefined) next.filterDefaultFail = input.filter_default_fail;
  if (input.max_duration !== undefined) setExtension(next, 'maxDuration', input.max_duration || undefined);
  if (input.failure_tolerance !== undefined) {
    setExtension(next, 'failureTolerance', input.failure_tolerance || undefined);
    // Without a tolerance nothing counts failures (alert-policies §2).
    if (!input.failure_tolerance) delete next.consecutiveFailures;
  }
  if (input.depends_on !== undefined) setExtension(next, 'dependsOn', input.depends_on ?? undefined);
  return next;
}

/** Set an extension field, or leave it out of the record when at its default (`undefined`). */
function setExtension<K extends 'maxDuration' | 'failureTolerance' | 'dependsOn'>(check: CheckRecord, key: K, value: CheckRecord[K]): void {
  if (value === undefined) delete check[key];
  else check[key] = value;
}

/** A fresh check with the create defaults of api-details §6.8. */
export function newCheck(fields: { uuid: string; badgeKey: string; projectId: string; createdAt: number }): CheckRecord {
  // Fields named one by one: V8 builds a literal that starts with a spread
  // and then adds thirty properties some thirty times slower.
  return {
    uuid: fields.uuid,
    badgeKey: fields.badgeKey,
    projectId: fields.projectId,
    createdAt: fields.createdAt,
    name: '',
    slug: '',
    tags: '',
    desc: '',
    kind: 'simple',
    timeout: 86400,
    grace: 3600,
    schedule: '',
    tz: 'UTC',
    manualResume: false,
    methods: '',
    startKw: '',
    successKw: '',
    failureKw: '',
    filterSubject: false,
    filterBody: false,
    filterHttpBody: false,
    filterDefaultFail: false,
    status: 'new',
    lastPing: null,
    lastStart: null,
    lastStartRid: null,
    lastDuration: null,
    alertAfter: null,
    nPings: 0,
    channels: [],
    everStarted: false,
  };
}

/** Does `check` match every `unique` field of the request (api-details §6.11)? */
export function matchesUnique(check: CheckRecord, input: CheckInput, fields: UniqueField[]): boolean {
  return fields.every((f) => {
    switch (f) {
      case 'name':
        return check.name === input.name;
      case 'slug':
        return check.slug === input.slug;
      case 'tags':
        return check.tags === input.tags;
      case 'timeout':
        return check.timeout === input.timeout;
      case 'grace':
        return check.grace === input.grace;
    }
  });
}
