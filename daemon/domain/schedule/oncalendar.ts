// systemd OnCalendar expressions: the subset of status-machine §5.3, read the way
// upstream's `oncalendar` library reads them, and evaluated with §5.4 rule 4
// (nonexistent wall times skipped, ambiguous ones at their first occurrence).
import { normalizeTimezone } from '../timezones.js';
import { ValueSet, firstFireOnWallClock, type WallPattern } from './wall-clock-search.js';

// systemd stops generating times at year 2200, and so do we.
const FIRST_YEAR = 1970;
const END_YEAR = 2200;
const END_WALL = Date.UTC(END_YEAR, 0, 1);
const VALIDATION_START_MS = Date.UTC(2000, 0, 1);

const SPECIAL_WORDS: ReadonlyMap<string, string> = new Map([
  ['minutely', '*-*-* *:*:00'],
  ['hourly', '*-*-* *:00:00'],
  ['daily', '*-*-* 00:00:00'],
  ['monthly', '*-*-01 00:00:00'],
  ['weekly', 'Mon *-*-* 00:00:00'],
  ['yearly', '*-01-01 00:00:00'],
  ['annually', '*-01-01 00:00:00'],
  ['quarterly', '*-01,04,07,10-01 00:00:00'],
  ['semiannually', '*-01,07-01 00:00:00'],
]);

// Monday first, as systemd numbers them.
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const WEEKDAYS_SHORT = WEEKDAYS.map((name) => name.slice(0, 3));

type Field = 'weekday' | 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second';

const RANGES: Record<Field, readonly [number, number]> = {
  weekday: [0, 6],
  year: [FIRST_YEAR, END_YEAR - 1],
  month: [1, 12],
  day: [1, 31],
  hour: [0, 23],
  minute: [0, 59],
  second: [0, 59],
};

class OnCalendarSyntaxError extends Error {}

function fail(): never {
  throw new OnCalendarSyntaxError();
}

function fullRange(field: Field): number[] {
  const [min, max] = RANGES[field];
  return Array.from({ length: max - min + 1 }, (_, index) => min + index);
}

/** One value of a field: weekday names, two-digit years, range checks. */
function parseValue(field: Field, text: string): number {
  if (field === 'weekday') {
    const upper = text.toUpperCase();
    const index = Math.max(WEEKDAYS.indexOf(upper), WEEKDAYS_SHORT.indexOf(upper));
    return index >= 0 ? index : fail();
  }
  if (!/^[0-9]+$/.test(text)) fail();
  let value = Number(text);
  if (field === 'year' && value < 70) value += 2000;
  else if (field === 'year' && value < 100) value += 1900;
  const [min, max] = RANGES[field];
  return value >= min && value <= max ? value : fail();
}

/** Splits at the first occurrence of `separator`, like Python's split(sep, 1). */
function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return [text.slice(0, at), text.slice(at + separator.length)];
}

/**
 * One component (`*`, values, lists, `a..b` ranges, `a/s` steps). Days counted from
 * the end of the month (`~`) come back negative: -1 is the last day.
 */
function parseComponent(field: Field, text: string, fromEnd = false): number[] {
  if (field === 'day' && text.startsWith('~')) return parseComponent(field, text.slice(1), true);
  if (field !== 'weekday' && text === '*') return fullRange(field);
  // systemd allows `*` only on its own, not in lists, ranges or steps.
  if (text.includes('*')) fail();
  // "Mon, 12:00" is accepted and means "Mon 12:00".
  if (field === 'weekday' && text.endsWith(',')) return parseComponent(field, text.slice(0, -1));
  if (field === 'weekday' && text.includes('-')) return parseComponent(field, text.replaceAll('-', '..'));
  if (text.includes(',')) return text.split(',').flatMap((term) => parseComponent(field, term, fromEnd));

  if (field !== 'weekday' && text.includes('/')) {
    const [term, stepText] = splitOnce(text, '/');
    if (!/^[0-9]+$/.test(stepText)) fail();
    const step = Number(stepText);
    if (step === 0) fail();
    const items = [...new Set(parseComponent(field, term, fromEnd))].sort((a, b) => a - b);
    const [single] = items;
    if (items.length === 1 && single !== undefined) {
      // `a/s` runs from a to the end of the field (to the last day for `~a/s`).
      const end = fromEnd ? 0 : RANGES[field][1];
      const values: number[] = [];
      for (let value = single; value <= end; value += step) values.push(value);
      return values;
    }
    return items.filter((_, index) => index % step === 0);
  }

  if (text.includes('..')) {
    const [startText, endText] = splitOnce(text, '..');
    let start = parseValue(field, startText);
    let end = parseValue(field, endText);
    if (end < start) fail();
    if (fromEnd) [start, end] = [-end, -start];
    return Array.from({ length: end - start + 1 }, (_, index) => start + index);
  }

  const value = parseValue(field, text);
  if (!fromEnd) return [value];
  // systemd rejects `~` days above 28.
  return value > 28 ? fail() : [-value];
}

class OnCalendarPattern implements WallPattern {
  readonly months: ValueSet;
  readonly hours: ValueSet;
  readonly minutes: ValueSet;
  readonly seconds: ValueSet;
  private readonly years: ValueSet;
  private readonly daysFromStart: ValueSet;
  /** Index n: the n-th day counted from the end of the month (1 = last day). */
  private readonly daysFromEnd: ValueSet;
  /** JavaScript weekday numbers, 0 = Sunday. */
  private readonly weekdays: ValueSet;

  constructor(fields: Record<Field, number[]>) {
    this.years = new ValueSet(
      fields.year.map((year) => year - FIRST_YEAR),
      END_YEAR - FIRST_YEAR - 1,
    );
    this.months = new ValueSet(fields.month, 12);
    this.daysFromStart = new ValueSet(fields.day, 31);
    this.daysFromEnd = new ValueSet(
      fields.day.filter((day) => day < 0).map((day) => -day),
      31,
    );
    this.weekdays = new ValueSet(
      fields.weekday.map((monday0) => (monday0 + 1) % 7),
      6,
    );
    this.hours = new ValueSet(fields.hour, 23);
    this.minutes = new ValueSet(fields.minute, 59);
    this.seconds = new ValueSet(fields.second, 59);
  }

  firstYearFrom(year: number): number | null {
    const offset = this.years.firstFrom(Math.max(year, FIRST_YEAR) - FIRST_YEAR);
    return offset < 0 ? null : offset + FIRST_YEAR;
  }

  matchesDay(_year: number, _month: number, day: number, weekday: number, monthLength: number): boolean {
    return (
      this.weekdays.has(weekday) &&
      (this.daysFromStart.has(day) || this.daysFromEnd.has(monthLength - day + 1))
    );
  }
}

interface OnCalendarLine {
  pattern: WallPattern;
  /** A trailing zone name overrides the check's zone for this line. */
  zone: string | null;
}

export interface OnCalendarSchedule {
  readonly lines: readonly OnCalendarLine[];
}

/** Splits off a trailing zone name, if the last word is one. */
function splitZone(line: string): { body: string; zone: string | null } {
  const match = /^(.*\S)\s+(\S+)$/.exec(line);
  const lastWord = match?.[2];
  // No zone name starts with a digit or `*`; that keeps times and dates out of the lookup.
  if (match === null || lastWord === undefined || /^[0-9*]/.test(lastWord)) return { body: line, zone: null };
  const zone = normalizeTimezone(lastWord);
  return zone === null ? { body: line, zone: null } : { body: match[1] ?? '', zone };
}

function parseLine(line: string): OnCalendarLine {
  const { body, zone } = splitZone(line.trim());
  const expression = SPECIAL_WORDS.get(body.toLowerCase()) ?? body;
  // `*-*~1` is `*-*-~1`: year, month, then a day counted from the end.
  const parts = expression.replaceAll('~', '-~').split(/\s+/).filter((part) => part !== '');
  if (parts.length === 0) fail();

  const fields: Record<Field, number[]> = {
    weekday: fullRange('weekday'),
    year: fullRange('year'),
    month: fullRange('month'),
    day: fullRange('day'),
    hour: [0],
    minute: [0],
    second: [0],
  };

  const last = parts.at(-1);
  if (last !== undefined && last.includes(':')) {
    parts.pop();
    const time = last.split(':');
    if (time.length !== 2 && time.length !== 3) fail();
    const [hour = '', minute = '', second = '0'] = time;
    fields.hour = parseComponent('hour', hour);
    fields.minute = parseComponent('minute', minute);
    fields.second = parseComponent('second', second);
  }

  const dateText = parts.at(-1);
  if (dateText !== undefined && dateText.includes('-') && /^[0-9*]/.test(dateText)) {
    parts.pop();
    const date = dateText.split('-');
    if (date.length !== 2 && date.length !== 3) fail();
    if (date.length === 2) date.unshift('*');
    const [year = '', month = '', day = ''] = date;
    fields.year = parseComponent('year', year);
    fields.month = parseComponent('month', month);
    fields.day = parseComponent('day', day);
  }

  const weekdays = parts.shift();
  if (weekdays !== undefined) fields.weekday = parseComponent('weekday', weekdays);
  if (parts.length > 0) fail();

  return { pattern: new OnCalendarPattern(fields), zone };
}

/** Parses one or more newline-separated expressions; null when any line is invalid. */
export function parseOnCalendar(text: string): OnCalendarSchedule | null {
  try {
    return { lines: text.trim().split('\n').map(parseLine) };
  } catch (error) {
    if (error instanceof OnCalendarSyntaxError) return null;
    throw error;
  }
}

function nextLineFire(line: OnCalendarLine, tz: string, startMs: number): number | null {
  return firstFireOnWallClock(line.pattern, line.zone ?? tz, startMs, END_WALL, 'skip');
}

/**
 * The earliest fire time over all lines strictly after `afterMs` (at second
 * granularity), or null when no line fires again before year 2200.
 */
export function nextOnCalendarFire(schedule: OnCalendarSchedule, tz: string, afterMs: number): number | null {
  const startMs = Math.floor(afterMs / 1000) * 1000 + 1000;
  let earliest: number | null = null;
  for (const line of schedule.lines) {
    const fire = nextLineFire(line, tz, startMs);
    if (fire !== null && (earliest === null || fire < earliest)) earliest = fire;
  }
  return earliest;
}

/** §5.3 validity: every line parses and fires at least once after 2000-01-01 00:00 UTC. */
export function onCalendarFiresAfterValidationStart(schedule: OnCalendarSchedule): boolean {
  const startMs = VALIDATION_START_MS + 1000;
  return schedule.lines.every((line) => nextLineFire(line, 'UTC', startMs) !== null);
}

export function isValidOnCalendar(text: string): boolean {
  const schedule = parseOnCalendar(text);
  return schedule !== null && onCalendarFiresAfterValidationStart(schedule);
}
