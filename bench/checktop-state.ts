// checktop's state at scale (`npm run bench:checktop`): what one batch of Watch
// events costs the TUI on a project of BENCH_ROWS (100,000) checks.
//
// The app applies each batch with the reducer, then reads the sorted rows,
// the label counts and the tag list. Measured here: that work for batches of
// 1 to 1,000 pinged checks (the RowTable carries the order, counts and tags
// over from the previous state), against the same rows rebuilt from scratch
// in the same run (a new table, sorted afresh: what every batch cost before
// RowTable, plus its Map copy); the same with a tag filter on; and the
// one-second tick while ~50 checks a second reach their expected time,
// against visiting every row as it did.
// Pure computation, no terminal: stops by itself in well under a minute.
import { statusAt } from '../daemon/domain/status.js';
import { labelOf } from '../tui/labels.js';
import type { Row } from '../tui/row.js';
import { RowTable } from '../tui/row-table.js';
import { initialState, reducer, type TuiState } from '../tui/state.js';
import { allTags, countRows, filterRows, sortRows, visibleRows } from '../tui/views.js';
import { statusInputsOf, type CheckMsg, type WatchEventMsg } from '../tui/wire.js';
import { check as wireCheck } from '../test/tui/fixtures.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const BATCHES = [1, 10, 100, 1000];
const REPEATS = 20;
const now = Date.UTC(2026, 10, 1, 12);

/** Deterministic names unrelated to creation order, like a real project's. */
let seed = 42;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

/** 1 % of the checks are expected within the next 20 s: every tick then moves ~50 of them into grace. */
function expectedAt(i: number): number {
  return i % 100 === 0 ? now + 1000 * (1 + ((i / 100) % 20)) : now + 3_540_000;
}

/** An hourly check, up, pinged a minute ago (the wire shape checktop's tests use too). */
function check(i: number, nPings: number): CheckMsg {
  return wireCheck({
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    unique_key: '',
    name: `job-${Math.floor(random() * ROWS)}`,
    tags: ['prod', `team-${i % 40}`],
    last_ping_ms: now - 60_000,
    next_ping_ms: expectedAt(i),
    expected_ms: expectedAt(i),
    n_pings: nPings,
    created_ms: now - 86_400_000,
  });
}

const checks = Array.from({ length: ROWS }, (_, i) => check(i, 1));
let state: TuiState = reducer(initialState(now), {
  type: 'events',
  now,
  events: [{ revision: 1, type: 'EVENT_TYPE_SNAPSHOT', at_ms: now, checks, check_id: '', ping: null, flip: null, snapshot_continues: false }],
});
let revision = 1;

/** What the app does with a new state: the views it memoizes on the rows. */
function readViews(s: TuiState): number {
  return sortRows(s.rows).length + countRows(s.rows).total + allTags(s.rows).length;
}

function pingBatch(size: number): WatchEventMsg[] {
  return Array.from({ length: size }, () => {
    const i = Math.floor(random() * ROWS);
    // A ping: same name, tags and status, one more n_pings.
    const c = { ...checks[i]!, n_pings: checks[i]!.n_pings + 1 };
    checks[i] = c;
    revision += 1;
    return { revision, type: 'EVENT_TYPE_PING_RECEIVED', at_ms: now, checks: [c], check_id: c.uuid, ping: null, flip: null, snapshot_continues: false };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

readViews(state); // the first frame sorts from scratch
process.stdout.write(`checktop state: ${ROWS.toLocaleString('en-US')} checks, median of ${REPEATS} batches each\n`);
for (const size of BATCHES) {
  const incremental: number[] = [];
  const rebuilt: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const events = pingBatch(size);
    const t0 = performance.now();
    state = reducer(state, { type: 'events', events, now });
    readViews(state);
    const t1 = performance.now();
    // The baseline: the same rows as a new table, every view computed afresh.
    const fresh = RowTable.of<Row>([...state.rows.values()], labelOf);
    void (fresh.sorted().length + fresh.counts().total + fresh.tags().length);
    const t2 = performance.now();
    incremental.push(t1 - t0);
    rebuilt.push(t2 - t1);
  }
  const [a, b] = [median(incremental), median(rebuilt)];
  process.stdout.write(
    `  batch of ${String(size).padStart(5)}: ${a.toFixed(2).padStart(7)} ms, rebuilt from scratch ${b.toFixed(2).padStart(7)} ms (${((a / b) * 100).toFixed(1)} %)\n`,
  );
}
// With a filter on (a tag, as `t` sets it): the visible rows are derived
// through each batch too, against filtering the sorted rows afresh.
const filter = { text: '', tag: 'team-7', status: 'all' as const };
visibleRows(state.rows, filter);
const filtered: number[] = [];
const refiltered: number[] = [];
for (let r = 0; r < REPEATS; r++) {
  const events = pingBatch(10);
  const t0 = performance.now();
  state = reducer(state, { type: 'events', events, now });
  readViews(state);
  const shown = visibleRows(state.rows, filter).length;
  const t1 = performance.now();
  const again = filterRows(sortRows(state.rows), filter).length;
  const t2 = performance.now();
  if (shown !== again) throw new Error(`the filtered view shows ${shown} rows, a fresh filter ${again}`);
  filtered.push(t1 - t0);
  refiltered.push(t2 - t1);
}
const [withFilter, filterAfresh] = [median(filtered), median(refiltered)];
process.stdout.write(
  `  batch of    10 with a tag filter on: ${withFilter.toFixed(2)} ms in all, where filtering the sorted rows afresh alone takes ${filterAfresh.toFixed(2)} ms (${((withFilter / filterAfresh) * 100).toFixed(1)} %)\n`,
);

const ticks: number[] = [];
const visits: number[] = [];
for (let r = 0; r < REPEATS; r++) {
  const at = now + (r + 1) * 1000;
  const before = state;
  const t0 = performance.now();
  state = reducer(state, { type: 'tick', now: at });
  const t1 = performance.now();
  // The baseline: the same tick visiting every row, as it did before RowTable kept track of when rows are due.
  let moved = 0;
  before.rows.forEach((row) => {
    if (statusAt(statusInputsOf(row.check), at) !== row.status) moved++;
  });
  ticks.push(t1 - t0);
  visits.push(performance.now() - t1);
  if (r === 0) process.stdout.write(`  (the first tick moves ${moved} checks into grace)\n`);
}
const [tick, visitAll] = [median(ticks), median(visits)];
process.stdout.write(
  `  one-second tick: ${tick.toFixed(2)} ms, visiting every row ${visitAll.toFixed(2)} ms (${((tick / visitAll) * 100).toFixed(1)} %)\n`,
);
