// The deadline monitor (status-machine §4): a running daemon flips an overdue
// check to down within a second of its deadline, timestamped with the deadline
// itself; and a daemon started after its checks went overdue catches up with
// exactly one down flip each, at the deadline, however often it restarts,
// also when it serves before it has read every check.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DeadlineMonitor } from '../../daemon/monitor/deadlines.js';
import { ManualClock } from '../../daemon/shared/clock.js';
import { createLogger } from '../../daemon/shared/log.js';
import { api, send } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon } from '../helpers/in-process.js';
import { openTempStore, plantChecks } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const SEC = 1000;
/** 2024-01-15T09:00:00Z */
const T0 = Date.UTC(2024, 0, 15, 9, 0, 0);

async function setup(d: InProcessDaemon, body: Record<string, unknown> = { timeout: 60, grace: 60 }) {
  const p = await d.createProject();
  const c = (await api(d.url, '/api/v3/checks/', { key: p.apiKey, body })).json;
  const get = async () => (await api(d.url, `/api/v3/checks/${c.uuid}`, { key: p.apiKey })).json;
  const flips = async () => (await api(d.url, `/api/v3/checks/${c.uuid}/flips/`, { key: p.apiKey })).json as any[];
  const ping = async (suffix = '') => {
    const r = await send(d.url, `/ping/${c.uuid}${suffix}`);
    expect(r.status).toBe(200);
    // Let the event tail hand the change to the monitor before anyone pokes it.
    d.daemon.events.drain();
  };
  return { p, uuid: c.uuid as string, get, flips, ping };
}

describe('while running (real clock)', () => {
  it('an overdue check goes down within a second of its deadline, the flip timestamped with the deadline', async () => {
    const d = await startInProcess();
    const { uuid, get, ping } = await setup(d);
    await ping();
    // Timeout and grace are at least 60 s through the API; move the last ping
    // back so the deadline (last_ping + 120 s) is 400 ms ahead.
    const store = d.daemon.store;
    const revBefore = store.revision();
    const deadline = Date.now() + 400;
    await store.transact(() => {
      const c = store.getCheck(uuid)!;
      store.saveCheckInTxn({ ...c, lastPing: deadline - 120 * SEC, alertAfter: deadline }, Date.now(), 'check.updated');
    });
    const flip = await waitFor(() => store.listFlips(uuid).find((f) => f.newStatus === 'down'), { timeout: 5000, what: 'the down flip' });
    expect(flip).toMatchObject({ created: deadline, oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false });
    // Stored within a second of the deadline: the evaluation instant is the event's time.
    const event = store.eventsAfter(revBefore, 100).find((e) => e.type === 'status.changed' && e.checkUuid === uuid)!;
    expect(event.at - deadline).toBeGreaterThanOrEqual(0);
    expect(event.at - deadline).toBeLessThan(1000);
    expect(store.getCheck(uuid)).toMatchObject({ status: 'down', alertAfter: null });
    const check = await get();
    expect(check.status).toBe('down');
    expect(check.next_ping).toBeNull();
    // Nothing more happens to a down check.
    await new Promise((r) => setTimeout(r, 300));
    expect(store.listFlips(uuid).filter((f) => f.newStatus === 'down')).toHaveLength(1);
  });
});

describe('with a hand-moved clock and poke()', () => {
  it('in grace: no flip; past the deadline: one timeout flip at last_ping + timeout + grace exactly', async () => {
    const clock = new ManualClock(T0);
    const d = await startInProcess({ clock });
    const { uuid, get, flips, ping } = await setup(d);
    clock.set(T0 + 250); // a ping with a sub-second time
    await ping();
    clock.set(T0 + 250 + 90 * SEC);
    await d.daemon.monitor.poke();
    expect((await get()).status).toBe('grace');
    expect(await flips()).toHaveLength(1);
    expect(d.daemon.store.getCheck(uuid)!.alertAfter).toBe(T0 + 250 + 120 * SEC);

    clock.set(T0 + 3600 * SEC); // detected long after the deadline
    await d.daemon.monitor.poke();
    const stored = d.daemon.store.listFlips(uuid);
    expect(stored[0]).toMatchObject({ created: T0 + 250 + 120 * SEC, oldStatus: 'up', newStatus: 'down', reason: 'timeout' });
    expect(await flips()).toEqual([
      { timestamp: '2024-01-15T09:02:00+00:00', up: 0 },
      { timestamp: '2024-01-15T09:00:00+00:00', up: 1 },
    ]);
    expect(await get()).toMatchObject({ status: 'down', next_ping: null, last_ping: '2024-01-15T09:00:00+00:00' });
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(uuid)).toHaveLength(2);

    // A success brings it back up (down → up), and the deadline is re-armed from it.
    clock.set(T0 + 3700 * SEC);
    await ping();
    expect((await get()).status).toBe('up');
    expect(d.daemon.store.getCheck(uuid)!.alertAfter).toBe(T0 + 3700 * SEC + 120 * SEC);
  });

  it('a start that never finishes: new → down at last_start + grace', async () => {
    const clock = new ManualClock(T0);
    const d = await startInProcess({ clock });
    const { uuid, get, ping } = await setup(d, { timeout: 3600, grace: 60 });
    await ping('/start');
    clock.set(T0 + 59 * SEC);
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(uuid)).toEqual([]);
    clock.set(T0 + 600 * SEC);
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(uuid)).toMatchObject([{ created: T0 + 60 * SEC, oldStatus: 'new', newStatus: 'down', reason: 'timeout' }]);
    expect(await get()).toMatchObject({ status: 'down', started: true });
  });

  it('a paused check that was started times out to down as well', async () => {
    const clock = new ManualClock(T0);
    const d = await startInProcess({ clock });
    const { p, uuid, ping } = await setup(d);
    await ping();
    await api(d.url, `/api/v3/checks/${uuid}/pause`, { method: 'POST', key: p.apiKey, body: {} });
    clock.set(T0 + 10 * SEC);
    await ping('/start');
    clock.set(T0 + 3600 * SEC);
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(uuid)[0]).toMatchObject({ created: T0 + 70 * SEC, oldStatus: 'paused', newStatus: 'down' });
  });

  it('a ping that lands after the deadline but before the evaluation wins: no down flip', async () => {
    const clock = new ManualClock(T0);
    const d = await startInProcess({ clock });
    const { uuid, ping } = await setup(d);
    await ping();
    clock.set(T0 + 500 * SEC);
    await ping();
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(uuid).map((f) => f.newStatus)).toEqual(['up']);
    expect(d.daemon.store.getCheck(uuid)!.status).toBe('up');
  });

  it('pause and delete disarm the deadline', async () => {
    const clock = new ManualClock(T0);
    const d = await startInProcess({ clock });
    const a = await setup(d);
    const b = await setup(d);
    await a.ping();
    await b.ping();
    await api(d.url, `/api/v3/checks/${a.uuid}/pause`, { method: 'POST', key: a.p.apiKey, body: {} });
    await api(d.url, `/api/v3/checks/${b.uuid}`, { method: 'DELETE', key: b.p.apiKey });
    d.daemon.events.drain();
    expect(d.daemon.monitor.armedCount).toBe(0);
    clock.set(T0 + 3600 * SEC);
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(a.uuid).map((f) => f.newStatus)).toEqual(['paused', 'up']);
  });
});

describe('restart catch-up', () => {
  it('ping, stop, move the clock past the deadline, start: down with exactly one down flip at the deadline', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    let d = await startInProcess({ dataDir: dir, clock });
    const { p, uuid } = await setup(d);
    clock.set(T0 + 1500);
    expect((await send(d.url, `/ping/${uuid}`)).status).toBe(200);
    await d.stop();

    clock.set(T0 + 24 * 3600 * SEC);
    d = await startInProcess({ dataDir: dir, clock });
    const deadline = T0 + 1500 + 120 * SEC;
    const check = async () => (await api(d.url, `/api/v3/checks/${uuid}`, { key: p.apiKey })).json;
    const flips = async () => (await api(d.url, `/api/v3/checks/${uuid}/flips/`, { key: p.apiKey })).json;
    // The catch-up is finished before the daemon answers its first request.
    expect(d.daemon.store.getCheck(uuid)).toMatchObject({ status: 'down', alertAfter: null });
    expect(d.daemon.store.listFlips(uuid)).toMatchObject([
      { created: deadline, oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false },
      { created: T0 + 1500, oldStatus: 'new', newStatus: 'up' },
    ]);
    expect((await check()).status).toBe('down');
    expect(await flips()).toEqual([
      { timestamp: '2024-01-15T09:02:01+00:00', up: 0 },
      { timestamp: '2024-01-15T09:00:01+00:00', up: 1 },
    ]);
    await d.stop();

    // Starting once more adds nothing.
    clock.set(T0 + 48 * 3600 * SEC);
    d = await startInProcess({ dataDir: dir, clock });
    await d.daemon.monitor.poke();
    expect(d.daemon.store.listFlips(uuid).filter((f) => f.newStatus === 'down')).toHaveLength(1);
    expect(await flips()).toHaveLength(2);
    await d.stop();
  });

  it('catches up with many checks at once (more than one batch), one flip each, only for the overdue ones', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    let d = await startInProcess({ dataDir: dir, clock });
    const p = await d.createProject({ checkLimit: 5000 });
    const store = d.daemon.store;
    const overdue: string[] = [];
    const fine: string[] = [];
    const made = await plantChecks(store, p.id, 1300, {
      createdAt: T0,
      shape: (c, i) => {
        const late = i % 13 !== 0;
        c.status = 'up';
        c.timeout = 60;
        c.grace = 60;
        c.lastPing = late ? T0 - 3600 * SEC + i * SEC : T0;
        c.alertAfter = c.lastPing + 120 * SEC;
        c.nPings = 1;
      },
    });
    made.forEach((c, i) => (i % 13 !== 0 ? overdue : fine).push(c.uuid));
    await d.stop();

    clock.set(T0 + 60 * SEC);
    d = await startInProcess({ dataDir: dir, clock });
    const s = d.daemon.store;
    for (const uuid of overdue) {
      const flips = s.listFlips(uuid);
      expect(flips).toHaveLength(1);
      expect(flips[0]!.created).toBe(s.getCheck(uuid)!.lastPing! + 120 * SEC);
      expect(s.getCheck(uuid)!.status).toBe('down');
    }
    for (const uuid of fine) {
      expect(s.listFlips(uuid)).toEqual([]);
      expect(s.getCheck(uuid)!.status).toBe('up');
    }
    expect(d.daemon.monitor.armedCount).toBe(fine.length);
    await d.stop();
  });
});

describe('a start that serves before every check is read', () => {
  it('reads the rest while serving; a check pinged before it was read still gets its missed down flip', async () => {
    const dir = tempDir();
    const clock = new ManualClock(T0);
    let d = await startInProcess({ dataDir: dir, clock });
    const p = await d.createProject({ checkLimit: 10_000 });
    const made = await plantChecks(d.daemon.store, p.id, 5000, {
      createdAt: T0,
      shape: (c, i) => {
        c.status = 'up';
        c.timeout = 60;
        c.grace = 60;
        c.lastPing = i % 13 === 0 ? T0 : T0 - 3600 * SEC + i;
        c.alertAfter = c.lastPing + 120 * SEC;
        c.nPings = 1;
      },
    });
    await d.stop();
    const overdue = made.filter((_, i) => i % 13 !== 0).map((c) => c.uuid);
    const fine = made.filter((_, i) => i % 13 === 0).map((c) => c.uuid);
    // Read last: checks are read in uuid order.
    const pinged = overdue.reduce((a, b) => (a > b ? a : b));

    const log: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        log.push(...chunk.toString().split('\n').filter(Boolean));
        cb();
      },
    });
    clock.set(T0 + 60 * SEC);
    d = await startInProcess({ dataDir: dir, clock, monitorLoadBudgetMs: 0, log: { level: 'info', to: sink } });
    expect((await send(d.url, `/ping/${pinged}`)).status).toBe(200);
    await d.daemon.monitor.loadedAll;
    await d.daemon.monitor.poke();

    const started = log.map((l) => JSON.parse(l)).find((l) => l.msg === 'deadline monitor started');
    expect(started).toMatchObject({ allRead: false });
    expect(log.some((l) => l.includes('deadline monitor read every check'))).toBe(true);
    const s = d.daemon.store;
    const deadline = (uuid: string) => made.find((c) => c.uuid === uuid)!.alertAfter!;
    // Down at its deadline (before the ping, by the catch-up or by the ping's own), then up.
    expect(s.listFlips(pinged)).toMatchObject([
      { created: T0 + 60 * SEC, oldStatus: 'down', newStatus: 'up' },
      { created: deadline(pinged), oldStatus: 'up', newStatus: 'down', reason: 'timeout' },
    ]);
    for (const uuid of overdue) {
      if (uuid === pinged) continue;
      expect(s.listFlips(uuid)).toMatchObject([{ created: deadline(uuid), newStatus: 'down' }]);
    }
    for (const uuid of fine) expect(s.listFlips(uuid)).toEqual([]);
    // Every check with a deadline is armed: the fine ones and the pinged one.
    expect(d.daemon.monitor.armedCount).toBe(fine.length + 1);
  });

  it('catchUp steps a check due since before the start, and leaves later deadlines to the monitor', async () => {
    const { store } = openTempStore();
    const clock = new ManualClock(T0 + 200 * SEC);
    const { project } = await store.createProject({ name: 'p', checkLimit: 20, pingLogLimit: 100 }, T0);
    const [due, later] = await plantChecks(store, project.id, 2, {
      createdAt: T0,
      shape: (c, i) => {
        c.status = 'up';
        c.timeout = i === 0 ? 60 : 600;
        c.grace = 60;
        c.lastPing = T0;
        c.alertAfter = T0 + (c.timeout + c.grace) * SEC;
      },
    });
    // Made (the daemon starting) at T0 + 200 s: the first check's deadline passed before.
    const monitor = new DeadlineMonitor(store, clock, createLogger('silent'));
    const stepped = await store.transactPing(() => monitor.catchUp(store.getCheck(due!.uuid)!, clock.now()));
    expect(stepped).toMatchObject({ status: 'down', alertAfter: null });
    expect(store.listFlips(due!.uuid)).toMatchObject([{ created: T0 + 120 * SEC, newStatus: 'down' }]);
    // Stepped once: a second ping finds nothing to catch up with.
    const down = store.getCheck(due!.uuid)!;
    expect(await store.transactPing(() => monitor.catchUp(down, clock.now()))).toBe(down);
    // Due only since the start: the monitor's pass decides, a ping before it wins.
    clock.set(T0 + 900 * SEC);
    const dueSinceStart = store.getCheck(later!.uuid)!;
    expect(await store.transactPing(() => monitor.catchUp(dueSinceStart, clock.now()))).toBe(dueSinceStart);
    expect(store.listFlips(later!.uuid)).toEqual([]);
  });
});
