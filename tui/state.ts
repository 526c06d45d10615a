// checktop's state and how Watch events and the clock change it: the snapshot
// and events applied, display statuses recomputed on the clock, flips
// highlighted. The reducer is pure: `now` always arrives in the action.
import { labelOf } from './labels.js';
import { makeRow, rowAt, type Row } from './row.js';
import { RowTable, type TableDraft } from './row-table.js';
import { DEFAULT_SORT, orderOf, type Sort } from './sort.js';
import type { CheckMsg, ProjectMsg, StorageAlarmMsg, WatchEventMsg } from './wire.js';

/** How long a check that just changed status stays highlighted. */
export const FLASH_MS = 5000;

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

export interface ConnectionInfo {
  state: ConnectionState;
  /** Failed attempts in a row. */
  attempt: number;
  /** Local time of the next attempt after a failure; 0 when none is scheduled. */
  retryAt: number;
  /** Why the link is down, for the header. */
  error: string | null;
  /** Local time the link was lost, while it is down after having been live. */
  since?: number;
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
  /** The rows' order. */
  sort: Sort;
  /** The daemon's storage alarm as last told (GetProject, its events, heartbeats); null: never told. */
  storageAlarm: StorageAlarmMsg | null;
}

export type Action =
  | { type: 'connection'; connection: ConnectionInfo }
  | { type: 'project'; project: ProjectMsg }
  | { type: 'events'; events: WatchEventMsg[]; now: number }
  | { type: 'tick'; now: number }
  | { type: 'check'; check: CheckMsg; now: number }
  | { type: 'sort'; sort: Sort };

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
    sort: DEFAULT_SORT,
    storageAlarm: null,
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
      return { ...state, project: action.project, storageAlarm: action.project.storage_alarm ?? state.storageAlarm };
    case 'events':
      return applyEvents(state, action.events, action.now);
    case 'tick':
      return tick(state, action.now);
    case 'check':
      return applyCheck(state, action.check, action.now);
    case 'sort':
      return { ...state, sort: action.sort, rows: state.rows.sortedBy(orderOf(action.sort)) };
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
    this.table = RowTable.of(rows, labelOf, this.base.rows.order);
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
  let { revision, synced, offsetMs, storageAlarm } = state;
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
      // The alarm as it is now: catches up with an alarm whose event was missed.
      if (ev.storage_alarm) storageAlarm = ev.storage_alarm;
      continue;
    }
    // Replays after a resume may overlap what was already applied.
    if (ev.revision <= revision) continue;
    revision = ev.revision;
    if (ev.type === 'EVENT_TYPE_STORAGE_ALARM') {
      if (ev.storage_alarm) storageAlarm = ev.storage_alarm;
      continue;
    }
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
  if (
    rows === state.rows &&
    !draft.flashes &&
    revision === state.revision &&
    synced === state.synced &&
    offsetMs === state.offsetMs &&
    sameAlarm(storageAlarm, state.storageAlarm)
  ) {
    return state.now === now ? state : { ...state, now };
  }
  return {
    ...state,
    rows,
    flashes: draft.flashes ?? state.flashes,
    revision,
    synced,
    offsetMs,
    storageAlarm: sameAlarm(storageAlarm, state.storageAlarm) ? state.storageAlarm : storageAlarm,
    now,
  };
}

/** Whether two tellings of the alarm show the same (a heartbeat repeats it every 15 s). */
function sameAlarm(a: StorageAlarmMsg | null, b: StorageAlarmMsg | null): boolean {
  return a === b || (a !== null && b !== null && a.active === b.active && a.cause === b.cause);
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

/**
 * The local time the table is shown as of: now while the link is live; the
 * moment it was lost while it is down, since nothing after that is known
 * (ages stop counting, and no check goes into grace or down on our say-so).
 */
export function asOf(state: Pick<TuiState, 'connection'>, now: number): number {
  const c = state.connection;
  return c.state !== 'live' && c.since ? Math.min(c.since, now) : now;
}

/** The one-second clock: statuses move into grace and down, highlights expire. */
function tick(state: TuiState, now: number): TuiState {
  const draft = new Draft(state, now);
  const at = serverNow(state, asOf(state, now));
  // Only the rows that reached a threshold are visited, not all of them.
  state.rows.forEachDue(at, (row) => {
    const next = rowAt(row, at);
    draft.setRow(next);
    if (next.status !== row.status) draft.flash(row.id);
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
