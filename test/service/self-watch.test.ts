// Who watches checkd (monitor/self-watch.ts): while the deadline monitor's
// loop runs, --heartbeat-url receives a ping every interval and systemd's
// $NOTIFY_SOCKET a WATCHDOG=1; when the loop is wedged (here: another process
// holds LMDB's write lock while a deadline is due, so the pass cannot commit)
// both stop, though the process and its timers carry on; once the lock is
// released they resume. A real daemon in this process, a real receiver and a
// real datagram socket.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { api, createCheck, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import { startHttpReceiver, type HttpReceiver } from '../notify/support.js';
import { startNotifyListener, type NotifyListener } from './support.js';

const HEARTBEAT_MS = 300;
const WATCHDOG_USEC = 800_000;

const clock = new ManualClock(Date.UTC(2026, 0, 5, 12, 0, 0));
let rx: HttpReceiver;
let listener: NotifyListener;
let d: InProcessDaemon;
let p: TestProject;

setupSuite(async () => {
  const tmp = tempDir('checkd-self-watch-');
  rx = await startHttpReceiver();
  const socket = join(tmp, 'notify.sock');
  listener = await startNotifyListener(socket, 1, join(tmp, 'none.sock'));
  // What systemd sets for a unit with WatchdogSec=0.8s; the runner's own values come back after the suite.
  const savedEnv = { NOTIFY_SOCKET: process.env.NOTIFY_SOCKET, WATCHDOG_USEC: process.env.WATCHDOG_USEC, WATCHDOG_PID: process.env.WATCHDOG_PID };
  onCleanup(() => {
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  process.env.NOTIFY_SOCKET = socket;
  process.env.WATCHDOG_USEC = String(WATCHDOG_USEC);
  process.env.WATCHDOG_PID = String(process.pid);
  d = await startInProcess({ clock, dataDir: join(tmp, 'data'), heartbeatUrl: `${rx.url}/hb/self`, heartbeatEveryMs: HEARTBEAT_MS });
  p = await d.createProject();
});

const watchdogs = () => listener.messages.filter((m) => m.fields.WATCHDOG === '1');
const heartbeats = () => rx.on('/hb/self');

/** Largest gap between consecutive times, and the count, of what arrived after `since`. */
function cadence(times: number[], since: number): { n: number; maxGap: number } {
  const after = times.filter((t) => t >= since);
  let maxGap = 0;
  for (let i = 1; i < after.length; i++) maxGap = Math.max(maxGap, after[i]! - after[i - 1]!);
  return { n: after.length, maxGap };
}

/**
 * A process that takes LMDB's write lock on `dataDir` and holds it until
 * released (or the test finishes): every write transaction of the daemon
 * waits behind it.
 */
async function holdWriteLock(dataDir: string): Promise<{ release(): Promise<void> }> {
  const script = `
    import { open } from 'lmdb';
    const root = open({ path: ${JSON.stringify(dataDir)}, noSubdir: false, maxDbs: 32 });
    root.transactionSync(() => {
      process.stdout.write('locked\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const release = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  onCleanup(release);
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    lines.on('line', (l) => l === 'locked' && resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return { release };
}

describe('heartbeat and watchdog from the monitor loop', () => {
  it('while the loop runs: a heartbeat every interval, WATCHDOG=1 well within WatchdogSec', async () => {
    const since = performance.now();
    await new Promise((r) => setTimeout(r, 2500));
    const hb = cadence(heartbeats().map((r) => r.at - (Date.now() - performance.now())), since);
    const wd = cadence(watchdogs().map((m) => m.at), since);
    expect(hb.n, JSON.stringify(hb)).toBeGreaterThanOrEqual(4);
    expect(hb.maxGap).toBeLessThan(3 * HEARTBEAT_MS);
    expect(heartbeats()[0]!.method).toBe('GET');
    expect(heartbeats()[0]!.headers['user-agent']).toBe('checkd');
    expect(wd.n, JSON.stringify(wd)).toBeGreaterThanOrEqual(4);
    expect(wd.maxGap).toBeLessThan(WATCHDOG_USEC / 1000);
  });

  it('a steady stream of pings does not push the passes away', async () => {
    const c = await createCheck(d.url, p.apiKey, { timeout: 3600 });
    const since = performance.now();
    // Every ping re-arms the monitor's timer: it must keep its earlier wake-up.
    while (performance.now() - since < 2000) await ping(d.url, c.uuid);
    const hb = cadence(heartbeats().map((r) => r.at - (Date.now() - performance.now())), since);
    expect(hb.n, JSON.stringify(hb)).toBeGreaterThanOrEqual(3);
    expect(watchdogs().filter((m) => m.at >= since).length).toBeGreaterThanOrEqual(3);
  });

  it('a wedged loop stops both, while the process carries on; they resume when it moves again', async () => {
    const c = await createCheck(d.url, p.apiKey, { timeout: 60, grace: 60 });
    await ping(d.url, c.uuid);
    const lock = await holdWriteLock(d.dataDir);
    // The deadline passes: the monitor's next pass must write the flip, and waits for the lock.
    clock.advance(121_000);
    void d.daemon.monitor.poke();
    await new Promise((r) => setTimeout(r, 2 * HEARTBEAT_MS));
    const [hbBefore, wdBefore] = [heartbeats().length, watchdogs().length];
    await new Promise((r) => setTimeout(r, 2000));
    // At most one that was already on its way.
    expect(heartbeats().length - hbBefore).toBeLessThanOrEqual(1);
    expect(watchdogs().length - wdBefore).toBeLessThanOrEqual(1);
    // The process itself is fine: it answers reads. The flip is not written yet.
    const flips = await api(d.url, `/api/v3/checks/${c.uuid}/flips/`, { key: p.apiKey });
    expect(flips.status).toBe(200);
    expect(flips.json.map((f: any) => f.up)).not.toContain(0);
    await lock.release();
    // The pass commits, the check is down, and both signs of life come back.
    await waitFor(async () => (await api(d.url, `/api/v3/checks/${c.uuid}/flips/`, { key: p.apiKey })).json.some((f: any) => f.up === 0), { what: 'the flip' });
    const [hbAfter, wdAfter] = [heartbeats().length, watchdogs().length];
    await waitFor(() => heartbeats().length >= hbAfter + 2 && watchdogs().length >= wdAfter + 2, { what: 'heartbeats and WATCHDOG=1 again', timeout: 5000 });
  });
});
