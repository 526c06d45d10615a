import { describe, expect, it } from 'vitest';
import { isValidCron, nextCronFire, parseCron } from '../../daemon/domain/schedule/cron.js';

const utc = (text: string) => Date.parse(`${text}Z`);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace('.000Z', 'Z'));

/** The next `count` fire times after `after`, as ISO strings. */
function fires(expression: string, tz: string, after: string, count = 1): Array<string | null> {
  const schedule = parseCron(expression);
  if (schedule === null) throw new Error(`does not parse: ${expression}`);
  const result: Array<string | null> = [];
  let from = utc(after);
  for (let i = 0; i < count; i++) {
    const next = nextCronFire(schedule, tz, from);
    result.push(iso(next));
    if (next === null) break;
    from = next;
  }
  return result;
}

describe('cron syntax (§5.2)', () => {
  it.each([
    '* * * * *',
    '0 0 29 2 *',
    '0 0 1,31 2 *',
    '0 0 L,31 2 *',
    '0 0 30 1,2 *',
    '*/60 * * * *',
    '59-59/100 * * * *',
    '5/15 * * * *',
    '1-10/3 */2 1-31/10 */3 */7',
    '0,30 9-17 * * MON-FRI',
    '0 0 * jan-mar mon-fri',
    '0 0 * * 0,7',
    '0 0 * * 0-7',
    '0 0 * * SUN',
    '0 0 * * MON/2',
    '0 0 L * *',
    '0 0 LW * *',
    '0 0 L,LW,15 * *',
    '0 0 * * 5L',
    '0 0 * * 7L',
    '0 0 * * MON#1',
    '0 0 * * 1#5',
    '0 0 * * 7#2',
    '0 0 * * 1#1,5L,3',
    '00 00 01 01 00',
    '  0   0 * * *  ',
  ])('accepts %j', (expression) => {
    expect(parseCron(expression)).not.toBeNull();
    expect(isValidCron(expression)).toBe(true);
  });

  it.each([
    // Pinned upstream (test_create_check / test_update_check).
    'bad-expression',
    '* * * * * *',
    '* invalid *',
    '1,2 61 * * *',
    '0 0 31 2 *',
    // Day-of-month beyond every selected month.
    '0 0 30 2 *',
    '0 0 31 2,4 *',
    '0 0 30 2 MON',
    // Not supported.
    '? * * * *',
    'H * * * *',
    '0 0 15W * *',
    '0 0 W * *',
    '@daily',
    '@hourly',
    '0 0 0 * * *',
    '0 0 * * * 2024',
    '0 0 L/2 * *',
    '0 0 5L * *',
    '0 0 * * L',
    '0 0 * * FRIL',
    '0 0 * * 8L',
    '0 0 * * 5#0',
    '0 0 * * 5#6',
    '0 0 * * 5#',
    '0 0 * * #1',
    '0 0 * * 5#1#2',
    // Values, ranges and steps.
    '60 * * * *',
    '0 24 * * *',
    '0 0 0 * *',
    '0 0 32 * *',
    '0 0 * 0 *',
    '0 0 * 13 *',
    '0 0 * * 8',
    '5-1 * * * *',
    '*/0 * * * *',
    '5/0 * * * *',
    '60/5 * * * *',
    '*-5 * * * *',
    '1,,2 * * * *',
    '1, * * * *',
    '+1 * * * *',
    '1.5 * * * *',
    '*/2/3 * * * *',
    // Names only where they belong, three letters only.
    'JAN * * * *',
    '0 0 * MON *',
    '0 0 * * JAN',
    '0 0 * JANUARY *',
    '0 0 * * MONDAY',
    '0 0 * * MON-SUN',
    '0 0 * * SAT-SUN',
    '',
    '* * * *',
  ])('rejects %j', (expression) => {
    expect(parseCron(expression)).toBeNull();
    expect(isValidCron(expression)).toBe(false);
  });

  it('rejects an expression that parses but never fires within 50 years of 2000', () => {
    // AND rule (day-of-month starts with *): a fifth Friday in February is the 29th,
    // which */3 (1, 4, …, 28) never selects.
    expect(parseCron('0 0 */3 2 5#5')).not.toBeNull();
    expect(isValidCron('0 0 */3 2 5#5')).toBe(false);
    // Feb 29 falls on a Friday in 2008.
    expect(isValidCron('0 0 * 2 5#5')).toBe(true);
  });
});

describe('cron matching in UTC', () => {
  it('is strictly after, at second granularity', () => {
    expect(fires('0 0 * * *', 'UTC', '2024-01-01T00:00:00')).toEqual(['2024-01-02T00:00:00Z']);
    expect(fires('0 10 * * *', 'UTC', '2024-01-01T10:00:00.500')).toEqual(['2024-01-02T10:00:00Z']);
    expect(fires('0 10 * * *', 'UTC', '2024-01-01T09:59:59.999')).toEqual(['2024-01-01T10:00:00Z']);
    expect(fires('* * * * *', 'UTC', '2024-01-01T10:00:59.999')).toEqual(['2024-01-01T10:01:00Z']);
  });

  it('expands steps, ranges and lists', () => {
    expect(fires('5/15 * * * *', 'UTC', '2024-01-01T00:00', 5)).toEqual([
      '2024-01-01T00:05:00Z',
      '2024-01-01T00:20:00Z',
      '2024-01-01T00:35:00Z',
      '2024-01-01T00:50:00Z',
      '2024-01-01T01:05:00Z',
    ]);
    expect(fires('1-10/3 0 * * *', 'UTC', '2024-01-01T00:00', 5)).toEqual([
      '2024-01-01T00:01:00Z',
      '2024-01-01T00:04:00Z',
      '2024-01-01T00:07:00Z',
      '2024-01-01T00:10:00Z',
      '2024-01-02T00:01:00Z',
    ]);
    expect(fires('0 0 1 jan-mar/2,dec *', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-03-01T00:00:00Z',
      '2024-12-01T00:00:00Z',
      '2025-01-01T00:00:00Z',
    ]);
  });

  it('treats 0 and 7 as Sunday and accepts names in any case', () => {
    // 2024-01-07 is a Sunday.
    expect(fires('0 0 * * 0', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-07T00:00:00Z']);
    expect(fires('0 0 * * 7', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-07T00:00:00Z']);
    expect(fires('0 0 * * sun', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-07T00:00:00Z']);
    expect(fires('0 0 * * Fri-Sat', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-05T00:00:00Z']);
    expect(fires('0 0 * * 6-7', 'UTC', '2024-01-01T00:00', 2)).toEqual([
      '2024-01-06T00:00:00Z',
      '2024-01-07T00:00:00Z',
    ]);
  });

  it('steps from a name through the end of the field (MON/2 is Mon, Wed, Fri, Sun)', () => {
    expect(fires('0 0 * * MON/2', 'UTC', '2024-01-01T00:00', 4)).toEqual([
      '2024-01-03T00:00:00Z',
      '2024-01-05T00:00:00Z',
      '2024-01-07T00:00:00Z',
      '2024-01-08T00:00:00Z',
    ]);
  });

  it('L is the last day of the month', () => {
    expect(fires('0 0 L * *', 'UTC', '2024-01-31T00:00', 3)).toEqual([
      '2024-02-29T00:00:00Z',
      '2024-03-31T00:00:00Z',
      '2024-04-30T00:00:00Z',
    ]);
    expect(fires('0 0 L 2 *', 'UTC', '2023-01-01T00:00')).toEqual(['2023-02-28T00:00:00Z']);
  });

  it('LW is the last weekday (Mon–Fri) of the month', () => {
    // Mar 2024 ends on a Sunday, Aug 2024 on a Saturday, Jan 2024 on a Wednesday.
    expect(fires('0 0 LW 3 *', 'UTC', '2024-01-01T00:00')).toEqual(['2024-03-29T00:00:00Z']);
    expect(fires('0 0 LW 8 *', 'UTC', '2024-01-01T00:00')).toEqual(['2024-08-30T00:00:00Z']);
    expect(fires('0 0 LW 1 *', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-31T00:00:00Z']);
  });

  it('<d>L is the last such weekday, <d>#<k> the k-th', () => {
    expect(fires('0 0 * * 5L', 'UTC', '2024-01-01T00:00', 2)).toEqual([
      '2024-01-26T00:00:00Z',
      '2024-02-23T00:00:00Z',
    ]);
    expect(fires('0 0 * * 7L', 'UTC', '2024-01-01T00:00')).toEqual(['2024-01-28T00:00:00Z']);
    expect(fires('0 0 * * MON#1', 'UTC', '2024-01-02T00:00', 2)).toEqual([
      '2024-02-05T00:00:00Z',
      '2024-03-04T00:00:00Z',
    ]);
    // Fifth Fridays of 2024: Mar 29, May 31, Aug 30, Nov 29.
    expect(fires('0 0 * * 5#5', 'UTC', '2024-01-01T00:00', 4)).toEqual([
      '2024-03-29T00:00:00Z',
      '2024-05-31T00:00:00Z',
      '2024-08-30T00:00:00Z',
      '2024-11-29T00:00:00Z',
    ]);
  });

  it('combines day fields with OR unless one starts with *', () => {
    // Neither starts with *: the 13th or any Friday.
    expect(fires('0 0 13 * 5', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-01-05T00:00:00Z',
      '2024-01-12T00:00:00Z',
      '2024-01-13T00:00:00Z',
    ]);
    // */2 starts with *: an odd day that is also a Friday.
    expect(fires('0 0 */2 * 5', 'UTC', '2024-01-01T00:00', 3)).toEqual([
      '2024-01-05T00:00:00Z',
      '2024-01-19T00:00:00Z',
      '2024-02-09T00:00:00Z',
    ]);
    // The day-of-week side may start with * too: a 13th on Sun, Tue, Thu or Sat.
    expect(fires('0 0 13 * */2', 'UTC', '2024-01-01T00:00', 2)).toEqual([
      '2024-01-13T00:00:00Z',
      '2024-02-13T00:00:00Z',
    ]);
    expect(fires('0 9 1 * MON', 'UTC', '2024-01-02T00:00', 4)).toEqual([
      '2024-01-08T09:00:00Z',
      '2024-01-15T09:00:00Z',
      '2024-01-22T09:00:00Z',
      '2024-01-29T09:00:00Z',
    ]);
    expect(fires('0 0 L * 1#1', 'UTC', '2024-01-02T00:00', 3)).toEqual([
      '2024-01-31T00:00:00Z',
      '2024-02-05T00:00:00Z',
      '2024-02-29T00:00:00Z',
    ]);
  });

  it('finds leap days years ahead', () => {
    expect(fires('0 0 29 2 *', 'UTC', '2024-03-01T00:00', 2)).toEqual([
      '2028-02-29T00:00:00Z',
      '2032-02-29T00:00:00Z',
    ]);
    // 2100 is not a leap year.
    expect(fires('0 0 29 2 *', 'UTC', '2096-03-01T00:00')).toEqual(['2104-02-29T00:00:00Z']);
  });

  it('gives up after 50 years without a match', () => {
    expect(fires('0 0 */3 2 5#5', 'UTC', '2024-01-01T00:00')).toEqual([null]);
  });
});

describe('cron across DST (§5.4 rules 2 and 3)', () => {
  it('fixed-time jobs fire at the first existing minute after a spring gap', () => {
    expect(fires('30 3 * * *', 'Europe/Riga', '2024-03-30T12:00', 2)).toEqual([
      '2024-03-31T01:00:00Z',
      '2024-04-01T00:30:00Z',
    ]);
    expect(fires('0 2 * * *', 'America/New_York', '2024-03-09T12:00', 2)).toEqual([
      '2024-03-10T07:00:00Z',
      '2024-03-11T06:00:00Z',
    ]);
    // A last ping in the second before the jump still has the gap's run ahead of it
    // (§5.4 step 1 adds the second on the wall clock: 01:59:59 → 02:00:00, in the gap).
    expect(fires('30 2 * * *', 'America/New_York', '2024-03-10T06:59:59', 2)).toEqual([
      '2024-03-10T07:00:00Z',
      '2024-03-11T06:30:00Z',
    ]);
    expect(fires('30 3 * * *', 'Europe/Riga', '2024-03-31T00:59:59.400')).toEqual(['2024-03-31T01:00:00Z']);
    expect(fires('0 0,3 * * *', 'Europe/Riga', '2024-03-31T00:59:59')).toEqual(['2024-03-31T01:00:00Z']);
    // Once past the jump, that run is history.
    expect(fires('30 3 * * *', 'Europe/Riga', '2024-03-31T01:00:00')).toEqual(['2024-04-01T00:30:00Z']);
    // Every minute of the gap catches up to the same 04:00, which fires once.
    expect(fires('15,45 3 * * *', 'Europe/Riga', '2024-03-30T12:00', 2)).toEqual([
      '2024-03-31T01:00:00Z',
      '2024-04-01T00:15:00Z',
    ]);
  });

  it('fixed-time jobs fire once, at the first occurrence, in an autumn overlap', () => {
    expect(fires('30 3 * * *', 'Europe/Riga', '2024-10-26T12:00', 2)).toEqual([
      '2024-10-27T00:30:00Z',
      '2024-10-28T01:30:00Z',
    ]);
    expect(fires('30 1 * * *', 'America/New_York', '2024-11-02T12:00', 2)).toEqual([
      '2024-11-03T05:30:00Z',
      '2024-11-04T06:30:00Z',
    ]);
    // Starting inside the second pass: the first 03:30 is already history.
    expect(fires('30 3 * * *', 'Europe/Riga', '2024-10-27T01:10')).toEqual(['2024-10-28T01:30:00Z']);
    // Starting inside the first pass: the first 03:30 is still ahead.
    expect(fires('30 3 * * *', 'Europe/Riga', '2024-10-27T00:10')).toEqual(['2024-10-27T00:30:00Z']);
  });

  it('jobs with a * minute or hour walk real time: the repeated hour fires twice', () => {
    expect(fires('30 * * * *', 'Europe/Riga', '2024-10-27T00:00', 3)).toEqual([
      '2024-10-27T00:30:00Z',
      '2024-10-27T01:30:00Z',
      '2024-10-27T02:30:00Z',
    ]);
    expect(fires('15 * * * *', 'Europe/Riga', '2023-10-29T00:55')).toEqual(['2023-10-29T01:15:00Z']);
    expect(fires('*/30 * * * *', 'America/New_York', '2024-11-03T05:45', 2)).toEqual([
      '2024-11-03T06:00:00Z',
      '2024-11-03T06:30:00Z',
    ]);
    // A * hour with a fixed minute is rule 3 as well.
    expect(fires('30 */1 * * *', 'Europe/Riga', '2024-10-27T00:00', 2)).toEqual([
      '2024-10-27T00:30:00Z',
      '2024-10-27T01:30:00Z',
    ]);
  });

  it('jobs with a * minute or hour never match skipped wall times', () => {
    // 03:xx does not exist in Riga on 2024-03-31; 02:30 EET is 00:30Z, 04:30 EEST is 01:30Z.
    expect(fires('30 * * * *', 'Europe/Riga', '2024-03-31T00:00', 2)).toEqual([
      '2024-03-31T00:30:00Z',
      '2024-03-31T01:30:00Z',
    ]);
    expect(fires('* 3 * * *', 'Europe/Riga', '2024-03-30T12:00')).toEqual(['2024-04-01T00:00:00Z']);
  });

  it('handles half-hour shifts (Lord Howe) and midnight transitions (Santiago)', () => {
    // 2024-04-07 02:00 LHDT (+11) becomes 01:30 LHST (+10:30).
    expect(fires('45 1 * * *', 'Australia/Lord_Howe', '2024-04-06T12:00', 2)).toEqual([
      '2024-04-06T14:45:00Z',
      '2024-04-07T15:15:00Z',
    ]);
    expect(fires('45 * * * *', 'Australia/Lord_Howe', '2024-04-06T14:00', 3)).toEqual([
      '2024-04-06T14:45:00Z',
      '2024-04-06T15:15:00Z',
      '2024-04-06T16:15:00Z',
    ]);
    // 2024-09-08 00:00 -04 becomes 01:00 -03 in Santiago: midnight does not exist.
    expect(fires('0 0 * * *', 'America/Santiago', '2024-09-07T12:00', 2)).toEqual([
      '2024-09-08T04:00:00Z',
      '2024-09-09T03:00:00Z',
    ]);
  });

  it('evaluates in the check zone', () => {
    expect(fires('0 10 * * *', 'Australia/Brisbane', '2000-01-01T00:00')).toEqual(['2000-01-02T00:00:00Z']);
    expect(fires('0 2 * * *', 'Europe/Riga', '2024-01-15T00:30')).toEqual(['2024-01-16T00:00:00Z']);
    expect(fires('0 12 * * *', 'Etc/GMT+5', '2024-01-01T00:00')).toEqual(['2024-01-01T17:00:00Z']);
  });
});
