import { describe, expect, it } from 'vitest';
import {
  isValidOnCalendar,
  nextOnCalendarFire,
  parseOnCalendar,
} from '../../daemon/domain/schedule/oncalendar.js';

const utc = (text: string) => Date.parse(`${text}Z`);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace('.000Z', 'Z'));

/** The next `count` fire times after `after`, as ISO strings. */
function fires(expression: string, tz: string, after: string, count = 1): Array<string | null> {
  const schedule = parseOnCalendar(expression);
  if (schedule === null) throw new Error(`does not parse: ${expression}`);
  const result: Array<string | null> = [];
  let from = utc(after);
  for (let i = 0; i < count; i++) {
    const next = nextOnCalendarFire(schedule, tz, from);
    result.push(iso(next));
    if (next === null) break;
    from = next;
  }
  return result;
}

describe('OnCalendar syntax (§5.3)', () => {
  it.each([
    '12:34',
    '12:34:56',
    '2024-01-01',
    '2024-01-01 12:00',
    '01-01',
    '24-01-01',
    '2199-12-31 23:59:59',
    'Mon',
    'Mon 12:00',
    'mon,WED,Fri 12:00',
    'Monday..Friday 09:00',
    'Mon-Fri 09:00',
    'Mon..Wed,Sat 09:00',
    'Mon, 12:00',
    'Sat *-*-* 00:00',
    '*-*-* *:*:*',
    '*-*-1/10 06:00',
    'Mon *-*-1..7 06:00',
    '*-*~1',
    '*-02~03 12:00',
    '*-*~7/2 12:00',
    '*-*~1..3 12:00',
    '2024..2030-01-01',
    '2024/2-01-01',
    '*:0/15',
    '0..6/2:00',
    '12:00,30',
    '*-*-* 12:00 Asia/Tokyo',
    '12:00 UTC',
    '12:00 Europe/Kiev',
    '12:00 Europe/Riga\n12:00 UTC',
    '  12:00  \n  13:00  ',
    'minutely',
    'hourly',
    'daily',
    'DAILY',
    'weekly',
    'monthly',
    'yearly',
    'annually',
    'quarterly',
    'semiannually',
    'daily Europe/Riga',
  ])('accepts %j', (expression) => {
    expect(parseOnCalendar(expression)).not.toBeNull();
    expect(isValidOnCalendar(expression)).toBe(true);
  });

  it.each([
    // Pinned upstream (test_create_check / test_update_check).
    '12:34\nsurprise',
    'Surprise 12:34',
    '12:34 Europe/surprise',
    '@daily',
    // Structure.
    '',
    '   ',
    '12:00\n\n13:00',
    'Mon Tue 12:00',
    '12:00 13:00',
    'Europe/Riga',
    '12',
    '12:00:00:00',
    '2024-01-01-01',
    '* 12:00',
    // Weekdays.
    'Fri..Mon 12:00',
    'Mo 12:00',
    'Mon/2 12:00',
    // Dates.
    '1969-01-01',
    '2200-01-01',
    '100-01-01',
    '*-13-01',
    '*-00-01',
    '*-*-32',
    '*-*-0',
    '*-*~29',
    '*-*~0',
    '*-*-5..1',
    '*-*~7..1',
    '*-*-*/0',
    '*-*-1/x',
    '*-*-1,*',
    // Times.
    '24:00',
    '12:60',
    '12:00:60',
    '12:00:00.5',
    '*:*/15',
    '1.5:00',
    '-1:00',
    // Well-formed but never after 2000-01-01 UTC, or never at all.
    '1999-01-01',
    '99-01-01',
    '*-02-30',
    '*-04-31 12:00',
    '2019-02-29',
    // Every line must fire.
    '12:00 UTC\n1999-01-01',
  ])('rejects %j', (expression) => {
    expect(isValidOnCalendar(expression)).toBe(false);
  });

  it('a past one-shot date is valid, it just never fires again', () => {
    expect(isValidOnCalendar('2019-01-01')).toBe(true);
    expect(fires('2019-01-01', 'UTC', '2020-01-01T00:00')).toEqual([null]);
  });
});

describe('OnCalendar matching', () => {
  it('is strictly after, at second granularity', () => {
    expect(fires('00:00', 'UTC', '2000-01-01T00:00')).toEqual(['2000-01-02T00:00:00Z']);
    expect(fires('12:00', 'UTC', '2024-01-01T12:00:00.900')).toEqual(['2024-01-02T12:00:00Z']);
    expect(fires('*:*:*', 'UTC', '2024-01-01T12:00:00.900', 2)).toEqual([
      '2024-01-01T12:00:01Z',
      '2024-01-01T12:00:02Z',
    ]);
  });

  it('special words', () => {
    const after = '2024-05-15T10:20:30';
    expect(fires('minutely', 'UTC', after)).toEqual(['2024-05-15T10:21:00Z']);
    expect(fires('hourly', 'UTC', after)).toEqual(['2024-05-15T11:00:00Z']);
    expect(fires('daily', 'UTC', after)).toEqual(['2024-05-16T00:00:00Z']);
    expect(fires('weekly', 'UTC', after)).toEqual(['2024-05-20T00:00:00Z']);
    expect(fires('monthly', 'UTC', after)).toEqual(['2024-06-01T00:00:00Z']);
    expect(fires('yearly', 'UTC', after)).toEqual(['2025-01-01T00:00:00Z']);
    expect(fires('annually', 'UTC', after)).toEqual(['2025-01-01T00:00:00Z']);
    expect(fires('quarterly', 'UTC', after, 2)).toEqual(['2024-07-01T00:00:00Z', '2024-10-01T00:00:00Z']);
    expect(fires('semiannually', 'UTC', after, 2)).toEqual(['2024-07-01T00:00:00Z', '2025-01-01T00:00:00Z']);
    expect(fires('weekly', 'UTC', '2024-01-01T01:00')).toEqual(['2024-01-08T00:00:00Z']);
  });

  it('weekdays: names, full names, lists and ranges, any case', () => {
    // 2024-01-05 is a Friday.
    expect(fires('Mon..Fri 09:00', 'UTC', '2024-01-05T10:00')).toEqual(['2024-01-08T09:00:00Z']);
    expect(fires('Mon-Fri 09:00', 'UTC', '2024-01-05T10:00')).toEqual(['2024-01-08T09:00:00Z']);
    expect(fires('saturday,SUN 09:00', 'UTC', '2024-01-05T10:00', 3)).toEqual([
      '2024-01-06T09:00:00Z',
      '2024-01-07T09:00:00Z',
      '2024-01-13T09:00:00Z',
    ]);
    expect(fires('Tue..Wed,Fri', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-01-02T00:00:00Z',
      '2024-01-03T00:00:00Z',
      '2024-01-05T00:00:00Z',
    ]);
  });

  it('dates: lists, ranges, steps and defaults', () => {
    expect(fires('*-*-1/10 06:00', 'UTC', '2024-01-01T07:00', 4)).toEqual([
      '2024-01-11T06:00:00Z',
      '2024-01-21T06:00:00Z',
      '2024-01-31T06:00:00Z',
      '2024-02-01T06:00:00Z',
    ]);
    expect(fires('*-03,06..07-15', 'UTC', '2024-01-01T00:00', 4)).toEqual([
      '2024-03-15T00:00:00Z',
      '2024-06-15T00:00:00Z',
      '2024-07-15T00:00:00Z',
      '2025-03-15T00:00:00Z',
    ]);
    expect(fires('2030/5-01-01', 'UTC', '2024-01-01T00:00', 2)).toEqual([
      '2030-01-01T00:00:00Z',
      '2035-01-01T00:00:00Z',
    ]);
    expect(fires('12-25', 'UTC', '2024-01-01T00:00')).toEqual(['2024-12-25T00:00:00Z']);
  });

  it('reads two-digit years as 1970–2069', () => {
    expect(fires('30-06-01', 'UTC', '2024-01-01T00:00')).toEqual(['2030-06-01T00:00:00Z']);
    expect(fires('69-06-01', 'UTC', '2024-01-01T00:00')).toEqual(['2069-06-01T00:00:00Z']);
    expect(fires('70-06-01', 'UTC', '1960-01-01T00:00')).toEqual(['1970-06-01T00:00:00Z']);
  });

  it('counts ~ days from the end of the month', () => {
    expect(fires('*-*~1 12:00', 'UTC', '2024-02-01T00:00')).toEqual(['2024-02-29T12:00:00Z']);
    expect(fires('*-*~3', 'UTC', '2023-02-01T00:00')).toEqual(['2023-02-26T00:00:00Z']);
    expect(fires('*-02~1..2', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-02-28T00:00:00Z',
      '2024-02-29T00:00:00Z',
      '2025-02-27T00:00:00Z',
    ]);
    // ~7/2: the 7th, 5th, 3rd and 1st days from the end.
    expect(fires('*-04~7/2', 'UTC', '2024-01-01T00:00', 4)).toEqual([
      '2024-04-24T00:00:00Z',
      '2024-04-26T00:00:00Z',
      '2024-04-28T00:00:00Z',
      '2024-04-30T00:00:00Z',
    ]);
    // The last Friday: a Friday among the last seven days.
    expect(fires('Fri *-*~1..7', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-26T00:00:00Z']);
  });

  it('times: lists, ranges, steps and seconds', () => {
    expect(fires('*:0/20', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-01-01T00:20:00Z',
      '2024-01-01T00:40:00Z',
      '2024-01-01T01:00:00Z',
    ]);
    expect(fires('8..9:15,45', 'UTC', '2024-01-01T08:30', 3)).toEqual([
      '2024-01-01T08:45:00Z',
      '2024-01-01T09:15:00Z',
      '2024-01-01T09:45:00Z',
    ]);
    expect(fires('*:*:30', 'UTC', '2024-01-01T00:00', 2)).toEqual(['2024-01-01T00:00:30Z', '2024-01-01T00:01:30Z']);
    expect(fires('12:00:05/20', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-01-01T12:00:05Z',
      '2024-01-01T12:00:25Z',
      '2024-01-01T12:00:45Z',
    ]);
  });

  it('takes the earliest over lines, each in its own zone', () => {
    expect(fires('12:00 Europe/Riga\n12:00 UTC', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-01-01T10:00:00Z',
      '2024-01-01T12:00:00Z',
      '2024-01-02T10:00:00Z',
    ]);
    expect(fires('*-*-* 12:00 Asia/Tokyo', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-01T03:00:00Z']);
    // Without a zone of its own, a line uses the check's zone.
    expect(fires('12:00\n13:00 UTC', 'Asia/Tokyo', '2024-01-01T00:00', 2)).toEqual([
      '2024-01-01T03:00:00Z',
      '2024-01-01T13:00:00Z',
    ]);
    // A line that has stopped firing leaves the others.
    expect(fires('2019-01-01\n12:00', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-01T12:00:00Z']);
  });

  it('stops at year 2200', () => {
    expect(fires('2199-12-31 23:59:59', 'UTC', '2199-12-31T00:00', 2)).toEqual(['2199-12-31T23:59:59Z', null]);
    expect(fires('yearly', 'UTC', '2199-06-01T00:00')).toEqual([null]);
  });

  it('finds a rare date without crawling', () => {
    const started = performance.now();
    // Feb 29 on a Monday: 2044, 2072, …
    expect(fires('Mon *-02-29', 'UTC', '2024-01-01T00:00', 2)).toEqual([
      '2044-02-29T00:00:00Z',
      '2072-02-29T00:00:00Z',
    ]);
    expect(fires('*-02-30', 'UTC', '2024-01-01T00:00')).toEqual([null]);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('OnCalendar across DST (§5.4 rule 4)', () => {
  it('skips nonexistent wall times: no catch-up run', () => {
    expect(fires('03:30', 'Europe/Riga', '2024-03-30T12:00')).toEqual(['2024-04-01T00:30:00Z']);
    expect(fires('02:00', 'America/New_York', '2024-03-09T12:00')).toEqual(['2024-03-11T06:00:00Z']);
    // From the last second before the jump too: the search starts inside the gap and skips it.
    expect(fires('02:30', 'America/New_York', '2024-03-10T06:59:59')).toEqual(['2024-03-11T06:30:00Z']);
    expect(fires('03:00', 'America/New_York', '2024-03-10T06:59:59')).toEqual(['2024-03-10T07:00:00Z']);
    // A per-minute schedule just has no runs during the gap.
    expect(fires('*:00/30', 'Europe/Riga', '2024-03-31T00:15', 2)).toEqual([
      '2024-03-31T00:30:00Z',
      '2024-03-31T01:00:00Z',
    ]);
  });

  it('fires once, at the first occurrence, for repeated wall times', () => {
    expect(fires('03:30', 'Europe/Riga', '2024-10-26T12:00', 2)).toEqual([
      '2024-10-27T00:30:00Z',
      '2024-10-28T01:30:00Z',
    ]);
    // Starting in the second pass of the overlap: 03:30 has fired already.
    expect(fires('03:30', 'Europe/Riga', '2024-10-27T01:10')).toEqual(['2024-10-28T01:30:00Z']);
    // Every minute of the repeated hour fires during its first pass only.
    expect(fires('minutely', 'Europe/Riga', '2024-10-27T00:58', 3)).toEqual([
      '2024-10-27T00:59:00Z',
      '2024-10-27T02:00:00Z',
      '2024-10-27T02:01:00Z',
    ]);
  });

  it('uses the line zone for DST rules too', () => {
    expect(fires('02:00 America/New_York', 'Europe/Riga', '2024-03-09T12:00')).toEqual(['2024-03-11T06:00:00Z']);
    expect(fires('Mon..Fri 09:00', 'Europe/Riga', '2024-01-05T10:00')).toEqual(['2024-01-08T07:00:00Z']);
  });
});
