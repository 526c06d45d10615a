// alert-policies.md as executable rules against a hand-moved clock: the
// domain functions the daemon persists the results of, one section each.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import {
  applyMute,
  applyPause,
  applySignal,
  applyUnmute,
  displayStatus,
  evaluateDeadline,
  goingDownAfter,
  graceStart,
  holdFlip,
  isMuted,
  makesDependencyCycle,
  nearestDownParent,
  nextStatusChange,
  NO_HOLD_FACTS,
  notifyEvent,
  runLimit,
  settleHold,
  statusAt,
  statusInputsOf,
} from '../../daemon/domain/status.js';
import { applyCheckInput, newCheck, validateCheckInput } from '../../daemon/domain/check-input.js';
import { parseDuration, parseRepeatEvery, validateMuteInput, validateWindowInput } from '../../daemon/domain/policy-input.js';
import { dueReminders, markReminded, nextReminderAt, repeatingChannels } from '../../daemon/domain/reminders.js';
import { inMaintenance, isWindowOpen, nextWindowChange, windowCloses, windowCovers } from '../../daemon/domain/maintenance.js';
import { detectScheduleKind } from '../../daemon/domain/schedule/index.js';
import { summarySentence, webhookValues, type Notification } from '../../daemon/notify/message.js';
import { compactDuration } from '../../daemon/notify/policy-text.js';
import type { ChannelRecord, CheckRecord, FlipRecord, MaintenanceWindow } from '../../daemon/domain/types.js';

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

  it('a released notification says what held it and since when', () => {
    const down = { ...base({ reason: 'timeout', created: T0 + 14 * H + 2 * MIN }), policy: { released: 'maintenance' as const } };
    expect(summarySentence(down)).toBe(
      'Success signal did not arrive on time, grace time passed. Down since 2024-01-01T14:02:00+00:00, during maintenance: this notification was held until now.',
    );
    const dep = { ...base({ reason: 'fail', created: T0 + 14 * H + 3 * MIN }), policy: { released: 'dependency' as const, parentName: 'db' } };
    expect(summarySentence(dep)).toBe(
      'Received a failure signal. Down since 2024-01-01T14:03:00+00:00, while "db" was down: this notification was held until now.',
    );
    const up = { ...base({ oldStatus: 'down', newStatus: 'up', reason: '', created: T0 + 15 * H }), downtimeMs: H, policy: { released: 'mute' as const } };
    expect(summarySentence(up)).toBe('The downtime lasted 1 hour. Up again since 2024-01-01T15:00:00+00:00: this notification was held while muted.');
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

describe('§4.1 muting: held flips and the release at the end', () => {
  const facts = NO_HOLD_FACTS;
  /** Pings in order, each flip decided under the hold rules, as the daemon does. */
  function run(start: CheckRecord, steps: Array<[number, 'success' | 'fail' | 'start']>) {
    let c = start;
    const flips: FlipRecord[] = [];
    for (const [at, kind] of steps) {
      const r = applySignal(c, { kind, rid: null, now: at });
      if (r.flip) {
        const decided = holdFlip(c, r.check, r.flip, facts, at);
        flips.push(decided.flip);
        c = decided.check;
      } else c = r.check;
    }
    return { check: c, flips };
  }
  const up = check({ status: 'up', lastPing: T0, timeout: 3600, grace: 60 });

  it('without a mute, flips are told and the check carries no hold', () => {
    const { check: c, flips } = run(up, [[T0 + MIN, 'fail'], [T0 + 2 * MIN, 'success']]);
    expect(flips.map(notifyEvent)).toEqual(['down', 'up']);
    expect(flips.every((f) => f.held === undefined)).toBe(true);
    expect('hold' in c).toBe(false);
  });

  it('muted: pings and flips go on, the notification is held; at the end the outage is released once', () => {
    const muted = applyMute(up, T0 + H);
    expect(isMuted(muted, T0 + H - 1)).toBe(true);
    expect(isMuted(muted, T0 + H)).toBe(false);
    const { check: c, flips } = run(muted, [[T0 + MIN, 'fail']]);
    expect(c.status).toBe('down');
    expect(flips).toEqual([expect.objectContaining({ newStatus: 'down', held: 'mute' })]);
    expect(notifyEvent(flips[0]!)).toBeNull();
    expect(c.hold).toEqual({ told: 'up', cause: 'mute' });
    // Still muted: nothing to settle.
    expect(settleHold(c, facts, T0 + H - 1)).toBeNull();
    // The time is reached (the monitor ends the mute, then settles): down is released.
    const released = settleHold(applyUnmute(c)!, facts, T0 + H)!;
    expect(released).toMatchObject({ ended: true, event: 'down', cause: 'mute' });
    expect('hold' in released.check || 'mutedUntil' in released.check).toBe(false);
  });

  it('an outage that healed inside the mute releases nothing', () => {
    const { check: c, flips } = run(applyMute(up, T0 + H), [[T0 + MIN, 'fail'], [T0 + 2 * MIN, 'success']]);
    expect(flips.map((f) => f.held)).toEqual(['mute', 'mute']);
    expect(c.hold).toEqual({ told: 'up', cause: 'mute' });
    expect(settleHold(applyUnmute(c)!, facts, T0 + 3 * MIN)).toMatchObject({ ended: true, event: null });
  });

  it('a recovery inside the mute of an outage told before it is released as up', () => {
    const down = run(up, [[T0 + MIN, 'fail']]).check;
    const { check: c, flips } = run(applyMute(down, T0 + H), [[T0 + 2 * MIN, 'success']]);
    expect(flips[0]).toMatchObject({ oldStatus: 'down', newStatus: 'up', held: 'mute' });
    expect(c.hold).toEqual({ told: 'down', cause: 'mute' });
    expect(settleHold(applyUnmute(c)!, facts, T0 + 3 * MIN)).toMatchObject({ event: 'up' });
  });

  it('a check paused meanwhile releases nothing; a held check with another hold goes on held', () => {
    const held = run(applyMute(up, T0 + H), [[T0 + MIN, 'fail']]).check;
    const paused = { ...applyUnmute(held)!, status: 'paused' as const };
    expect(settleHold(paused, facts, T0 + H)).toMatchObject({ ended: true, event: null });
    const stillHeld = settleHold(applyUnmute(held)!, { inMaintenance: true, downParent: null }, T0 + H)!;
    expect(stillHeld).toMatchObject({ ended: false, event: null });
    expect(stillHeld.check.hold).toEqual({ told: 'up', cause: 'maintenance' });
  });

  it('unmute of a check that is not muted changes nothing', () => {
    expect(applyUnmute(up)).toBeNull();
  });

  it('mute input: until (an ISO instant with an offset, in the future, within a year) or seconds (60 … 31536000)', () => {
    const now = T0;
    expect(validateMuteInput({ seconds: 3600 }, now)).toEqual({ ok: true, until: T0 + H });
    expect(validateMuteInput({ until: '2024-01-01T02:00:00Z' }, now)).toEqual({ ok: true, until: T0 + 2 * H });
    expect(validateMuteInput({ until: '2024-01-01T04:00:00+02:00' }, now)).toEqual({ ok: true, until: T0 + 2 * H });
    expect(validateMuteInput({ until: '2024-01-01T04:00:00.5+0200' }, now)).toEqual({ ok: true, until: T0 + 2 * H + 500 });
    expect(validateMuteInput({ until: '2023-12-31T23:30-0200' }, now)).toEqual({ ok: true, until: T0 + 90 * MIN });
    const error = (body: Record<string, unknown>) => (validateMuteInput(body, now) as { error: string }).error;
    expect(error({})).toBe('json validation error: until or seconds is required');
    expect(error({ seconds: 60, until: '2024-01-01T02:00:00Z' })).toBe('json validation error: give until or seconds, not both');
    expect(error({ seconds: 59 })).toBe('json validation error: seconds is too small');
    expect(error({ seconds: 31_536_001 })).toBe('json validation error: seconds is too large');
    expect(error({ seconds: '60' })).toBe('json validation error: seconds is not a number');
    expect(error({ until: 5 })).toBe('json validation error: until is not a string');
    for (const bad of ['2024-01-01T02:00:00', '2024-01-01', 'tomorrow', '2024-02-30T00:00:00Z', '2024-01-01T24:00:00Z']) {
      expect(error({ until: bad })).toBe('json validation error: until is not an ISO 8601 instant with an offset');
    }
    expect(error({ until: '2024-01-01T00:00:00Z' })).toBe('json validation error: until is in the past');
    expect(error({ until: '2025-06-01T00:00:00Z' })).toBe('json validation error: until is more than a year ahead');
  });
});

describe('§4.2 maintenance windows', () => {
  const win = (fields: Partial<MaintenanceWindow>): MaintenanceWindow => ({ id: 'w1', projectId: 'p1', name: '', tags: '', createdAt: T0, ...fields });
  const recurring = (schedule: string, tz: string, duration: number, tags = '') =>
    win({ schedule, scheduleKind: detectScheduleKind(schedule), tz, duration, tags });
  const z = (iso: string) => Date.parse(iso);

  it('one-off: open from start (included) to end (excluded), then never again', () => {
    const w = win({ start: T0 + H, end: T0 + 2 * H });
    expect([T0 + H - 1, T0 + H, T0 + 2 * H - 1, T0 + 2 * H].map((t) => isWindowOpen(w, t))).toEqual([false, true, true, false]);
    expect(nextWindowChange(w, T0)).toBe(T0 + H);
    expect(nextWindowChange(w, T0 + H)).toBe(T0 + 2 * H);
    expect(nextWindowChange(w, T0 + 2 * H)).toBeNull();
    expect(windowCloses(w, T0 + 90 * MIN)).toBe(T0 + 2 * H);
  });

  it('recurring: opens at each fire time in its zone and lasts its duration', () => {
    // 02:00 in Riga is 00:00 UTC in winter.
    const w = recurring('0 2 * * *', 'Europe/Riga', 3600);
    expect(isWindowOpen(w, z('2024-01-10T23:59:59Z'))).toBe(false);
    expect(isWindowOpen(w, z('2024-01-11T00:00:00Z'))).toBe(true);
    expect(isWindowOpen(w, z('2024-01-11T00:59:59Z'))).toBe(true);
    expect(isWindowOpen(w, z('2024-01-11T01:00:00Z'))).toBe(false);
    expect(nextWindowChange(w, z('2024-01-11T00:30:00Z'))).toBe(z('2024-01-11T01:00:00Z'));
    expect(nextWindowChange(w, z('2024-01-11T01:00:00Z'))).toBe(z('2024-01-12T00:00:00Z'));
    // In summer (UTC+3) the same local time is 23:00 UTC the day before.
    expect(nextWindowChange(w, z('2024-07-01T12:00:00Z'))).toBe(z('2024-07-01T23:00:00Z'));
  });

  it('DST, spring: a cron window in the skipped hour opens at the first minute after the gap; OnCalendar skips that day', () => {
    // Riga, 2024-03-31: 03:00 EET jumps to 04:00 EEST (01:00 UTC).
    const cron = recurring('30 3 * * *', 'Europe/Riga', 1800);
    expect(nextWindowChange(cron, z('2024-03-30T12:00:00Z'))).toBe(z('2024-03-31T01:00:00Z'));
    expect(isWindowOpen(cron, z('2024-03-31T01:29:59Z'))).toBe(true);
    expect(windowCloses(cron, z('2024-03-31T01:10:00Z'))).toBe(z('2024-03-31T01:30:00Z'));
    const onCalendar = recurring('03:30', 'Europe/Riga', 1800);
    expect(nextWindowChange(onCalendar, z('2024-03-30T12:00:00Z'))).toBe(z('2024-04-01T00:30:00Z'));
    expect(isWindowOpen(onCalendar, z('2024-03-31T01:10:00Z'))).toBe(false);
  });

  it('DST, autumn: a window in the repeated hour opens once, at the first 03:30, for its real duration', () => {
    // Riga, 2024-10-27: 04:00 EEST goes back to 03:00 EET (01:00 UTC); 03:30 happens twice.
    const w = recurring('30 3 * * *', 'Europe/Riga', 3600);
    expect(nextWindowChange(w, z('2024-10-26T12:00:00Z'))).toBe(z('2024-10-27T00:30:00Z'));
    expect(windowCloses(w, z('2024-10-27T00:30:00Z'))).toBe(z('2024-10-27T01:30:00Z'));
    // The second 03:30 (01:30 UTC) opens nothing: the window is closed from the end of the first.
    expect(isWindowOpen(w, z('2024-10-27T01:30:00Z'))).toBe(false);
    expect(nextWindowChange(w, z('2024-10-27T01:30:00Z'))).toBe(z('2024-10-28T01:30:00Z'));
  });

  it('openings that overlap make one window: it closes after the last of them', () => {
    const w = recurring('*/30 * * * *', 'UTC', 3600);
    expect(isWindowOpen(w, T0 + 10 * MIN)).toBe(true);
    // Always open: each opening starts before the previous one ends; the search stops somewhere far ahead.
    expect(windowCloses(w, T0 + 10 * MIN)!).toBeGreaterThan(T0 + 100 * H);
    const once = recurring('0 0 * * *', 'UTC', 3600);
    expect(windowCloses(once, T0 + 10 * MIN)).toBe(T0 + H);
  });

  it('tags: an empty list covers every check, otherwise any tag in common', () => {
    expect(windowCovers(win({ tags: '' }), { tags: '' })).toBe(true);
    expect(windowCovers(win({ tags: 'db web' }), { tags: 'prod web' })).toBe(true);
    expect(windowCovers(win({ tags: 'db web' }), { tags: 'prod' })).toBe(false);
    expect(windowCovers(win({ tags: 'db' }), { tags: '' })).toBe(false);
    const open = win({ tags: 'db', start: T0, end: T0 + H });
    expect(inMaintenance({ tags: 'db x' }, [open], T0 + MIN)).toBe(true);
    expect(inMaintenance({ tags: 'db x' }, [open], T0 + H)).toBe(false);
    expect(inMaintenance({ tags: 'x' }, [open], T0 + MIN)).toBe(false);
  });

  it('holds: a flip inside an open window is held for maintenance, released when it closes', () => {
    const up = check({ status: 'up', lastPing: T0, timeout: 3600, grace: 60, tags: 'db' });
    const r = applySignal(up, { kind: 'fail', rid: null, now: T0 + MIN });
    const held = holdFlip(up, r.check, r.flip!, { inMaintenance: true, downParent: null }, T0 + MIN);
    expect(held.flip.held).toBe('maintenance');
    expect(held.check.hold).toEqual({ told: 'up', cause: 'maintenance' });
    expect(settleHold(held.check, { inMaintenance: true, downParent: null }, T0 + 2 * MIN)).toBeNull();
    expect(settleHold(held.check, NO_HOLD_FACTS, T0 + H)).toMatchObject({ ended: true, event: 'down', cause: 'maintenance' });
  });

  it('input: one-off or recurring, each complete, with messages that say what is wrong', () => {
    expect(validateWindowInput({ name: 'deploy', tags: 'db', start: '2024-01-01T01:00:00Z', end: '2024-01-01T02:00:00+00:00' })).toEqual({
      ok: true,
      window: { name: 'deploy', tags: 'db', start: T0 + H, end: T0 + 2 * H },
    });
    expect(validateWindowInput({ schedule: '0 2 * * 0', tz: 'Europe/Riga', duration: 7200 })).toEqual({
      ok: true,
      window: { name: '', tags: '', schedule: '0 2 * * 0', scheduleKind: 'cron', tz: 'Europe/Riga', duration: 7200 },
    });
    expect(validateWindowInput({ schedule: 'Sun 02:00', duration: 60 })).toMatchObject({ ok: true, window: { scheduleKind: 'oncalendar', tz: 'UTC' } });
    const error = (body: Record<string, unknown>) => (validateWindowInput(body) as { error: string }).error.replace('json validation error: ', '');
    expect(error({})).toBe('start and end, or schedule and duration, are required');
    expect(error({ start: '2024-01-01T01:00:00Z', schedule: '0 2 * * *', duration: 60 })).toBe(
      'a window has start and end, or schedule, tz and duration, not both',
    );
    expect(error({ start: '2024-01-01T01:00:00Z' })).toBe('end is required');
    expect(error({ start: '2024-01-01T01:00:00', end: '2024-01-01T02:00:00Z' })).toBe('start is not an ISO 8601 instant with an offset');
    expect(error({ start: '2024-01-01T02:00:00Z', end: '2024-01-01T02:00:00Z' })).toBe('end is not after start');
    expect(error({ schedule: '0 2 * * *' })).toBe('duration is required');
    expect(error({ schedule: '61 2 * * *', duration: 60 })).toBe('schedule is not a valid cron or OnCalendar expression');
    expect(error({ schedule: '0 2 * * *', tz: 'Mars/Base', duration: 60 })).toBe('tz is not a valid timezone');
    expect(error({ schedule: '0 2 * * *', duration: 59 })).toBe('duration is too small');
    expect(error({ schedule: '0 2 * * *', duration: '1h' })).toBe('duration is not a number');
    expect(error({ name: 5, schedule: '0 2 * * *', duration: 60 })).toBe('name is not a string');
    expect(error({ tags: ['db'], schedule: '0 2 * * *', duration: 60 })).toBe('tags is not a string');
    expect(error({ schedule: '0 2 * * *', duration: 60, every: 'day' })).toBe('unknown member "every"');
  });

  it('CLI durations: seconds, or a number with s, m, h or d', () => {
    expect(['300', '5m', '1h', '2d', '90s'].map(parseDuration)).toEqual([300, 300, 3600, 172_800, 90]);
    expect(['', '1.5h', '1w', 'h', '-5m'].map(parseDuration)).toEqual([null, null, null, null, null]);
  });
});

describe('§3 reminders: channel repeat_every', () => {
  const channel = (id: string, repeatEvery?: number): ChannelRecord => ({ id, projectId: 'p1', kind: 'webhook', name: '', value: 'x', createdAt: T0, ...(repeatEvery ? { repeatEvery } : {}) });
  const hourly = channel('c1', 3600);
  const daily = channel('c2', 86_400);
  const quiet = channel('c3');
  const byId = new Map([hourly, daily, quiet].map((c) => [c.id, c]));
  const up = check({ status: 'up', lastPing: T0, timeout: 3600, grace: 60, channels: ['c1', 'c2', 'c3'] });

  function goDown(at: number, facts = NO_HOLD_FACTS): CheckRecord {
    const r = applySignal(up, { kind: 'fail', rid: null, now: at });
    return holdFlip(up, r.check, r.flip!, facts, at).check;
  }

  it('a told down starts the clock; reminder n of a channel is due n × repeat_every after it', () => {
    const down = goDown(T0 + MIN);
    expect(down.downAlert).toEqual({ at: T0 + MIN, sent: {} });
    const channels = repeatingChannels(down, (id) => byId.get(id));
    expect(channels.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(nextReminderAt(down, channels)).toBe(T0 + MIN + H);
    expect(dueReminders(down, channels, T0 + MIN + H - 1)).toEqual([]);
    expect(dueReminders(down, channels, T0 + MIN + H)).toEqual([{ channelId: 'c1', number: 1 }]);
    const once = markReminded(down, [{ channelId: 'c1', number: 1 }]);
    expect(dueReminders(once, channels, T0 + MIN + H + 30 * MIN)).toEqual([]);
    expect(nextReminderAt(once, channels)).toBe(T0 + MIN + 2 * H);
    expect(dueReminders(once, channels, T0 + MIN + 24 * H)).toEqual([
      { channelId: 'c1', number: 24 },
      { channelId: 'c2', number: 1 },
    ]);
  });

  it('after a gap (a stopped daemon) only the latest reminder due goes out, and the cadence goes on from it', () => {
    const down = markReminded(goDown(T0), [{ channelId: 'c1', number: 1 }]);
    const channels = [hourly];
    const due = dueReminders(down, channels, T0 + 25 * H + 20 * MIN);
    expect(due).toEqual([{ channelId: 'c1', number: 25 }]);
    const caught = markReminded(down, due);
    expect(nextReminderAt(caught, channels)).toBe(T0 + 26 * H);
  });

  it('no reminders without a told down: held, up again, paused, or no repeating channel', () => {
    const channels = [hourly];
    const held = goDown(T0, { inMaintenance: true, downParent: null });
    expect(held.downAlert).toBeUndefined();
    expect(dueReminders(held, channels, T0 + 5 * H)).toEqual([]);
    const down = goDown(T0);
    const back = applySignal(down, { kind: 'success', rid: null, now: T0 + H });
    expect(holdFlip(down, back.check, back.flip!, NO_HOLD_FACTS, T0 + H).check.downAlert).toBeUndefined();
    expect(applyPause(down, T0 + H).check.downAlert).toBeUndefined();
    expect(dueReminders(down, [], T0 + 5 * H)).toEqual([]);
    expect(nextReminderAt(down, [])).toBeNull();
  });

  it('a released down starts the clock at the release', () => {
    const held = goDown(T0, { inMaintenance: true, downParent: null });
    const released = settleHold(held, NO_HOLD_FACTS, T0 + 2 * H)!;
    expect(released.event).toBe('down');
    expect(released.check.downAlert).toEqual({ at: T0 + 2 * H, sent: {} });
  });

  it('--repeat-every: 0 (off), or 5 minutes to 7 days', () => {
    expect(parseRepeatEvery('1h')).toEqual({ ok: true, seconds: 3600 });
    expect(parseRepeatEvery('0')).toEqual({ ok: true, seconds: 0 });
    expect(parseRepeatEvery('300')).toEqual({ ok: true, seconds: 300 });
    expect(parseRepeatEvery('7d')).toEqual({ ok: true, seconds: 604_800 });
    for (const bad of ['4m', '8d', 'hourly']) expect(parseRepeatEvery(bad).ok).toBe(false);
  });

  it('what a reminder says: still down for how long, its number, then the down message', () => {
    const n: Notification = {
      event: 'down',
      check: check({ name: 'etl' }),
      flip: { created: T0 + 14 * H, oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false },
      lastPing: null,
      downtimeMs: null,
      projectName: 'ops',
      checkJson: '{}',
      test: false,
      deliveryId: '5b0c5f5e-6f1a-4c2d-9e3b-7a8d9c0b1e2f',
      policy: { reminder: 3, downSince: T0 + 14 * H, remindedAt: T0 + 17 * H },
    };
    expect(summarySentence(n)).toBe('Still DOWN for 3h 0m, reminder 3. Success signal did not arrive on time, grace time passed.');
    expect(Object.fromEntries(webhookValues(n, 'body'))).toMatchObject({ $REMINDER: '3', $REASON: 'timeout', $DOWN_SINCE: '2024-01-01T14:00:00+00:00' });
  });
});

describe('§5 dependencies: depends_on, held and released', () => {
  const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
  const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
  const C = 'cccccccc-0000-4000-8000-00000000000c';
  const named = (uuid: string, fields: Partial<CheckRecord> = {}) => ({ ...check({ status: 'up', lastPing: T0, timeout: 3600, grace: 60, ...fields }), uuid });
  const lookupOf = (...checks: CheckRecord[]) => (uuid: string) => checks.find((c) => c.uuid === uuid);

  it('the nearest down check up the chain, directly or through checks that are up', () => {
    const a = named(A, { status: 'down' });
    const b = named(B, { dependsOn: A });
    const c = named(C, { dependsOn: B });
    expect(nearestDownParent(b, lookupOf(a, b, c))).toBe(A);
    expect(nearestDownParent(c, lookupOf(a, b, c))).toBe(A);
    expect(nearestDownParent(c, lookupOf(a, { ...b, status: 'down' }, c))).toBe(B);
    expect(nearestDownParent(c, lookupOf({ ...a, status: 'up' }, b, c))).toBeNull();
    expect(nearestDownParent(a, lookupOf(a, b, c))).toBeNull();
    // A parent that is gone ends the chain; a loop (never stored) ends too.
    expect(nearestDownParent(c, lookupOf(c))).toBeNull();
    expect(nearestDownParent(named(A, { dependsOn: B }), lookupOf(named(B, { dependsOn: A })))).toBeNull();
  });

  it('cycles: itself, or a chain that comes back', () => {
    const a = named(A);
    const b = named(B, { dependsOn: A });
    const c = named(C, { dependsOn: B });
    const lookup = lookupOf(a, b, c);
    expect(makesDependencyCycle(A, A, lookup)).toBe(true);
    expect(makesDependencyCycle(A, C, lookup)).toBe(true);
    expect(makesDependencyCycle(C, A, lookup)).toBe(false);
    expect(makesDependencyCycle(A, 'dddddddd-0000-4000-8000-00000000000d', lookup)).toBe(false);
  });

  it('a down while the parent is down is held with suppressed_by; the parent coming up releases it if still down', () => {
    const child = named(B, { dependsOn: A });
    const r = applySignal(child, { kind: 'fail', rid: null, now: T0 + 3 * MIN });
    const held = holdFlip(child, r.check, r.flip!, { inMaintenance: false, downParent: A }, T0 + 3 * MIN);
    expect(held.flip.held).toBe('dependency');
    expect(held.check.hold).toEqual({ told: 'up', cause: 'dependency', parent: A });
    expect(settleHold(held.check, { inMaintenance: false, downParent: A }, T0 + H)).toBeNull();
    expect(settleHold(held.check, NO_HOLD_FACTS, T0 + H)).toMatchObject({ ended: true, event: 'down', cause: 'dependency' });
    // Came up meanwhile: nothing is owed.
    const back = applySignal(held.check, { kind: 'success', rid: null, now: T0 + 30 * MIN });
    const up = holdFlip(held.check, back.check, back.flip!, { inMaintenance: false, downParent: A }, T0 + 30 * MIN);
    expect(up.flip.held).toBe('dependency');
    expect(settleHold(up.check, NO_HOLD_FACTS, T0 + H)).toMatchObject({ ended: true, event: null });
  });

  it('only the down is held: a child told down before its parent went down is told of its recovery', () => {
    const child = named(B, { dependsOn: A });
    const r = applySignal(child, { kind: 'fail', rid: null, now: T0 });
    const told = holdFlip(child, r.check, r.flip!, NO_HOLD_FACTS, T0).check;
    const back = applySignal(told, { kind: 'success', rid: null, now: T0 + H });
    const up = holdFlip(told, back.check, back.flip!, { inMaintenance: false, downParent: A }, T0 + H);
    expect(notifyEvent(up.flip)).toBe('up');
    expect(up.check.hold).toBeUndefined();
  });

  it('through the chain: released from one parent, still held by another down one on the way', () => {
    const c = named(C, { status: 'down', dependsOn: B, hold: { told: 'up', cause: 'dependency', parent: A } });
    const moved = settleHold(c, { inMaintenance: false, downParent: B }, T0 + H)!;
    expect(moved).toMatchObject({ ended: false, event: null });
    expect(moved.check.hold).toEqual({ told: 'up', cause: 'dependency', parent: B });
  });

  it('input: a check UUID or null', () => {
    expect(validateCheckInput({ depends_on: A })).toEqual({ ok: true, input: { depends_on: A } });
    expect(validateCheckInput({ depends_on: null })).toEqual({ ok: true, input: { depends_on: null } });
    for (const bad of ['', 'not-a-uuid', A.toUpperCase(), 5, true]) {
      expect(validateCheckInput({ depends_on: bad })).toEqual({ ok: false, error: 'json validation error: depends_on is not a check UUID' });
    }
    const set = applyCheckInput(check(), { depends_on: A }, 3);
    expect(set.dependsOn).toBe(A);
    expect('dependsOn' in applyCheckInput(set, { depends_on: null }, 3)).toBe(false);
  });
});
