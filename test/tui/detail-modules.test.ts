// The pure parts of what the table and the details say: countdowns, last
// activity, a body made safe for the terminal, older history pages merged
// behind the newest, which output is shown, the history strip's window and
// the run sparkline.
import { describe, expect, it } from 'vitest';
import { bodyLines } from '../../tui/body.js';
import { countdown, downSince, lastActivity } from '../../tui/countdown.js';
import { mergeFlips, mergePings, outputPing, runDurations } from '../../tui/history.js';
import { labelOf } from '../../tui/labels.js';
import { makeRow } from '../../tui/row.js';
import { sparkline, timeline } from '../../tui/timeline.js';
import type { FlipMsg, PingMsg } from '../../tui/wire.js';
import { check, down, fresh, paused, T0 } from './fixtures.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const DAY = 24 * H;

const label = (c: ReturnType<typeof check>, now = T0) => labelOf(makeRow(c, now));
const timer = (c: ReturnType<typeof check>, now = T0) => countdown(c, label(c, now), now);

function ping(n: number, type: string, o: Partial<PingMsg> = {}): PingMsg {
  return { n, type, date_ms: T0 - n * MIN, rid: '', duration_s: -1, method: 'GET', remote_addr: '10.0.0.1', ua: '', body_size: 0, ...o };
}

function flip(revision: number, at: number, from: string, to: string): FlipMsg {
  return { timestamp_ms: at, old_status: from, new_status: to, reason: '', revision };
}

describe('the timer column', () => {
  it('counts down to down for up and grace checks: expected time plus grace', () => {
    const up = check({ expected_ms: T0 + 4 * MIN, grace_s: 10 });
    expect(timer(up)).toBe('down in 4m 10s');
    expect(timer(up, T0 + 10 * S)).toBe('down in 4m');
    const grace = check({ expected_ms: T0 - MIN, grace_s: 300 });
    expect(label(grace)).toBe('grace');
    expect(timer(grace)).toBe('down in 4m');
  });

  it('counts up how long a down check has been down: from its flip, or from the deadline that passed', () => {
    expect(timer(down({ down_since_ms: T0 - (2 * H + 13 * MIN) }))).toBe('down for 2h 13m');
    // Past its deadline but not flipped by the daemon yet: down since expected + grace.
    const overdue = check({ expected_ms: T0 - 20 * MIN, grace_s: 300 });
    expect(label(overdue)).toBe('down');
    expect(timer(overdue)).toBe('down for 15m');
    expect(downSince(overdue)).toBe(T0 - 15 * MIN);
    // From an older daemon, with no time of the flip: just down.
    expect(timer(down())).toBe('down');
  });

  it('says how long a run has been going', () => {
    const running = check({ started: true, last_start_ms: T0 - 3 * MIN, grace_s: 3600 });
    expect(label(running)).toBe('running');
    expect(timer(running)).toBe('running 3m');
    expect(timer(running, T0 + 20 * S)).toBe('running 3m 20s');
  });

  it('has nothing to say of new and paused checks', () => {
    expect(timer(fresh())).toBe('-');
    expect(timer(paused())).toBe('-');
  });

  it('a start counts as activity: a check that only started is not "never"', () => {
    const started = fresh({ started: true, last_start_ms: T0 - MIN });
    expect(lastActivity(started)).toBe(T0 - MIN);
    expect(lastActivity(fresh())).toBe(0);
    expect(lastActivity(check({ last_ping_ms: T0 - 2 * MIN, last_start_ms: T0 - MIN }))).toBe(T0 - MIN);
  });
});

describe('a ping body on the terminal', () => {
  it('loses its escape sequences; other control characters show as U+FFFD', () => {
    const raw = Buffer.from('\x1b[31mERROR\x1b[0m disk full\n\x1b]0;title\x07ok\x07bell\x1bcreset\n');
    expect(bodyLines(raw)).toEqual(['ERROR disk full', 'ok\ufffdbellreset']);
  });

  it('shows a line a carriage return rewrote as it ended; expands tabs; keeps empty lines', () => {
    expect(bodyLines(Buffer.from('10%\r50%\r100%\r\n\nname\tsize\n'))).toEqual(['100%', '', 'name    size']);
  });

  it('decodes UTF-8, replacing what is not', () => {
    expect(bodyLines(Buffer.from([0x63, 0x61, 0x66, 0xc3, 0xa9, 0x20, 0xff]))).toEqual(['café \ufffd']);
  });
});

describe('history pages', () => {
  it('older pings follow the newest only without a gap', () => {
    const newest = [ping(10, 'success'), ping(9, 'start')];
    expect(mergePings(newest, [ping(8, 'log'), ping(7, 'success')]).map((p) => p.n)).toEqual([10, 9, 8, 7]);
    expect(mergePings(newest, [ping(5, 'log')]).map((p) => p.n)).toEqual([10, 9]);
    expect(mergePings([], [ping(5, 'log')])).toEqual([]);
  });

  it('older flips follow when they come before the newest ones', () => {
    const newest = [flip(20, T0, 'down', 'up'), flip(15, T0 - H, 'up', 'down')];
    expect(mergeFlips(newest, [flip(9, T0 - DAY, 'new', 'up')]).map((f) => f.revision)).toEqual([20, 15, 9]);
    expect(mergeFlips(newest, [flip(15, T0 - H, 'up', 'down')]).map((f) => f.revision)).toEqual([20, 15]);
  });

  it('shows the output of the latest failure that sent one, else of the latest ping with a body', () => {
    const pings = [ping(5, 'success', { body_size: 3 }), ping(4, 'fail'), ping(3, 'fail', { body_size: 40 }), ping(2, 'log', { body_size: 9 })];
    expect(outputPing(pings)?.n).toBe(3);
    expect(outputPing([ping(5, 'success', { body_size: 3 }), ping(4, 'log', { body_size: 1 })])?.n).toBe(5);
    expect(outputPing([ping(5, 'success'), ping(4, 'fail')])).toBeNull();
  });

  it('run durations, oldest first, from the pings that ended a timed run', () => {
    const pings = [ping(4, 'success', { duration_s: 2 }), ping(3, 'start'), ping(2, 'fail', { duration_s: 8 }), ping(1, 'success')];
    expect(runDurations(pings)).toEqual([
      { seconds: 8, failed: true },
      { seconds: 2, failed: false },
    ]);
    expect(sparkline([1, 2, 4, 8, 0])).toBe('▁▂▄█▁');
    expect(sparkline([3, 3])).toBe('██');
    expect(sparkline([])).toBe('');
  });
});

describe('the history strip', () => {
  const flips = [flip(3, T0 - 30 * MIN, 'down', 'up'), flip(2, T0 - 2 * H, 'up', 'down'), flip(1, T0 - 3 * H, 'new', 'up')];

  it('covers a fixed window when one is chosen', () => {
    const hour = timeline(flips, T0, 60, { spanMs: H });
    expect(hour.spanMs).toBe(H);
    // Down until half an hour ago, up since.
    expect(hour.cells.slice(0, 29).every((c) => c === 'down')).toBe(true);
    expect(hour.cells.slice(31).every((c) => c === 'up')).toBe(true);
    expect(timeline(flips, T0, 60, { spanMs: 7 * DAY }).spanMs).toBe(7 * DAY);
  });

  it('shows nothing before the check existed, and new from then to its first flip', () => {
    const t = timeline(flips, T0, 24, { spanMs: DAY, createdMs: T0 - 4 * H });
    // 24 cells of an hour: the first 20 ended before the check was created.
    expect(t.cells.slice(0, 20).every((c) => c === 'none')).toBe(true);
    // New for its first hour (and the next, which began new: a cell shows the worst it saw), then down.
    expect(t.cells.slice(20)).toEqual(['new', 'new', 'down', 'down']);
    // A check without flips was new all its life.
    const quiet = timeline([], T0, 24, { spanMs: DAY, createdMs: T0 - 2 * H });
    expect(quiet.cells.slice(0, 22).every((c) => c === 'none')).toBe(true);
    expect(quiet.cells.slice(22)).toEqual(['new', 'new']);
  });
});
