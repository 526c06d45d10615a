// Five-field cron expressions with the semantics pinned by status-machine §5.2
// (upstream's cronsim), evaluated with the DST rules of §5.4.
//
// Division of labour with cron-parser: it expands the plain items of a field
// (numbers, names, ranges, steps) and rejects out-of-range values, reversed ranges
// and zero steps. The rest is ours, because cron-parser either lacks it or differs
// from the spec: the item grammar (it accepts `?`, `H`, macros and a seconds field,
// which the spec rejects, and refuses `#` inside a list, `0,7` and `LW`, which the
// spec accepts), the `L` / `LW` / `<d>L` / `<d>#<k>` extensions, the Vixie rule for
// combining day-of-month and day-of-week, the validity rules and the DST-aware search.
import { CronExpressionParser } from 'cron-parser';
import { toWallMs, wallMsOf } from '../timezones.js';
import {
  ValueSet,
  firstFireInRealTime,
  firstFireOnWallClock,
  type WallPattern,
} from './wall-clock-search.js';

type FieldName = 'minute' | 'hour' | 'dayOfMonth' | 'month' | 'dayOfWeek';

interface FieldSpec {
  name: FieldName;
  /** Position in the five-field expression. */
  index: number;
  /** Three-letter names, upper case, in value order starting at `firstNameValue`. */
  names: readonly string[];
  firstNameValue: number;
}

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const MINUTE: FieldSpec = { name: 'minute', index: 0, names: [], firstNameValue: 0 };
const HOUR: FieldSpec = { name: 'hour', index: 1, names: [], firstNameValue: 0 };
const DAY_OF_MONTH: FieldSpec = { name: 'dayOfMonth', index: 2, names: [], firstNameValue: 1 };
const MONTH: FieldSpec = { name: 'month', index: 3, names: MONTH_NAMES, firstNameValue: 1 };
const DAY_OF_WEEK: FieldSpec = { name: 'dayOfWeek', index: 4, names: WEEKDAY_NAMES, firstNameValue: 0 };

/** Longest month each month can have (February 29), for the day-of-month validity rule. */
const LONGEST_MONTH_LENGTHS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// cronsim gives up when nothing matches within 50 years of the start.
const SEARCH_YEARS = 50;
const VALIDATION_START_MS = Date.UTC(2000, 0, 1);

class CronSyntaxError extends Error {}

function fail(): never {
  throw new CronSyntaxError();
}

/** A plain item: `*`, `N`, `A-B`, each optionally `/S`; N, A, B digits or the field's names. */
function plainItemPattern(field: FieldSpec): RegExp {
  const token = ['[0-9]+', ...field.names].join('|');
  return new RegExp(`^(?:\\*|(?:${token})(?:-(?:${token}))?)(?:/[0-9]+)?$`);
}

const PLAIN_ITEM_PATTERNS = new Map<FieldName, RegExp>(
  [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK].map((field) => [field.name, plainItemPattern(field)]),
);

// Expansions of plain items are shared between expressions (`*`, `0`, `1-5`, …).
const EXPANSION_CACHE_LIMIT = 2000;
const expansionCache = new Map<string, readonly number[]>();

/** Values of one plain item, expanded by cron-parser. */
function expandPlainItem(field: FieldSpec, item: string): readonly number[] {
  if (!PLAIN_ITEM_PATTERNS.get(field.name)?.test(item)) fail();
  const key = `${field.name} ${item}`;
  const cached = expansionCache.get(key);
  if (cached !== undefined) return cached;

  // The item goes alone into an otherwise all-`*` expression, so that cron-parser's
  // cross-field checks (day 31 in February) and list checks cannot reject it.
  const probe = ['*', '*', '*', '*', '*'];
  probe[field.index] = item;
  let values: readonly number[];
  try {
    const parsed = CronExpressionParser.parse(probe.join(' '));
    const expanded: ReadonlyArray<number | string> = parsed.fields[field.name].values;
    values = expanded.filter((value): value is number => typeof value === 'number');
  } catch {
    fail();
  }
  if (expansionCache.size >= EXPANSION_CACHE_LIMIT) expansionCache.clear();
  expansionCache.set(key, values);
  return values;
}

function digits(text: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(text)) fail();
  const value = Number(text);
  if (value < min || value > max) fail();
  return value;
}

/** A weekday given as 0–7 (0 and 7 are Sunday) or a name; returns 0–6. */
function weekdayToken(text: string): number {
  const named = WEEKDAY_NAMES.indexOf(text);
  return named >= 0 ? named : digits(text, 0, 7) % 7;
}

function parseNumericField(field: FieldSpec, text: string, max: number): ValueSet {
  return new ValueSet(
    text.split(',').flatMap((item) => expandPlainItem(field, item)),
    max,
  );
}

interface DayOfMonthRule {
  days: number[];
  lastDay: boolean;
  lastWeekday: boolean;
}

function parseDayOfMonth(text: string): DayOfMonthRule {
  const rule: DayOfMonthRule = { days: [], lastDay: false, lastWeekday: false };
  for (const item of text.split(',')) {
    if (item === 'L') rule.lastDay = true;
    else if (item === 'LW') rule.lastWeekday = true;
    else rule.days.push(...expandPlainItem(DAY_OF_MONTH, item));
  }
  return rule;
}

interface DayOfWeekRule {
  /** Indexed by weekday, 0 = Sunday. */
  weekdays: boolean[];
  /** `<d>L`: the last such weekday of the month. */
  lastOfMonth: boolean[];
  /** `<d>#<k>`: nth[d][k] for the k-th such weekday of the month. */
  nth: boolean[][];
}

function parseDayOfWeek(text: string): DayOfWeekRule {
  const rule: DayOfWeekRule = {
    weekdays: Array<boolean>(7).fill(false),
    lastOfMonth: Array<boolean>(7).fill(false),
    nth: Array.from({ length: 7 }, () => Array<boolean>(6).fill(false)),
  };
  for (const item of text.split(',')) {
    if (item.includes('L')) {
      // The spec allows only a digit before L (`5L`), not a name.
      const match = /^([0-9]+)L$/.exec(item) ?? fail();
      rule.lastOfMonth[digits(match[1] ?? '', 0, 7) % 7] = true;
    } else if (item.includes('#')) {
      const [weekday = '', k = '', ...extra] = item.split('#');
      if (extra.length > 0) fail();
      const occurrences = rule.nth[weekdayToken(weekday)];
      if (occurrences !== undefined) occurrences[digits(k, 1, 5)] = true;
    } else {
      for (const value of expandPlainItem(DAY_OF_WEEK, item)) rule.weekdays[value % 7] = true;
    }
  }
  return rule;
}

function lastWeekdayOfMonth(day: number, weekday: number, monthLength: number): number {
  const lastDayWeekday = (weekday + monthLength - day) % 7;
  if (lastDayWeekday === 6) return monthLength - 1;
  if (lastDayWeekday === 0) return monthLength - 2;
  return monthLength;
}

class CronPattern implements WallPattern {
  readonly months: ValueSet;
  readonly hours: ValueSet;
  readonly minutes: ValueSet;
  readonly seconds = new ValueSet([0], 59);
  private readonly daysOfMonth: ValueSet;

  constructor(
    minutes: ValueSet,
    hours: ValueSet,
    private readonly dayOfMonth: DayOfMonthRule,
    months: ValueSet,
    private readonly dayOfWeek: DayOfWeekRule,
    /** Vixie rule: true when either day field starts with `*`. */
    private readonly bothDayFieldsMustMatch: boolean,
  ) {
    this.minutes = minutes;
    this.hours = hours;
    this.months = months;
    this.daysOfMonth = new ValueSet(dayOfMonth.days, 31);
  }

  firstYearFrom(year: number): number {
    return year;
  }

  matchesDay(_year: number, _month: number, day: number, weekday: number, monthLength: number): boolean {
    const dom = this.dayOfMonth;
    const dayOfMonthMatches =
      this.daysOfMonth.has(day) ||
      (dom.lastDay && day === monthLength) ||
      (dom.lastWeekday && day === lastWeekdayOfMonth(day, weekday, monthLength));
    if (this.bothDayFieldsMustMatch && !dayOfMonthMatches) return false;
    if (!this.bothDayFieldsMustMatch && dayOfMonthMatches) return true;

    const dow = this.dayOfWeek;
    return (
      dow.weekdays[weekday] === true ||
      (dow.lastOfMonth[weekday] === true && day + 7 > monthLength) ||
      dow.nth[weekday]?.[Math.ceil(day / 7)] === true
    );
  }
}

export interface CronSchedule {
  readonly pattern: WallPattern;
  /**
   * §5.4 rule 2: neither the minute nor the hour field starts with `*`, so the job
   * runs at set wall-clock times and is searched on the naive wall clock. Otherwise
   * (rule 3) real instants are walked. In a fixed-offset zone both give the same.
   */
  readonly searchesWallClock: boolean;
}

/** Parses a cron expression; null when it is not valid syntax (§5.2). */
export function parseCron(expression: string): CronSchedule | null {
  // Names are case-insensitive because the whole expression is upper-cased.
  const fields = expression.toUpperCase().trim().split(/\s+/);
  if (fields.length !== 5) return null;
  const [minuteText = '', hourText = '', domText = '', monthText = '', dowText = ''] = fields;
  try {
    const months = parseNumericField(MONTH, monthText, 12);
    const dayOfMonth = parseDayOfMonth(domText);
    if (!dayOfMonth.lastDay && !dayOfMonth.lastWeekday && dayOfMonth.days.length > 0) {
      // A day no selected month reaches (`0 0 30 2 *`) is a syntax error upstream.
      const longestSelected = Math.max(
        ...LONGEST_MONTH_LENGTHS.filter((_, index) => months.has(index + 1)),
      );
      if (Math.min(...dayOfMonth.days) > longestSelected) return null;
    }
    const pattern = new CronPattern(
      parseNumericField(MINUTE, minuteText, 59),
      parseNumericField(HOUR, hourText, 23),
      dayOfMonth,
      months,
      parseDayOfWeek(dowText),
      domText.startsWith('*') || dowText.startsWith('*'),
    );
    return {
      pattern,
      searchesWallClock: !minuteText.startsWith('*') && !hourText.startsWith('*'),
    };
  } catch (error) {
    if (error instanceof CronSyntaxError) return null;
    throw error;
  }
}

/**
 * The first fire time strictly after `afterMs` (at second granularity, §5.4 step 1)
 * in zone `tz`, or null when there is none within 50 years.
 */
export function nextCronFire(schedule: CronSchedule, tz: string, afterMs: number): number | null {
  const startMs = Math.floor(afterMs / 1000) * 1000 + 1000;
  const startYear = new Date(toWallMs(startMs, tz)).getUTCFullYear();
  const horizonWall = wallMsOf(startYear + SEARCH_YEARS + 1, 1, 1);
  return schedule.searchesWallClock
    ? firstFireOnWallClock(schedule.pattern, tz, startMs, horizonWall, 'catch-up')
    : firstFireInRealTime(schedule.pattern, tz, startMs, horizonWall);
}

/** §5.2 validity: parses, and fires within about 50 years after 2000-01-01 00:00. */
export function isValidCron(expression: string): boolean {
  const schedule = parseCron(expression);
  return schedule !== null && cronFiresAfterValidationStart(schedule);
}

export function cronFiresAfterValidationStart(schedule: CronSchedule): boolean {
  return nextCronFire(schedule, 'UTC', VALIDATION_START_MS) !== null;
}
