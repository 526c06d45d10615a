// WatchClient against real daemons (in-process, real LMDB, real gRPC): the
// snapshot, live events, unary calls, start-up errors, and the two recovery
// paths: resume after a restart (no flip lost, none twice) and a fresh
// snapshot when the revision has left the log (OUT_OF_RANGE).
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF, IDLE_TIMEOUT_MS, WatchClient, type WatchClientOptions, type WatchUpdate } from '../../tui/watch-client.js';
import { initialState, reducer, type TuiState } from '../../tui/state.js';
import { CHANNEL_OPTIONS, grpc } from '../../tui/rpc.js';
import type { WatchEventMsg } from '../../tui/wire.js';
import { runCli } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, createCheck, freePort, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { plantChecks } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';
import { environmentOf } from '../../daemon/store/environment.js';

const FAST = { initialMs: 50, maxMs: 300 };

/** A WatchClient that stops when the test finishes. */
function watchClient(opts: WatchClientOptions): WatchClient {
  const c = new WatchClient(opts);
  onTestFinished(() => c.stop());
  return c;
}

/** Subscribes like the app does: every update kept, and folded into the reducer. */
class Recorder {
  updates: WatchUpdate[] = [];
  state: TuiState = initialState(Date.now());

  constructor(readonly client: WatchClient) {
    client.subscribe((u) => {
      this.updates.push(u);
      if (u.type === 'event') this.state = reducer(this.state, { type: 'events', events: [u.event], now: Date.now() });
      else if (u.type === 'project') this.state = reducer(this.state, { type: 'project', project: u.project });
      else this.state = reducer(this.state, { type: 'connection', connection: u.connection });
    });
  }

  get events(): WatchEventMsg[] {
    return this.updates.flatMap((u) => (u.type === 'event' ? [u.event] : []));
  }

  flips(uuid: string): string[] {
    return this.events
      .filter((e) => e.type === 'EVENT_TYPE_FLIP' && e.check_id === uuid)
      .map((e) => `${e.flip!.old_status}>${e.flip!.new_status}`);
  }

  snapshots(): number {
    return this.events.filter((e) => e.type === 'EVENT_TYPE_SNAPSHOT').length;
  }

  status(uuid: string): string | undefined {
    return this.state.rows.get(uuid)?.status;
  }

  states(): string[] {
    return this.updates.flatMap((u) => (u.type === 'connection' ? [u.connection.state] : []));
  }
}

describe('backoff', () => {
  it('doubles from 250 ms and stays at 5 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelay(n))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('is what docs/checktop.md says, and so are the dead-link timings', () => {
    const doc = readFileSync(new URL('../../docs/checktop.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const m = /exponential backoff \((\d+) ms doubling, at most (\d+) s between attempts\)/.exec(doc);
    expect(m, 'the backoff sentence in the docs').not.toBeNull();
    expect({ initialMs: Number(m![1]), maxMs: Number(m![2]) * 1000 }).toEqual(DEFAULT_BACKOFF);
    const ka = CHANNEL_OPTIONS['grpc.keepalive_time_ms']! + CHANNEL_OPTIONS['grpc.keepalive_timeout_ms']!;
    expect(doc).toContain(`keepalive pings (about ${ka / 1000} s)`);
    expect(doc).toContain(`heartbeats (none for ${IDLE_TIMEOUT_MS / 1000} s: reconnect)`);
  });
});

describe('WatchClient against a real daemon', () => {
  let dir: string;
  let port: number;
  let d: InProcessDaemon;
  let project: TestProject;
  const client = (key = project.apiKey) => watchClient({ address: `127.0.0.1:${port}`, apiKey: key, backoff: FAST });

  // One data dir and gRPC port for the file; the daemon on them is started for
  // each test, since some tests stop it and start others on the same port.
  setupSuite(async () => {
    dir = tempDir('checktop-watch-');
    port = await freePort();
    const first = await startInProcess({ dataDir: dir });
    project = await first.createProject({ name: 'tui' });
    await first.stop();
  });

  beforeEach(async () => {
    d = await startInProcess({ dataDir: dir, grpcListen: `127.0.0.1:${port}` });
  });

  it('starts with a snapshot; a ping arrives as events at once', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'live', timeout: 3600, grace: 60 })).uuid;
    const rec = new Recorder(client());
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot' });
    expect(rec.state.project?.name).toBe('tui');
    expect(rec.states()).toEqual(['connecting', 'live']);

    const t0 = performance.now();
    await ping(d.url, uuid);
    await waitFor(() => rec.status(uuid) === 'up', { what: 'the flip' });
    const latency = performance.now() - t0;
    expect(rec.flips(uuid)).toEqual(['new>up']);
    // From the HTTP request to the state the table renders. A figure to read,
    // not to assert: timing belongs in bench:watch, not in a test that a busy
    // CI machine could fail.
    console.log(`ping → checktop state: ${latency.toFixed(0)} ms`);
    expect(rec.state.flashes.has(uuid)).toBe(true);
  });

  it('hands the app a snapshot that came in parts as one, with every check', async () => {
    const big = await d.createProject({ name: 'big', checkLimit: 2000 });
    const store = d.daemon.store;
    const uuids = (await plantChecks(store, big.id, 1_100, { createdAt: Date.now() })).map((c) => c.uuid);
    const rec = new Recorder(client(big.apiKey));
    await waitFor(() => rec.snapshots() === 1, { what: 'the snapshot' });
    const [snap] = rec.events;
    expect(snap!.type).toBe('EVENT_TYPE_SNAPSHOT');
    expect(snap!.snapshot_continues).toBe(false);
    expect(snap!.checks.map((c) => c.uuid)).toEqual(uuids);
    expect(rec.state.rows.size).toBe(1_100);
    expect(rec.client.revision).toBe(store.revision());
    // Later events still come one by one after it.
    await ping(d.url, uuids[7]!);
    await waitFor(() => rec.status(uuids[7]!) === 'up', { what: 'the ping' });
    expect(rec.snapshots()).toBe(1);
  });

  it('GetCheck, PauseCheck and ResumeCheck go through the same channel', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'calls', timeout: 3600, grace: 60 })).uuid;
    const c = client();
    const rec = new Recorder(c);
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot' });
    await ping(d.url, `${uuid}/start`);
    await ping(d.url, uuid);
    const detail = await c.getCheck(uuid, 10);
    expect(detail.check?.name).toBe('calls');
    expect(detail.pings.map((p) => p.type)).toEqual(['success', 'start']);
    expect(detail.pings[0]!.duration_s).toBeGreaterThanOrEqual(0);
    expect(detail.flips.map((f) => `${f.old_status}>${f.new_status}`)).toEqual(['new>up']);

    expect((await c.pauseCheck(uuid)).stored_status).toBe('paused');
    await waitFor(() => rec.status(uuid) === 'paused', { what: 'the pause event' });
    expect((await c.resumeCheck(uuid)).stored_status).toBe('new');
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the resume event' });
    await expect(c.resumeCheck(uuid)).rejects.toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
  });

  it('a read-only key watches by unique_key and cannot pause', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'ro', timeout: 3600, grace: 60 })).uuid;
    const c = client(project.apiKeyReadonly);
    const rec = new Recorder(c);
    await waitFor(() => rec.state.synced, { what: 'the snapshot' });
    const row = [...rec.state.rows.values()].find((r) => r.check.name === 'ro')!;
    expect(row.check.uuid).toBe('');
    expect(rec.state.project?.read_only).toBe(true);
    await ping(d.url, uuid);
    await waitFor(() => rec.state.rows.get(row.id)?.status === 'up', { what: 'the ping by unique_key' });
    await expect(c.pauseCheck(row.id)).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
  });

  it('probe: a wrong key is UNAUTHENTICATED, a closed port UNAVAILABLE within the deadline', async () => {
    await expect(client('x'.repeat(32)).probe()).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    const closed = await freePort();
    const t0 = Date.now();
    const dead = watchClient({ address: `127.0.0.1:${closed}`, apiKey: project.apiKey, connectTimeoutMs: 3000 });
    await expect(dead.probe()).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(Date.now() - t0).toBeLessThan(3500);
  });

  it('replaces a stream that went silent (no heartbeat) and resumes it without loss', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'silent', timeout: 3600, grace: 60 })).uuid;
    // Heartbeats come every 15 s; a 300 ms idle limit makes every quiet moment look like a dead link.
    const c = watchClient({ address: `127.0.0.1:${port}`, apiKey: project.apiKey, backoff: FAST, idleTimeoutMs: 300 });
    const rec = new Recorder(c);
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot' });
    await waitFor(() => rec.updates.some((u) => u.type === 'connection' && u.connection.error === 'no data for 300 ms'), { what: 'the watchdog' });
    await waitFor(() => c.connection.state === 'live', { what: 'live again' });
    await ping(d.url, uuid);
    await waitFor(() => rec.status(uuid) === 'up', { what: 'the ping on the new stream' });
    expect(rec.flips(uuid)).toEqual(['new>up']);
    expect(rec.snapshots()).toBe(1);
  });

  it('talks over a unix socket too (--grpc unix:/path.sock)', async () => {
    const sockDir = tempDir('checktop-sock-');
    const sock = `unix:${sockDir}/grpc.sock`;
    const other = await startInProcess({ grpcListen: sock });
    const p = await other.createProject({ name: 'over-unix' });
    const uuid = (await createCheck(other.url, p.apiKey, { name: 'u', timeout: 3600, grace: 60 })).uuid;
    const c = watchClient({ address: sock, apiKey: p.apiKey, backoff: FAST });
    const rec = new Recorder(c);
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot over the socket' });
    expect(rec.state.project?.name).toBe('over-unix');
    c.stop();
  });

  it('reconnects after a restart and resumes from its revision: no flip lost, none twice', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'restart', timeout: 3600, grace: 60 })).uuid;
    const c = client();
    const rec = new Recorder(c);
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot' });
    await ping(d.url, uuid);
    await waitFor(() => rec.status(uuid) === 'up', { what: 'up' });
    const before = c.revision;

    // The daemon goes away; a second one on the same data dir (but another
    // port, out of the client's reach) takes pings meanwhile: two flips the
    // client has not seen.
    const stoppedAt = Date.now();
    await d.stop();
    await waitFor(() => c.connection.state === 'reconnecting', { what: 'reconnecting' });
    const other = await startInProcess({ dataDir: dir });
    await ping(other.url, `${uuid}/fail`);
    await ping(other.url, uuid);
    await other.stop();

    // Back on the original port: the client finds it and catches up.
    d = await startInProcess({ dataDir: dir, grpcListen: `127.0.0.1:${port}` });
    await waitFor(() => rec.flips(uuid).length === 3, { what: 'the missed flips', timeout: 15_000 });
    expect(rec.flips(uuid)).toEqual(['new>up', 'up>down', 'down>up']);
    expect(rec.snapshots()).toBe(1);
    const revs = rec.events.filter((e) => e.type !== 'EVENT_TYPE_HEARTBEAT').map((e) => e.revision);
    expect(revs).toEqual([...new Set(revs)].sort((a, b) => a - b));
    expect(c.revision).toBeGreaterThan(before);
    expect(rec.states()).toContain('reconnecting');
    expect(rec.states().at(-1)).toBe('live');
    // Every failed attempt says since when the link is down: the first failure's time.
    const since = rec.updates.flatMap((u) => (u.type === 'connection' && u.connection.state === 'reconnecting' ? [u.connection.since] : []));
    expect(since.length).toBeGreaterThan(0);
    expect(new Set(since).size).toBe(1);
    expect(since[0]).toBeGreaterThanOrEqual(stoppedAt);
    expect(c.connection.since).toBeUndefined();

    // And it is live again.
    await ping(d.url, `${uuid}/fail`);
    await waitFor(() => rec.status(uuid) === 'down', { what: 'a live flip after the restart' });
  });

  it('takes a new snapshot when the daemon comes back on a restored backup whose history went another way', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'restored', timeout: 3600, grace: 60 })).uuid;
    const other = (await createCheck(d.url, project.apiKey, { name: 'busy', timeout: 3600, grace: 60 })).uuid;
    const backup = tempDir('checktop-backup-');
    const copy = `${backup}/copy`;
    const made = await runCli(['backup', '--data-dir', dir, '--out', copy]);
    expect(made.code, made.stderr).toBe(0);
    const c = client();
    const rec = new Recorder(c);
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot' });
    // After the backup: paused on the live daemon, as the client sees.
    await api(d.url, `/api/v3/checks/${uuid}/pause`, { method: 'POST', key: project.apiKey });
    await waitFor(() => rec.status(uuid) === 'paused', { what: 'paused' });
    const seen = c.revision;

    // The live daemon goes; the backup is restored and runs on, past the revision the client saw.
    await d.stop();
    await waitFor(() => c.connection.state === 'reconnecting', { what: 'reconnecting' });
    const restored = await startInProcess({ dataDir: copy });
    while (restored.daemon.store.revision() <= seen) await ping(restored.url, other);
    await restored.stop();

    d = await startInProcess({ dataDir: copy, grpcListen: `127.0.0.1:${port}` });
    await waitFor(() => rec.snapshots() === 2, { what: 'the second snapshot', timeout: 15_000 });
    // The restored log never paused the check.
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the state of the restored log' });
    expect(rec.status(other)).toBe('up');
  });

  it('takes a new snapshot when its revision has left the log (OUT_OF_RANGE)', async () => {
    const uuid = (await createCheck(d.url, project.apiKey, { name: 'pruned', timeout: 3600, grace: 60 })).uuid;
    const c = client();
    const rec = new Recorder(c);
    await waitFor(() => rec.status(uuid) === 'new', { what: 'the snapshot' });
    const seen = c.revision;

    await d.stop();
    await waitFor(() => c.connection.state === 'reconnecting', { what: 'reconnecting' });
    const other = await startInProcess({ dataDir: dir });
    await ping(other.url, `${uuid}/fail`);
    // Retention pruned the log up to and including the revision right after
    // the client's: resuming from there is impossible.
    await other.daemon.store.transact(() => {
      for (let rev = 1; rev <= seen + 1; rev++) environmentOf(other.daemon.store).events.remove(rev);
    });
    await other.stop();

    d = await startInProcess({ dataDir: dir, grpcListen: `127.0.0.1:${port}` });
    await waitFor(() => rec.snapshots() === 2, { what: 'the second snapshot', timeout: 15_000 });
    await waitFor(() => rec.status(uuid) === 'down', { what: 'the state from the snapshot' });
    // The change is highlighted like any other, though no flip event was seen.
    expect(rec.state.flashes.has(uuid)).toBe(true);
    expect(rec.updates.some((u) => u.type === 'connection' && /OUT_OF_RANGE/.test(u.connection.error ?? ''))).toBe(true);
  });
});
