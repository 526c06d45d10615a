import { describe, expect, it } from 'vitest';
import {
  ACCEPTED_TIMEZONES,
  instantsForWallTime,
  normalizeTimezone,
  offsetSpanAt,
  resolveWallMs,
  utcOffsetAt,
  wallClock,
  wallMsOf,
} from '../../daemon/domain/timezones.js';

const HOUR_MS = 3_600_000;

/** Appendix A.2 of api-details.md, in full. */
const LEGACY_ALIASES: ReadonlyArray<readonly [string, string]> = [
  ['Africa/Asmera', 'Africa/Nairobi'],
  ['America/Argentina/ComodRivadavia', 'America/Argentina/Catamarca'],
  ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
  ['America/Catamarca', 'America/Argentina/Catamarca'],
  ['America/Cordoba', 'America/Argentina/Cordoba'],
  ['America/Fort_Wayne', 'America/Indiana/Indianapolis'],
  ['America/Godthab', 'America/Nuuk'],
  ['America/Indianapolis', 'America/Indiana/Indianapolis'],
  ['America/Jujuy', 'America/Argentina/Jujuy'],
  ['America/Knox_IN', 'America/Indiana/Knox'],
  ['America/Louisville', 'America/Kentucky/Louisville'],
  ['America/Mendoza', 'America/Argentina/Mendoza'],
  ['America/Rosario', 'America/Argentina/Cordoba'],
  ['Antarctica/South_Pole', 'Pacific/Auckland'],
  ['Asia/Ashkhabad', 'Asia/Ashgabat'],
  ['Asia/Calcutta', 'Asia/Kolkata'],
  ['Asia/Choibalsan', 'Asia/Ulaanbaatar'],
  ['Asia/Chungking', 'Asia/Shanghai'],
  ['Asia/Dacca', 'Asia/Dhaka'],
  ['Asia/Katmandu', 'Asia/Kathmandu'],
  ['Asia/Macao', 'Asia/Macau'],
  ['Asia/Rangoon', 'Asia/Yangon'],
  ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
  ['Asia/Thimbu', 'Asia/Thimphu'],
  ['Asia/Ujung_Pandang', 'Asia/Makassar'],
  ['Asia/Ulan_Bator', 'Asia/Ulaanbaatar'],
  ['Atlantic/Faeroe', 'Atlantic/Faroe'],
  ['Australia/ACT', 'Australia/Sydney'],
  ['Australia/LHI', 'Australia/Lord_Howe'],
  ['Australia/NSW', 'Australia/Sydney'],
  ['Australia/North', 'Australia/Darwin'],
  ['Australia/Queensland', 'Australia/Brisbane'],
  ['Australia/South', 'Australia/Adelaide'],
  ['Australia/Tasmania', 'Australia/Hobart'],
  ['Australia/Victoria', 'Australia/Melbourne'],
  ['Australia/West', 'Australia/Perth'],
  ['Brazil/Acre', 'America/Rio_Branco'],
  ['Brazil/DeNoronha', 'America/Noronha'],
  ['Brazil/East', 'America/Sao_Paulo'],
  ['Brazil/West', 'America/Manaus'],
  ['CET', 'Europe/Brussels'],
  ['CST6CDT', 'America/Chicago'],
  ['Canada/Atlantic', 'America/Halifax'],
  ['Canada/Central', 'America/Winnipeg'],
  ['Canada/Eastern', 'America/Toronto'],
  ['Canada/Mountain', 'America/Edmonton'],
  ['Canada/Newfoundland', 'America/St_Johns'],
  ['Canada/Pacific', 'America/Vancouver'],
  ['Canada/Saskatchewan', 'America/Regina'],
  ['Canada/Yukon', 'America/Whitehorse'],
  ['Chile/Continental', 'America/Santiago'],
  ['Chile/EasterIsland', 'Pacific/Easter'],
  ['Cuba', 'America/Havana'],
  ['EET', 'Europe/Athens'],
  ['EST', 'America/Panama'],
  ['EST5EDT', 'America/New_York'],
  ['Egypt', 'Africa/Cairo'],
  ['Eire', 'Europe/Dublin'],
  ['Europe/Kiev', 'Europe/Kyiv'],
  ['Europe/Uzhgorod', 'Europe/Kyiv'],
  ['Europe/Zaporozhye', 'Europe/Kyiv'],
  ['GB', 'Europe/London'],
  ['GB-Eire', 'Europe/London'],
  ['GMT+0', 'Etc/GMT'],
  ['GMT-0', 'Etc/GMT'],
  ['GMT0', 'Etc/GMT'],
  ['Greenwich', 'Etc/GMT'],
  ['HST', 'Pacific/Honolulu'],
  ['Hongkong', 'Asia/Hong_Kong'],
  ['Iceland', 'Africa/Abidjan'],
  ['Iran', 'Asia/Tehran'],
  ['Israel', 'Asia/Jerusalem'],
  ['Jamaica', 'America/Jamaica'],
  ['Japan', 'Asia/Tokyo'],
  ['Kwajalein', 'Pacific/Kwajalein'],
  ['Libya', 'Africa/Tripoli'],
  ['MET', 'Europe/Brussels'],
  ['MST', 'America/Phoenix'],
  ['MST7MDT', 'America/Denver'],
  ['Mexico/BajaNorte', 'America/Tijuana'],
  ['Mexico/BajaSur', 'America/Mazatlan'],
  ['Mexico/General', 'America/Mexico_City'],
  ['NZ', 'Pacific/Auckland'],
  ['NZ-CHAT', 'Pacific/Chatham'],
  ['Navajo', 'America/Denver'],
  ['PRC', 'Asia/Shanghai'],
  ['PST8PDT', 'America/Los_Angeles'],
  ['Pacific/Enderbury', 'Pacific/Kanton'],
  ['Pacific/Ponape', 'Pacific/Guadalcanal'],
  ['Pacific/Truk', 'Pacific/Port_Moresby'],
  ['Poland', 'Europe/Warsaw'],
  ['Portugal', 'Europe/Lisbon'],
  ['ROC', 'Asia/Taipei'],
  ['ROK', 'Asia/Seoul'],
  ['Singapore', 'Asia/Singapore'],
  ['Turkey', 'Europe/Istanbul'],
  ['UCT', 'Etc/UTC'],
  ['US/Alaska', 'America/Anchorage'],
  ['US/Aleutian', 'America/Adak'],
  ['US/Arizona', 'America/Phoenix'],
  ['US/Central', 'America/Chicago'],
  ['US/East-Indiana', 'America/Indiana/Indianapolis'],
  ['US/Eastern', 'America/New_York'],
  ['US/Hawaii', 'Pacific/Honolulu'],
  ['US/Indiana-Starke', 'America/Indiana/Knox'],
  ['US/Michigan', 'America/Detroit'],
  ['US/Mountain', 'America/Denver'],
  ['US/Pacific', 'America/Los_Angeles'],
  ['US/Samoa', 'Pacific/Pago_Pago'],
  ['Universal', 'Etc/UTC'],
  ['W-SU', 'Europe/Moscow'],
  ['WET', 'Europe/Lisbon'],
  ['Zulu', 'Etc/UTC'],
];

/** Wall-clock fields straight from Intl, independent of the offset tables. */
const intlFormatters = new Map<string, Intl.DateTimeFormat>();

function intlWallClock(ms: number, tz: string) {
  let formatter = intlFormatters.get(tz);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    intlFormatters.set(tz, formatter);
  }
  const parts = formatter.formatToParts(ms);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    year: Number(part('year')),
    month: Number(part('month')),
    day: Number(part('day')),
    hour: Number(part('hour')) % 24,
    minute: Number(part('minute')),
    second: Number(part('second')),
    weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(part('weekday')),
  };
}

describe('normalizeTimezone', () => {
  it('rewrites the api-details §6.4 examples', () => {
    expect(normalizeTimezone('Europe/Kiev')).toBe('Europe/Kyiv');
    expect(normalizeTimezone('UCT')).toBe('Etc/UTC');
    expect(normalizeTimezone('CET')).toBe('Europe/Brussels');
  });

  it.each(LEGACY_ALIASES)('rewrites legacy %s to %s', (legacy, canonical) => {
    expect(normalizeTimezone(legacy)).toBe(canonical);
  });

  it('rewrites every alias to a name that is itself accepted unchanged', () => {
    for (const [, canonical] of LEGACY_ALIASES) {
      expect(ACCEPTED_TIMEZONES.has(canonical)).toBe(true);
      expect(normalizeTimezone(canonical)).toBe(canonical);
    }
  });

  it('holds the 483 names of Appendix A.1 and none of the A.2 aliases', () => {
    expect(ACCEPTED_TIMEZONES.size).toBe(483);
    for (const [legacy] of LEGACY_ALIASES) {
      // A few names are both an alias at the top level and accepted under Etc/.
      expect(ACCEPTED_TIMEZONES.has(legacy)).toBe(false);
    }
  });

  it('accepts every A.1 name unchanged, and the runtime can convert in each', () => {
    for (const name of ACCEPTED_TIMEZONES) {
      expect(normalizeTimezone(name)).toBe(name);
      expect(() => wallClock(Date.UTC(2024, 0, 1), name)).not.toThrow();
    }
  });

  it.each([
    'UTC',
    'GMT',
    'Etc/UTC',
    'Etc/GMT',
    'Etc/GMT+5',
    'Etc/GMT-14',
    'Etc/UCT',
    'Etc/Zulu',
    'Etc/Greenwich',
    'Australia/Canberra',
    'America/Argentina/Buenos_Aires',
    'America/Indiana/Knox',
    'America/Ciudad_Juarez',
    'Asia/Tel_Aviv',
    'Europe/Kyiv',
    'Pacific/Kanton',
    'Europe/Riga',
  ])('accepts %s as it is', (name) => {
    expect(normalizeTimezone(name)).toBe(name);
  });

  it.each([
    'utc',
    '',
    'not-a-timezone',
    'Factory',
    'localtime',
    'europe/riga',
    'EUROPE/RIGA',
    'Europe/Riga ',
    ' UTC',
    'Europe/surprise',
    'GMT+5',
    'posixrules',
    'SystemV/AST4',
    'constructor',
    '__proto__',
    'toString',
  ])('rejects %j', (name) => {
    expect(normalizeTimezone(name)).toBeNull();
  });

  it('accepts zones newer than the list exactly when the runtime knows them', () => {
    const known = Intl.supportedValuesOf('timeZone').includes('America/Coyhaique');
    expect(normalizeTimezone('America/Coyhaique')).toBe(known ? 'America/Coyhaique' : null);
  });
});

describe('wallClock', () => {
  it('shows local fields and the weekday', () => {
    expect(wallClock(Date.UTC(2024, 0, 15, 0, 30), 'Europe/Riga')).toEqual({
      year: 2024,
      month: 1,
      day: 15,
      hour: 2,
      minute: 30,
      second: 0,
      weekday: 1,
    });
    expect(wallClock(Date.UTC(2024, 0, 1, 3, 4, 5, 999), 'UTC')).toEqual({
      year: 2024,
      month: 1,
      day: 1,
      hour: 3,
      minute: 4,
      second: 5,
      weekday: 1,
    });
  });

  it('jumps at the spring transition and repeats the hour in autumn', () => {
    expect(wallClock(Date.UTC(2024, 2, 31, 0, 59, 59), 'Europe/Riga')).toMatchObject({ hour: 2, minute: 59, second: 59 });
    expect(wallClock(Date.UTC(2024, 2, 31, 1), 'Europe/Riga')).toMatchObject({ hour: 4, minute: 0 });
    expect(wallClock(Date.UTC(2024, 9, 27, 0, 30), 'Europe/Riga')).toMatchObject({ hour: 3, minute: 30 });
    expect(wallClock(Date.UTC(2024, 9, 27, 1, 30), 'Europe/Riga')).toMatchObject({ hour: 3, minute: 30 });
  });

  it('handles fractional offsets and the day Samoa skipped', () => {
    expect(wallClock(Date.UTC(2024, 0, 1), 'Asia/Kathmandu')).toMatchObject({ hour: 5, minute: 45 });
    expect(wallClock(Date.UTC(2024, 0, 1), 'Pacific/Chatham')).toMatchObject({ hour: 13, minute: 45 });
    expect(wallClock(Date.UTC(2011, 11, 30, 9, 59, 59), 'Pacific/Apia')).toMatchObject({
      day: 29,
      hour: 23,
      minute: 59,
      weekday: 4,
    });
    expect(wallClock(Date.UTC(2011, 11, 30, 10), 'Pacific/Apia')).toMatchObject({ day: 31, hour: 0, weekday: 6 });
  });

  it('counts Etc/GMT+N west of Greenwich, as the tz database does', () => {
    expect(wallClock(Date.UTC(2024, 0, 1, 12), 'Etc/GMT+5')).toMatchObject({ hour: 7 });
    expect(utcOffsetAt(0, 'Etc/GMT-14')).toBe(14 * HOUR_MS);
  });

  it('agrees with Intl at every hour of a year in zones with awkward rules', () => {
    const zones = [
      'Europe/Riga',
      'America/New_York',
      'Australia/Lord_Howe',
      'America/Santiago',
      'Africa/Casablanca',
      'Pacific/Chatham',
      'Antarctica/Troll',
      'Asia/Tehran',
    ];
    const disagreements: string[] = [];
    for (const tz of zones) {
      for (let ms = Date.UTC(2021, 0, 1); ms < Date.UTC(2022, 0, 1); ms += HOUR_MS + 7_000) {
        const ours = JSON.stringify(wallClock(ms, tz));
        const intl = JSON.stringify(intlWallClock(ms, tz));
        if (ours !== intl) disagreements.push(`${tz} ${new Date(ms).toISOString()}: ${ours} vs ${intl}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('agrees with Intl one second either side of each offset change', () => {
    for (const tz of ['Europe/Riga', 'America/Havana', 'Australia/Lord_Howe', 'Pacific/Apia']) {
      for (const year of [2011, 2024]) {
        for (let ms = Date.UTC(year, 0, 1); ms < Date.UTC(year + 1, 0, 1); ) {
          const { untilMs } = offsetSpanAt(ms, tz);
          if (untilMs >= Date.UTC(year + 1, 0, 1)) break;
          expect(wallClock(untilMs - 1000, tz)).toEqual(intlWallClock(untilMs - 1000, tz));
          expect(wallClock(untilMs, tz)).toEqual(intlWallClock(untilMs, tz));
          ms = untilMs;
        }
      }
    }
  });
});

describe('offsetSpanAt', () => {
  it('ends a span at the next change', () => {
    expect(offsetSpanAt(Date.UTC(2024, 2, 30), 'Europe/Riga')).toEqual({
      offsetMs: 2 * HOUR_MS,
      untilMs: Date.UTC(2024, 2, 31, 1),
    });
    expect(offsetSpanAt(Date.UTC(2024, 2, 31, 1), 'Europe/Riga')).toEqual({
      offsetMs: 3 * HOUR_MS,
      untilMs: Date.UTC(2024, 9, 27, 1),
    });
  });

  it('never ends for a fixed-offset zone', () => {
    expect(offsetSpanAt(Date.UTC(2024, 0, 1), 'UTC')).toEqual({ offsetMs: 0, untilMs: Infinity });
  });
});

describe('instantsForWallTime', () => {
  const riga = (month: number, day: number, hour: number, minute: number) =>
    instantsForWallTime({ year: 2024, month, day, hour, minute, second: 0 }, 'Europe/Riga');

  it('finds the one instant of an ordinary wall time', () => {
    expect(riga(1, 15, 2, 0)).toEqual([Date.UTC(2024, 0, 15, 0)]);
  });

  it('finds no instant in the spring gap', () => {
    expect(riga(3, 31, 3, 30)).toEqual([]);
    expect(riga(3, 31, 3, 0)).toEqual([]);
    expect(riga(3, 31, 4, 0)).toEqual([Date.UTC(2024, 2, 31, 1)]);
  });

  it('finds both instants of a repeated wall time, earliest first', () => {
    expect(riga(10, 27, 3, 30)).toEqual([Date.UTC(2024, 9, 27, 0, 30), Date.UTC(2024, 9, 27, 1, 30)]);
    expect(riga(10, 27, 4, 0)).toEqual([Date.UTC(2024, 9, 27, 2)]);
  });

  it('handles half-hour shifts and a skipped day', () => {
    expect(
      instantsForWallTime({ year: 2024, month: 4, day: 7, hour: 1, minute: 45, second: 0 }, 'Australia/Lord_Howe'),
    ).toEqual([Date.UTC(2024, 3, 6, 14, 45), Date.UTC(2024, 3, 6, 15, 15)]);
    expect(
      instantsForWallTime({ year: 2011, month: 12, day: 30, hour: 12, minute: 0, second: 0 }, 'Pacific/Apia'),
    ).toEqual([]);
  });

  it('round-trips instants all through a year via their wall time', () => {
    const lost: string[] = [];
    for (const tz of ['America/New_York', 'Australia/Lord_Howe', 'America/Santiago']) {
      for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2025, 0, 1); ms += HOUR_MS / 4 + 1_000) {
        if (!instantsForWallTime(wallClock(ms, tz), tz).includes(ms)) lost.push(`${tz} ${new Date(ms).toISOString()}`);
      }
    }
    expect(lost).toEqual([]);
  });
});

describe('resolveWallMs', () => {
  it('tells where the clock resumes after a gap', () => {
    expect(resolveWallMs(wallMsOf(2024, 3, 31, 3, 30), 'Europe/Riga')).toEqual({
      instants: [],
      gapEndWallMs: wallMsOf(2024, 3, 31, 4, 0),
    });
    expect(resolveWallMs(wallMsOf(2011, 12, 30, 12), 'Pacific/Apia').gapEndWallMs).toBe(wallMsOf(2011, 12, 31));
    expect(resolveWallMs(wallMsOf(2024, 3, 31, 4, 0), 'Europe/Riga').gapEndWallMs).toBeNull();
  });
});
