// The schedule surface the rest of the daemon uses: kind detection (status-machine
// §5.1), validity (§5.2, §5.3, api-details §6.5) and "next fire time strictly after"
// (§5.4). Pure: instants in, instants out, epoch milliseconds UTC.
import { cronFiresAfterValidationStart, nextCronFire, parseCron, type CronSchedule } from './cron.js';
import {
  nextOnCalendarFire,
  onCalendarFiresAfterValidationStart,
  parseOnCalendar,
  type OnCalendarSchedule,
} from './oncalendar.js';

export type ScheduleKind = 'cron' | 'oncalendar';

/** Cron when the stripped string has no newline and exactly five fields; else OnCalendar. */
export function detectScheduleKind(schedule: string): ScheduleKind {
  const stripped = schedule.trim();
  return !stripped.includes('\n') && stripped.split(/\s+/).length === 5 ? 'cron' : 'oncalendar';
}

type ParsedSchedule =
  | { kind: 'cron'; cron: CronSchedule }
  | { kind: 'oncalendar'; onCalendar: OnCalendarSchedule };

function parse(kind: ScheduleKind, schedule: string): ParsedSchedule | null {
  if (kind === 'cron') {
    const cron = parseCron(schedule);
    return cron === null ? null : { kind, cron };
  }
  const onCalendar = parseOnCalendar(schedule);
  return onCalendar === null ? null : { kind, onCalendar };
}

// nextFireAfter runs on every ping of thousands of checks, so parsed schedules are
// kept in a small LRU. Parsing does not depend on the zone (the zone only enters the
// search), so kind + text is the whole key. Invalid schedules are cached as null.
const PARSE_CACHE_LIMIT = 2048;
const parseCache = new Map<string, ParsedSchedule | null>();

function parsedSchedule(kind: ScheduleKind, schedule: string): ParsedSchedule | null {
  const key = `${kind}\u0000${schedule}`;
  const cached = parseCache.get(key);
  if (cached !== undefined || parseCache.has(key)) {
    // Re-insert to mark it as most recently used (a Map iterates in insertion order).
    parseCache.delete(key);
    parseCache.set(key, cached ?? null);
    return cached ?? null;
  }
  const parsed = parse(kind, schedule);
  if (parseCache.size >= PARSE_CACHE_LIMIT) {
    const oldest = parseCache.keys().next();
    if (!oldest.done) parseCache.delete(oldest.value);
  }
  parseCache.set(key, parsed);
  return parsed;
}

/**
 * Whether `schedule` is a valid cron or OnCalendar expression. The zone does not
 * matter: like upstream, validity is judged from 2000-01-01 00:00 UTC (OnCalendar
 * lines with their own zone use it). Length limits are checked by the caller.
 */
export function isValidSchedule(schedule: string, _tz: string): boolean {
  if (schedule === '') return false;
  const parsed = parsedSchedule(detectScheduleKind(schedule), schedule);
  if (parsed === null) return false;
  return parsed.kind === 'cron'
    ? cronFiresAfterValidationStart(parsed.cron)
    : onCalendarFiresAfterValidationStart(parsed.onCalendar);
}

/**
 * The first fire time strictly after `afterMs` (compared at whole seconds) in zone
 * `tz`, or null when there is none: an invalid schedule, an OnCalendar schedule with
 * no time left before 2200, or a cron expression with nothing in the next 50 years.
 * `tz` must be a zone the runtime knows (any stored, validated name is); others throw
 * a RangeError.
 */
export function nextFireAfter(
  kind: ScheduleKind,
  schedule: string,
  tz: string,
  afterMs: number,
): number | null {
  const parsed = parsedSchedule(kind, schedule);
  if (parsed === null) return null;
  return parsed.kind === 'cron'
    ? nextCronFire(parsed.cron, tz, afterMs)
    : nextOnCalendarFire(parsed.onCalendar, tz, afterMs);
}
