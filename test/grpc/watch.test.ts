// checkd.v1.Checkd/Watch against a real daemon (real LMDB, real ports): the
// snapshot, live events in revision order, resuming from a revision, and the
// end of a resume whose revision has left the log.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { EVENT_RETENTION } from '../../daemon/store/events.js';
import { uniqueKeyOf } from '../../daemon/domain/ids.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, createCheck, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { plantChecks } from '../helpers/store.js';
import { connect, logRevisions, range, revisions, rpc, types, Watcher, type CheckdClient } from './support.js';
import { environmentOf } from '../../daemon/store/environment.js';

const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);

let d: InProcessDaemon;
let clock: ManualClock;
let client: CheckdClient;
let p: TestProject;
let other: TestProject;

/** A Watch on the file's client (cancelled when the test finishes). */
function watch(key: string, since = 0): Watcher {
  return new Watcher(client, key, since);
}

setupSuite(async () => {
  clock = new ManualClock(T0);
  d = await startInProcess({ clock });
  p = await d.createProject({ name: 'mine', checkLimit: 1000 });
  other = await d.createProject({ name: 'theirs', checkLimit: 1000 });
  client = connect(d.daemon.grpcAddress);
});

describe('snapshot', () => {
  it('holds every check of the key’s project, in creation order, and no other, with the revision', async () => {
    const project = await d.createProject({ name: 'snap' });
    const a = await createCheck(d.url, project.apiKey, { name: 'a', tags: 'x y' });
    clock.advance(1000);
    const b = await createCheck(d.url, project.apiKey, { name: 'b' });
    clock.advance(1000);
    const c = await createCheck(d.url, project.apiKey, { name: 'c' });
    await createCheck(d.url, other.apiKey, { name: 'not mine' });

    const w = watch(project.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    const [snap] = w.events;
    expect(snap!.type).toBe('EVENT_TYPE_SNAPSHOT');
    expect(snap!.revision).toBe(d.daemon.store.revision());
    expect(snap!.check_id).toBe('');
    expect(snap!.checks.map((ch) => ch.uuid)).toEqual([a.uuid, b.uuid, c.uuid]);
    expect(snap!.checks.map((ch) => ch.name)).toEqual(['a', 'b', 'c']);
    expect(snap!.checks[0]).toMatchObject({
      unique_key: uniqueKeyOf(a.uuid),
      tags: ['x', 'y'],
      status: 'new',
      stored_status: 'new',
      kind: 'CHECK_KIND_SIMPLE',
      created_ms: T0,
    });

    // The same state as ListChecks reports.
    const listed = await rpc(client, 'ListChecks', {}, project.apiKey);
    expect(listed.revision).toBe(snap!.revision);
    expect(listed.checks).toEqual(snap!.checks);
  });

  it('of a big project comes in parts of one revision, in creation order, with the changes after it behind the last', async () => {
    const project = await d.createProject({ name: 'big', checkLimit: 2000 });
    const store = d.daemon.store;
    const N = 1_234; // parts of 500
    const planted = await plantChecks(store, project.id, N, { createdAt: clock.now(), shape: (c, i) => (c.name = `c${i}`) });
    const uuids = planted.map((c) => c.uuid);
    const before = store.revision();
    const w = watch(project.apiKey);
    await w.until(() => w.events.length >= 1, 'the first part');
    // A change made while the parts go out comes after the last one, as an event.
    await ping(d.url, uuids[0]!);
    await w.until(() => w.changes.length >= 1, 'the ping after the snapshot');
    const parts = w.events.filter((e) => e.type === 'EVENT_TYPE_SNAPSHOT');
    expect(parts.map((e) => e.checks.length)).toEqual([500, 500, 234]);
    expect(parts.map((e) => e.snapshot_continues)).toEqual([true, true, false]);
    expect(new Set(parts.map((e) => e.revision))).toEqual(new Set([before]));
    expect(parts.flatMap((e) => e.checks.map((c) => c.uuid))).toEqual(uuids);
    const firstChange = w.events.findIndex((e) => e.type !== 'EVENT_TYPE_SNAPSHOT' && e.type !== 'EVENT_TYPE_HEARTBEAT');
    expect(firstChange).toBe(w.events.indexOf(parts.at(-1)!) + 1);
    expect(w.changes[0]).toMatchObject({ type: 'EVENT_TYPE_PING_RECEIVED', check_id: uuids[0] });
    expect(w.changes[0]!.revision).toBeGreaterThan(before);
  });

  it('of an empty project is empty, not absent', async () => {
    const project = await d.createProject({ name: 'empty' });
    const w = watch(project.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    expect(w.events[0]).toMatchObject({ type: 'EVENT_TYPE_SNAPSHOT', checks: [], revision: d.daemon.store.revision() });
  });

  it('for a read-only key identifies checks by unique_key only', async () => {
    const project = await d.createProject({ name: 'ro' });
    const a = await createCheck(d.url, project.apiKey, { name: 'a' });
    const w = watch(project.apiKeyReadonly);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    expect(w.events[0]!.checks).toHaveLength(1);
    expect(w.events[0]!.checks[0]).toMatchObject({ uuid: '', unique_key: uniqueKeyOf(a.uuid), name: 'a' });
  });
});

describe('live events', () => {
  it('arrive in revision order, one per change, without gaps, through a whole check lifecycle', async () => {
    const w = watch(p.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    const snapRev = w.events[0]!.revision;

    clock.advance(60_000);
    const created = await createCheck(d.url, p.apiKey, { name: 'backup', timeout: 3600, grace: 600 });
    const uuid = created.uuid;
    await w.untilChanges(1);

    // First success: the ping, then the new→up flip.
    clock.advance(1000);
    const firstPingAt = clock.now();
    await ping(d.url, uuid);
    await w.untilChanges(3);

    // A failure: ping and up→down.
    clock.advance(1000);
    await ping(d.url, `${uuid}/fail`);
    await w.untilChanges(5);

    // Recovered: ping and down→up.
    clock.advance(1000);
    const lastSuccessAt = clock.now();
    await ping(d.url, uuid);
    await w.untilChanges(7);

    // Overdue: the monitor marks it down (status change with a timeout flip).
    clock.advance(3600_000 + 600_000 + 5000);
    await d.daemon.monitor.poke();
    await w.untilChanges(9);

    // Pause over gRPC, resume over HTTP, rename, delete.
    clock.advance(1000);
    await rpc(client, 'PauseCheck', { id: uuid }, p.apiKey);
    await w.untilChanges(11);
    clock.advance(1000);
    expect((await api(d.url, `/api/v3/checks/${uuid}/resume`, { method: 'POST', key: p.apiKey })).status).toBe(200);
    await w.untilChanges(13);
    clock.advance(1000);
    expect((await api(d.url, `/api/v3/checks/${uuid}`, { key: p.apiKey, body: { name: 'nightly backup' } })).status).toBe(200);
    await w.untilChanges(14);
    clock.advance(1000);
    expect((await api(d.url, `/api/v3/checks/${uuid}`, { method: 'DELETE', key: p.apiKey })).status).toBe(200);
    await w.untilChanges(15);

    const ev = w.changes;
    expect(types(ev)).toEqual([
      'CHECK_CREATED',
      'PING_RECEIVED',
      'FLIP',
      'PING_RECEIVED',
      'FLIP',
      'PING_RECEIVED',
      'FLIP',
      'STATUS_CHANGED',
      'FLIP',
      'CHECK_PAUSED',
      'FLIP',
      'CHECK_RESUMED',
      'FLIP',
      'CHECK_UPDATED',
      'CHECK_DELETED',
    ]);
    // Nothing else happened in this daemon meanwhile: revisions follow the snapshot one by one.
    expect(revisions(ev)).toEqual(range(snapRev + 1, ev.length));
    expect(revisions(ev)).toEqual(logRevisions(d.daemon.store, p.id, snapRev));
    for (const e of ev) expect(e.check_id).toBe(uuid);

    expect(ev[0]!.checks[0]).toMatchObject({ uuid, name: 'backup', status: 'new', timeout_s: 3600, grace_s: 600 });
    expect(ev[1]!.ping).toMatchObject({ n: 1, type: 'success', date_ms: firstPingAt, method: 'GET' });
    expect(ev[1]!.at_ms).toBe(firstPingAt);
    expect(ev[1]!.checks[0]).toMatchObject({ n_pings: 1, last_ping_ms: firstPingAt, stored_status: 'up' });
    const flips = ev.filter((e) => e.type === 'EVENT_TYPE_FLIP').map((e) => e.flip);
    expect(flips.map((f) => [f!.old_status, f!.new_status, f!.reason])).toEqual([
      ['new', 'up', ''],
      ['up', 'down', 'fail'],
      ['down', 'up', ''],
      ['up', 'down', 'timeout'],
      ['down', 'paused', ''],
      ['paused', 'new', ''],
    ]);
    // Each flip carries its own event's revision; the timeout flip is dated at the deadline.
    for (const e of ev.filter((x) => x.type === 'EVENT_TYPE_FLIP')) expect(e.flip!.revision).toBe(e.revision);
    expect(flips[3]!.timestamp_ms).toBe(lastSuccessAt + 3600_000 + 600_000);
    expect(ev[3]!.ping!.type).toBe('fail');
    expect(ev[7]!.checks[0]).toMatchObject({ stored_status: 'down', status: 'down' });
    expect(ev[9]!.checks[0]).toMatchObject({ stored_status: 'paused', status: 'paused' });
    expect(ev[11]!.checks[0]).toMatchObject({ stored_status: 'new', last_ping_ms: 0 });
    expect(ev[13]!.checks[0]!.name).toBe('nightly backup');
    expect(ev[14]!.checks).toEqual([]);
    expect(ev[14]!.ping).toBeNull();
  });

  it('of other projects are not sent', async () => {
    const project = await d.createProject({ name: 'quiet' });
    const mine = await createCheck(d.url, project.apiKey, { name: 'mine' });
    const w = watch(project.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    const theirs = await createCheck(d.url, other.apiKey, { name: 'theirs' });
    await ping(d.url, theirs.uuid);
    await ping(d.url, mine.uuid);
    await w.untilChanges(2);
    expect(types(w.changes)).toEqual(['PING_RECEIVED', 'FLIP']);
    expect(w.changes.every((e) => e.check_id === mine.uuid)).toBe(true);
    expect(revisions(w.changes)).toEqual(logRevisions(d.daemon.store, project.id, w.events[0]!.revision));
  });

  it('reach read-write and read-only watchers of a project at once, each in its own form', async () => {
    const project = await d.createProject({ name: 'both' });
    const rw = [watch(project.apiKey), watch(project.apiKey)];
    const ro = [watch(project.apiKeyReadonly), watch(project.apiKeyReadonly)];
    for (const w of [...rw, ...ro]) await w.until(() => w.events.length >= 1, 'the snapshot');
    const c = await createCheck(d.url, project.apiKey, { name: 'shared' });
    await ping(d.url, c.uuid);
    for (const w of [...rw, ...ro]) await w.untilChanges(3);
    const expected = logRevisions(d.daemon.store, project.id, rw[0]!.events[0]!.revision);
    for (const w of [...rw, ...ro]) expect(revisions(w.changes)).toEqual(expected);
    for (const w of rw) {
      expect(w.changes.map((e) => [e.check_id, e.checks[0]!.uuid])).toEqual(expected.map(() => [c.uuid, c.uuid]));
    }
    for (const w of ro) {
      expect(w.changes.map((e) => [e.check_id, e.checks[0]!.uuid])).toEqual(expected.map(() => [uniqueKeyOf(c.uuid), '']));
    }
    expect(rw[0]!.changes).toEqual(rw[1]!.changes);
    expect(ro[0]!.changes).toEqual(ro[1]!.changes);
  });

  it('for a read-only key carry the unique_key and no uuid', async () => {
    const w = watch(p.apiKeyReadonly);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    const c = await createCheck(d.url, p.apiKey, { name: 'ro-visible' });
    await ping(d.url, c.uuid);
    await w.untilChanges(3);
    for (const e of w.changes) {
      expect(e.check_id).toBe(uniqueKeyOf(c.uuid));
      expect(e.checks[0]!.uuid).toBe('');
      expect(e.checks[0]!.unique_key).toBe(uniqueKeyOf(c.uuid));
    }
  });

  it('of a ping carry what GetCheck says of it: user agent, body size, exit status; and a flip down says since when', async () => {
    const w = watch(p.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    const c = await createCheck(d.url, p.apiKey, { name: 'ping-fields' });
    const r = await fetch(`${d.url}/ping/${c.uuid}/4`, { method: 'POST', body: 'rsync: connection reset', headers: { 'User-Agent': 'cron-job/2' } });
    expect(r.status).toBe(200);
    await r.text();
    await ping(d.url, `${c.uuid}/log`);
    await w.until(() => w.changes.filter((e) => e.type === 'EVENT_TYPE_PING_RECEIVED').length >= 2, 'two pings');
    const events = w.changes.filter((e) => e.type === 'EVENT_TYPE_PING_RECEIVED' && e.check_id === c.uuid);
    const detail = await rpc(client, 'GetCheck', { id: c.uuid }, p.apiKey);
    expect(events.map((e) => e.ping).reverse()).toEqual(detail.pings);
    expect(events[0]!.ping).toMatchObject({ type: 'fail', ua: 'cron-job/2', body_size: 23, exit_status: 4 });
    expect(events[1]!.ping!.exit_status).toBeUndefined();
    // The check went down with that ping: since its flip.
    const flip = w.changes.find((e) => e.type === 'EVENT_TYPE_FLIP' && e.check_id === c.uuid)!;
    expect(events[0]!.checks[0]!.down_since_ms).toBe(flip.flip!.timestamp_ms);
    expect(events[1]!.checks[0]!.down_since_ms).toBe(flip.flip!.timestamp_ms);
    // The snapshot of a new watcher says the same.
    const later = watch(p.apiKey);
    await later.until(() => later.events.length >= 1, 'the snapshot');
    expect(later.events[0]!.checks.find((x) => x.uuid === c.uuid)!.down_since_ms).toBe(flip.flip!.timestamp_ms);
  });
});

describe('resume from a revision', () => {
  it('sends exactly the events after it: none lost, none repeated, then live ones', async () => {
    const project = await d.createProject({ name: 'resume', checkLimit: 100 });
    const a = await createCheck(d.url, project.apiKey, { name: 'a' });
    const first = watch(project.apiKey);
    await first.until(() => first.events.length >= 1, 'the snapshot');
    await ping(d.url, a.uuid);
    await first.untilChanges(2);
    const seen = first.lastRevision;
    first.cancel();

    // Offline: changes in this project, interleaved with another project's.
    const theirs = await createCheck(d.url, other.apiKey, { name: 'noise' });
    const b = await createCheck(d.url, project.apiKey, { name: 'b' });
    await ping(d.url, theirs.uuid);
    await ping(d.url, `${b.uuid}/fail`);
    await ping(d.url, `${a.uuid}/start`);
    await rpc(client, 'PauseCheck', { id: a.uuid }, project.apiKey);
    await ping(d.url, `${theirs.uuid}/fail`);
    const missed = logRevisions(d.daemon.store, project.id, seen);
    expect(missed.length).toBe(6);

    const again = watch(project.apiKey, seen);
    await again.untilRevision(missed.at(-1)!);
    expect(again.events.some((e) => e.type === 'EVENT_TYPE_SNAPSHOT')).toBe(false);
    expect(revisions(again.changes)).toEqual(missed);
    expect(types(again.changes)).toEqual(['CHECK_CREATED', 'PING_RECEIVED', 'FLIP', 'PING_RECEIVED', 'CHECK_PAUSED', 'FLIP']);

    // And it stays live: the next change comes once, after the caught-up ones.
    await ping(d.url, b.uuid);
    await again.untilChanges(missed.length + 2);
    const all = revisions(again.changes);
    expect(all).toEqual(logRevisions(d.daemon.store, project.id, seen));
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort((x, y) => x - y)).toEqual(all);
  });

  it('from the middle of what was missed starts right after that revision', async () => {
    const project = await d.createProject({ name: 'middle' });
    const a = await createCheck(d.url, project.apiKey, { name: 'a' });
    for (let i = 0; i < 5; i++) await ping(d.url, i % 2 ? `${a.uuid}/fail` : a.uuid);
    const log = logRevisions(d.daemon.store, project.id);
    const from = log[3]!;
    const w = watch(project.apiKey, from);
    await w.untilRevision(log.at(-1)!);
    expect(revisions(w.changes)).toEqual(log.slice(4));
  });

  it('from the latest revision sends nothing until the next change', async () => {
    const project = await d.createProject({ name: 'latest' });
    const a = await createCheck(d.url, project.apiKey, { name: 'a' });
    const latest = d.daemon.store.revision();
    const w = watch(project.apiKey, latest);
    // The next change (a ping) proves the stream is open; nothing may precede it.
    await ping(d.url, `${a.uuid}/log`);
    await w.untilChanges(1);
    expect(types(w.changes)).toEqual(['PING_RECEIVED']);
    expect(w.changes[0]!.revision).toBe(latest + 1);
  });

  it('from a revision that does not exist yet is INVALID_ARGUMENT', async () => {
    const w = watch(p.apiKey, d.daemon.store.revision() + 1000);
    const err = await w.ending();
    expect(err.code).toBe(3); // INVALID_ARGUMENT
    expect(w.events).toEqual([]);
  });

  it('from a pruned revision ends with OUT_OF_RANGE; from the last pruned one it still works', async () => {
    const project = await d.createProject({ name: 'pruned' });
    const a = await createCheck(d.url, project.apiKey, { name: 'a' });
    const w = watch(project.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    await ping(d.url, a.uuid);
    await w.untilChanges(2);
    const seen = w.lastRevision;
    w.cancel();
    for (let i = 0; i < 4; i++) await ping(d.url, `${a.uuid}/log`);
    const after = logRevisions(d.daemon.store, project.id, seen);
    expect(after).toHaveLength(4);

    // Retention shrunk so that the oldest retained event is exactly seen + 1.
    const latest = d.daemon.store.revision();
    const saved = { ...EVENT_RETENTION };
    const restore = () => void Object.assign(EVENT_RETENTION, saved);
    onTestFinished(restore);
    EVENT_RETENTION.maxEvents = latest - seen;
    expect(await d.daemon.store.pruneEvents(clock.now())).toBeGreaterThan(0);
    restore();
    const fine = watch(project.apiKey, seen);
    await fine.untilRevision(after.at(-1)!);
    expect(revisions(fine.changes)).toEqual(after);

    // One more pruned and `seen + 1` is gone: that client must take a new snapshot.
    await d.daemon.store.transact(() => environmentOf(d.daemon.store).events.remove(seen + 1));
    const gone = watch(project.apiKey, seen);
    const err = await gone.ending();
    expect(err.code).toBe(11); // OUT_OF_RANGE
    expect(err.details).toMatch(/snapshot/);
    expect(gone.events).toEqual([]);

    // A snapshot is always possible, and resuming from it works again.
    const fresh = watch(project.apiKey);
    await fresh.until(() => fresh.events.length >= 1, 'the snapshot');
    expect(fresh.events[0]!.checks.map((c) => c.uuid)).toEqual([a.uuid]);
  });
});
