// status-machine.md as executable tables: derived times, display status, every
// signal rule, pause/resume, the evaluator, alert selection, and the worked
// examples of §10 replayed against a hand-moved clock.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import {
  applyPause,
  applyResume,
  applySignal,
  deadlineDue,
  displayStatus,
  downAt,
  effectiveKind,
  evaluateDeadline,
  expectedNext,
  goingDownAfter,
  graceStart,
  isStarted,
  nextStatusChange,
  notifyEvent,
  recomputeAfterUpdate,
  shouldNotify,
  statusAt,
  statusInputsOf,
} from '../../daemon/domain/status.js';
import { newCheck } from '../../daemon/domain/check-input.js';
import type {
  ApiVersion,
  CheckRecord,
  DisplayStatus,
  FlipRecord,
  PingKind,
  StoredStatus,
} from '../../daemon/domain/types.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const DAY = 24 * H;

/** An instant on 2024-01-01 (UTC) from `HH:MM[:SS]`, or a full ISO string. */
function t(time: string): number {
  return Date.parse(time.includes('T') ? time : `2024-01-01T${time.length === 5 ? `${time}:00` : time}Z`);
}

function check(fields: Partial<CheckRecord> = {}): CheckRecord {
  return {
    ...newCheck({ uuid: '6f3b5c1e-1111-4222-8333-944455556666', projectId: 'p1', badgeKey: 'b1', createdAt: t('00:00') }),
    channels: ['c1'],
    ...fields,
  };
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}

const RID_A = '0a0a0a0a-0000-4000-8000-00000000000a';
const RID_B = '0b0b0b0b-0000-4000-8000-00000000000b';

// ---------------------------------------------------------------------------

describe('derived times E, G (next_ping), D (alert_after), §2', () => {
  const ping = t('10:00');
  const cases: {
    name: string;
    c: CheckRecord;
    E: number | null;
    G: number | null;
    D: number | null;
  }[] = [
    { name: 'new, not started', c: check(), E: null, G: null, D: null },
    { name: 'paused, not started', c: check({ status: 'paused', lastPing: ping }), E: null, G: null, D: null },
    {
      name: 'up: last_ping + timeout, D adds grace (1 day + 1 hour)',
      c: check({ status: 'up', lastPing: ping }),
      E: ping + DAY,
      G: ping + DAY,
      D: ping + DAY + H,
    },
    {
      name: 'up and started before E: G is the start time',
      c: check({ status: 'up', lastPing: ping, lastStart: ping + H }),
      E: ping + DAY,
      G: ping + H,
      D: ping + 2 * H,
    },
    {
      name: 'up and started after E (late): G stays E',
      c: check({ status: 'up', lastPing: ping, lastStart: ping + DAY + MIN }),
      E: ping + DAY,
      G: ping + DAY,
      D: ping + DAY + H,
    },
    {
      name: 'new and started: last_start + grace',
      c: check({ lastStart: ping }),
      E: null,
      G: ping,
      D: ping + H,
    },
    {
      name: 'paused and started: last_start + grace',
      c: check({ status: 'paused', lastPing: ping - DAY, lastStart: ping }),
      E: null,
      G: ping,
      D: ping + H,
    },
    { name: 'down', c: check({ status: 'down', lastPing: ping }), E: null, G: null, D: null },
    {
      name: 'down then started: still nothing expected',
      c: check({ status: 'down', lastPing: ping, lastStart: ping + MIN }),
      E: null,
      G: null,
      D: null,
    },
  ];
  it.each(cases)('$name', ({ c, E, G, D }) => {
    expect(expectedNext(c)).toBe(E);
    expect(graceStart(c)).toBe(G);
    expect(goingDownAfter(c)).toBe(D);
    // What a client computes from the inputs it receives is the same instant.
    expect(downAt(statusInputsOf(c))).toBe(D);
  });

  it('uses the schedule for cron checks: first fire strictly after last_ping', () => {
    const c = check({
      kind: 'cron',
      schedule: '0 * * * *',
      status: 'up',
      lastPing: t('2000-01-01T00:00:00Z'),
    });
    expect(graceStart(c)).toBe(t('2000-01-01T01:00:00Z'));
    expect(goingDownAfter(c)).toBe(t('2000-01-01T02:00:00Z'));
  });

  it('keeps next_ping at the first fire after last_ping however many runs were missed', () => {
    const c = check({ kind: 'cron', schedule: '0 * * * *', status: 'up', lastPing: t('00:00'), grace: 60 });
    expect(graceStart(c)).toBe(t('01:00'));
    expect(displayStatus(c, t('2024-01-05T00:00:00Z'), 3)).toBe('down');
  });

  it('gives E = ∞ for a one-shot OnCalendar date in the past', () => {
    const c = check({ kind: 'oncalendar', schedule: '2019-01-01', status: 'up', lastPing: t('2020-01-01T00:00:00Z') });
    expect(expectedNext(c)).toBeNull();
    expect(graceStart(c)).toBeNull();
    expect(goingDownAfter(c)).toBeNull();
  });

  it('ignores timeout while the kind is a schedule', () => {
    const c = check({ kind: 'oncalendar', schedule: '00:00', timeout: 60, status: 'up', lastPing: t('2000-01-01T00:00:00Z') });
    expect(expectedNext(c)).toBe(t('2000-01-02T00:00:00Z'));
  });
});

// ---------------------------------------------------------------------------

describe('display status, §3', () => {
  const ping = t('10:00');
  const grace = 3600;
  const up = check({ status: 'up', lastPing: ping, timeout: 86400, grace });
  const E = ping + DAY;
  const fiveMinAgo = (now: number) => now - 5 * MIN;

  const cases: { name: string; c: CheckRecord; now: number; v: ApiVersion[]; want: DisplayStatus }[] = [
    { name: 'new check', c: check(), now: ping, v: [1, 2, 3], want: 'new' },
    { name: 'paused check', c: check({ status: 'paused', lastPing: ping }), now: ping + 9 * DAY, v: [1, 2, 3], want: 'paused' },
    { name: 'up before E', c: up, now: E - S, v: [1, 2, 3], want: 'up' },
    { name: 'grace at exactly E', c: up, now: E, v: [1, 2, 3], want: 'grace' },
    { name: 'grace 1 day 30 min after the last ping (defaults)', c: up, now: ping + DAY + 30 * MIN, v: [1, 2, 3], want: 'grace' },
    { name: 'grace one second before E + grace', c: up, now: E + grace * S - S, v: [1, 2, 3], want: 'grace' },
    { name: 'down at exactly E + grace, before the evaluator stored it', c: up, now: E + grace * S, v: [1, 2, 3], want: 'down' },
    { name: 'past grace', c: up, now: ping + 3 * DAY, v: [1, 2, 3], want: 'down' },
    {
      name: 'stored down wins over a recent last_ping',
      c: check({ status: 'down', lastPing: ping }),
      now: ping + MIN,
      v: [1, 2, 3],
      want: 'down',
    },
    {
      name: 'up then started: v2/v3 still judge by the last completed ping',
      c: { ...up, lastStart: fiveMinAgo(ping + H) },
      now: ping + H,
      v: [2, 3],
      want: 'up',
    },
    {
      name: 'up then started: v1 shows started',
      c: { ...up, lastStart: fiveMinAgo(ping + H) },
      now: ping + H,
      v: [1],
      want: 'started',
    },
    {
      name: 'up, started, still late by E + grace: down (rules 4–6 use E, not G)',
      c: { ...up, lastStart: E + grace * S - MIN },
      now: E + grace * S,
      v: [2, 3],
      want: 'down',
    },
    {
      name: 'up then started and expired: down in every version',
      c: { ...up, lastStart: ping + H },
      now: ping + 2 * H,
      v: [1, 2, 3],
      want: 'down',
    },
    {
      name: 'new and started: v2/v3 show new',
      c: check({ lastStart: fiveMinAgo(ping) }),
      now: ping,
      v: [2, 3],
      want: 'new',
    },
    { name: 'new and started: v1 shows started', c: check({ lastStart: fiveMinAgo(ping) }), now: ping, v: [1], want: 'started' },
    {
      name: 'paused and started: v1 shows started',
      c: check({ status: 'paused', lastStart: fiveMinAgo(ping) }),
      now: ping,
      v: [1],
      want: 'started',
    },
    {
      name: 'paused and started: v3 shows paused',
      c: check({ status: 'paused', lastStart: fiveMinAgo(ping) }),
      now: ping,
      v: [3],
      want: 'paused',
    },
    {
      name: 'down and started: v1 shows started while the run is young',
      c: check({ status: 'down', lastPing: ping - H, lastStart: fiveMinAgo(ping) }),
      now: ping,
      v: [1],
      want: 'started',
    },
    {
      name: 'down and started: v3 shows down',
      c: check({ status: 'down', lastPing: ping - H, lastStart: fiveMinAgo(ping) }),
      now: ping,
      v: [3],
      want: 'down',
    },
    {
      name: 'new and started, no finish within grace: down (rule 1)',
      c: check({ lastStart: ping - H }),
      now: ping,
      v: [1, 2, 3],
      want: 'down',
    },
    {
      name: 'paused and started, expired: down before any flip',
      c: check({ status: 'paused', lastStart: ping - H }),
      now: ping,
      v: [1, 2, 3],
      want: 'down',
    },
    {
      name: 'down and started, expired: down',
      c: check({ status: 'down', lastStart: ping - 2 * H }),
      now: ping,
      v: [1, 2, 3],
      want: 'down',
    },
    {
      name: 'started one second short of grace',
      c: check({ lastStart: ping - H + S }),
      now: ping,
      v: [2],
      want: 'new',
    },
    {
      name: 'one-shot OnCalendar in the past: up forever',
      c: check({ kind: 'oncalendar', schedule: '2019-01-01', status: 'up', lastPing: t('2020-01-01T00:00:00Z') }),
      now: t('2030-01-01T00:00:00Z'),
      v: [1, 2, 3],
      want: 'up',
    },
  ];
  for (const { name, c, now, v, want } of cases) {
    for (const version of v) {
      it(`${name} (v${version})`, () => {
        expect(displayStatus(c, now, version)).toBe(want);
      });
    }
  }

  it('reports started exactly while last_start is set', () => {
    expect(isStarted(check())).toBe(false);
    expect(isStarted(check({ lastStart: ping }))).toBe(true);
    expect(isStarted(check({ status: 'down', lastStart: ping }))).toBe(true);
  });

  it('follows cron schedules in their time zone (§10.2 times)', () => {
    const c = check({
      kind: 'cron',
      schedule: '0 2 * * *',
      tz: 'Europe/Riga',
      status: 'up',
      lastPing: t('2024-01-15T00:30:00Z'),
    });
    expect(displayStatus(c, t('2024-01-15T23:59:59Z'), 3)).toBe('up');
    expect(displayStatus(c, t('2024-01-16T00:00:00Z'), 3)).toBe('grace');
    expect(displayStatus(c, t('2024-01-16T01:00:00Z'), 3)).toBe('down');
  });

  it('follows OnCalendar schedules', () => {
    const c = check({ kind: 'oncalendar', schedule: '00:00', grace: 60, status: 'up', lastPing: t('00:00') });
    expect(displayStatus(c, t('23:59:59'), 3)).toBe('up');
    expect(displayStatus(c, t('2024-01-02T00:00:30Z'), 3)).toBe('grace');
    expect(displayStatus(c, t('2024-01-02T00:01:00Z'), 3)).toBe('down');
  });

  it('statusAt, which checktop applies to the fields gRPC sends, is displayStatus in v2 and v3', () => {
    const c = check({ kind: 'cron', schedule: '0 2 * * *', status: 'up', lastPing: t('02:00'), lastStart: t('01:59') });
    for (const now of [t('01:00'), t('2024-01-02T02:00:00Z'), t('2024-01-02T02:30:00Z'), t('2024-01-03T00:00:00Z')]) {
      expect(statusAt(statusInputsOf(c), now)).toBe(displayStatus(c, now, 3));
      expect(statusAt(statusInputsOf(c), now)).toBe(displayStatus(c, now, 2));
    }
  });

  it('nextStatusChange: the status stays what it is until that instant and changes at it', () => {
    const cases = [
      check({ status: 'up', lastPing: t('00:00') }),
      check({ status: 'up', lastPing: t('00:00'), lastStart: t('00:10') }),
      check({ kind: 'cron', schedule: '0 2 * * *', tz: 'Europe/Riga', status: 'up', lastPing: t('00:30') }),
      check({ status: 'paused', lastStart: t('00:00') }),
      check({ status: 'down' }),
      check(),
    ];
    for (const c of cases) {
      const inputs = statusInputsOf(c);
      let at = t('00:00') - H;
      for (let steps = 0; steps < 5; steps++) {
        const next = nextStatusChange(inputs, at);
        const status = displayStatus(c, at, 3);
        const end = Math.min(next, at + 3 * DAY);
        for (const m of [at + 1, Math.floor((at + end) / 2), end - 1]) expect(displayStatus(c, m, 3)).toBe(status);
        if (next === Infinity) break;
        expect(next).toBeGreaterThan(at);
        at = next;
      }
    }
    expect(nextStatusChange(statusInputsOf(check({ status: 'up', lastPing: t('00:00') })), t('00:00'))).toBe(t('2024-01-02T00:00:00Z'));
    expect(nextStatusChange(statusInputsOf(check()), t('00:00'))).toBe(Infinity);
  });
});

// ---------------------------------------------------------------------------

describe('signals, §6', () => {
  const now = t('12:00');

  describe('success', () => {
    const cases: {
      name: string;
      c: CheckRecord;
      rid: string | null;
      lastStart: number | null;
      lastStartRid: string | null;
      lastDuration: number | null;
    }[] = [
      {
        name: 'no run open: no duration, clears an old one',
        c: check({ status: 'up', lastPing: now - H, lastDuration: 5 * S }),
        rid: null,
        lastStart: null,
        lastStartRid: null,
        lastDuration: null,
      },
      {
        name: 'null rid matches null start rid: timed, run ends',
        c: check({ status: 'up', lastPing: now - H, lastStart: now - 10 * S }),
        rid: null,
        lastStart: null,
        lastStartRid: null,
        lastDuration: 10 * S,
      },
      {
        name: 'equal rid: timed, run ends',
        c: check({ status: 'up', lastPing: now - H, lastStart: now - MIN, lastStartRid: RID_A }),
        rid: RID_A,
        lastStart: null,
        lastStartRid: null,
        lastDuration: MIN,
      },
      {
        name: 'null rid against a rid-tagged start: run ends untimed',
        c: check({ status: 'up', lastPing: now - H, lastStart: now - MIN, lastStartRid: RID_A }),
        rid: null,
        lastStart: null,
        lastStartRid: null,
        lastDuration: null,
      },
      {
        name: 'different non-null rid: the other run stays open, untimed',
        c: check({ status: 'up', lastPing: now - H, lastStart: now - MIN, lastStartRid: RID_A, lastDuration: 7 * S }),
        rid: RID_B,
        lastStart: now - MIN,
        lastStartRid: RID_A,
        lastDuration: null,
      },
      {
        name: 'non-null rid against a start without rid: the start stays open',
        c: check({ status: 'up', lastPing: now - H, lastStart: now - MIN }),
        rid: RID_B,
        lastStart: now - MIN,
        lastStartRid: null,
        lastDuration: null,
      },
    ];
    it.each(cases)('$name', ({ c, rid, lastStart, lastStartRid, lastDuration }) => {
      const r = applySignal(c, { kind: 'success', rid, now });
      expect(r.kind).toBe('success');
      expect(r.check.lastPing).toBe(now);
      expect(r.check.lastStart).toBe(lastStart);
      expect(r.check.lastStartRid).toBe(lastStartRid);
      expect(r.check.lastDuration).toBe(lastDuration);
      expect(r.check.status).toBe('up');
      expect(r.check.nPings).toBe(c.nPings + 1);
      expect(r.flip).toBeNull();
      expect(r.check.alertAfter).toBe(goingDownAfter(r.check));
    });

    it.each<StoredStatus>(['new', 'paused', 'down'])('%s → up records a flip with reason "" at the ping time', (from) => {
      const r = applySignal(check({ status: from, lastPing: from === 'new' ? null : now - DAY }), {
        kind: 'success',
        rid: null,
        now,
      });
      expect(r.check.status).toBe('up');
      expect(r.flip).toEqual({ created: now, oldStatus: from, newStatus: 'up', reason: '', processed: false });
    });

    it('sets alert_after to last_ping + timeout + grace', () => {
      const r = applySignal(check({ timeout: 3600, grace: 60 }), { kind: 'success', rid: null, now });
      expect(r.check.alertAfter).toBe(now + H + MIN);
    });

    it('keeps the open run as the deadline when it is earlier than E', () => {
      const c = check({ status: 'up', lastPing: now - H, lastStart: now - MIN, lastStartRid: RID_A });
      const r = applySignal(c, { kind: 'success', rid: RID_B, now });
      expect(r.check.alertAfter).toBe(now - MIN + H);
    });
  });

  describe('fail', () => {
    const cases: {
      name: string;
      c: CheckRecord;
      rid: string | null;
      lastDuration: number | null;
    }[] = [
      { name: 'no run open', c: check({ status: 'up', lastPing: now - H, lastDuration: S }), rid: null, lastDuration: null },
      { name: 'matching null rids: timed', c: check({ status: 'up', lastStart: now - 30 * S }), rid: null, lastDuration: 30 * S },
      {
        name: 'matching rid: timed',
        c: check({ status: 'up', lastStart: now - 30 * S, lastStartRid: RID_A }),
        rid: RID_A,
        lastDuration: 30 * S,
      },
      {
        name: 'different rid: untimed, but the run still ends',
        c: check({ status: 'up', lastStart: now - 30 * S, lastStartRid: RID_A }),
        rid: RID_B,
        lastDuration: null,
      },
      {
        name: 'null rid against a rid-tagged start: run ends',
        c: check({ status: 'up', lastStart: now - 30 * S, lastStartRid: RID_A }),
        rid: null,
        lastDuration: null,
      },
    ];
    it.each(cases)('$name', ({ c, rid, lastDuration }) => {
      const r = applySignal(c, { kind: 'fail', rid, now });
      expect(r.kind).toBe('fail');
      expect(r.check.lastPing).toBe(now);
      expect(r.check.lastStart).toBeNull();
      expect(r.check.lastStartRid).toBeNull();
      expect(r.check.lastDuration).toBe(lastDuration);
      expect(r.check.status).toBe('down');
      expect(r.check.alertAfter).toBeNull();
      expect(r.check.nPings).toBe(c.nPings + 1);
    });

    it.each<StoredStatus>(['new', 'up', 'paused'])('%s → down immediately, flip reason fail', (from) => {
      const r = applySignal(check({ status: from }), { kind: 'fail', rid: null, now });
      expect(r.flip).toEqual({ created: now, oldStatus: from, newStatus: 'down', reason: 'fail', processed: false });
    });

    it('records no flip on a check already down', () => {
      const r = applySignal(check({ status: 'down', lastPing: now - H }), { kind: 'fail', rid: null, now });
      expect(r.flip).toBeNull();
      expect(r.check.status).toBe('down');
      expect(r.check.lastPing).toBe(now);
    });
  });

  describe('start', () => {
    it.each<StoredStatus>(['new', 'up', 'paused', 'down'])('on %s: sets last_start and rid, keeps status, no flip', (status) => {
      const c = check({ status, lastPing: status === 'new' ? null : now - H, lastDuration: 42 * S, nPings: 3 });
      const r = applySignal(c, { kind: 'start', rid: RID_A, now });
      expect(r.flip).toBeNull();
      expect(r.check.status).toBe(status);
      expect(r.check.lastStart).toBe(now);
      expect(r.check.lastStartRid).toBe(RID_A);
      expect(r.check.lastPing).toBe(c.lastPing);
      expect(r.check.lastDuration).toBe(42 * S);
      expect(r.check.nPings).toBe(4);
    });

    const deadlines: { name: string; c: CheckRecord; want: number | null }[] = [
      { name: 'new: now + grace', c: check(), want: now + H },
      { name: 'paused: now + grace', c: check({ status: 'paused', lastPing: now - 5 * DAY }), want: now + H },
      { name: 'up, on time: now + grace', c: check({ status: 'up', lastPing: now - H }), want: now + H },
      {
        name: 'up, already late: keeps E + grace',
        c: check({ status: 'up', lastPing: now - DAY - 10 * MIN }),
        want: now - 10 * MIN + H,
      },
      { name: 'down: null', c: check({ status: 'down', lastPing: now - H }), want: null },
    ];
    it.each(deadlines)('alert_after = min(E, now) + grace; $name', ({ c, want }) => {
      expect(applySignal(c, { kind: 'start', rid: null, now }).check.alertAfter).toBe(want);
    });

    it('a second start overwrites the first, so only the latest run is timed', () => {
      const first = applySignal(check({ status: 'up', lastPing: now - H }), { kind: 'start', rid: RID_A, now }).check;
      const second = applySignal(first, { kind: 'start', rid: null, now: now + MIN }).check;
      expect(second.lastStart).toBe(now + MIN);
      expect(second.lastStartRid).toBeNull();
      const done = applySignal(second, { kind: 'success', rid: null, now: now + 3 * MIN }).check;
      expect(done.lastDuration).toBe(2 * MIN);
    });
  });

  describe('log and ign', () => {
    it.each<[PingKind, StoredStatus]>([
      ['log', 'new'],
      ['log', 'up'],
      ['log', 'paused'],
      ['log', 'down'],
      ['ign', 'new'],
      ['ign', 'up'],
      ['ign', 'paused'],
      ['ign', 'down'],
    ])('%s on %s: only n_pings and alert_after change', (kind, status) => {
      const c = check({
        status,
        lastPing: status === 'new' ? null : now - H,
        lastStart: now - MIN,
        lastStartRid: RID_A,
        lastDuration: 9 * S,
        nPings: 7,
        alertAfter: 12345,
      });
      const r = applySignal(c, { kind, rid: RID_B, now });
      expect(r.flip).toBeNull();
      expect(r.kind).toBe(kind);
      expect(r.check).toEqual({ ...c, nPings: 8, alertAfter: goingDownAfter(c) });
    });

    it('a log does not delay a timeout', () => {
      const c = check({ status: 'up', lastPing: now - DAY, alertAfter: now + H });
      expect(applySignal(c, { kind: 'log', rid: null, now: now + 30 * MIN }).check.alertAfter).toBe(now + H);
    });
  });

  describe('paused checks, §6.5', () => {
    const paused = check({ status: 'paused', lastPing: now - DAY, nPings: 2 });

    it('success un-pauses to up with a paused→up flip that alerts nobody', () => {
      const r = applySignal(paused, { kind: 'success', rid: null, now });
      expect(r.check.status).toBe('up');
      expect(r.flip?.oldStatus).toBe('paused');
      expect(shouldNotify(r.flip!)).toBe(false);
    });

    it('fail un-pauses to down and alerts', () => {
      const r = applySignal(paused, { kind: 'fail', rid: null, now });
      expect(r.check.status).toBe('down');
      expect(notifyEvent(r.flip!)).toBe('down');
    });

    it('start keeps it paused but started, with a deadline', () => {
      const r = applySignal(paused, { kind: 'start', rid: null, now });
      expect(r.check.status).toBe('paused');
      expect(isStarted(r.check)).toBe(true);
      expect(r.check.alertAfter).toBe(now + H);
    });

    it.each<PingKind>(['success', 'fail', 'start', 'log', 'ign'])(
      'with manual_resume, %s becomes ign: counted, nothing else',
      (kind) => {
        const c = { ...paused, manualResume: true };
        const r = applySignal(c, { kind, rid: null, now });
        expect(r.kind).toBe('ign');
        expect(r.flip).toBeNull();
        expect(r.check).toEqual({ ...c, nPings: 3 });
      },
    );

    it('manual_resume only matters while paused', () => {
      expect(effectiveKind(check({ status: 'up', manualResume: true }), 'fail')).toBe('fail');
      expect(effectiveKind(check({ status: 'paused', manualResume: false }), 'fail')).toBe('fail');
      expect(effectiveKind(check({ status: 'paused', manualResume: true }), 'fail')).toBe('ign');
    });
  });

  it('counts every kind: n_pings + 1', () => {
    let c = check();
    for (const kind of ['start', 'log', 'ign', 'success', 'fail'] as PingKind[]) {
      c = applySignal(c, { kind, rid: null, now }).check;
    }
    expect(c.nPings).toBe(5);
  });

  it('never mutates its input', () => {
    const c = deepFreeze(check({ status: 'up', lastPing: now - H, lastStart: now - MIN }));
    for (const kind of ['success', 'fail', 'start', 'log', 'ign'] as PingKind[]) {
      expect(() => applySignal(c, { kind, rid: null, now })).not.toThrow();
    }
    expect(() => applyPause(c, now)).not.toThrow();
    expect(() => applyResume(deepFreeze(check({ status: 'paused' })), now)).not.toThrow();
    expect(() => evaluateDeadline(deepFreeze(check({ status: 'up', lastPing: now - 2 * DAY, alertAfter: now - DAY })), now)).not.toThrow();
    expect(() => recomputeAfterUpdate(c)).not.toThrow();
    expect(c.lastStart).toBe(now - MIN);
  });
});

// ---------------------------------------------------------------------------

describe('pause and resume, §7', () => {
  const now = t('10:05');

  it.each<StoredStatus>(['new', 'up', 'down'])('pause on %s: paused, run and deadline cleared, processed flip', (status) => {
    const c = check({
      status,
      lastPing: t('10:00'),
      lastStart: t('10:01'),
      lastStartRid: RID_A,
      lastDuration: 3 * S,
      alertAfter: t('11:00'),
      nPings: 4,
    });
    const r = applyPause(c, now);
    expect(r.changed).toBe(true);
    expect(r.conflict).toBe(false);
    expect(r.check).toEqual({ ...c, status: 'paused', lastStart: null, lastStartRid: null, alertAfter: null });
    expect(r.flip).toEqual({ created: now, oldStatus: status, newStatus: 'paused', reason: '', processed: true });
    expect(shouldNotify(r.flip!)).toBe(false);
  });

  it('pause on paused changes nothing, not even last_start', () => {
    const c = check({ status: 'paused', lastStart: t('10:01'), alertAfter: t('11:01') });
    const r = applyPause(c, now);
    expect(r).toEqual({ check: c, flip: null, changed: false, conflict: false });
  });

  it('resume on paused: new, last_ping/last_start/alert_after null, processed flip', () => {
    const c = check({
      status: 'paused',
      lastPing: t('10:00'),
      lastStart: t('10:01'),
      lastStartRid: RID_A,
      lastDuration: 3 * S,
      alertAfter: t('11:01'),
      nPings: 4,
    });
    const r = applyResume(c, now);
    expect(r.changed).toBe(true);
    expect(r.conflict).toBe(false);
    expect(r.check).toEqual({
      ...c,
      status: 'new',
      lastPing: null,
      lastStart: null,
      lastStartRid: null,
      alertAfter: null,
    });
    expect(r.flip).toEqual({ created: now, oldStatus: 'paused', newStatus: 'new', reason: '', processed: true });
  });

  it('resume of a paused check whose start timed out (displays down) still works', () => {
    const c = check({ status: 'paused', lastStart: now - 2 * H });
    expect(displayStatus(c, now, 3)).toBe('down');
    expect(applyResume(c, now).check.status).toBe('new');
  });

  it.each<StoredStatus>(['new', 'up', 'down'])('resume on %s is a conflict (409) and changes nothing', (status) => {
    const c = check({ status, lastPing: t('10:00') });
    expect(applyResume(c, now)).toEqual({ check: c, flip: null, changed: false, conflict: true });
  });
});

describe('update, §7', () => {
  it('recomputes alert_after from the new settings and keeps the stored status', () => {
    const c = check({ status: 'up', lastPing: t('10:00'), alertAfter: t('10:00') + DAY + H });
    const updated = recomputeAfterUpdate({ ...c, timeout: 3600, grace: 60 });
    expect(updated.alertAfter).toBe(t('10:00') + H + MIN);
    expect(updated.status).toBe('up');
  });

  it('a shorter timeout changes the display status at once, not the stored one', () => {
    const c = recomputeAfterUpdate(check({ status: 'up', lastPing: t('10:00'), timeout: 60, grace: 60 }));
    expect(c.status).toBe('up');
    expect(displayStatus(c, t('10:05'), 3)).toBe('down');
  });

  it('leaves new and down checks without a deadline', () => {
    expect(recomputeAfterUpdate(check({ alertAfter: 5 })).alertAfter).toBeNull();
    expect(recomputeAfterUpdate(check({ status: 'down', lastPing: 1, alertAfter: 5 })).alertAfter).toBeNull();
  });
});

// ---------------------------------------------------------------------------

describe('the evaluator, §4', () => {
  const ping = t('10:00');
  const up = check({ status: 'up', lastPing: ping, timeout: 3600, grace: 600, alertAfter: t('11:10') });

  it('has nothing to do before the deadline', () => {
    expect(deadlineDue(up, t('11:09:59'))).toBe(false);
    expect(evaluateDeadline(up, t('11:09:59'))).toBeNull();
  });

  it('flips at exactly the deadline, timestamped with it', () => {
    expect(deadlineDue(up, t('11:10'))).toBe(true);
    const r = evaluateDeadline(up, t('11:10'));
    expect(r?.flip).toEqual({ created: t('11:10'), oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false });
    expect(r?.check).toEqual({ ...up, status: 'down', alertAfter: null });
  });

  it('timestamps a late detection with the deadline, not the detection time', () => {
    expect(evaluateDeadline(up, t('11:10:02'))?.flip?.created).toBe(t('11:10'));
  });

  it('uses D of the pre-change state, even when the stored alert_after is off', () => {
    const r = evaluateDeadline({ ...up, alertAfter: t('11:00') }, t('12:00'));
    expect(r?.flip?.created).toBe(t('11:10'));
  });

  it('in grace with a stale deadline: no flip, stays up, deadline recomputed', () => {
    const c = check({ status: 'up', lastPing: ping - DAY - 30 * MIN, alertAfter: ping - S });
    const r = evaluateDeadline(c, ping);
    expect(r).not.toBeNull();
    expect(r!.flip).toBeNull();
    expect(r!.check.status).toBe('up');
    expect(r!.check.alertAfter).toBe(ping + 30 * MIN);
  });

  it.each<StoredStatus>(['new', 'paused', 'up'])('a never-finished start on %s goes down at last_start + grace', (status) => {
    const c = applySignal(check({ status, lastPing: status === 'new' ? null : ping - MIN, grace: 1800 }), {
      kind: 'start',
      rid: null,
      now: ping,
    }).check;
    expect(evaluateDeadline(c, ping + 30 * MIN - S)).toBeNull();
    const r = evaluateDeadline(c, ping + 30 * MIN + 2 * S);
    expect(r?.flip).toEqual({ created: ping + 30 * MIN, oldStatus: status, newStatus: 'down', reason: 'timeout', processed: false });
    expect(r?.check.status).toBe('down');
    expect(r?.check.alertAfter).toBeNull();
    expect(isStarted(r!.check)).toBe(true);
  });

  it('leaves down checks and checks without a deadline alone', () => {
    expect(evaluateDeadline(check({ status: 'down', lastPing: 0, alertAfter: 1 }), ping)).toBeNull();
    expect(evaluateDeadline(check({ status: 'up', lastPing: ping - 5 * DAY, alertAfter: null }), ping)).toBeNull();
  });

  it('does not flip a check that a success just refreshed', () => {
    const refreshed = applySignal(up, { kind: 'success', rid: null, now: t('11:09') }).check;
    expect(evaluateDeadline(refreshed, t('11:10'))).toBeNull();
  });

  it('handles cron deadlines (§10.2: flip created 01:00:00)', () => {
    const c = recomputeAfterUpdate(
      check({ kind: 'cron', schedule: '0 2 * * *', tz: 'Europe/Riga', status: 'up', lastPing: t('2024-01-15T00:30:00Z') }),
    );
    expect(c.alertAfter).toBe(t('2024-01-16T01:00:00Z'));
    expect(evaluateDeadline(c, t('2024-01-16T00:59:59Z'))).toBeNull();
    expect(evaluateDeadline(c, t('2024-01-16T01:00:01Z'))?.flip?.created).toBe(t('2024-01-16T01:00:00Z'));
  });
});

// ---------------------------------------------------------------------------

describe('alerts, §9', () => {
  const cases: { flip: Omit<FlipRecord, 'created'>; event: 'up' | 'down' | null }[] = [
    { flip: { oldStatus: 'new', newStatus: 'up', reason: '', processed: false }, event: null },
    { flip: { oldStatus: 'paused', newStatus: 'up', reason: '', processed: false }, event: null },
    { flip: { oldStatus: 'down', newStatus: 'up', reason: '', processed: false }, event: 'up' },
    { flip: { oldStatus: 'up', newStatus: 'down', reason: 'fail', processed: false }, event: 'down' },
    { flip: { oldStatus: 'new', newStatus: 'down', reason: 'fail', processed: false }, event: 'down' },
    { flip: { oldStatus: 'paused', newStatus: 'down', reason: 'fail', processed: false }, event: 'down' },
    { flip: { oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false }, event: 'down' },
    { flip: { oldStatus: 'new', newStatus: 'down', reason: 'timeout', processed: false }, event: 'down' },
    { flip: { oldStatus: 'paused', newStatus: 'down', reason: 'timeout', processed: false }, event: 'down' },
    { flip: { oldStatus: 'up', newStatus: 'paused', reason: '', processed: true }, event: null },
    { flip: { oldStatus: 'down', newStatus: 'paused', reason: '', processed: true }, event: null },
    { flip: { oldStatus: 'paused', newStatus: 'new', reason: '', processed: true }, event: null },
    // Already handled by a worker: not queued again.
    { flip: { oldStatus: 'up', newStatus: 'down', reason: 'fail', processed: true }, event: null },
  ];
  it.each(cases)('$flip.oldStatus → $flip.newStatus ($flip.reason, processed $flip.processed): $event', ({ flip, event }) => {
    const f = { ...flip, created: 0 };
    expect(notifyEvent(f)).toBe(event);
    expect(shouldNotify(f)).toBe(event !== null);
  });
});

// ---------------------------------------------------------------------------
// §10: the worked examples, replayed with an injected clock.

/** A check plus everything the store would keep, driven by a manual clock. */
class Harness {
  flips: FlipRecord[] = [];
  constructor(
    public c: CheckRecord,
    readonly clock: ManualClock,
  ) {}
  at(time: string): this {
    this.clock.set(t(time));
    return this;
  }
  private keep(flip: FlipRecord | null): void {
    if (flip) this.flips.push(flip);
  }
  ping(kind: PingKind, rid: string | null = null): void {
    const r = applySignal(this.c, { kind, rid, now: this.clock.now() });
    this.c = r.check;
    this.keep(r.flip);
  }
  evaluate(): FlipRecord | null {
    const r = evaluateDeadline(this.c, this.clock.now());
    if (!r) return null;
    this.c = r.check;
    this.keep(r.flip);
    return r.flip;
  }
  pause(): void {
    const r = applyPause(this.c, this.clock.now());
    this.c = r.check;
    this.keep(r.flip);
  }
  resume(): boolean {
    const r = applyResume(this.c, this.clock.now());
    this.c = r.check;
    this.keep(r.flip);
    return !r.conflict;
  }
  /** The API-visible fields, as the representation would build them. */
  view(version: ApiVersion = 3) {
    return {
      status: displayStatus(this.c, this.clock.now(), version),
      started: isStarted(this.c),
      last_ping: this.c.lastPing,
      next_ping: graceStart(this.c),
      alert_after: this.c.alertAfter,
    };
  }
  /** The flips API's view: {timestamp, up}. */
  flipsApi() {
    return this.flips.map((f) => ({ timestamp: f.created, up: f.newStatus === 'up' ? 1 : 0 }));
  }
}

describe('worked example 10.1: simple check, timeout 3600, grace 600', () => {
  it('replays the table', () => {
    const h = new Harness(check({ timeout: 3600, grace: 600, createdAt: t('09:00') }), new ManualClock(t('09:00')));

    h.at('09:00');
    expect(h.view()).toEqual({ status: 'new', started: false, last_ping: null, next_ping: null, alert_after: null });

    h.at('10:00').ping('success');
    expect(h.view()).toEqual({ status: 'up', started: false, last_ping: t('10:00'), next_ping: t('11:00'), alert_after: t('11:10') });
    expect(h.flips.at(-1)).toMatchObject({ created: t('10:00'), oldStatus: 'new', newStatus: 'up' });
    expect(shouldNotify(h.flips.at(-1)!)).toBe(false);

    h.at('10:59:59');
    expect(h.view().status).toBe('up');
    h.at('11:00');
    expect(h.view()).toMatchObject({ status: 'grace', next_ping: t('11:00') });
    h.at('11:10');
    expect(h.view()).toMatchObject({ status: 'down', next_ping: t('11:00'), alert_after: t('11:10') });
    expect(h.c.status).toBe('up'); // computed, not yet stored

    h.at('11:10:02');
    const down = h.evaluate();
    expect(down).toEqual({ created: t('11:10'), oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false });
    expect(notifyEvent(down!)).toBe('down');
    expect(h.view()).toEqual({ status: 'down', started: false, last_ping: t('10:00'), next_ping: null, alert_after: null });
    expect(h.evaluate()).toBeNull(); // nothing more to do once stored

    h.at('11:30').ping('success');
    expect(h.view()).toEqual({ status: 'up', started: false, last_ping: t('11:30'), next_ping: t('12:30'), alert_after: t('12:40') });
    const recovered = h.flips.at(-1)!;
    expect(notifyEvent(recovered)).toBe('up');
    expect(recovered.created - down!.created).toBe(20 * MIN);

    h.at('12:00').ping('start');
    expect(h.view()).toEqual({ status: 'up', started: true, last_ping: t('11:30'), next_ping: t('12:00'), alert_after: t('12:10') });
    expect(h.view(1).status).toBe('started');

    const flipsBefore = h.flips.length;
    h.at('12:07').ping('success');
    expect(h.view()).toEqual({ status: 'up', started: false, last_ping: t('12:07'), next_ping: t('13:07'), alert_after: t('13:17') });
    expect(h.flips.length).toBe(flipsBefore);
    expect(h.c.lastDuration).toBe(420 * S);

    h.at('13:00').ping('start');
    expect(h.view()).toEqual({ status: 'up', started: true, last_ping: t('12:07'), next_ping: t('13:00'), alert_after: t('13:10') });
    expect(h.c.lastDuration).toBe(420 * S);

    h.at('13:10');
    expect(h.view()).toMatchObject({ status: 'down', started: true, next_ping: t('13:00') });
    expect(h.view(1).status).toBe('down');

    h.at('13:10:01');
    expect(h.evaluate()).toEqual({ created: t('13:10'), oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false });
    expect(h.view()).toEqual({ status: 'down', started: true, last_ping: t('12:07'), next_ping: null, alert_after: null });

    h.at('13:20').ping('success');
    expect(h.view()).toEqual({ status: 'up', started: false, last_ping: t('13:20'), next_ping: t('14:20'), alert_after: t('14:30') });
    expect(notifyEvent(h.flips.at(-1)!)).toBe('up');
    expect(h.c.lastDuration).toBe(1200 * S);

    expect(h.flips.filter(shouldNotify).map(notifyEvent)).toEqual(['down', 'up', 'down', 'up']);
  });
});

describe('worked example 10.2: cron 0 2 * * * in Europe/Riga, grace 3600', () => {
  const base = () =>
    new Harness(
      check({ kind: 'cron', schedule: '0 2 * * *', tz: 'Europe/Riga', grace: 3600 }),
      new ManualClock(t('2024-01-15T00:30:00Z')),
    );

  it('goes through grace to down, the evaluator flipping at 01:00:00', () => {
    const h = base();
    h.ping('success');
    const next = t('2024-01-16T00:00:00Z');
    expect(h.view()).toMatchObject({ status: 'up', next_ping: next });
    for (const [time, status] of [
      ['2024-01-15T23:59:59Z', 'up'],
      ['2024-01-16T00:00:00Z', 'grace'],
      ['2024-01-16T00:59:59Z', 'grace'],
      ['2024-01-16T01:00:00Z', 'down'],
    ] as const) {
      h.at(time);
      expect(h.view()).toMatchObject({ status, next_ping: next });
    }
    expect(h.evaluate()?.created).toBe(t('2024-01-16T01:00:00Z'));
    expect(h.view().next_ping).toBeNull();
  });

  it('a ping arriving in grace moves next_ping to the next day', () => {
    const h = base();
    h.ping('success');
    h.at('2024-01-16T00:05:00Z').ping('success');
    expect(h.view()).toMatchObject({ status: 'up', next_ping: t('2024-01-17T00:00:00Z') });
  });
});

describe('worked example 10.3: a start that never finishes (grace 1800)', () => {
  it.each<StoredStatus>(['new', 'paused'])('on a %s check', (status) => {
    const h = new Harness(check({ status, grace: 1800 }), new ManualClock(t('08:00')));
    h.ping('start');
    expect(h.view()).toMatchObject({ status, started: true, next_ping: t('08:00') });
    h.at('08:29:59');
    expect(h.view()).toMatchObject({ status, started: true, next_ping: t('08:00') });
    expect(h.evaluate()).toBeNull();
    h.at('08:30');
    expect(h.view()).toMatchObject({ status: 'down', started: true, next_ping: t('08:00') });
    h.at('08:30:02');
    const flip = h.evaluate();
    expect(flip).toEqual({ created: t('08:30'), oldStatus: status, newStatus: 'down', reason: 'timeout', processed: false });
    expect(notifyEvent(flip!)).toBe('down');
    expect(h.view()).toMatchObject({ status: 'down', started: true, next_ping: null });
  });
});

describe('worked example 10.4: concurrent runs with rid (timeout 1 day, grace 1800)', () => {
  it('keeps B running after A finishes and times only B on the check', () => {
    const h = new Harness(check({ status: 'up', lastPing: t('07:00'), grace: 1800 }), new ManualClock(t('08:00')));
    h.ping('start', RID_A);
    expect(h.view().started).toBe(true);
    expect(h.c.lastStartRid).toBe(RID_A);
    expect(h.view().next_ping).toBe(t('08:00'));

    h.at('08:01').ping('start', RID_B);
    expect(h.c.lastStartRid).toBe(RID_B);
    expect(h.view().next_ping).toBe(t('08:01'));

    h.at('08:05').ping('success', RID_A);
    expect(h.view().started).toBe(true);
    expect(h.c.lastStartRid).toBe(RID_B);
    expect(h.view().next_ping).toBe(t('08:01'));
    expect(h.c.lastDuration).toBeNull();

    h.at('08:06').ping('success', RID_B);
    expect(h.view().started).toBe(false);
    expect(h.c.lastStartRid).toBeNull();
    expect(h.view().next_ping).toBe(t('08:06') + DAY);
    expect(h.c.lastDuration).toBe(300 * S);
  });
});

describe('worked example 10.5: pause and resume', () => {
  it('replays the table, flips API included', () => {
    const h = new Harness(check(), new ManualClock(t('10:00')));
    h.ping('success');
    expect(h.view()).toMatchObject({ status: 'up', last_ping: t('10:00') });

    h.at('10:05').pause();
    expect(h.view()).toMatchObject({ status: 'paused', last_ping: t('10:00') });

    h.at('10:06').pause();
    expect(h.view()).toMatchObject({ status: 'paused', last_ping: t('10:00') });

    h.at('10:07');
    expect(h.resume()).toBe(true);
    expect(h.view()).toMatchObject({ status: 'new', last_ping: null });

    h.at('10:08');
    expect(h.resume()).toBe(false); // 409
    expect(h.view()).toMatchObject({ status: 'new', last_ping: null });

    h.at('10:09').ping('success');
    expect(h.view()).toMatchObject({ status: 'up', last_ping: t('10:09') });
    expect(shouldNotify(h.flips.at(-1)!)).toBe(false);

    expect(h.flipsApi()).toEqual([
      { timestamp: t('10:00'), up: 1 },
      { timestamp: t('10:05'), up: 0 },
      { timestamp: t('10:07'), up: 0 },
      { timestamp: t('10:09'), up: 1 },
    ]);
    expect(h.flips.filter(shouldNotify)).toEqual([]);
  });
});
