// Validation of a mute request (alert-policies §4.1): `{"until": ISO instant}`
// or `{"seconds": N}`, one of the two, ending in the future and at most a year
// ahead. Pure: the caller passes `now`.
import { DURATION_MAX, DURATION_MIN } from './check-input.js';

export type MuteInput = { ok: true; until: number } | { ok: false; error: string };

/** An ISO 8601 instant: a date, a time and an offset (or Z), as `until` must be. */
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

export function validateMuteInput(body: Record<string, unknown>, now: number): MuteInput {
  const fail = (error: string): MuteInput => ({ ok: false, error: `json validation error: ${error}` });
  const hasUntil = Object.hasOwn(body, 'until');
  const hasSeconds = Object.hasOwn(body, 'seconds');
  if (hasUntil && hasSeconds) return fail('give until or seconds, not both');
  if (hasSeconds) {
    const n = body.seconds;
    if (typeof n !== 'number' || !Number.isInteger(n)) return fail('seconds is not a number');
    if (n < DURATION_MIN) return fail('seconds is too small');
    if (n > DURATION_MAX) return fail('seconds is too large');
    return { ok: true, until: now + n * 1000 };
  }
  if (!hasUntil) return fail('until or seconds is required');
  if (typeof body.until !== 'string') return fail('until is not a string');
  const until = parseInstant(body.until);
  if (until === null) return fail('until is not an ISO 8601 instant with an offset');
  if (until <= now) return fail('until is in the past');
  if (until > now + DURATION_MAX * 1000) return fail('until is more than a year ahead');
  return { ok: true, until };
}
