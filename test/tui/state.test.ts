import { describe, expect, it } from 'vitest';
import { nextStatusChange as nextChangeOf, statusAt } from '../../daemon/domain/status.js';
import { labelOf } from '../../tui/labels.js';
import { moveSelection, resolveIndex, scrollTop } from '../../tui/selection.js';
import { FLASH_MS, initialState, isFlashing, reducer, type TuiState } from '../../tui/state.js';
import { timeline } from '../../tui/timeline.js';
import { allTags, countRows, cycle, filterRows, NO_FILTER, sortRows, tagCycle, visibleRows } from '../../tui/views.js';
import { statusInputsOf, type CheckMsg } from '../../tui/wire.js';
import { check, down, event, fresh, paused, snapshot, T0 } from './fixtures.js';

const MIN = 60_000;

/** The domain's status rule on a wire check, as checktop applies it. */
const localStatus = (c: CheckMsg, now: number) => statusAt(statusInputsOf(c), now);
const nextStatusChange = (c: CheckMsg, at: number) => nextChangeOf(statusInputsOf(c), at);

function load(checks: ReturnType<typeof check>[], now = T0): TuiState {
  return reducer(initialState(now), { type: 'events', events: [snapshot(checks)], now });
}

const names = (s: TuiState) => sortRows(s.rows).map((r) => r.check.name);

describe('statusAt on wire checks', () => {
  const c = check({ expected_ms: T0, grace_s: 300 });

  it('up before the expected time, grace from it, down after grace', () => {
    expect(localStatus(c, T0 - 1)).toBe('up');
    expect(localStatus(c, T0)).toBe('grace');
    expect(localStatus(c, T0 + 5 * MIN - 1)).toBe('grace');
    expect(localStatus(c, T0 + 5 * MIN)).toBe('down');
  });

  it('a run that outlives its grace is down whatever the stored status', () => {
    const running = fresh({ started: true, last_start_ms: T0 - 10 * MIN, grace_s: 600 });
    expect(localStatus(running, T0 - 1)).toBe('new');
    expect(localStatus(running, T0)).toBe('down');
  });

  it('new, down and paused are what is stored', () => {
    expect(localStatus(fresh(), T0)).toBe('new');
    expect(localStatus(down(), T0)).toBe('down');
    expect(localStatus(paused(), T0)).toBe('paused');
  });
});

describe('nextStatusChange', () => {
  it('is the next threshold statusAt compares with: nothing changes before it', () => {
    const cases = [
      check({ expected_ms: T0, grace_s: 300 }),
      check({ expected_ms: T0, grace_s: 300, started: true, last_start_ms: T0 - 200_000 }),
      check({ expected_ms: T0 + 600_000, grace_s: 0, started: true, last_start_ms: T0 - 10_000 }),
      down({ expected_ms: T0 }),
      paused({ started: true, last_start_ms: T0 }),
      fresh(),
    ];
    for (const c of cases) {
      // From well before every threshold to well after: step to each next one.
      let at = T0 - 3_600_000;
      for (let steps = 0; steps < 5; steps++) {
        const next = nextStatusChange(c, at);
        const status = localStatus(c, at);
        for (const t of [at + 1, (at + Math.min(next, at + 7_200_000)) / 2, Math.min(next, at + 7_200_000) - 1]) {
          if (t < next) expect(localStatus(c, Math.floor(t))).toBe(status);
        }
        if (next === Infinity) break;
        at = next;
      }
    }
    expect(nextStatusChange(check({ expected_ms: T0, grace_s: 300 }), T0 - 1)).toBe(T0);
    expect(nextStatusChange(check({ expected_ms: T0, grace_s: 300 }), T0)).toBe(T0 + 300_000);
    expect(nextStatusChange(check({ expected_ms: T0, grace_s: 300 }), T0 + 300_000)).toBe(Infinity);
    expect(nextStatusChange(fresh(), T0)).toBe(Infinity);
  });
});

describe('reducer: snapshot and events', () => {
  it('a snapshot fills the table without highlights', () => {
    const s = load([check({ name: 'a' }), down({ name: 'b' })]);
    expect(s.synced).toBe(true);
    expect(s.revision).toBe(10);
    expect(s.rows.size).toBe(2);
    expect(s.flashes.size).toBe(0);
  });

  it('events replace the check; a flip is highlighted; repeats are ignored', () => {
    const c = check({ name: 'job' });
    let s = load([c]);
    const downC = { ...c, status: 'down', stored_status: 'down', expected_ms: 0 };
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_FLIP', 11, downC)], now: T0 });
    expect(s.rows.get(c.uuid)!.status).toBe('down');
    expect(s.revision).toBe(11);
    expect(isFlashing(s, c.uuid, T0 + 1000)).toBe(true);
    // The same revision again (overlap after a resume) changes nothing.
    const again = reducer(s, { type: 'events', events: [event('EVENT_TYPE_CHECK_UPDATED', 11, c)], now: T0 });
    expect(again.rows.get(c.uuid)!.status).toBe('down');
  });

  it('a status change without a flip event is highlighted too; a ping that changes nothing is not', () => {
    const c = fresh({ name: 'job' });
    let s = load([c]);
    const pinged = { ...check({ name: 'job' }), uuid: c.uuid, unique_key: c.unique_key };
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_PING_RECEIVED', 11, pinged)], now: T0 });
    expect(s.rows.get(c.uuid)!.status).toBe('up');
    expect(isFlashing(s, c.uuid, T0)).toBe(true);
    const s2 = load([pinged]);
    const s3 = reducer(s2, { type: 'events', events: [event('EVENT_TYPE_PING_RECEIVED', 11, { ...pinged, n_pings: 2 })], now: T0 });
    expect(s3.rows.get(c.uuid)!.check.n_pings).toBe(2);
    expect(s3.flashes.size).toBe(0);
  });

  it('created and deleted checks come and go', () => {
    let s = load([]);
    const c = check({ name: 'new one' });
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_CHECK_CREATED', 11, c)], now: T0 });
    expect(s.rows.has(c.uuid)).toBe(true);
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_CHECK_DELETED', 12, null, { check_id: c.uuid })], now: T0 });
    expect(s.rows.has(c.uuid)).toBe(false);
    expect(s.revision).toBe(12);
  });

  it('read-only keys identify checks by unique_key', () => {
    const c = check({ uuid: '', unique_key: 'abc123', name: 'ro' });
    let s = load([c]);
    expect(s.rows.has('abc123')).toBe(true);
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_CHECK_DELETED', 11, null, { check_id: 'abc123' })], now: T0 });
    expect(s.rows.size).toBe(0);
  });

  it('heartbeats move the revision and learn the server clock offset', () => {
    let s = load([check({ expected_ms: T0 + 10_000, grace_s: 60 })]);
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_HEARTBEAT', 50, null, { at_ms: T0 + 20_000 })], now: T0 });
    expect(s.revision).toBe(50);
    expect(s.offsetMs).toBe(20_000);
    // Local time T0, server time T0+20s: past the expected time, so grace.
    s = reducer(s, { type: 'tick', now: T0 });
    expect([...s.rows.values()][0]!.status).toBe('grace');
  });

  it('a new snapshot (after OUT_OF_RANGE) replaces everything and highlights what changed', () => {
    const a = check({ name: 'a' });
    const b = check({ name: 'b' });
    let s = load([a, b]);
    s = reducer(s, { type: 'events', events: [snapshot([{ ...a, stored_status: 'down', status: 'down', expected_ms: 0 }], 500)], now: T0 });
    expect(s.revision).toBe(500);
    expect(s.rows.size).toBe(1);
    expect(isFlashing(s, a.uuid, T0)).toBe(true);
  });

  it('a snapshot with a lower revision wins (daemon on a new data dir)', () => {
    let s = load([check()]);
    s = reducer(s, { type: 'events', events: [snapshot([], 3)], now: T0 });
    expect(s.revision).toBe(3);
    expect(s.rows.size).toBe(0);
  });
});

describe('reducer: the clock', () => {
  it('grace and down appear on time without server events, each highlighted', () => {
    const c = check({ expected_ms: T0 + 2000, grace_s: 60 });
    let s = load([c]);
    s = reducer(s, { type: 'tick', now: T0 + 1000 });
    expect(s.rows.get(c.uuid)!.status).toBe('up');
    s = reducer(s, { type: 'tick', now: T0 + 2000 });
    expect(s.rows.get(c.uuid)!.status).toBe('grace');
    expect(isFlashing(s, c.uuid, T0 + 2000)).toBe(true);
    s = reducer(s, { type: 'tick', now: T0 + 62_000 });
    expect(s.rows.get(c.uuid)!.status).toBe('down');
    expect(s.rows.get(c.uuid)!.rank).toBe(0);
  });

  it('highlights expire after FLASH_MS and the tick drops them', () => {
    const c = check({ expected_ms: T0 + 1000 });
    let s = load([c]);
    s = reducer(s, { type: 'tick', now: T0 + 1000 });
    expect(s.flashes.size).toBe(1);
    s = reducer(s, { type: 'tick', now: T0 + 1000 + FLASH_MS - 1 });
    expect(s.flashes.size).toBe(1);
    s = reducer(s, { type: 'tick', now: T0 + 1000 + FLASH_MS });
    expect(s.flashes.size).toBe(0);
    expect(isFlashing(s, c.uuid, T0 + 1000 + FLASH_MS)).toBe(false);
  });

  it('a run that outlives its grace turns down on the tick, and a ping moves the next threshold', () => {
    const c = check({ expected_ms: T0 + 3_600_000, grace_s: 60, started: true, last_start_ms: T0 });
    let s = load([c]);
    s = reducer(s, { type: 'tick', now: T0 + 59_000 });
    expect(s.rows.get(c.uuid)!.status).toBe('up');
    // The run ends in time: its threshold is gone, the hourly one is next.
    const done = { ...c, started: false, last_start_ms: 0, n_pings: 2 };
    s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_PING_RECEIVED', 11, done)], now: T0 + 59_500 });
    s = reducer(s, { type: 'tick', now: T0 + 61_000 });
    expect(s.rows.get(c.uuid)!.status).toBe('up');
    s = reducer(s, { type: 'tick', now: T0 + 3_600_000 });
    expect(s.rows.get(c.uuid)!.status).toBe('grace');
    const again = check({ expected_ms: T0 + 3_600_000, grace_s: 60, started: true, last_start_ms: T0 });
    let t = load([again]);
    t = reducer(t, { type: 'tick', now: T0 + 60_000 });
    expect(t.rows.get(again.uuid)!.status).toBe('down');
    expect(isFlashing(t, again.uuid, T0 + 60_000)).toBe(true);
  });

  it('a tick that changes nothing keeps the rows, so the sort stays memoized', () => {
    const s = load([check(), down()]);
    const t = reducer(s, { type: 'tick', now: T0 + 1000 });
    expect(t.rows).toBe(s.rows);
    expect(reducer(t, { type: 'tick', now: T0 + 1000 })).toBe(t);
  });
});

describe('views', () => {
  const all = [
    check({ name: 'zeta up' }),
    paused({ name: 'alpha paused' }),
    fresh({ name: 'mid new' }),
    down({ name: 'beta down' }),
    check({ name: 'Alpha up', tags: ['prod', 'db'] }),
    check({ name: 'gamma grace', expected_ms: T0 - 1000 }),
    down({ name: 'alpha down', tags: ['prod'] }),
    check({ name: 'run', started: true, last_start_ms: T0 - 1000 }),
  ];

  it('sorts worst first: down, grace, running, new, up, paused; then by name', () => {
    const s = load(all);
    expect(names(s)).toEqual(['alpha down', 'beta down', 'gamma grace', 'run', 'mid new', 'Alpha up', 'zeta up', 'alpha paused']);
    expect(sortRows(s.rows).map(labelOf)).toEqual(['down', 'down', 'grace', 'running', 'new', 'up', 'up', 'paused']);
  });

  it('counts by label add up to the total', () => {
    expect(countRows(load(all).rows)).toEqual({ down: 2, grace: 1, running: 1, new: 1, up: 2, paused: 1, total: 8 });
  });

  it('filters by text (every word, name/slug/tags), tag and status', () => {
    const sorted = sortRows(load(all).rows);
    const n = (f: Partial<typeof NO_FILTER>) => filterRows(sorted, { ...NO_FILTER, ...f }).map((r) => r.check.name);
    expect(filterRows(sorted, NO_FILTER)).toBe(sorted);
    expect(n({ text: 'ALPHA' })).toEqual(['alpha down', 'Alpha up', 'alpha paused']);
    expect(n({ text: 'alpha prod' })).toEqual(['alpha down', 'Alpha up']);
    expect(n({ tag: 'db' })).toEqual(['Alpha up']);
    expect(n({ status: 'problems' })).toEqual(['alpha down', 'beta down', 'gamma grace']);
    expect(n({ status: 'running' })).toEqual(['run']);
    expect(n({ status: 'up', text: 'alpha' })).toEqual(['Alpha up']);
    expect(allTags(load(all).rows)).toEqual(['db', 'prod']);
  });

  it('the visible rows follow events under a filter as a fresh filter of the sorted rows would', () => {
    let s = load(all);
    const filters = [
      { text: 'a', tag: null, status: 'all' as const },
      { text: '', tag: 'prod', status: 'problems' as const },
      { text: 'be do', tag: null, status: 'all' as const },
    ];
    for (const f of filters) expect(visibleRows(s.rows, f)).toEqual(filterRows(sortRows(s.rows), f));
    for (let i = 0; i < 4; i++) {
      const c = all[i]!;
      const changed = i % 2 === 0 ? { ...c, stored_status: 'down', expected_ms: 0, tags: [...c.tags, 'prod'] } : { ...c, name: `${c.name} alpha` };
      s = reducer(s, { type: 'events', events: [event('EVENT_TYPE_CHECK_UPDATED', 20 + i, changed)], now: T0 });
      for (const f of filters) expect(visibleRows(s.rows, f)).toEqual(filterRows(sortRows(s.rows), f));
    }
  });

  it('cycles filters with wrap-around', () => {
    expect(cycle(['a', 'b', 'c'], 'c')).toBe('a');
    expect(cycle(['a', 'b', 'c'], 'a', -1)).toBe('c');
    expect(tagCycle(['db', 'prod'], null)).toBe('db');
    expect(tagCycle(['db', 'prod'], 'prod')).toBe(null);
    expect(tagCycle(['db', 'prod'], 'gone')).toBe(null);
  });
});

describe('selection and scrolling', () => {
  const rows = sortRows(load([check({ name: 'a' }), check({ name: 'b' }), check({ name: 'c' })]).rows);

  it('the cursor follows its check when the order changes', () => {
    const sel = { id: rows[2]!.id, index: 2 };
    const reordered = [rows[2]!, rows[0]!, rows[1]!];
    expect(resolveIndex(reordered, sel)).toBe(0);
    expect(moveSelection(reordered, sel, 1)).toEqual({ id: rows[0]!.id, index: 1 });
  });

  it('when its check is gone the cursor stays at the same line, clamped', () => {
    expect(resolveIndex(rows, { id: 'gone', index: 1 })).toBe(1);
    expect(resolveIndex(rows, { id: 'gone', index: 9 })).toBe(2);
    expect(resolveIndex([], { id: null, index: 0 })).toBe(-1);
    expect(moveSelection(rows, { id: null, index: 0 }, 10)).toEqual({ id: rows[2]!.id, index: 2 });
    expect(moveSelection(rows, { id: null, index: 0 }, -10)).toEqual({ id: rows[0]!.id, index: 0 });
  });

  it('scrolls only as far as needed', () => {
    expect(scrollTop(0, 5, 10, 100)).toBe(0);
    expect(scrollTop(0, 10, 10, 100)).toBe(1);
    expect(scrollTop(50, 20, 10, 100)).toBe(20);
    expect(scrollTop(95, 99, 10, 100)).toBe(90);
    expect(scrollTop(40, 3, 10, 5)).toBe(0);
  });
});

describe('timeline', () => {
  const H = 3600_000;
  const flip = (t: number, o: string, n: string) => ({ timestamp_ms: t, old_status: o, new_status: n, reason: '', revision: 1 });

  it('colours each cell with the worst status it saw, oldest first', () => {
    // Newest first, as GetCheck returns them.
    const flips = [flip(T0 - 1 * H, 'down', 'up'), flip(T0 - 1.5 * H, 'up', 'down'), flip(T0 - 4 * H, 'new', 'up')];
    const t = timeline(flips, T0, 42);
    expect(t.spanMs).toBeCloseTo(4.2 * H);
    expect(t.cells).toHaveLength(42);
    expect(t.cells[0]).toBe('new');
    expect(t.cells.at(-1)).toBe('up');
    expect(t.cells.filter((c) => c === 'down').length).toBeGreaterThanOrEqual(5);
  });

  it('a blip shorter than a cell still shows', () => {
    const flips = [flip(T0 - 2 * H + 1000, 'down', 'up'), flip(T0 - 2 * H, 'up', 'down'), flip(T0 - 20 * 24 * H, 'new', 'up')];
    expect(timeline(flips, T0, 20).cells).toContain('down');
  });

  it('unknown before any flip; at least an hour', () => {
    const t = timeline([], T0, 10);
    expect(t.cells.every((c) => c === null)).toBe(true);
    expect(t.spanMs).toBe(H);
  });
});

describe('10,000 checks', () => {
  it('snapshot, sort, filter and tick work on 10,000 checks (time printed, not asserted)', () => {
    const many = Array.from({ length: 10_000 }, (_, i) =>
      i % 50 === 0 ? down({ name: `job-${i}` }) : check({ name: `job-${i}`, expected_ms: T0 + (i % 600) * 1000, tags: [`t${i % 7}`] }),
    );
    const start = performance.now();
    let s = load(many);
    const sorted = sortRows(s.rows);
    filterRows(sorted, { ...NO_FILTER, text: 'job-99' });
    s = reducer(s, { type: 'tick', now: T0 + 300_000 });
    const changed = s.flashes.size;
    const ms = performance.now() - start;
    expect(sorted).toHaveLength(10_000);
    expect(changed).toBeGreaterThan(0);
    console.log(`10,000 checks: load, sort, filter and tick in ${ms.toFixed(0)} ms`);
  });
});
