// The ping log and the flips over the API on a daemon with a hand-moved clock
// (api-details §10–§12, ping-protocol §7, §11): exact dates, run durations with
// overlapping rids, the ping_log_limit window, the flips endpoint and its
// filters, and deletion of everything a check owns.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { api, createCheck, ping } from '../helpers/http.js';
import { useDaemon } from '../helpers/in-process.js';
import { apiPost, getCheck, listFlips, listPings, RID_A, RID_B } from './support.js';
import { environmentOf } from '../../daemon/store/environment.js';
import { storedPingNumbers } from '../helpers/store.js';

/** 2020-06-01T12:00:00Z */
const T0 = Date.UTC(2020, 5, 1, 12, 0, 0);
const clock = new ManualClock(T0);
const env = useDaemon({ clock });
const SEC = 1000;

function at(ms: number): void {
  clock.set(ms);
}

describe('dates and durations', () => {
  it('ping dates are the server time with microseconds, the fraction there even when zero', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    at(T0 + 123);
    await ping(env.url, c.uuid);
    at(T0 + 2 * SEC);
    await ping(env.url, c.uuid);
    const [second, first] = await listPings(env, c.uuid);
    expect(first.date).toBe('2020-06-01T12:00:00.123000+00:00');
    expect(second.date).toBe('2020-06-01T12:00:02.000000+00:00');
    expect((await getCheck(env, c.uuid)).last_ping).toBe('2020-06-01T12:00:02+00:00');
  });

  it('start 00:00, success 00:05: duration 300 in the list, last_duration 300 on the check', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    at(T0);
    await ping(env.url, `${c.uuid}/start`);
    at(T0 + 300 * SEC);
    await ping(env.url, c.uuid);
    const [success, start] = await listPings(env, c.uuid);
    expect(success.duration).toBe(300);
    expect(start).not.toHaveProperty('duration');
    const check = await getCheck(env, c.uuid);
    expect(check.last_duration).toBe(300);
    expect(check.started).toBe(false);
  });

  it('a run shorter than a second: last_duration 0 is present; a zero-length run has none', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    at(T0);
    await ping(env.url, `${c.uuid}/start`);
    at(T0 + 720);
    await ping(env.url, `${c.uuid}/fail`);
    expect((await listPings(env, c.uuid))[0].duration).toBe(0.72);
    expect(await getCheck(env, c.uuid)).toHaveProperty('last_duration', 0);
    const z = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, `${z.uuid}/start`);
    await ping(env.url, z.uuid);
    expect(await getCheck(env, z.uuid)).not.toHaveProperty('last_duration');
  });

  it('overlapping runs by rid: start A, start B, success A, success B → 120 and 300', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    at(T0);
    await ping(env.url, `${c.uuid}/start?rid=${RID_A}`);
    at(T0 + 60 * SEC);
    await ping(env.url, `${c.uuid}/start?rid=${RID_B}`);
    at(T0 + 120 * SEC);
    await ping(env.url, `${c.uuid}?rid=${RID_A}`);
    // B is still running: started stays true and A's success sets no last_duration.
    let check = await getCheck(env, c.uuid);
    expect(check.started).toBe(true);
    expect(check).not.toHaveProperty('last_duration');
    expect(check.next_ping).toBe('2020-06-01T12:01:00+00:00');
    at(T0 + 360 * SEC);
    await ping(env.url, `${c.uuid}?rid=${RID_B}`);
    const pings = await listPings(env, c.uuid);
    expect(pings.map((p) => [p.type, p.rid, p.duration])).toEqual([
      ['success', RID_B, 300],
      ['success', RID_A, 120],
      ['start', RID_B, undefined],
      ['start', RID_A, undefined],
    ]);
    check = await getCheck(env, c.uuid);
    expect(check.started).toBe(false);
    expect(check.last_duration).toBe(300);
  });

  it('start, ign, success: the ign is skipped; a second success gets no duration; log pings never have one', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { methods: 'POST' });
    at(T0);
    await ping(env.url, `${c.uuid}/start`, { method: 'POST' });
    at(T0 + 10 * SEC);
    await ping(env.url, `${c.uuid}/start`, { method: 'GET' }); // ign
    at(T0 + 12.345 * SEC);
    await ping(env.url, `${c.uuid}/log`, { method: 'POST' });
    at(T0 + 20.5 * SEC);
    await ping(env.url, c.uuid, { method: 'POST' });
    at(T0 + 30 * SEC);
    await ping(env.url, c.uuid, { method: 'POST' });
    const pings = await listPings(env, c.uuid);
    expect(pings.map((p) => [p.type, p.duration])).toEqual([
      ['success', undefined],
      ['success', 20.5],
      ['log', undefined],
      ['ign', undefined],
      ['start', undefined],
    ]);
  });

  it('a fail closes a run too; a start more than 72 h back gives no duration', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    at(T0);
    await ping(env.url, `${c.uuid}/start`);
    at(T0 + 42 * SEC);
    await ping(env.url, `${c.uuid}/fail`);
    at(T0 + 100 * SEC);
    await ping(env.url, `${c.uuid}/start`);
    at(T0 + 100 * SEC + 72 * 3600 * SEC);
    await ping(env.url, c.uuid);
    const pings = await listPings(env, c.uuid);
    expect(pings[0]).not.toHaveProperty('duration');
    expect(pings[2].duration).toBe(42);
  });
});

describe('the ping log window', () => {
  it('newest first, capped at ping_log_limit with the oldest dropped; the body endpoint 404s outside', async () => {
    const project = await env.d.createProject({ name: 'small log', pingLogLimit: 5 });
    const r = await api(env.url, '/api/v3/checks/', { key: project.apiKey, body: {} });
    const uuid = r.json.uuid as string;
    for (let i = 1; i <= 8; i++) {
      at(T0 + i * SEC);
      await ping(env.url, uuid, { method: 'POST', body: `body ${i}` });
    }
    const list = await api(env.url, `/api/v3/checks/${uuid}/pings/`, { key: project.apiKey });
    expect(list.json.pings.map((p: any) => p.n)).toEqual([8, 7, 6, 5, 4]);
    const bodyOf = (n: number) => api(env.url, `/api/v3/checks/${uuid}/pings/${n}/body`, { key: project.apiKey });
    for (const n of [1, 2, 3]) expect((await bodyOf(n)).status).toBe(404);
    for (const n of [4, 8]) {
      const b = await bodyOf(n);
      expect(b.status).toBe(200);
      expect(b.text).toBe(`body ${n}`);
    }
    expect((await bodyOf(9)).status).toBe(404);
    // The dropped pings are gone from the store, not only hidden (pings reach
    // the ping-log B-tree when the journal is applied: store/journal.ts).
    await env.d.daemon.store.applyJournal();
    expect(storedPingNumbers(environmentOf(env.d.daemon.store), uuid)).toEqual([4, 5, 6, 7, 8]);
    expect((await api(env.url, `/api/v3/checks/${uuid}`, { key: project.apiKey })).json.n_pings).toBe(8);
  });

  it('past the 100th ping the window keeps sliding: exactly the newest ping_log_limit stay stored', async () => {
    const project = await env.d.createProject({ name: 'long log', pingLogLimit: 5 });
    const r = await api(env.url, '/api/v3/checks/', { key: project.apiKey, body: {} });
    const uuid = r.json.uuid as string;
    for (let i = 1; i <= 205; i++) await ping(env.url, uuid);
    await env.d.daemon.store.applyJournal();
    expect(storedPingNumbers(environmentOf(env.d.daemon.store), uuid)).toEqual([201, 202, 203, 204, 205]);
    const list = await api(env.url, `/api/v3/checks/${uuid}/pings/`, { key: project.apiKey });
    expect(list.json.pings.map((p: any) => p.n)).toEqual([205, 204, 203, 202, 201]);
  });

  it('the list returns at most ping_log_limit entries', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    for (let i = 0; i < 105; i++) await ping(env.url, c.uuid);
    const pings = await listPings(env, c.uuid);
    expect(pings).toHaveLength(100);
    expect(pings[0].n).toBe(105);
    expect(pings[99].n).toBe(6);
  });
});

describe('flips endpoint', () => {
  // 12:00:00 new→up, 12:01:00 up→down (fail), 12:02:00 down→up, 12:03:00 up→paused, 12:04:00 paused→new
  async function history(): Promise<{ uuid: string; uniqueKey: string }> {
    const c = await createCheck(env.url, env.p.apiKey);
    at(T0 + 0.5 * SEC);
    await ping(env.url, c.uuid);
    at(T0 + 60 * SEC);
    await ping(env.url, `${c.uuid}/fail`);
    at(T0 + 120 * SEC);
    await ping(env.url, c.uuid);
    at(T0 + 180 * SEC);
    await apiPost(env, `/checks/${c.uuid}/pause`);
    at(T0 + 240 * SEC);
    await apiPost(env, `/checks/${c.uuid}/resume`);
    at(T0 + 300 * SEC);
    const ro = await api(env.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKeyReadonly });
    return { uuid: c.uuid, uniqueKey: ro.json.unique_key };
  }

  it('is a bare JSON array, newest first, every change included, timestamps to the second', async () => {
    const { uuid } = await history();
    const r = await api(env.url, `/api/v3/checks/${uuid}/flips/`, { key: env.p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Array.isArray(r.json)).toBe(true);
    expect(r.json).toEqual([
      { timestamp: '2020-06-01T12:04:00+00:00', up: 0 },
      { timestamp: '2020-06-01T12:03:00+00:00', up: 0 },
      { timestamp: '2020-06-01T12:02:00+00:00', up: 1 },
      { timestamp: '2020-06-01T12:01:00+00:00', up: 0 },
      { timestamp: '2020-06-01T12:00:00+00:00', up: 1 },
    ]);
  });

  it('filters: start inclusive, end exclusive, seconds back from now, combined with AND', async () => {
    const { uuid } = await history();
    const t = (s: number) => String(T0 / 1000 + s);
    const stamps = async (q: string) => (await listFlips(env, uuid, q)).map((f) => f.timestamp.slice(11, 19));
    expect(await stamps(`?start=${t(60)}`)).toEqual(['12:04:00', '12:03:00', '12:02:00', '12:01:00']);
    expect(await stamps(`?start=${t(61)}`)).toEqual(['12:04:00', '12:03:00', '12:02:00']);
    expect(await stamps(`?end=${t(60)}`)).toEqual(['12:00:00']);
    expect(await stamps(`?start=${t(60)}&end=${t(180)}`)).toEqual(['12:02:00', '12:01:00']);
    // now = 12:05:00
    expect(await stamps('?seconds=120')).toEqual(['12:04:00', '12:03:00']);
    expect(await stamps('?seconds=120.0')).toEqual(['12:04:00', '12:03:00']);
    expect(await stamps('?seconds=0')).toHaveLength(5);
    expect(await stamps('?seconds=')).toHaveLength(5);
    expect(await stamps('?start=0')).toHaveLength(5);
    expect(await stamps('?end=0')).toEqual([]);
    expect(await stamps(`?seconds=250&end=${t(180)}`)).toEqual(['12:02:00', '12:01:00']);
    expect(await stamps(`?start=${t(1000)}&start=${t(0)}`)).toHaveLength(5);
  });

  it('bad filter values are 400 with an empty body', async () => {
    const { uuid } = await history();
    const bad = [
      'start=abc',
      'start=',
      'start=-1',
      'start=1.5',
      'start=12345678901234567890',
      'start=10000000001',
      'end=x',
      'end=',
      'end=-5',
      'seconds=-1',
      'seconds=31536001',
      'seconds=abc',
      'seconds=1.5',
    ];
    for (const q of bad) {
      const r = await api(env.url, `/api/v3/checks/${uuid}/flips/?${q}`, { key: env.p.apiKey });
      expect(r.status, q).toBe(400);
      expect(r.text, q).toBe('');
    }
    for (const q of ['start=10000000000', 'seconds=31536000', 'start=%2012%20']) {
      expect((await api(env.url, `/api/v3/checks/${uuid}/flips/?${q}`, { key: env.p.apiKey })).status, q).toBe(200);
    }
  });

  it('by unique_key, with a read-only key too; unknown keys and other projects are 404/403', async () => {
    const { uuid, uniqueKey } = await history();
    const byKey = await api(env.url, `/api/v3/checks/${uniqueKey}/flips/`, { key: env.p.apiKeyReadonly });
    expect(byKey.status).toBe(200);
    expect(byKey.json).toEqual(await listFlips(env, uuid));
    expect((await api(env.url, `/api/v3/checks/${uuid}/flips/`, { key: env.p.apiKeyReadonly })).status).toBe(200);
    expect((await api(env.url, `/api/v3/checks/${'0'.repeat(40)}/flips/`, { key: env.p.apiKey })).status).toBe(404);
    const other = await env.d.createProject({ name: 'other' });
    expect((await api(env.url, `/api/v3/checks/${uuid}/flips/`, { key: other.apiKey })).status).toBe(403);
    expect((await api(env.url, `/api/v3/checks/${uniqueKey}/flips/`, { key: other.apiKey })).status).toBe(404);
  });
});

describe('deleting a check', () => {
  it('removes its pings, bodies and flips from the store, and leaves other checks alone', async () => {
    const doomed = await createCheck(env.url, env.p.apiKey);
    const kept = await createCheck(env.url, env.p.apiKey);
    for (const c of [doomed, kept]) {
      await ping(env.url, c.uuid, { method: 'POST', body: 'payload' });
      await ping(env.url, `${c.uuid}/fail`, { method: 'POST', body: 'boom' });
      await ping(env.url, c.uuid);
    }
    const db = environmentOf(env.d.daemon.store);
    const pingKeys = (uuid: string) => storedPingNumbers(db, uuid);
    const flipKeys = (uuid: string) => [...db.flips.getKeys({ start: [uuid, 0], end: [uuid, Infinity] })];
    expect(pingKeys(doomed.uuid)).toHaveLength(3);
    expect(flipKeys(doomed.uuid)).toHaveLength(3);

    const del = await api(env.url, `/api/v3/checks/${doomed.uuid}`, { method: 'DELETE', key: env.p.apiKey });
    expect(del.status).toBe(200);
    expect(pingKeys(doomed.uuid)).toEqual([]);
    expect(flipKeys(doomed.uuid)).toEqual([]);
    expect(db.checks.get(doomed.uuid)).toBeUndefined();
    expect((await api(env.url, `/api/v3/checks/${doomed.uuid}/pings/`, { key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.url, `/api/v3/checks/${doomed.uuid}/pings/1/body`, { key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.url, `/api/v3/checks/${doomed.uuid}/flips/`, { key: env.p.apiKey })).status).toBe(404);
    // A ping to the deleted check is an unknown UUID now.
    const r = await fetch(`${env.url}/ping/${doomed.uuid}`);
    expect(r.status).toBe(404);
    expect(await r.text()).toBe('not found');

    expect(pingKeys(kept.uuid)).toHaveLength(3);
    expect(flipKeys(kept.uuid)).toHaveLength(3);
    expect(await listPings(env, kept.uuid)).toHaveLength(3);
  });
});
