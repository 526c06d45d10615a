// checktop's state and everything that can be decided without a terminal or a
// network: applying the Watch snapshot and events, recomputing display status
// on the clock, flip highlights, sorting, filtering, selection and scrolling.
// The reducer is pure: `now` always arrives in the action.
import { checkIdOf, type CheckMsg, type FlipMsg, type ProjectMsg, type WatchEventMsg } from './wire.js';
import { RowTable, type Counts, type TableDraft } from './row-table.js';

export type { Counts };

export type DisplayStatus = 'new' | 'up' | 'grace' | 'down' | 'paused';

/** How long a check that just changed status stays highlighted. */
export const FLASH_MS = 5000;

const SECOND = 1000;

/**
 * The display status at `now`, from the fields the daemon sends for exactly this
 * purpose (stored_status, expected_ms, grace_s, last_start_ms). It mirrors
 * displayStatus() in daemon/domain/status.ts (API v3), so grace and down appear
 * on time between server events; the daemon's own flip follows as an event.
 */
export function localStatus(check: CheckMsg, now: number): DisplayStatus {
  const grace = check.grace_s * SECOND;
  // A run that outlived its grace is down whatever the stored status says.
  if (check.last_start_ms > 0 && now >= check.last_start_ms + grace) return 'down';
  const stored = check.stored_status as DisplayStatus;
  if (stored !== 'up') return stored;
  if (!check.expected_ms) return 'up';
  if (now >= check.expected_ms + grace) return 'down';
  if (now >= check.expected_ms) return 'grace';
  return 'up';
}

/**
 * The first instant after `at` at which localStatus may say something else:
 * the thresholds it compares with (the end of a run's grace, the expected
 * time, the end of grace) that still lie ahead; Infinity when none does.
 */
export function nextStatusChange(check: CheckMsg, at: number): number {
  const grace = check.grace_s * SECOND;
  const thresholds: number[] = [];
  if (check.last_start_ms > 0) thresholds.push(check.last_start_ms + grace);
  if (check.stored_status === 'up' && check.expected_ms) thresholds.push(check.expected_ms, check.expected_ms + grace);
  let next = Infinity;
  for (const t of thresholds) if (t > at && t < next) next = t;
  return next;
}

/**
 * Sort order, worst first: down, grace, running (a start signal is
 * outstanding: it turns down if the run outlives its grace), new (never
 * pinged, often a job not wired up yet), up, paused (silenced on purpose).
 */
export function rankOf(status: DisplayStatus, started: boolean): number {
  switch (status) {
    case 'down':
      return 0;
    case 'grace':
      return 1;
    case 'paused':
      return 5;
    default:
      if (started) return 2;
      return status === 'new' ? 3 : 4;
  }
}

/** What the table shows: the display status, except that a run in progress reads "running". */
export type Label = 'down' | 'grace' | 'running' | 'new' | 'up' | 'paused';

/** Labels indexed by rank. */
export const LABELS: readonly Label[] = ['down', 'grace', 'running', 'new', 'up', 'paused'];

export function labelOf(row: Pick<Row, 'rank'>): Label {
  return LABELS[row.rank]!;
}

export interface Row {
  id: string;
  check: CheckMsg;
  status: DisplayStatus;
  rank: number;
  /** Lower-cased name, then id: precomputed so sorting 10,000 rows does no string work. */
  sortKey: string;
  /** Lower-cased name, slug and tags: what `/` matches. */
  haystack: string;
  /** Server time at which the status may change by itself (nextStatusChange). */
  due: number;
}

export function makeRow(check: CheckMsg, serverNow: number): Row {
  const status = localStatus(check, serverNow);
  const id = checkIdOf(check);
  return {
    id,
    check,
    status,
    rank: rankOf(status, check.started),
    sortKey: `${check.name.toLowerCase()}\u0000${id}`,
    haystack: [check.name, check.slug, ...check.tags].join(' ').toLowerCase(),
    due: nextStatusChange(check, serverNow),
  };
}

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

export interface ConnectionInfo {
  state: ConnectionState;
  /** Failed attempts in a row. */
  attempt: number;
  /** Local time of the next attempt after a failure; 0 when none is scheduled. */
  retryAt: number;
  /** Why the link is down, for the header. */
  error: string | null;
}

export interface TuiState {
  project: ProjectMsg | null;
  connection: ConnectionInfo;
  rows: RowTable<Row>;
  /** The last revision applied: where a resumed Watch continues. */
  revision: number;
  /** A snapshot has been applied; before that the table is "loading". */
  synced: boolean;
  /** Check id → local time until which it is highlighted. */
  flashes: ReadonlyMap<string, number>;
  /** Local time of the last action. */
  now: number;
  /** Server clock minus local clock, learnt from snapshots and heartbeats. */
  offsetMs: number;
}

export type Action =
  | { type: 'connection'; connection: ConnectionInfo }
  | { type: 'project'; project: ProjectMsg }
  | { type: 'events'; events: WatchEventMsg[]; now: number }
  | { type: 'tick'; now: number }
  | { type: 'check'; check: CheckMsg; now: number };

export function initialState(now: number): TuiState {
  return {
    project: null,
    connection: { state: 'connecting', attempt: 0, retryAt: 0, error: null },
    rows: RowTable.of<Row>([], labelOf),
    revision: 0,
    synced: false,
    flashes: new Map(),
    now,
    offsetMs: 0,
  };
}

/** The daemon's idea of now: statuses are computed against its clock, not ours. */
export function serverNow(state: Pick<TuiState, 'offsetMs'>, now: number): number {
  return now + state.offsetMs;
}

export function reducer(state: TuiState, action: Action): TuiState {
  switch (action.type) {
    case 'connection':
      return { ...state, connection: action.connection };
    case 'project':
      return { ...state, project: action.project };
    case 'events':
      return applyEvents(state, action.events, action.now);
    case 'tick':
      return tick(state, action.now);
    case 'check':
      return applyCheck(state, action.check, action.now);
  }
}

/**
 * The working copies of one action: a draft of the rows and a copy of the
 * flashes, each made only when something actually changes, so that an action
 * that changes nothing leaves memoized views valid.
 */
class Draft {
  private table: RowTable<Row>;
  private rows: TableDraft<Row> | null = null;
  flashes: Map<string, number> | null = null;

  constructor(
    private readonly base: TuiState,
    readonly now: number,
  ) {
    this.table = base.rows;
  }

  getRow(id: string): Row | undefined {
    return this.rows ? this.rows.get(id) : this.table.get(id);
  }

  setRow(row: Row): void {
    (this.rows ??= this.table.draft()).set(row);
  }

  deleteRow(id: string): void {
    if (this.getRow(id)) (this.rows ??= this.table.draft()).delete(id);
  }

  /** A snapshot: every row replaced. */
  replaceRows(rows: Iterable<Row>): void {
    this.rows = null;
    this.table = RowTable.of(rows, labelOf);
  }

  /** The rows after this action. */
  result(): RowTable<Row> {
    return this.rows ? this.rows.commit() : this.table;
  }

  flash(id: string): void {
    (this.flashes ??= new Map(this.base.flashes)).set(id, this.now + FLASH_MS);
  }

  unflash(id: string): void {
    const current = this.flashes ?? this.base.flashes;
    if (current.has(id)) (this.flashes ??= new Map(this.base.flashes)).delete(id);
  }
}

function applyEvents(state: TuiState, events: WatchEventMsg[], now: number): TuiState {
  const draft = new Draft(state, now);
  let { revision, synced, offsetMs } = state;
  for (const ev of events) {
    if (ev.type === 'EVENT_TYPE_SNAPSHOT') {
      // The server's clock at send time; latency is far below the one-second display resolution.
      offsetMs = ev.at_ms - now;
      const fresh: Row[] = [];
      for (const c of ev.checks) {
        const row = makeRow(c, now + offsetMs);
        fresh.push(row);
        // A resync after OUT_OF_RANGE: whatever changed meanwhile is news.
        const before = draft.getRow(row.id);
        if (synced && before && before.status !== row.status) draft.flash(row.id);
      }
      draft.replaceRows(fresh);
      // Authoritative even when lower: the daemon may have been restarted on a new data dir.
      revision = ev.revision;
      synced = true;
      continue;
    }
    if (ev.type === 'EVENT_TYPE_HEARTBEAT') {
      // Sent when idle, stamped with the server's clock: keeps the offset fresh.
      offsetMs = ev.at_ms - now;
      revision = Math.max(revision, ev.revision);
      continue;
    }
    // Replays after a resume may overlap what was already applied.
    if (ev.revision <= revision) continue;
    revision = ev.revision;
    if (ev.type === 'EVENT_TYPE_CHECK_DELETED') {
      draft.deleteRow(ev.check_id);
      draft.unflash(ev.check_id);
      continue;
    }
    const check = ev.checks[0];
    if (!check) continue;
    const row = makeRow(check, now + offsetMs);
    const before = draft.getRow(row.id);
    draft.setRow(row);
    if (ev.type === 'EVENT_TYPE_FLIP' || (before && before.status !== row.status)) draft.flash(row.id);
  }
  const rows = draft.result();
  if (rows === state.rows && !draft.flashes && revision === state.revision && synced === state.synced && offsetMs === state.offsetMs) {
    return state.now === now ? state : { ...state, now };
  }
  return {
    ...state,
    rows,
    flashes: draft.flashes ?? state.flashes,
    revision,
    synced,
    offsetMs,
    now,
  };
}

/** A check returned by PauseCheck/ResumeCheck: shown at once, the Watch event confirms it. */
function applyCheck(state: TuiState, check: CheckMsg, now: number): TuiState {
  const draft = new Draft(state, now);
  const row = makeRow(check, serverNow(state, now));
  const before = state.rows.get(row.id);
  if (!before) return state;
  draft.setRow(row);
  if (before.status !== row.status) draft.flash(row.id);
  return { ...state, rows: draft.result(), flashes: draft.flashes ?? state.flashes, now };
}

/** The one-second clock: statuses move into grace and down, highlights expire. */
function tick(state: TuiState, now: number): TuiState {
  const draft = new Draft(state, now);
  const at = serverNow(state, now);
  // Only the rows that reached a threshold are visited, not all of them.
  state.rows.forEachDue(at, (row) => {
    const status = localStatus(row.check, at);
    draft.setRow({ ...row, status, rank: rankOf(status, row.check.started), due: nextStatusChange(row.check, at) });
    if (status !== row.status) draft.flash(row.id);
  });
  for (const [id, until] of draft.flashes ?? state.flashes) {
    if (until <= now) {
      draft.flashes ??= new Map(state.flashes);
      draft.flashes.delete(id);
    }
  }
  const rows = draft.result();
  if (rows === state.rows && !draft.flashes && state.now === now) return state;
  return { ...state, rows, flashes: draft.flashes ?? state.flashes, now };
}

export function isFlashing(state: Pick<TuiState, 'flashes'>, id: string, now: number): boolean {
  const until = state.flashes.get(id);
  return until !== undefined && until > now;
}

// ---------------------------------------------------------------------------
// Views: sorting, filtering, counting

/** Worst first (see rankOf), then by name: stable under updates that change nothing visible. */
export function sortRows(rows: RowTable<Row>): readonly Row[] {
  return rows.sorted();
}

export type StatusFilter = 'all' | 'problems' | Label;

/** The order `s` cycles through. "problems" is down + grace: what needs a human now. */
export const STATUS_FILTERS: readonly StatusFilter[] = ['all', 'problems', ...LABELS];

export interface Filter {
  /** Case-insensitive substring of name, slug or a tag; every word must match. */
  text: string;
  /** An exact tag, or null for any. */
  tag: string | null;
  status: StatusFilter;
}

export const NO_FILTER: Filter = { text: '', tag: null, status: 'all' };

export function isFiltered(f: Filter): boolean {
  return f.text.trim() !== '' || f.tag !== null || f.status !== 'all';
}

function statusMatches(row: Row, status: StatusFilter): boolean {
  if (status === 'all') return true;
  if (status === 'problems') return row.rank <= 1;
  return labelOf(row) === status;
}

/** The words of a filter's text, each of which a row must contain. */
function wordsOf(f: Filter): string[] {
  return f.text.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Does `row` pass filter `f` (whose words are `words`)? */
function matcher(f: Filter, words = wordsOf(f)): (row: Row) => boolean {
  return (r) =>
    statusMatches(r, f.status) && (f.tag === null || r.check.tags.includes(f.tag)) && words.every((w) => r.haystack.includes(w));
}

/** The rows of `sorted` that pass `f`, in its order, computed from scratch. */
export function filterRows(sorted: readonly Row[], f: Filter): readonly Row[] {
  return isFiltered(f) ? sorted.filter(matcher(f)) : sorted;
}

/** What the table shows: the rows that pass `f`, worst first; kept up to date through edits (RowTable.view). */
export function visibleRows(rows: RowTable<Row>, f: Filter): readonly Row[] {
  if (!isFiltered(f)) return rows.sorted();
  const words = wordsOf(f);
  return rows.view(JSON.stringify([words, f.tag, f.status]), matcher(f, words));
}

/** Checks per label; the labels partition the checks, so they add up to the total. */
export function countRows(rows: RowTable<Row>): Counts {
  return rows.counts();
}

export function allTags(rows: RowTable<Row>): string[] {
  return rows.tags();
}

/** The next (or previous) element after `current`, wrapping; the first one when `current` is absent. */
export function cycle<T>(list: readonly T[], current: T, dir: 1 | -1 = 1): T {
  const i = list.indexOf(current);
  const n = list.length;
  if (i < 0) return list[dir === 1 ? 0 : n - 1]!;
  return list[(i + dir + n) % n]!;
}

/** Tag filter values in cycling order: null (any tag) first. */
export function tagCycle(tags: string[], current: string | null, dir: 1 | -1 = 1): string | null {
  return cycle<string | null>([null, ...tags], current, dir);
}

// ---------------------------------------------------------------------------
// Selection and scrolling

/**
 * The cursor follows a check, not a line: when a status change moves the
 * selected check, the cursor moves with it. `index` is where it was last seen,
 * used when the check leaves the view (deleted or filtered out).
 */
export interface Selection {
  id: string | null;
  index: number;
}

export function resolveIndex(visible: readonly Row[], sel: Selection): number {
  if (visible.length === 0) return -1;
  if (sel.id !== null) {
    // Most updates leave the check where it was: look there before scanning.
    if (visible[sel.index]?.id === sel.id) return sel.index;
    const i = visible.findIndex((r) => r.id === sel.id);
    if (i >= 0) return i;
  }
  return Math.min(Math.max(sel.index, 0), visible.length - 1);
}

export function moveSelection(visible: readonly Row[], sel: Selection, delta: number): Selection {
  if (visible.length === 0) return { id: null, index: 0 };
  const from = resolveIndex(visible, sel);
  const index = Math.min(Math.max(from + delta, 0), visible.length - 1);
  return { id: visible[index]!.id, index };
}

export function selectIndex(visible: readonly Row[], index: number): Selection {
  if (visible.length === 0) return { id: null, index: 0 };
  const i = Math.min(Math.max(index, 0), visible.length - 1);
  return { id: visible[i]!.id, index: i };
}

/** First visible line: scroll only as far as needed to keep `index` on screen. */
export function scrollTop(prevTop: number, index: number, height: number, total: number): number {
  if (height <= 0 || total <= height) return 0;
  let top = Math.min(Math.max(prevTop, 0), total - height);
  if (index < top) top = index;
  else if (index >= top + height) top = index - height + 1;
  return Math.max(0, top);
}

// ---------------------------------------------------------------------------
// Flip timeline for the detail view

const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

export interface Timeline {
  /** Worst stored status within each cell, oldest cell first; null before anything is known. */
  cells: (DisplayStatus | null)[];
  /** How much time the strip covers, ending at `now`. */
  spanMs: number;
}

/**
 * A strip of `width` cells ending at `now`, coloured by status. The span
 * stretches to the oldest flip (between an hour and 30 days); each cell shows
 * the worst status it saw, so a short outage is never averaged away.
 */
export function timeline(flipsNewestFirst: readonly FlipMsg[], now: number, width: number): Timeline {
  if (width <= 0) return { cells: [], spanMs: 0 };
  const flips = [...flipsNewestFirst].sort((a, b) => a.timestamp_ms - b.timestamp_ms);
  const oldest = flips[0]?.timestamp_ms ?? now;
  // A little room before the oldest flip so the status it left is visible too.
  const spanMs = Math.min(Math.max((now - oldest) * 1.05, HOUR), 30 * DAY);
  const start = now - spanMs;
  const step = spanMs / width;
  const cells: (DisplayStatus | null)[] = [];
  let status: DisplayStatus | null = flips[0] ? (flips[0].old_status as DisplayStatus) : null;
  let next = 0;
  // Flips older than the strip only set the status it starts with.
  while (next < flips.length && flips[next]!.timestamp_ms < start) status = flips[next++]!.new_status as DisplayStatus;
  for (let i = 0; i < width; i++) {
    const cellEnd = start + (i + 1) * step;
    let worst = status;
    while (next < flips.length && flips[next]!.timestamp_ms < cellEnd) {
      status = flips[next]!.new_status as DisplayStatus;
      if (worst === null || rankOf(status, false) < rankOf(worst, false)) worst = status;
      next++;
    }
    cells.push(worst);
  }
  return { cells, spanMs };
}
