// Watchers that do not read. gRPC flow control holds their streams back, so
// they cost neither the ping path nor the other watchers anything; one that
// falls WATCH_LAG_LIMIT revisions behind is ended with RESOURCE_EXHAUSTED and
// can resume from the last revision it received. No timings are asserted here:
// the figures live in bench/watch.ts.
import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { appendEvent } from '../../daemon/store/events.js';
import { WATCH_LAG_LIMIT } from '../../daemon/grpc/watch.js';
import { setupSuite } from '../helpers/cleanup.js';
import { createCheck } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { connect, logRevisions, revisions, rpc, Watcher } from './support.js';
import { environmentOf } from '../../daemon/store/environment.js';

let d: InProcessDaemon;

/** A watcher on its own connection, so a stalled one cannot share a window with a reading one. */
function watcher(key: string, since = 0, paused = false): Watcher {
  return new Watcher(connect(d.daemon.grpcAddress), key, since, { paused });
}

setupSuite(async () => {
  d = await startInProcess();
});

// Registered before the test starts its watchers, so it runs after they are cancelled and closed.
beforeEach(() => {
  onTestFinished(async () => {
    await vi.waitFor(() => expect(d.daemon.hub.size).toBe(0), { timeout: 10_000 });
  });
});

/** Let the daemon's event tail hand everything committed so far to the watchers. */
async function tailCaughtUp(): Promise<void> {
  d.daemon.events.nudge();
  await vi.waitFor(() => expect(d.daemon.events.revision).toBe(d.daemon.store.revision()), { timeout: 10_000 });
}

describe('a watcher that stops reading', () => {
  it('blocks neither pings nor another watcher, and later gets every event it missed', async () => {
    const p: TestProject = await d.createProject({ name: 'flow', checkLimit: 100 });
    const checks: Array<{ uuid: string }> = [];
    for (let i = 0; i < 20; i++) checks.push(await createCheck(d.url, p.apiKey, { name: `job-${i}` }));

    const stalled = watcher(p.apiKey, 0, true);
    const reader = watcher(p.apiKeyReadonly);
    await reader.until(() => reader.events.length >= 1, 'the snapshot');
    const start = reader.events[0]!.revision;

    // 1500 pings (about 0.7 MB of events, far beyond the flow-control windows),
    // 16 at a time: every one is answered while the stalled stream is full.
    const N = 1500;
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < N) {
          const i = next++;
          const res = await fetch(`${d.url}/ping/${checks[i % checks.length]!.uuid}`);
          await res.text();
          statuses.push(res.status);
        }
      }),
    );
    expect(statuses).toHaveLength(N);
    expect(statuses.every((s) => s === 200)).toBe(true);

    // The reading watcher receives every event of the project, in order.
    const expected = logRevisions(d.daemon.store, p.id, start);
    expect(expected.length).toBe(N + checks.length); // each ping, plus each check's first new→up flip
    await reader.untilRevision(expected.at(-1)!);
    expect(revisions(reader.changes)).toEqual(expected);

    // The stalled one is held back by flow control on the server, not buffered without bound.
    await tailCaughtUp();
    await vi.waitFor(() => expect(d.daemon.hub.lagging).toBe(1), { timeout: 10_000 });
    expect(stalled.events.length).toBe(0);
    // Unary calls go on meanwhile.
    const unaryClient = connect(d.daemon.grpcAddress);
    const listed = await rpc(unaryClient, 'ListChecks', {}, p.apiKey);
    expect(listed.checks).toHaveLength(checks.length);

    // Reading again, it gets the snapshot and then everything, nothing twice.
    stalled.resume();
    await stalled.untilRevision(expected.at(-1)!);
    expect(stalled.events[0]!.type).toBe('EVENT_TYPE_SNAPSHOT');
    expect(stalled.events[0]!.revision).toBe(start);
    expect(revisions(stalled.changes)).toEqual(expected);
    await vi.waitFor(() => expect(d.daemon.hub.lagging).toBe(0), { timeout: 10_000 });
  }, 60_000);

  it(`is ended with RESOURCE_EXHAUSTED beyond ${WATCH_LAG_LIMIT} revisions behind, and resumes from its last one`, async () => {
    const p = await d.createProject({ name: 'lag' });
    const noise = await d.createProject({ name: 'noise' });
    const check = await createCheck(d.url, p.apiKey, { name: 'busy' });
    const stalled = watcher(p.apiKey, 0, true);
    const reader = watcher(p.apiKey);
    await reader.until(() => reader.events.length >= 1, 'the snapshot');
    const start = reader.events[0]!.revision;
    const store = d.daemon.store;
    const record = store.getCheck(check.uuid)!;
    const now = Date.now();

    // Enough events of the project to fill the stalled stream's windows...
    const OWN = 2000;
    await store.transact(() => {
      for (let n = 1; n <= OWN; n++) {
        appendEvent(environmentOf(store), {
          at: now,
          type: 'ping.received',
          projectId: p.id,
          checkUuid: check.uuid,
          check: record,
          ping: { n, kind: 'log', date: now, rid: null, duration: null, method: 'GET', remoteAddr: '127.0.0.1' },
        });
      }
    });
    await tailCaughtUp();
    await reader.untilRevision(store.revision());
    await vi.waitFor(() => expect(d.daemon.hub.lagging).toBe(1), { timeout: 10_000 });

    // ...then more than the lag limit of another project's.
    await store.transact(() => {
      for (let i = 0; i < WATCH_LAG_LIMIT + 1000; i++) {
        appendEvent(environmentOf(store), { at: now, type: 'project.changed', projectId: noise.id, checkUuid: null });
      }
    });
    await tailCaughtUp();
    // Dropped by the hub at once; the reading watcher is unaffected.
    await vi.waitFor(() => expect(d.daemon.hub.lagging).toBe(0), { timeout: 10_000 });
    expect(d.daemon.hub.size).toBe(1);

    // Reading again, the stalled client gets what was already in flight, then the status.
    stalled.resume();
    const err = await stalled.ending();
    expect(err.code).toBe(8); // RESOURCE_EXHAUSTED
    const got = stalled.changes;
    const own = logRevisions(store, p.id, start);
    expect(own).toHaveLength(OWN);
    expect(got.length).toBeLessThan(OWN);
    expect(revisions(got)).toEqual(own.slice(0, got.length));
    // The status names the server's cursor; the client may have received less
    // (grpc-js drops what it had not yet handed over when the status arrives).
    const last = stalled.lastRevision;
    const cursor = Number(/resume from revision (\d+)/.exec(err.details)?.[1]);
    expect(cursor).toBeGreaterThanOrEqual(last);
    expect(cursor).toBeLessThan(own.at(-1)!);

    // Resuming from the last revision it saw yields exactly the rest.
    const resumed = watcher(p.apiKey, last);
    await resumed.untilRevision(own.at(-1)!);
    expect(revisions(resumed.changes)).toEqual(own.slice(got.length));
    // Then live again, past the noise.
    await fetch(`${d.url}/ping/${check.uuid}`).then((r) => r.text());
    const live = logRevisions(store, p.id, own.at(-1)!);
    expect(live).toHaveLength(2); // the ping and the new→up flip
    await resumed.untilRevision(live.at(-1)!);
    expect(revisions(resumed.changes)).toEqual([...own.slice(got.length), ...live]);
    expect(reader.error).toBeNull();
  }, 60_000);
});
