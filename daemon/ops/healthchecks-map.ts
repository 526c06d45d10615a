// What a project read through the Healthchecks v3 API (healthchecks-fetch.ts)
// becomes in checkd: each check with its UUID, its settings (validated by the
// API's own rules, check-input.ts), its status and last ping, its ping log and
// its flips; each channel by id, name and kind. Pure: no I/O and no clock;
// every problem is collected, and nothing is imported if there is one.
import { CHANNEL_KINDS } from '../domain/channel-kinds.js';
import { applyCheckInput, newCheck, validateCheckInput } from '../domain/check-input.js';
import { UUID_RE } from '../domain/ids.js';
import { goingDownAfter } from '../domain/status.js';
import type { CheckRecord, FlipRecord, PingKind, PingRecord, StoredStatus } from '../domain/types.js';
import type { SourceCheck, SourceProject } from './healthchecks-fetch.js';

export interface MappedCheck {
  /** Complete but for projectId (set by the writer); createdAt is the import time. */
  check: CheckRecord;
  /** The check's badge key in the source (from its badge_url), kept when free; null when not given. */
  sourceBadgeKey: string | null;
  /** Oldest first. */
  pings: PingRecord[];
  /** Oldest first; stored as processed, so that history notifies nobody. */
  flips: FlipRecord[];
}

export interface MappedChannel {
  id: string;
  name: string;
  kind: string;
  /** Whether checkd can deliver to this kind; others are not imported. */
  supported: boolean;
}

export interface MappedProject {
  checks: MappedCheck[];
  channels: MappedChannel[];
}

/** The source cannot be imported as it is; `problems` says why, one line each. */
export class MappingError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** Settings taken over as the API's create/update would take them, so the same rules apply. */
const SETTINGS = [
  'name',
  'slug',
  'tags',
  'desc',
  'grace',
  'manual_resume',
  'methods',
  'start_kw',
  'success_kw',
  'failure_kw',
  'filter_subject',
  'filter_body',
  'filter_http_body',
  'filter_default_fail',
] as const;

const STATUSES: Record<string, StoredStatus> = { new: 'new', up: 'up', grace: 'up', down: 'down', paused: 'paused' };
const PING_KINDS: readonly PingKind[] = ['success', 'start', 'fail', 'log', 'ign'];
const ISO_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const BADGE_URL_RE = /\/b\/[23]\/([0-9a-f-]{36})\.svg$/;
/** The longest channel name checkd keeps (as `channel create`). */
const CHANNEL_NAME_MAX = 100;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Epoch ms of an ISO 8601 time with an offset, or undefined. */
function parseTime(v: unknown): number | undefined {
  if (typeof v !== 'string' || !ISO_RE.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Collects problems under a prefix (one check, the channel list ...). */
class Problems {
  constructor(private readonly list: string[], private readonly where: string) {}
  add(message: string): void {
    this.list.push(`${this.where}: ${message}`);
  }
}

export function mapChannels(raw: unknown, problems: string[]): MappedChannel[] {
  const list = isObject(raw) ? raw.channels : undefined;
  if (!Array.isArray(list)) {
    problems.push('channels: expected {"channels": [...]}');
    return [];
  }
  const out: MappedChannel[] = [];
  list.forEach((c, i) => {
    const p = new Problems(problems, `channels[${i}]`);
    if (!isObject(c) || typeof c.id !== 'string' || !UUID_RE.test(c.id) || typeof c.kind !== 'string') {
      p.add('expected {"id": UUID, "name", "kind"}');
      return;
    }
    // A comma would split the name where checks name their channels; the name is only a label.
    const name = typeof c.name === 'string' ? [...c.name.replaceAll(',', ' ').trim()].slice(0, CHANNEL_NAME_MAX).join('').trim() : '';
    out.push({ id: c.id, name, kind: c.kind, supported: (CHANNEL_KINDS as readonly string[]).includes(c.kind) });
  });
  return out;
}

function mapPings(raw: unknown, bodies: Map<number, Uint8Array>, p: Problems): PingRecord[] {
  const list = isObject(raw) ? raw.pings : undefined;
  if (!Array.isArray(list)) {
    p.add('pings: expected {"pings": [...]}');
    return [];
  }
  const pings: PingRecord[] = [];
  const seen = new Set<number>();
  list.forEach((r, i) => {
    const date = isObject(r) ? parseTime(r.date) : undefined;
    const ok =
      isObject(r) &&
      (PING_KINDS as readonly unknown[]).includes(r.type) &&
      date !== undefined &&
      Number.isSafeInteger(r.n) &&
      (r.n as number) > 0 &&
      typeof r.scheme === 'string' &&
      (r.remote_addr === null || typeof r.remote_addr === 'string') &&
      typeof r.method === 'string' &&
      typeof r.ua === 'string' &&
      (r.rid === undefined || r.rid === null || typeof r.rid === 'string') &&
      (r.duration === undefined || r.duration === null || (typeof r.duration === 'number' && r.duration >= 0));
    if (!ok) {
      p.add(`pings[${i}]: expected a ping record (type, date, n, scheme, remote_addr, method, ua, rid)`);
      return;
    }
    const n = r.n as number;
    if (seen.has(n)) return p.add(`pings[${i}]: ping number ${n} is given twice`);
    seen.add(n);
    pings.push({
      n,
      date: date,
      kind: r.type as PingKind,
      scheme: r.scheme as string,
      remoteAddr: r.remote_addr as string | null,
      method: r.method as string,
      ua: r.ua as string,
      rid: (r.rid as string | null | undefined) ?? null,
      exitStatus: null, // the API does not give it
      duration: (r.duration as number | null | undefined) ?? null,
      body: bodies.get(n) ?? null,
    });
  });
  return pings.sort((a, b) => a.n - b.n);
}

function mapFlips(raw: unknown, p: Problems): FlipRecord[] {
  // checkd answers a bare array (the API document), Healthchecks {"flips": [...]}.
  const list = Array.isArray(raw) ? raw : isObject(raw) ? raw.flips : undefined;
  if (!Array.isArray(list)) {
    p.add('flips: expected a list of flips');
    return [];
  }
  const times: Array<{ at: number; up: boolean }> = [];
  list.forEach((f, i) => {
    const at = isObject(f) ? parseTime(f.timestamp) : undefined;
    if (at === undefined || !isObject(f) || (f.up !== 0 && f.up !== 1 && f.up !== true && f.up !== false)) {
      p.add(`flips[${i}]: expected {"timestamp", "up": 0 or 1}`);
      return;
    }
    times.push({ at, up: f.up === 1 || f.up === true });
  });
  // Newest first in the answer; equal times keep their recorded order.
  times.reverse().sort((a, b) => a.at - b.at);
  let before: StoredStatus = 'new';
  return times.map(({ at, up }) => {
    const newStatus: StoredStatus = up ? 'up' : 'down';
    const flip: FlipRecord = { created: at, oldStatus: before, newStatus, reason: '', processed: true };
    before = newStatus;
    return flip;
  });
}

/** The check's settings as the API's create would store them, or an error. */
function mapSettings(doc: Record<string, unknown>, base: CheckRecord): CheckRecord | string {
  const input: Record<string, unknown> = {};
  for (const field of SETTINGS) if (doc[field] !== undefined) input[field] = doc[field];
  // Older Healthchecks versions give only the deprecated subject filters.
  if (doc.success_kw === undefined && typeof doc.subject === 'string') input.subject = doc.subject;
  if (doc.failure_kw === undefined && typeof doc.subject_fail === 'string') input.subject_fail = doc.subject_fail;
  if (doc.schedule !== undefined) {
    input.schedule = doc.schedule;
    input.tz = doc.tz ?? 'UTC';
  } else if (doc.timeout !== undefined) {
    input.timeout = doc.timeout;
  }
  const valid = validateCheckInput(input);
  if (!valid.ok) return valid.error.replace(/^json validation error: /, '');
  return applyCheckInput(base, valid.input, 3);
}

function mapCheck(src: SourceCheck, now: number, problems: string[]): MappedCheck | null {
  const { doc, uuid } = src;
  const p = new Problems(problems, `check ${uuid}${typeof doc.name === 'string' && doc.name ? ` ("${doc.name}")` : ''}`);
  const before = problems.length;
  const settings = mapSettings(doc, newCheck({ uuid, badgeKey: '', projectId: '', createdAt: now }));
  if (typeof settings === 'string') p.add(settings);
  const status = typeof doc.status === 'string' ? STATUSES[doc.status] : undefined;
  if (status === undefined) p.add(`unknown status ${JSON.stringify(doc.status)}`);
  if (!Number.isSafeInteger(doc.n_pings) || (doc.n_pings as number) < 0) p.add('n_pings: expected a whole number');
  const lastPing = doc.last_ping === null || doc.last_ping === undefined ? null : parseTime(doc.last_ping);
  if (lastPing === undefined) p.add('last_ping: expected null or a time');
  if (doc.started !== undefined && typeof doc.started !== 'boolean') p.add('started: expected true or false');
  if (doc.channels !== undefined && typeof doc.channels !== 'string') p.add('channels: expected a comma-separated list');
  const pings = mapPings(src.pings, src.bodies, p);
  const flips = mapFlips(src.flips, p);
  if (problems.length > before || typeof settings === 'string') return null;

  const check = settings;
  check.status = status!;
  check.nPings = Math.max(doc.n_pings as number, pings.at(-1)?.n ?? 0);
  check.channels = typeof doc.channels === 'string' ? doc.channels.split(',').filter((id) => id !== '') : [];
  // last_ping has whole seconds; the ping that set it has the exact time.
  const lastRun = pings.findLast((x) => x.kind === 'success' || x.kind === 'fail');
  const exact = lastRun !== undefined && lastPing !== null && lastPing !== undefined && Math.floor(lastRun.date / 1000) === Math.floor(lastPing / 1000);
  check.lastPing = exact ? lastRun.date : (lastPing ?? null);
  if (exact && lastRun.duration !== null) check.lastDuration = Math.round(lastRun.duration * 1000);
  else if (typeof doc.last_duration === 'number' && doc.last_duration > 0) check.lastDuration = doc.last_duration * 1000;
  if (doc.started === true) {
    const start = pings.findLast((x) => x.kind === 'start');
    // A run whose start ping is no longer logged is timed from the import.
    check.lastStart = start?.date ?? now;
    check.lastStartRid = start?.rid ?? null;
  }
  check.everStarted = check.lastStart !== null || pings.some((x) => x.kind === 'start');
  check.alertAfter = goingDownAfter(check);
  const badge = typeof doc.badge_url === 'string' ? BADGE_URL_RE.exec(doc.badge_url)?.[1] : undefined;
  return { check, sourceBadgeKey: badge !== undefined && UUID_RE.test(badge) ? badge : null, pings, flips };
}

/** Map everything read from the source; throws MappingError listing every problem. */
export function mapProject(src: SourceProject, now: number): MappedProject {
  const problems: string[] = [];
  const channels = mapChannels(src.channels, problems);
  const seen = new Set<string>();
  const checks: MappedCheck[] = [];
  for (const c of src.checks) {
    if (seen.has(c.uuid)) {
      problems.push(`check ${c.uuid}: listed twice`);
      continue;
    }
    seen.add(c.uuid);
    const mapped = mapCheck(c, now, problems);
    if (mapped) checks.push(mapped);
  }
  if (problems.length > 0) throw new MappingError(problems);
  return { checks, channels };
}
