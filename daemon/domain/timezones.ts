// IANA time zones: which names checkd accepts (api-details §6.4 and Appendix A), and
// conversions between UTC instants and the wall clock of a zone.
//
// The conversions run on hot paths (every ping of a cron or OnCalendar check), so
// they do not ask Intl on every call. Each zone gets a lazily built table of its
// UTC-offset changes, one UTC year at a time, discovered once through a cached
// Intl.DateTimeFormat. After that, converting is a table lookup plus arithmetic.

/**
 * A wall-clock time encoded as if it were a UTC instant: `Date.UTC(year, month - 1,
 * day, hour, minute, second)` of the local fields. Arithmetic on it is "naive local
 * time" arithmetic, which is what the schedule searches need.
 */
export type WallMs = number;

export interface WallTime {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface WallClock extends WallTime {
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

// ---------------------------------------------------------------------------
// Accepted names

// Appendix A.1, grouped by area as the spec lists them; '' holds the names without a
// prefix.
const ACCEPTED_BY_AREA: ReadonlyArray<readonly [string, string]> = [
  [
    'Africa',
    'Abidjan Accra Addis_Ababa Algiers Asmara Bamako Bangui Banjul Bissau Blantyre ' +
    'Brazzaville Bujumbura Cairo Casablanca Ceuta Conakry Dakar Dar_es_Salaam Djibouti Douala ' +
    'El_Aaiun Freetown Gaborone Harare Johannesburg Juba Kampala Khartoum Kigali Kinshasa ' +
    'Lagos Libreville Lome Luanda Lubumbashi Lusaka Malabo Maputo Maseru Mbabane Mogadishu ' +
    'Monrovia Nairobi Ndjamena Niamey Nouakchott Ouagadougou Porto-Novo Sao_Tome Timbuktu ' +
    'Tripoli Tunis Windhoek',
  ],
  [
    'America',
    'Adak Anchorage Anguilla Antigua Araguaina Argentina/Buenos_Aires Argentina/Catamarca ' +
    'Argentina/Cordoba Argentina/Jujuy Argentina/La_Rioja Argentina/Mendoza ' +
    'Argentina/Rio_Gallegos Argentina/Salta Argentina/San_Juan Argentina/San_Luis ' +
    'Argentina/Tucuman Argentina/Ushuaia Aruba Asuncion Atikokan Atka Bahia Bahia_Banderas ' +
    'Barbados Belem Belize Blanc-Sablon Boa_Vista Bogota Boise Cambridge_Bay Campo_Grande ' +
    'Cancun Caracas Cayenne Cayman Chicago Chihuahua Ciudad_Juarez Coral_Harbour Costa_Rica ' +
    'Creston Cuiaba Curacao Danmarkshavn Dawson Dawson_Creek Denver Detroit Dominica Edmonton ' +
    'Eirunepe El_Salvador Ensenada Fort_Nelson Fortaleza Glace_Bay Goose_Bay Grand_Turk ' +
    'Grenada Guadeloupe Guatemala Guayaquil Guyana Halifax Havana Hermosillo ' +
    'Indiana/Indianapolis Indiana/Knox Indiana/Marengo Indiana/Petersburg Indiana/Tell_City ' +
    'Indiana/Vevay Indiana/Vincennes Indiana/Winamac Inuvik Iqaluit Jamaica Juneau ' +
    'Kentucky/Louisville Kentucky/Monticello Kralendijk La_Paz Lima Los_Angeles Lower_Princes ' +
    'Maceio Managua Manaus Marigot Martinique Matamoros Mazatlan Menominee Merida Metlakatla ' +
    'Mexico_City Miquelon Moncton Monterrey Montevideo Montreal Montserrat Nassau New_York ' +
    'Nipigon Nome Noronha North_Dakota/Beulah North_Dakota/Center North_Dakota/New_Salem Nuuk ' +
    'Ojinaga Panama Pangnirtung Paramaribo Phoenix Port-au-Prince Port_of_Spain Porto_Acre ' +
    'Porto_Velho Puerto_Rico Punta_Arenas Rainy_River Rankin_Inlet Recife Regina Resolute ' +
    'Rio_Branco Santa_Isabel Santarem Santiago Santo_Domingo Sao_Paulo Scoresbysund Shiprock ' +
    'Sitka St_Barthelemy St_Johns St_Kitts St_Lucia St_Thomas St_Vincent Swift_Current ' +
    'Tegucigalpa Thule Thunder_Bay Tijuana Toronto Tortola Vancouver Virgin Whitehorse ' +
    'Winnipeg Yakutat Yellowknife',
  ],
  [
    'Antarctica',
    'Casey Davis DumontDUrville Macquarie Mawson McMurdo Palmer Rothera Syowa Troll Vostok',
  ],
  [
    'Arctic',
    'Longyearbyen',
  ],
  [
    'Asia',
    'Aden Almaty Amman Anadyr Aqtau Aqtobe Ashgabat Atyrau Baghdad Bahrain Baku Bangkok ' +
    'Barnaul Beirut Bishkek Brunei Chita Chongqing Colombo Damascus Dhaka Dili Dubai Dushanbe ' +
    'Famagusta Gaza Harbin Hebron Ho_Chi_Minh Hong_Kong Hovd Irkutsk Istanbul Jakarta ' +
    'Jayapura Jerusalem Kabul Kamchatka Karachi Kashgar Kathmandu Khandyga Kolkata ' +
    'Krasnoyarsk Kuala_Lumpur Kuching Kuwait Macau Magadan Makassar Manila Muscat Nicosia ' +
    'Novokuznetsk Novosibirsk Omsk Oral Phnom_Penh Pontianak Pyongyang Qatar Qostanay ' +
    'Qyzylorda Riyadh Sakhalin Samarkand Seoul Shanghai Singapore Srednekolymsk Taipei ' +
    'Tashkent Tbilisi Tehran Tel_Aviv Thimphu Tokyo Tomsk Ulaanbaatar Urumqi Ust-Nera ' +
    'Vientiane Vladivostok Yakutsk Yangon Yekaterinburg Yerevan',
  ],
  [
    'Atlantic',
    'Azores Bermuda Canary Cape_Verde Faroe Jan_Mayen Madeira Reykjavik South_Georgia ' +
    'St_Helena Stanley',
  ],
  [
    'Australia',
    'Adelaide Brisbane Broken_Hill Canberra Currie Darwin Eucla Hobart Lindeman Lord_Howe ' +
    'Melbourne Perth Sydney Yancowinna',
  ],
  [
    'Etc',
    'GMT GMT+0 GMT+1 GMT+10 GMT+11 GMT+12 GMT+2 GMT+3 GMT+4 GMT+5 GMT+6 GMT+7 GMT+8 GMT+9 ' +
    'GMT-0 GMT-1 GMT-10 GMT-11 GMT-12 GMT-13 GMT-14 GMT-2 GMT-3 GMT-4 GMT-5 GMT-6 GMT-7 GMT-8 ' +
    'GMT-9 GMT0 Greenwich UCT Universal UTC Zulu',
  ],
  [
    'Europe',
    'Amsterdam Andorra Astrakhan Athens Belfast Belgrade Berlin Bratislava Brussels Bucharest ' +
    'Budapest Busingen Chisinau Copenhagen Dublin Gibraltar Guernsey Helsinki Isle_of_Man ' +
    'Istanbul Jersey Kaliningrad Kirov Kyiv Lisbon Ljubljana London Luxembourg Madrid Malta ' +
    'Mariehamn Minsk Monaco Moscow Nicosia Oslo Paris Podgorica Prague Riga Rome Samara ' +
    'San_Marino Sarajevo Saratov Simferopol Skopje Sofia Stockholm Tallinn Tirane Tiraspol ' +
    'Ulyanovsk Vaduz Vatican Vienna Vilnius Volgograd Warsaw Zagreb Zurich',
  ],
  [
    '',
    'GMT UTC',
  ],
  [
    'Indian',
    'Antananarivo Chagos Christmas Cocos Comoro Kerguelen Mahe Maldives Mauritius Mayotte ' +
    'Reunion',
  ],
  [
    'Pacific',
    'Apia Auckland Bougainville Chatham Chuuk Easter Efate Fakaofo Fiji Funafuti Galapagos ' +
    'Gambier Guadalcanal Guam Honolulu Johnston Kanton Kiritimati Kosrae Kwajalein Majuro ' +
    'Marquesas Midway Nauru Niue Norfolk Noumea Pago_Pago Palau Pitcairn Pohnpei Port_Moresby ' +
    'Rarotonga Saipan Samoa Tahiti Tarawa Tongatapu Wake Wallis Yap',
  ],
];

/** Appendix A.1: the names accepted as they are (newer runtime zones aside). */
export const ACCEPTED_TIMEZONES: ReadonlySet<string> = new Set(
  ACCEPTED_BY_AREA.flatMap(([area, names]) =>
    names.split(' ').map((name) => (area === '' ? name : `${area}/${name}`)),
  ),
);

// Appendix A.2: legacy names are stored under their canonical name. A Map rather
// than an object literal, so that names such as "constructor" cannot hit a prototype.
const LEGACY_ALIASES: ReadonlyMap<string, string> = new Map([
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
]);

// Zones added to the tz database after the list above (America/Coyhaique, …) are
// accepted when the runtime knows them under exactly that name (product decision in
// Appendix A). Only area-prefixed names qualify, so `Factory`, `localtime` and
// case variants such as `utc` stay rejected.
const AREA_PREFIXED = /^(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)\//;
let runtimeZoneNames: ReadonlySet<string> | undefined;

function isNewerZoneName(name: string): boolean {
  if (!AREA_PREFIXED.test(name)) return false;
  runtimeZoneNames ??= new Set(Intl.supportedValuesOf('timeZone'));
  return runtimeZoneNames.has(name);
}

/**
 * The name to store for a user-supplied `tz`, or null when it is not accepted.
 * Case-sensitive: `utc` and `""` are rejected, legacy aliases are rewritten.
 */
export function normalizeTimezone(tz: string): string | null {
  const name = LEGACY_ALIASES.get(tz) ?? tz;
  if (ACCEPTED_TIMEZONES.has(name) || isNewerZoneName(name)) return name;
  return null;
}

// ---------------------------------------------------------------------------
// Offset tables

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;

interface OffsetChange {
  atMs: number;
  offsetMs: number;
}

/** The offsets of one zone during one UTC year. */
interface YearOffsets {
  /** Offset in effect at the first instant of the year. */
  initialOffsetMs: number;
  /** Changes strictly inside the year, in time order. */
  changes: OffsetChange[];
  /** First instant of the next UTC year. */
  endMs: number;
}

interface ZoneOffsets {
  formatter: Intl.DateTimeFormat;
  /** Set for zones that never change offset, which skip the tables entirely. */
  fixedOffsetMs: number | null;
  years: Map<number, YearOffsets>;
}

const zones = new Map<string, ZoneOffsets>();

/** Etc/* zones, UTC and GMT have one offset forever. */
function isFixedOffsetName(tz: string): boolean {
  return tz === 'UTC' || tz === 'GMT' || tz.startsWith('Etc/');
}

function zoneOffsets(tz: string): ZoneOffsets {
  let zone = zones.get(tz);
  if (zone === undefined) {
    // Throws RangeError for a name the runtime does not know; callers pass stored,
    // validated names.
    const formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    zone = { formatter, fixedOffsetMs: null, years: new Map() };
    if (isFixedOffsetName(tz)) zone.fixedOffsetMs = offsetFromIntl(zone, 0);
    zones.set(tz, zone);
  }
  return zone;
}

// format() is several times faster than formatToParts(); the en-US numeric output
// is "M/D/YYYY, HH:MM:SS", so the six numbers come out in a fixed order.
const FORMATTED_FIELDS = /(\d+)\D+(\d+)\D+(\d+)\D+(\d+)\D+(\d+)\D+(\d+)/;

/** The zone's offset at `ms` (whole seconds), asked of Intl: the slow path the tables avoid. */
function offsetFromIntl(zone: ZoneOffsets, ms: number): number {
  const match = FORMATTED_FIELDS.exec(zone.formatter.format(ms));
  if (match === null) throw new Error(`unexpected date format from Intl for ${ms}`);
  const [month = 0, day = 0, year = 0, hour = 0, minute = 0, second = 0] = match.slice(1).map(Number);
  // Some ICU versions print midnight as 24 even with h23.
  return wallMsOf(year, month, day, hour % 24, minute, second) - ms;
}

/**
 * Builds the offset table of one UTC year: probe once a day, and bisect to the second
 * wherever two probes disagree. Offsets that change and change back within one day
 * would be missed; the tz database has no such pair in the years that matter here.
 */
function buildYear(zone: ZoneOffsets, year: number): YearOffsets {
  const startMs = wallMsOf(year, 1, 1);
  const endMs = wallMsOf(year + 1, 1, 1);
  const initialOffsetMs = offsetFromIntl(zone, startMs);
  const changes: OffsetChange[] = [];

  let knownMs = startMs;
  let knownOffset = initialOffsetMs;
  while (knownMs < endMs) {
    const probeMs = Math.min(knownMs + DAY_MS, endMs);
    const probeOffset = offsetFromIntl(zone, probeMs);
    while (probeOffset !== knownOffset) {
      // Invariant: offset(low) === knownOffset, offset(high) !== knownOffset.
      let low = knownMs;
      let high = probeMs;
      while (high - low > SECOND_MS) {
        const mid = low + Math.floor((high - low) / 2 / SECOND_MS) * SECOND_MS;
        if (offsetFromIntl(zone, mid) === knownOffset) low = mid;
        else high = mid;
      }
      knownMs = high;
      knownOffset = offsetFromIntl(zone, high);
      // A change exactly at the year boundary belongs to the next year's initial offset.
      if (high < endMs) changes.push({ atMs: high, offsetMs: knownOffset });
    }
    knownMs = probeMs;
  }
  return { initialOffsetMs, changes, endMs };
}

function yearOffsets(zone: ZoneOffsets, ms: number): YearOffsets {
  const year = new Date(ms).getUTCFullYear();
  let table = zone.years.get(year);
  if (table === undefined) {
    table = buildYear(zone, year);
    zone.years.set(year, table);
  }
  return table;
}

/** A stretch of time during which a zone keeps one offset. */
export interface OffsetSpan {
  /** Wall clock minus UTC, in milliseconds. */
  offsetMs: number;
  /**
   * The offset holds until this instant (exclusive). It is the next change, or
   * the end of the table's year when there is none before it (the offset may well
   * stay the same after), or Infinity for fixed-offset zones.
   */
  untilMs: number;
}

/** The offset in effect at `ms` and how long it lasts. */
export function offsetSpanAt(ms: number, tz: string): OffsetSpan {
  const zone = zoneOffsets(tz);
  if (zone.fixedOffsetMs !== null) return { offsetMs: zone.fixedOffsetMs, untilMs: Infinity };
  const table = yearOffsets(zone, ms);
  let offsetMs = table.initialOffsetMs;
  for (const change of table.changes) {
    if (change.atMs > ms) return { offsetMs, untilMs: change.atMs };
    offsetMs = change.offsetMs;
  }
  return { offsetMs, untilMs: table.endMs };
}

/** Wall clock minus UTC at `ms`, in milliseconds. */
export function utcOffsetAt(ms: number, tz: string): number {
  return offsetSpanAt(ms, tz).offsetMs;
}

// ---------------------------------------------------------------------------
// Conversions

/** `Date.UTC` of wall-clock fields, without its mapping of years 0–99 to 1900–1999. */
export function wallMsOf(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): WallMs {
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  if (year >= 0 && year < 100) return new Date(ms).setUTCFullYear(year);
  return ms;
}

/** The wall clock at instant `ms` in `tz`, as a WallMs (sub-second part kept). */
export function toWallMs(ms: number, tz: string): WallMs {
  return ms + utcOffsetAt(ms, tz);
}

/** Wall-clock fields of the instant `ms` in `tz`, truncated to the second. */
export function wallClock(ms: number, tz: string): WallClock {
  const wall = new Date(Math.floor(toWallMs(ms, tz) / SECOND_MS) * SECOND_MS);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
    weekday: wall.getUTCDay(),
  };
}

export interface WallTimeResolution {
  /**
   * The instants that show this wall time, earliest first: one normally, two in an
   * overlap (clocks going back), none in a gap (clocks going forward).
   */
  instants: number[];
  /** For a wall time inside a gap: the first wall time after the gap. Else null. */
  gapEndWallMs: WallMs | null;
}

// An instant showing wall time W lies within W ± the largest offset (about 14 h);
// looking at every offset span in a wider window finds all of them.
const RESOLVE_WINDOW_MS = 26 * 3_600_000;

/** Which instants show wall time `wall` in `tz`. */
export function resolveWallMs(wall: WallMs, tz: string): WallTimeResolution {
  const zone = zoneOffsets(tz);
  if (zone.fixedOffsetMs !== null) return { instants: [wall - zone.fixedOffsetMs], gapEndWallMs: null };

  const instants: number[] = [];
  let gapEndWallMs: WallMs | null = null;
  let previous: OffsetSpan | null = null;
  for (let fromMs = wall - RESOLVE_WINDOW_MS; fromMs <= wall + RESOLVE_WINDOW_MS; ) {
    const span = offsetSpanAt(fromMs, tz);
    // Each span can hold at most one instant showing `wall`, and spans come in time
    // order, so `instants` ends up sorted.
    const candidate = wall - span.offsetMs;
    if (candidate >= fromMs && candidate < span.untilMs) instants.push(candidate);
    // A gap: the clock jumped from before `wall` to after it at the span boundary.
    if (previous !== null && fromMs + previous.offsetMs <= wall && wall < fromMs + span.offsetMs) {
      gapEndWallMs = fromMs + span.offsetMs;
    }
    previous = span;
    fromMs = span.untilMs;
  }
  return { instants, gapEndWallMs: instants.length === 0 ? gapEndWallMs : null };
}

/** The UTC instants (0, 1 or 2, earliest first) at which the clock in `tz` shows `fields`. */
export function instantsForWallTime(fields: WallTime, tz: string): number[] {
  const wall = wallMsOf(fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second);
  return resolveWallMs(wall, tz).instants;
}
