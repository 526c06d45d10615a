// The search shared by cron and OnCalendar: find the first time a calendar pattern
// matches, on the naive wall clock of a zone, then map it to a UTC instant with the
// DST rules of status-machine §5.4.
//
// The search skips whole years, months, days, hours and minutes whose field cannot
// match, so even a pattern that fires once in decades costs a few thousand steps,
// never a walk second by second.
import {
  offsetSpanAt,
  resolveWallMs,
  toWallMs,
  wallMsOf,
  type WallMs,
} from '../timezones.js';

/** The allowed values of one numeric field, with O(1) "next allowed value" lookup. */
export class ValueSet {
  // nextAllowed[v] is the smallest allowed value >= v, or -1 when there is none.
  private readonly nextAllowed: Int16Array;

  constructor(values: Iterable<number>, max: number) {
    const allowed = new Uint8Array(max + 1);
    for (const value of values) if (value >= 0 && value <= max) allowed[value] = 1;
    this.nextAllowed = new Int16Array(max + 2).fill(-1);
    for (let value = max; value >= 0; value--) {
      this.nextAllowed[value] = allowed[value] === 1 ? value : (this.nextAllowed[value + 1] ?? -1);
    }
  }

  /** Smallest allowed value >= `value`, or -1. */
  firstFrom(value: number): number {
    return this.nextAllowed[value] ?? -1;
  }

  has(value: number): boolean {
    return this.firstFrom(value) === value;
  }
}

/** A calendar pattern, as both schedule syntaxes compile to. */
export interface WallPattern {
  /** First allowed year at or after `year`, or null when there is none. */
  firstYearFrom(year: number): number | null;
  /** Months 1–12. */
  months: ValueSet;
  /** `weekday`: 0 = Sunday; `daysInMonth`: length of that month. */
  matchesDay(year: number, month: number, day: number, weekday: number, daysInMonth: number): boolean;
  hours: ValueSet;
  minutes: ValueSet;
  seconds: ValueSet;
}

const SECOND_MS = 1000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  if (month === 2 && isLeapYear(year)) return 29;
  return MONTH_LENGTHS[month - 1] ?? 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** 0 = Sunday; 1970-01-01 was a Thursday. */
function weekdayOfWallDay(dayStart: WallMs): number {
  return (((Math.floor(dayStart / DAY_MS) + 4) % 7) + 7) % 7;
}

/**
 * The first wall time in [fromWall, beforeWall) matching the pattern, at whole
 * seconds; `fromWall` is rounded up to a whole second.
 */
export function firstWallMatch(pattern: WallPattern, fromWall: WallMs, beforeWall: WallMs): WallMs | null {
  const start = new Date(Math.ceil(fromWall / SECOND_MS) * SECOND_MS);
  let year = start.getUTCFullYear();
  let month = start.getUTCMonth() + 1;
  let day = start.getUTCDate();
  let hour = start.getUTCHours();
  let minute = start.getUTCMinutes();
  let second = start.getUTCSeconds();

  const startOfYear = (next: number): void => {
    year = next;
    month = 1;
    day = 1;
    hour = minute = second = 0;
  };
  const startOfMonth = (next: number): void => {
    month = next;
    day = 1;
    hour = minute = second = 0;
  };
  const startOfNextDay = (monthLength: number): void => {
    hour = minute = second = 0;
    if (++day <= monthLength) return;
    day = 1;
    if (++month <= 12) return;
    month = 1;
    year++;
  };

  for (;;) {
    const dayStart = wallMsOf(year, month, day);
    if (dayStart >= beforeWall) return null;

    const allowedYear = pattern.firstYearFrom(year);
    if (allowedYear === null) return null;
    if (allowedYear !== year) {
      startOfYear(allowedYear);
      continue;
    }

    const allowedMonth = pattern.months.firstFrom(month);
    if (allowedMonth < 0) {
      startOfYear(year + 1);
      continue;
    }
    if (allowedMonth !== month) {
      startOfMonth(allowedMonth);
      continue;
    }

    const monthLength = daysInMonth(year, month);
    if (!pattern.matchesDay(year, month, day, weekdayOfWallDay(dayStart), monthLength)) {
      startOfNextDay(monthLength);
      continue;
    }

    const allowedHour = pattern.hours.firstFrom(hour);
    if (allowedHour < 0) {
      startOfNextDay(monthLength);
      continue;
    }
    if (allowedHour !== hour) {
      hour = allowedHour;
      minute = second = 0;
    }

    const allowedMinute = pattern.minutes.firstFrom(minute);
    if (allowedMinute < 0) {
      if (hour === 23) startOfNextDay(monthLength);
      else {
        hour++;
        minute = second = 0;
      }
      continue;
    }
    if (allowedMinute !== minute) {
      minute = allowedMinute;
      second = 0;
    }

    const allowedSecond = pattern.seconds.firstFrom(second);
    if (allowedSecond < 0) {
      second = 0;
      if (minute < 59) minute++;
      else if (hour < 23) {
        minute = 0;
        hour++;
      } else startOfNextDay(monthLength);
      continue;
    }

    const match = wallMsOf(year, month, day, hour, minute, allowedSecond);
    return match < beforeWall ? match : null;
  }
}

/** What to do when the matching wall time does not exist (clocks jumped over it). */
export type GapPolicy =
  /** Cron: run at the first existing minute after the gap. */
  | 'catch-up'
  /** OnCalendar: no run for that wall time. */
  | 'skip';

/**
 * §5.4 rules 2 and 4: search the naive wall clock of `tz`; an ambiguous wall time
 * fires at its first occurrence only. `startMs` is one second after a whole-second
 * instant T. Returns the first fire instant >= `startMs`, or null when none comes
 * before `beforeWall`.
 */
export function firstFireOnWallClock(
  pattern: WallPattern,
  tz: string,
  startMs: number,
  beforeWall: WallMs,
  gapPolicy: GapPolicy,
): number | null {
  // §5.4 step 1 adds the second on the wall clock: when T is the last second before
  // clocks jump forward, the search must start inside the gap (02:00:00 after
  // 01:59:59), or a job due in the gap would lose its catch-up run.
  let fromWall = toWallMs(startMs - SECOND_MS, tz) + SECOND_MS;
  for (;;) {
    const wall = firstWallMatch(pattern, fromWall, beforeWall);
    if (wall === null) return null;

    const resolution = resolveWallMs(wall, tz);
    const firstInstant = resolution.instants[0];
    if (firstInstant === undefined) {
      const gapEnd = resolution.gapEndWallMs ?? wall + SECOND_MS;
      if (gapPolicy === 'skip') {
        fromWall = gapEnd;
        continue;
      }
      const caughtUp = firstExistingMinuteAfterGap(wall, gapEnd, tz);
      if (caughtUp !== null && caughtUp >= startMs) return caughtUp;
      fromWall = wall + SECOND_MS;
      continue;
    }

    if (firstInstant >= startMs) return firstInstant;
    // The first occurrence already passed: `startMs` is in the second pass of an
    // overlap. That wall time has fired, and so has every wall time up to the end of
    // the first pass, so resume after it.
    const firstPass = offsetSpanAt(firstInstant, tz);
    fromWall = Math.max(wall + SECOND_MS, firstPass.untilMs + firstPass.offsetMs);
  }
}

// Clocks never jump by more than a day (Pacific/Apia skipped exactly one).
const LONGEST_GAP_MS = 2 * DAY_MS;

/** Debian cron's catch-up: step whole minutes from `wall` to the first one that exists. */
function firstExistingMinuteAfterGap(wall: WallMs, gapEnd: WallMs, tz: string): number | null {
  for (
    let candidate = wall + Math.ceil((gapEnd - wall) / MINUTE_MS) * MINUTE_MS;
    candidate <= wall + LONGEST_GAP_MS;
    candidate += MINUTE_MS
  ) {
    const instant = resolveWallMs(candidate, tz).instants[0];
    if (instant !== undefined) return instant;
  }
  return null;
}

/**
 * §5.4 rule 3: walk real instants. Within a stretch of constant offset, real time
 * and wall time move together, so each stretch is one naive search. A repeated wall
 * hour is searched twice (once per offset) and a skipped one never.
 */
export function firstFireInRealTime(
  pattern: WallPattern,
  tz: string,
  startMs: number,
  beforeWall: WallMs,
): number | null {
  for (let fromMs = startMs; ; ) {
    const span = offsetSpanAt(fromMs, tz);
    const fromWall = fromMs + span.offsetMs;
    if (fromWall >= beforeWall) return null;
    const spanEndWall = Math.min(span.untilMs + span.offsetMs, beforeWall);
    const wall = firstWallMatch(pattern, fromWall, spanEndWall);
    if (wall !== null) return wall - span.offsetMs;
    if (span.untilMs === Infinity) return null;
    fromMs = span.untilMs;
  }
}
