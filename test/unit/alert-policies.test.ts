// alert-policies.md as executable rules against a hand-moved clock: the
// domain functions the daemon persists the results of, one section each.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import {
  applySignal,
  displayStatus,
  evaluateDeadline,
  goingDownAfter,
  graceStart,
  nextStatusChange,
  runLimit,
  statusAt,
  statusInputsOf,
} from '../../daemon/domain/status.js';
import { applyCheckInput, newCheck, validateCheckInput } from '../../daemon/domain/check-input.js';
import { summarySentence, webhookValues, type Notification } from '../../daemon/notify/message.js';
import { compactDuration } from '../../daemon/notify/policy-text.js';
import type { CheckRecord, FlipRecord } from '../../daemon/domain/types.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const T0 = Date.parse('2024-01-01T00:00:00Z');

function check(fields: Partial<CheckRecord> = {}): CheckRecord {
  return {
    ...newCheck({ uuid: '6f3b5c1e-1111-4222-8333-944455556666', projectId: 'p1', badgeKey: 'b1', createdAt: T0 }),
    channels: ['c1'],
    ...fields,
  };
}

/** Apply pings in order at the clock's time, returning the check and the flips made. */
function replay(start: CheckRecord, clock: ManualClock, steps: Array<[number, 'success' | 'fail' | 'start' | 'log' | 'ign', string?]>) {
  let c = start;
  const flips = [];
  for (const [at, kind, rid] of steps) {
    clock.set(at);
    const r = applySignal(c, { kind, rid: rid ?? null, now: clock.now() });
    c = r.check;
    if (r.flip) flips.push(r.flip);
  }
  return { check: c, flips };
}

describe('§1 run-time limit: max_duration', () => {
  it('absent, the run is bounded by grace as upstream', () => {
    const c = check({ status: 'up', lastPing: T0, timeout: 86400, grace: 3600, lastStart: T0 + H });
    expect(runLimit(c)).toBe(3600);
    expect(goingDownAfter(c)).toBe(T0 + 2 * H);
  });

  it('a started up check goes down at min(E + grace, last_start + max_duration)', () => {
    const clock = new ManualClock(T0);
    const base = check({ timeout: 86400, grace: 3600, maxDuration: 2 * 3600 });
    const { check: c } = replay(base, clock, [
      [T0, 'success'],
      [T0 + 10 * H, 'start'],
    ]);
    expect(runLimit(c)).toBe(7200);
    // The run limit is earlier than E + grace (T0 + 25 h).
    expect(goingDownAfter(c)).toBe(T0 + 12 * H);
    expect(c.alertAfter).toBe(T0 + 12 * H);
    // next_ping (G) is upstream's: the start time.
    expect(graceStart(c)).toBe(T0 + 10 * H);
    // Started near the expected time: E + grace comes first.
    const late = replay(base, clock, [
      [T0, 'success'],
      [T0 + 23 * H + 30 * MIN, 'start'],
    ]).check;
    expect(goingDownAfter(late)).toBe(T0 + 25 * H);
  });

  it('grace no longer bounds the run: up (started) past grace, down at the limit, in every API version', () => {
    const clock = new ManualClock(T0);
    const { check: c } = replay(check({ timeout: 86400, grace: 300, maxDuration: 3600 }), clock, [
      [T0, 'success'],
      [T0 + H, 'start'],
    ]);
    for (const at of [T0 + H + 301 * S, T0 + 2 * H - 1]) {
      expect(displayStatus(c, at, 3)).toBe('up');
      expect(displayStatus(c, at, 2)).toBe('up');
      expect(displayStatus(c, at, 1)).toBe('started');
      expect(statusAt(statusInputsOf(c), at)).toBe('up');
    }
    for (const v of [1, 2, 3] as const) expect(displayStatus(c, T0 + 2 * H, v)).toBe('down');
    expect(statusAt(statusInputsOf(c), T0 + 2 * H)).toBe('down');
    // checktop's next redraw: the end of the run limit, not of grace.
    expect(nextStatusChange(statusInputsOf(c), T0 + H + 301 * S)).toBe(T0 + 2 * H);
  });

  it('past the limit the evaluator flips to down with reason duration, at last_start + max_duration', () => {
    const clock = new ManualClock(T0);
    const { check: c } = replay(check({ timeout: 86400, grace: 300, maxDuration: 3600 }), clock, [
      [T0, 'success'],
      [T0 + H, 'start'],
    ]);
    expect(evaluateDeadline(c, T0 + 2 * H - 1)).toBeNull();
    // Caught up long after (a daemon that was stopped): the flip is at the limit itself.
    const r = evaluateDeadline(c, T0 + 9 * H)!;
    expect(r.flip).toEqual({ created: T0 + 2 * H, oldStatus: 'up', newStatus: 'down', reason: 'duration', processed: false });
    expect(r.check).toMatchObject({ status: 'down', alertAfter: null, lastStart: T0 + H });
    // Once down, nothing more is due.
    expect(evaluateDeadline(r.check, T0 + 10 * H)).toBeNull();
  });

  it('a late check whose E + grace comes first still goes down for timeout', () => {
    const clock = new ManualClock(T0);
    const { check: c } = replay(check({ timeout: 3600, grace: 600, maxDuration: 7200 }), clock, [
      [T0, 'success'],
      [T0 + 50 * MIN, 'start'],
    ]);
    const r = evaluateDeadline(c, T0 + 3 * H)!;
    expect(r.flip).toMatchObject({ created: T0 + 70 * MIN, reason: 'timeout' });
  });

  it('new and paused checks that are started use the limit too; a check not started is unaffected', () => {
    const clock = new ManualClock(T0);
    const started = replay(check({ grace: 60, maxDuration: 600 }), clock, [[T0, 'start']]).check;
    expect(goingDownAfter(started)).toBe(T0 + 10 * MIN);
    expect(evaluateDeadline(started, T0 + 10 * MIN)!.flip).toMatchObject({ oldStatus: 'new', reason: 'duration', created: T0 + 10 * MIN });
    const paused = replay(check({ status: 'paused', grace: 60, maxDuration: 600 }), clock, [[T0, 'start']]).check;
    expect(evaluateDeadline(paused, T0 + 11 * MIN)!.flip).toMatchObject({ oldStatus: 'paused', reason: 'duration' });
    const idle = check({ status: 'up', lastPing: T0, timeout: 3600, grace: 60, maxDuration: 600, alertAfter: T0 + H + MIN });
    expect(goingDownAfter(idle)).toBe(T0 + H + MIN);
    expect(evaluateDeadline(idle, T0 + H + MIN)!.flip).toMatchObject({ reason: 'timeout' });
  });

  it('with rid, the limit applies to the run last_start refers to', () => {
    const clock = new ManualClock(T0);
    const A = '0a0a0a0a-0000-4000-8000-00000000000a';
    const B = '0b0b0b0b-0000-4000-8000-00000000000b';
    const { check: c } = replay(check({ timeout: 86400, grace: 60, maxDuration: 3600 }), clock, [
      [T0, 'success'],
      [T0 + H, 'start', A],
      [T0 + H + MIN, 'start', B],
      [T0 + H + 5 * MIN, 'success', A],
    ]);
    // B is still running: its start is the one timed.
    expect(c.lastStartRid).toBe(B);
    expect(goingDownAfter(c)).toBe(T0 + 2 * H + MIN);
  });

  it('the ended run clears the limit: the check goes back to E + grace', () => {
    const clock = new ManualClock(T0);
    const { check: c } = replay(check({ timeout: 3600, grace: 60, maxDuration: 600 }), clock, [
      [T0, 'start'],
      [T0 + 5 * MIN, 'success'],
    ]);
    expect(goingDownAfter(c)).toBe(T0 + 5 * MIN + H + MIN);
  });

  it('validation: 0, or 60 … 31536000 whole seconds; 0 leaves the field out of the record', () => {
    for (const ok of [0, 60, 7200, 31_536_000]) expect(validateCheckInput({ max_duration: ok })).toEqual({ ok: true, input: { max_duration: ok } });
    expect(validateCheckInput({ max_duration: 59 })).toEqual({ ok: false, error: 'json validation error: max_duration is too small' });
    expect(validateCheckInput({ max_duration: 31_536_001 })).toEqual({ ok: false, error: 'json validation error: max_duration is too large' });
    for (const bad of ['3600', 1.5, true, null, -1]) expect(validateCheckInput({ max_duration: bad }).ok).toBe(false);
    const set = applyCheckInput(check(), { max_duration: 600 }, 3);
    expect(set.maxDuration).toBe(600);
    const cleared = applyCheckInput(set, { max_duration: 0 }, 3);
    expect('maxDuration' in cleared).toBe(false);
  });
});

describe('§2 failure tolerance: failure_tolerance and consecutive_failures', () => {
  const up = (fields: Partial<CheckRecord> = {}) => check({ status: 'up', lastPing: T0, timeout: 3600, grace: 60, ...fields });

  it('an up check takes failure_tolerance consecutive fails, and the next one flips with the count', () => {
    const clock = new ManualClock(T0);
    const { check: c, flips } = replay(up({ failureTolerance: 2 }), clock, [
      [T0 + MIN, 'fail'],
      [T0 + 2 * MIN, 'fail'],
    ]);
    expect(flips).toEqual([]);
    expect(c).toMatchObject({ status: 'up', consecutiveFailures: 2, lastPing: T0 + 2 * MIN });
    // last_ping moved as for a success: the next expected ping is counted from it.
    expect(c.alertAfter).toBe(T0 + 2 * MIN + H + MIN);
    expect(displayStatus(c, T0 + 3 * MIN, 3)).toBe('up');
    const third = applySignal(c, { kind: 'fail', rid: null, now: T0 + 3 * MIN });
    expect(third.flip).toEqual({ created: T0 + 3 * MIN, oldStatus: 'up', newStatus: 'down', reason: 'fail', processed: false, failures: 3 });
    expect(third.check).toMatchObject({ status: 'down', consecutiveFailures: 3 });
    expect(third.kind).toBe('fail');
  });

  it('a success resets the count; start, log and ign leave it alone', () => {
    const clock = new ManualClock(T0);
    const { check: c, flips } = replay(up({ failureTolerance: 1 }), clock, [
      [T0 + MIN, 'fail'],
      [T0 + 2 * MIN, 'start'],
      [T0 + 3 * MIN, 'log'],
      [T0 + 4 * MIN, 'ign'],
    ]);
    expect(flips).toEqual([]);
    expect(c.consecutiveFailures).toBe(1);
    const reset = applySignal(c, { kind: 'success', rid: null, now: T0 + 5 * MIN }).check;
    expect('consecutiveFailures' in reset).toBe(false);
    // Tolerated again after the reset.
    expect(applySignal(reset, { kind: 'fail', rid: null, now: T0 + 6 * MIN }).flip).toBeNull();
    // Not reset: the next fail is the second in a row, one more than tolerated.
    expect(applySignal(c, { kind: 'fail', rid: null, now: T0 + 5 * MIN }).flip).toMatchObject({ failures: 2 });
  });

  it('new and paused checks are not tolerant, and missed deadlines are not failures', () => {
    expect(applySignal(check({ failureTolerance: 5 }), { kind: 'fail', rid: null, now: T0 }).flip).toMatchObject({
      oldStatus: 'new',
      newStatus: 'down',
      reason: 'fail',
    });
    const paused = applySignal(check({ status: 'paused', failureTolerance: 5 }), { kind: 'fail', rid: null, now: T0 }).flip!;
    expect(paused).toMatchObject({ oldStatus: 'paused', newStatus: 'down' });
    // Their flips carry no count: no tolerance applied.
    expect(paused.failures).toBeUndefined();
    const late = up({ failureTolerance: 5, alertAfter: T0 + H + MIN });
    expect(evaluateDeadline(late, T0 + H + MIN)!.flip).toMatchObject({ reason: 'timeout' });
  });

  it('a fail that ends a run ends it as upstream, tolerated or not', () => {
    const clock = new ManualClock(T0);
    const { check: c } = replay(up({ failureTolerance: 1 }), clock, [
      [T0 + MIN, 'start'],
      [T0 + 3 * MIN, 'fail'],
    ]);
    expect(c).toMatchObject({ status: 'up', lastStart: null, lastDuration: 2 * MIN, consecutiveFailures: 1 });
  });

  it('without a tolerance nothing is counted: the check stays as upstream stores it', () => {
    const clock = new ManualClock(T0);
    const { check: c, flips } = replay(up(), clock, [
      [T0 + MIN, 'fail'],
      [T0 + 2 * MIN, 'fail'],
    ]);
    expect(flips).toHaveLength(1);
    expect(flips[0]!.failures).toBeUndefined();
    expect('consecutiveFailures' in c).toBe(false);
  });

  it('validation: 0 … 100; 0 takes the tolerance and the count out of the record', () => {
    expect(validateCheckInput({ failure_tolerance: 100 })).toEqual({ ok: true, input: { failure_tolerance: 100 } });
    expect(validateCheckInput({ failure_tolerance: 101 })).toEqual({ ok: false, error: 'json validation error: failure_tolerance is too large' });
    expect(validateCheckInput({ failure_tolerance: -1 })).toEqual({ ok: false, error: 'json validation error: failure_tolerance is too small' });
    for (const bad of ['2', 1.5, false, null]) expect(validateCheckInput({ failure_tolerance: bad }).ok).toBe(false);
    const counted = applyCheckInput(check({ failureTolerance: 3, consecutiveFailures: 2 }), { failure_tolerance: 0 }, 3);
    expect('failureTolerance' in counted || 'consecutiveFailures' in counted).toBe(false);
  });
});

describe('§6 what notifications say', () => {
  const base = (flip: Partial<FlipRecord>, fields: Partial<CheckRecord> = {}): Notification => ({
    event: flip.newStatus === 'up' ? 'up' : 'down',
    check: check({ name: 'etl', ...fields }),
    flip: { created: T0, oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false, ...flip },
    lastPing: null,
    downtimeMs: null,
    projectName: 'ops',
    checkJson: '{}',
    test: false,
    deliveryId: '5b0c5f5e-6f1a-4c2d-9e3b-7a8d9c0b1e2f',
  });

  it('the cause of a down: run-time limit, or the failures a tolerance held back', () => {
    expect(summarySentence(base({ reason: 'duration' }, { maxDuration: 7200 }))).toBe('The run took too long: it ran longer than 2h.');
    expect(summarySentence(base({ reason: 'duration' }, { maxDuration: 5400 }))).toBe('The run took too long: it ran longer than 1h 30m.');
    expect(summarySentence(base({ reason: 'fail', failures: 3 }))).toBe('Received a failure signal: 3 consecutive failures.');
    // Upstream's sentences are unchanged.
    expect(summarySentence(base({ reason: 'fail' }))).toBe('Received a failure signal.');
    expect(summarySentence(base({ reason: 'timeout' }))).toBe('Success signal did not arrive on time, grace time passed.');
  });

  it('webhook placeholders $REASON, $REMINDER and $DOWN_SINCE, escaped for their place', () => {
    const values = (n: Notification, place: 'url' | 'body') => Object.fromEntries(webhookValues(n, place));
    const down = base({ reason: 'duration', created: T0 + 90 * MIN });
    expect(values(down, 'body')).toMatchObject({ $REASON: 'duration', $REMINDER: '0', $DOWN_SINCE: '2024-01-01T01:30:00+00:00' });
    expect(values(down, 'url').$DOWN_SINCE).toBe('2024-01-01T01%3A30%3A00%2B00%3A00');
    const up = { ...base({ oldStatus: 'down', newStatus: 'up', reason: '', created: T0 + 2 * H }), downtimeMs: 30 * MIN };
    expect(values(up, 'body')).toMatchObject({ $REASON: '', $REMINDER: '0', $DOWN_SINCE: '2024-01-01T01:30:00+00:00' });
    expect(values({ ...up, downtimeMs: null }, 'body').$DOWN_SINCE).toBe('');
  });

  it('compact durations: the configured limit drops a zero second unit, an elapsed time keeps it', () => {
    expect([compactDuration(7_200_000), compactDuration(10_800_000, true), compactDuration(45 * MIN), compactDuration(2 * 86_400_000 + 3 * H)]).toEqual([
      '2h',
      '3h 0m',
      '45m',
      '2d 3h',
    ]);
    expect([compactDuration(0), compactDuration(59_000), compactDuration(61_000, true)]).toEqual(['0s', '59s', '1m 1s']);
  });
});
