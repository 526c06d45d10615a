// Validation of the alert-policy requests that are not check fields
// (alert-policies.md): a mute (§4.1), a maintenance window (§4.2) and the
// durations the admin CLI takes. Pure: the caller passes `now`; messages
// follow the API's `json validation error: …` form.
import { DURATION_MAX, DURATION_MIN } from './check-input.js';
import { detectScheduleKind, isValidSchedule } from './schedule/index.js';
import { normalizeTimezone } from './timezones.js';
import type { MaintenanceWindow } from './types.js';

export type MuteInput = { ok: true; until: number } | { ok: false; error: string };

/** An ISO 8601 instant: a date, a time and an offset (or Z), as `until`, `start` and `end` must be. */
const INSTANT_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** Epoch milliseconds of an ISO 8601 instant with an offset, or null. */
export function parseInstant(text: string): number | null {
  const m = INSTANT_RE.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  // Date.parse rolls a day past the month's end over ("02-30" is March 1st).
  const valid = mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate() && h <= 23 && mi <= 59 && s <= 59;
  const ms = valid ? Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : NaN;
  return Number.isFinite(ms) ? ms : null;
}

const invalid = (error: string) => ({ ok: false as const, error: `json validation error: ${error}` });

export function validateMuteInput(body: Record<string, unknown>, now: number): MuteInput {
  const hasUntil = Object.hasOwn(body, 'until');
  const hasSeconds = Object.hasOwn(body, 'seconds');
  if (hasUntil && hasSeconds) return invalid('give until or seconds, not both');
  if (hasSeconds) {
    const n = body.seconds;
    if (typeof n !== 'number' || !Number.isInteger(n)) return invalid('seconds is not a number');
    if (n < DURATION_MIN) return invalid('seconds is too small');
    if (n > DURATION_MAX) return invalid('seconds is too large');
    return { ok: true, until: now + n * 1000 };
  }
  if (!hasUntil) return invalid('until or seconds is required');
  if (typeof body.until !== 'string') return invalid('until is not a string');
  const until = parseInstant(body.until);
  if (until === null) return invalid('until is not an ISO 8601 instant with an offset');
  if (until <= now) return invalid('until is in the past');
  if (until > now + DURATION_MAX * 1000) return invalid('until is more than a year ahead');
  return { ok: true, until };
}

/** A window as given, before it has an id, a project and a creation time. */
export type WindowFields = Omit<MaintenanceWindow, 'id' | 'projectId' | 'createdAt'>;

export type WindowInput = { ok: true; window: WindowFields } | { ok: false; error: string };

const ONE_OFF = ['start', 'end'] as const;
const RECURRING = ['schedule', 'tz', 'duration'] as const;
const WINDOW_FIELDS: readonly string[] = ['name', 'tags', ...ONE_OFF, ...RECURRING];

/**
 * A maintenance window (§4.2): `name` and `tags` (space-separated; empty for
 * every check), and either `start` and `end` (ISO instants, end after start)
 * or `schedule` (cron or OnCalendar, as a check's), `tz` (default UTC) and
 * `duration` (seconds, 60 … 31536000). Unknown members are refused.
 */
export function validateWindowInput(body: Record<string, unknown>): WindowInput {
  for (const key of Object.keys(body)) {
    if (!WINDOW_FIELDS.includes(key) && key !== 'api_key') return invalid(`unknown member "${key}"`);
  }
  const name = body.name ?? '';
  if (typeof name !== 'string') return invalid('name is not a string');
  if ([...name].length > 100) return invalid('name is too long');
  const tags = body.tags ?? '';
  if (typeof tags !== 'string') return invalid('tags is not a string');
  const oneOff = ONE_OFF.some((k) => Object.hasOwn(body, k));
  const recurring = RECURRING.some((k) => Object.hasOwn(body, k));
  if (oneOff && recurring) return invalid('a window has start and end, or schedule, tz and duration, not both');
  if (!oneOff && !recurring) return invalid('start and end, or schedule and duration, are required');
  if (oneOff) {
    const times: number[] = [];
    for (const k of ONE_OFF) {
      const v = body[k];
      if (v === undefined) return invalid(`${k} is required`);
      if (typeof v !== 'string') return invalid(`${k} is not a string`);
      const ms = parseInstant(v);
      if (ms === null) return invalid(`${k} is not an ISO 8601 instant with an offset`);
      times.push(ms);
    }
    const [start, end] = times as [number, number];
    if (end <= start) return invalid('end is not after start');
    return { ok: true, window: { name, tags, start, end } };
  }
  const schedule = body.schedule;
  if (schedule === undefined) return invalid('schedule is required');
  if (typeof schedule !== 'string') return invalid('schedule is not a string');
  if ([...schedule].length > 100) return invalid('schedule is too long');
  if (!isValidSchedule(schedule, 'UTC')) return invalid('schedule is not a valid cron or OnCalendar expression');
  const rawTz = body.tz ?? 'UTC';
  if (typeof rawTz !== 'string') return invalid('tz is not a string');
  const tz = normalizeTimezone(rawTz);
  if (tz === null) return invalid('tz is not a valid timezone');
  const duration = body.duration;
  if (duration === undefined) return invalid('duration is required');
  if (typeof duration !== 'number' || !Number.isInteger(duration)) return invalid('duration is not a number');
  if (duration < DURATION_MIN) return invalid('duration is too small');
  if (duration > DURATION_MAX) return invalid('duration is too large');
  return { ok: true, window: { name, tags, schedule, scheduleKind: detectScheduleKind(schedule), tz, duration } };
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds of a duration as the admin CLI takes it: `300`, `5m`, `1h`, `2d`; null when it is not one. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]) * DURATION_UNITS[m[2] || 's']!;
  return Number.isSafeInteger(n) ? n : null;
}

/** Reminders: 0 (off), or 5 minutes to a week (alert-policies §3). */
export const REPEAT_MIN = 300;
export const REPEAT_MAX = 604_800;

/** Seconds of a channel's --repeat-every (0 for off), or the message saying what is wrong with it. */
export function parseRepeatEvery(text: string): { ok: true; seconds: number } | { ok: false; error: string } {
  const seconds = parseDuration(text);
  if (seconds === null) return { ok: false, error: `--repeat-every must be seconds or a duration like 5m, 1h, 1d, got "${text}"` };
  if (seconds !== 0 && (seconds < REPEAT_MIN || seconds > REPEAT_MAX)) {
    return { ok: false, error: `--repeat-every must be 0 (off) or from 5m to 7d (${REPEAT_MIN} to ${REPEAT_MAX} seconds), got ${seconds}` };
  }
  return { ok: true, seconds };
}

