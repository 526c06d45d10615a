import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import {
  detectScheduleKind,
  isValidSchedule,
  nextFireAfter,
  type ScheduleKind,
} from '../../daemon/domain/schedule/index.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

const utc = (text: string) => Date.parse(`${text}Z`);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace(':00.000Z', 'Z'));

describe('detectScheduleKind (§5.1)', () => {
  it.each<[string, ScheduleKind]>([
    ['0 * * * *', 'cron'],
    ['  0 * * * *  ', 'cron'],
    ['0\t*\t*  *   *', 'cron'],
    ['0 * * * *\n', 'cron'],
    ['bad-expression', 'oncalendar'],
    ['* invalid *', 'oncalendar'],
    ['0 * * * * *', 'oncalendar'],
    ['* * * *', 'oncalendar'],
    ['@daily', 'oncalendar'],
    ['12:34', 'oncalendar'],
    ['0 *\n* * *', 'oncalendar'],
    ['12:00 Europe/Riga\n12:00 UTC', 'oncalendar'],
    ['', 'oncalendar'],
  ])('%j is %s', (schedule, kind) => {
    expect(detectScheduleKind(schedule)).toBe(kind);
  });
});

describe('isValidSchedule (§5.2, §5.3, api-details §6.5)', () => {
  it.each([
    '0 * * * *',
    '0 0 29 2 *',
    '0 9 * * 1L',
    '12:34',
    'weekly',
    '*-*~1 12:00',
    '12:00 Europe/Riga\n12:00 UTC',
    '2019-01-01',
  ])('accepts %j', (schedule) => {
    expect(isValidSchedule(schedule, 'UTC')).toBe(true);
  });

  it.each([
    '',
    ' ',
    'bad-expression',
    '* * * * * *',
    '* invalid *',
    '1,2 61 * * *',
    '0 0 31 2 *',
    '0 0 30 2 *',
    '@daily',
    '12:34\nsurprise',
    'Surprise 12:34',
    '12:34 Europe/surprise',
  ])('rejects %j', (schedule) => {
    expect(isValidSchedule(schedule, 'UTC')).toBe(false);
  });

  it('does not depend on the zone', () => {
    for (const schedule of ['0 0 29 2 *', '12:34', '0 0 31 2 *', '1999-01-01']) {
      expect(isValidSchedule(schedule, 'Pacific/Apia')).toBe(isValidSchedule(schedule, 'UTC'));
    }
  });
});

describe('nextFireAfter: the §5.4 test vectors', () => {
  // [kind, expression, tz, last ping (UTC), expected E, then the fire after E]
  const vectors: Array<[ScheduleKind, string, string, string, string | null, string?]> = [
    ['cron', '0 * * * *', 'UTC', '2000-01-01T00:00', '2000-01-01T01:00Z'],
    ['cron', '0 0 * * *', 'UTC', '2000-01-01T00:00', '2000-01-02T00:00Z'],
    ['oncalendar', '00:00', 'UTC', '2000-01-01T00:00', '2000-01-02T00:00Z'],
    ['cron', '0 10 * * *', 'Australia/Brisbane', '2000-01-01T00:00', '2000-01-02T00:00Z'],
    ['cron', '0 10 * * *', 'UTC', '2024-01-01T10:00:00.500', '2024-01-02T10:00Z'],
    ['cron', '0 2 * * *', 'Europe/Riga', '2024-01-15T00:30', '2024-01-16T00:00Z'],
    ['cron', '15 * * * *', 'Europe/Riga', '2023-10-29T00:55', '2023-10-29T01:15Z'],
    ['cron', '30 3 * * *', 'Europe/Riga', '2024-03-30T12:00', '2024-03-31T01:00Z'],
    ['oncalendar', '03:30', 'Europe/Riga', '2024-03-30T12:00', '2024-04-01T00:30Z'],
    ['cron', '30 3 * * *', 'Europe/Riga', '2024-10-26T12:00', '2024-10-27T00:30Z', '2024-10-28T01:30Z'],
    ['cron', '30 * * * *', 'Europe/Riga', '2024-10-27T00:00', '2024-10-27T00:30Z', '2024-10-27T01:30Z'],
    ['cron', '0 2 * * *', 'America/New_York', '2024-03-09T12:00', '2024-03-10T07:00Z'],
    ['oncalendar', '02:00', 'America/New_York', '2024-03-09T12:00', '2024-03-11T06:00Z'],
    ['cron', '30 1 * * *', 'America/New_York', '2024-11-02T12:00', '2024-11-03T05:30Z', '2024-11-04T06:30Z'],
    ['cron', '*/30 * * * *', 'America/New_York', '2024-11-03T05:45', '2024-11-03T06:00Z'],
    ['cron', '0 0 13 * 5', 'UTC', '2024-01-01T00:00', '2024-01-05T00:00Z'],
    ['cron', '0 0 */2 * 5', 'UTC', '2024-01-01T00:00', '2024-01-05T00:00Z'],
    ['cron', '0 9 1 * MON', 'UTC', '2024-01-02T00:00', '2024-01-08T09:00Z'],
    ['cron', '0 9 * * 1L', 'UTC', '2024-01-02T00:00', '2024-01-29T09:00Z'],
    ['cron', '0 0 29 2 *', 'UTC', '2024-03-01T00:00', '2028-02-29T00:00Z'],
    ['oncalendar', 'weekly', 'UTC', '2024-01-01T01:00', '2024-01-08T00:00Z'],
    ['oncalendar', 'Mon..Fri 09:00', 'Europe/Riga', '2024-01-05T10:00', '2024-01-08T07:00Z'],
    ['oncalendar', '*-*~1 12:00', 'UTC', '2024-02-01T00:00', '2024-02-29T12:00Z'],
    ['oncalendar', '*-*-* 12:00 Asia/Tokyo', 'UTC', '2024-01-01T00:00', '2024-01-01T03:00Z'],
    ['oncalendar', '12:00 Europe/Riga\n12:00 UTC', 'UTC', '2024-01-01T00:00', '2024-01-01T10:00Z'],
    ['oncalendar', '2019-01-01', 'UTC', '2020-01-01T00:00', null],
  ];

  it.each(vectors)('%s %j in %s after %s is %s', (kind, expression, tz, lastPing, expected, then) => {
    expect(detectScheduleKind(expression)).toBe(kind);
    expect(isValidSchedule(expression, tz)).toBe(true);
    const next = nextFireAfter(kind, expression, tz, utc(lastPing));
    expect(iso(next)).toBe(expected);
    if (then !== undefined && next !== null) {
      expect(iso(nextFireAfter(kind, expression, tz, next))).toBe(then);
    }
  });
});

describe('nextFireAfter', () => {
  it('returns null for a schedule that does not parse as the given kind', () => {
    expect(nextFireAfter('cron', 'bad-expression', 'UTC', 0)).toBeNull();
    expect(nextFireAfter('cron', '12:34', 'UTC', 0)).toBeNull();
    expect(nextFireAfter('oncalendar', '@daily', 'UTC', 0)).toBeNull();
  });

  it('stays correct while the parse cache turns over', () => {
    const after = utc('2024-01-01T00:00');
    const expressions: string[] = [];
    for (let hour = 0; hour < 24; hour++) {
      for (let minute = 0; minute < 60; minute++) expressions.push(`${minute} ${hour} * * *`);
    }
    for (const round of [1, 2]) {
      for (const [index, expression] of expressions.entries()) {
        const expected = after + (index === 0 ? 24 * HOUR_MS : index * MINUTE_MS);
        expect(nextFireAfter('cron', expression, 'UTC', after), `${expression} round ${round}`).toBe(expected);
        const onCalendar = `${Math.floor(index / 60)}:${index % 60}`;
        expect(nextFireAfter('oncalendar', onCalendar, 'UTC', after)).toBe(expected);
      }
    }
  });
});

// ---------------------------------------------------------------------------
// Cross-checks against independent references.

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  const item = items[Math.floor(next() * items.length)];
  if (item === undefined) throw new Error('empty choice');
  return item;
}

describe('cron in UTC agrees with cron-parser where their semantics coincide', () => {
  // One of the two day fields is always `*`, where cronsim's day rule and
  // cron-parser's agree.
  const minutes = ['*', '0', '*/15', '5,10,50', '0-10/5', '59', '30'];
  const hours = ['*', '0', '12', '*/6', '9-17', '23', '1,13'];
  const daysOfMonth = ['1', '15', 'L', '*/10', '31', '1-7', '29'];
  const months = ['*', '1', '2', '*/3', 'JUN-AUG', '12', '2,4'];
  const weekdays = ['1', 'MON-FRI', '0', '6,0', '5L', 'MON#2', '7'];

  it('for 300 random expressions', () => {
    const next = random(20240101);
    const disagreements: string[] = [];
    for (let i = 0; i < 300; i++) {
      const dayOfMonthRestricted = next() < 0.5;
      const expression = [
        pick(next, minutes),
        pick(next, hours),
        dayOfMonthRestricted ? pick(next, daysOfMonth) : '*',
        pick(next, months),
        dayOfMonthRestricted ? '*' : pick(next, weekdays),
      ].join(' ');
      if (!isValidSchedule(expression, 'UTC')) continue;
      const start = Date.UTC(2024, 0, 1) + Math.floor(next() * 6 * 365) * 86_400_000 + Math.floor(next() * 86_400) * 1000;
      const theirs = CronExpressionParser.parse(expression, { currentDate: new Date(start), tz: 'UTC' });
      let from = start;
      for (let k = 0; k < 3; k++) {
        const ours = nextFireAfter('cron', expression, 'UTC', from);
        const reference = theirs.next().getTime();
        if (ours !== reference) {
          disagreements.push(`${expression} after ${new Date(from).toISOString()}: ${iso(ours)} vs ${iso(reference)}`);
          break;
        }
        from = ours;
      }
    }
    expect(disagreements).toEqual([]);
  });
});

/**
 * A brute-force reference for §5.4 rules 2–4: the wall clock of every real minute
 * around one offset change, straight from Intl.
 */
class MinuteScan {
  /** Real minutes in order, with the wall time each shows. */
  readonly minutes: Array<{ at: number; wall: number }> = [];
  /** The earliest real minute showing each wall time. */
  readonly firstInstantOfWall = new Map<number, number>();
  readonly lastWall: number;
  private readonly formatter: Intl.DateTimeFormat;

  constructor(
    readonly tz: string,
    center: number,
  ) {
    this.formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    let lastWall = -Infinity;
    for (let at = center - 30 * HOUR_MS; at <= center + 60 * HOUR_MS; at += MINUTE_MS) {
      const wall = this.wallOf(at);
      this.minutes.push({ at, wall });
      if (!this.firstInstantOfWall.has(wall)) this.firstInstantOfWall.set(wall, at);
      lastWall = Math.max(lastWall, wall);
    }
    this.lastWall = lastWall;
  }

  wallOf(at: number): number {
    const parts = this.formatter.formatToParts(Math.floor(at / 1000) * 1000);
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour') % 24, part('minute'), part('second'));
  }

  /** Rule 3: the first real minute after `after` whose wall time matches. */
  realTime(after: number, matches: (wall: number) => boolean): number | null {
    for (const { at, wall } of this.minutes) if (at > after && matches(wall)) return at;
    return null;
  }

  /** Rules 2 and 4: the first matching wall minute, by its first occurrence. */
  wallClock(after: number, matches: (wall: number) => boolean, gapPolicy: 'catch-up' | 'skip'): number | null {
    const startWall = this.wallOf(after) + 1000;
    for (let wall = Math.ceil(startWall / MINUTE_MS) * MINUTE_MS; wall <= this.lastWall; wall += MINUTE_MS) {
      if (!matches(wall)) continue;
      let at = this.firstInstantOfWall.get(wall);
      if (at === undefined) {
        if (gapPolicy === 'skip') continue;
        let caughtUp = wall;
        while (caughtUp <= this.lastWall && !this.firstInstantOfWall.has(caughtUp)) caughtUp += MINUTE_MS;
        at = this.firstInstantOfWall.get(caughtUp);
        if (at === undefined) return null;
      }
      if (at > after) return at;
    }
    return null;
  }
}

describe('DST behaviour agrees with a brute-force reference', () => {
  interface FieldChoice {
    cron: string;
    onCalendar: string;
    values: number[];
  }
  const every = (count: number, step = 1) => Array.from({ length: Math.ceil(count / step) }, (_, i) => i * step);
  const minuteChoices: FieldChoice[] = [
    { cron: '0', onCalendar: '00', values: [0] },
    { cron: '30', onCalendar: '30', values: [30] },
    { cron: '15,45', onCalendar: '15,45', values: [15, 45] },
    { cron: '*/20', onCalendar: '0/20', values: every(60, 20) },
    { cron: '*', onCalendar: '*', values: every(60) },
    { cron: '59', onCalendar: '59', values: [59] },
  ];
  const hourChoices: FieldChoice[] = [
    { cron: '*', onCalendar: '*', values: every(24) },
    { cron: '0', onCalendar: '00', values: [0] },
    { cron: '1', onCalendar: '01', values: [1] },
    { cron: '2', onCalendar: '02', values: [2] },
    { cron: '3', onCalendar: '03', values: [3] },
    { cron: '23', onCalendar: '23', values: [23] },
    { cron: '0-3', onCalendar: '0..3', values: [0, 1, 2, 3] },
    { cron: '*/2', onCalendar: '0/2', values: every(24, 2) },
  ];

  const transitions: Array<[string, string]> = [
    ['Europe/Riga', '2024-03-31T01:00'],
    ['Europe/Riga', '2024-10-27T01:00'],
    ['America/New_York', '2024-03-10T07:00'],
    ['America/New_York', '2024-11-03T06:00'],
    ['Australia/Lord_Howe', '2024-04-06T15:00'],
    ['Australia/Lord_Howe', '2024-10-05T15:30'],
    ['America/Santiago', '2024-04-07T03:00'],
    ['America/Santiago', '2024-09-08T04:00'],
    ['America/Havana', '2024-03-10T05:00'],
    ['America/Havana', '2024-11-03T05:00'],
    ['Pacific/Chatham', '2024-04-06T14:00'],
    ['Antarctica/Troll', '2024-03-31T01:00'],
    ['Antarctica/Troll', '2024-10-27T01:00'],
    ['Pacific/Apia', '2011-12-30T10:00'],
    ['Asia/Tehran', '2021-03-21T20:30'],
  ];

  it.each(transitions)('%s around %s', (tz, centerText) => {
    const center = utc(centerText);
    const scan = new MinuteScan(tz, center);
    const disagreements: string[] = [];
    for (const minute of minuteChoices) {
      for (const hour of hourChoices) {
        const matches = (wall: number) => {
          const date = new Date(wall);
          return (
            date.getUTCSeconds() === 0 &&
            minute.values.includes(date.getUTCMinutes()) &&
            hour.values.includes(date.getUTCHours())
          );
        };
        const cron = `${minute.cron} ${hour.cron} * * *`;
        const onCalendar = `${hour.onCalendar}:${minute.onCalendar}`;
        const cronRealTime = minute.cron.startsWith('*') || hour.cron.startsWith('*');
        for (let after = center - 4 * HOUR_MS; after <= center + 3 * HOUR_MS; after += 20 * MINUTE_MS + 17_000) {
          const expectedCron = cronRealTime
            ? scan.realTime(after, matches)
            : scan.wallClock(after, matches, 'catch-up');
          const actualCron = nextFireAfter('cron', cron, tz, after);
          if (expectedCron === null || actualCron !== expectedCron) {
            disagreements.push(`cron ${cron} after ${iso(after)}: ${iso(actualCron)} vs ${iso(expectedCron)}`);
          }
          const expectedOnCalendar = scan.wallClock(after, matches, 'skip');
          const actualOnCalendar = nextFireAfter('oncalendar', onCalendar, tz, after);
          if (expectedOnCalendar === null || actualOnCalendar !== expectedOnCalendar) {
            disagreements.push(
              `oncalendar ${onCalendar} after ${iso(after)}: ${iso(actualOnCalendar)} vs ${iso(expectedOnCalendar)}`,
            );
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
  });
});
