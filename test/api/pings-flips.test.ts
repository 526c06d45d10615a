// GET …/pings/, GET …/pings/<n>/body and GET …/flips/ (api-details §10–§12),
// against a daemon whose clock the test moves by hand.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { api, BASE_URL, createCheck, MISSING_UUID, ping } from '../helpers/http.js';
import { expectedUniqueKey, newProject, RO_READ_KEYS, RW_READ_KEYS, RW_WRITE_KEYS, useApiDaemon, v3 } from './support.js';

const T0 = Date.parse('2020-06-01T12:00:00.000Z');
const clock = new ManualClock(T0);
const env = useApiDaemon({ clock });

const pings = (uuid: string, key = env.p.apiKey) => api(env.url, v3(`/checks/${uuid}/pings/`), { key });
const body = (uuid: string, n: number | string, key = env.p.apiKey) => api(env.url, v3(`/checks/${uuid}/pings/${n}/body`), { key });
const flips = (code: string, query = '', key = env.p.apiKey) => api(env.url, v3(`/checks/${code}/flips/${query}`), { key });

describe('list pings', () => {
  it('lists pings newest first with the documented fields', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    clock.set(Date.parse('2020-06-09T14:51:06.113Z'));
    await ping(env.url, `${c.uuid}/start`);
    clock.advance(5_500);
    await fetch(`${env.url}/ping/${c.uuid}`, { method: 'POST', body: 'all good', headers: { 'User-Agent': 'curl/8' } }).then((r) => r.text());
    clock.advance(1000);
    await ping(env.url, `${c.uuid}/fail`);
    clock.advance(1000);
    await ping(env.url, `${c.uuid}/log`, { body: '' });
    const r = await pings(c.uuid);
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const list = r.json.pings;
    expect(list.map((p: any) => [p.n, p.type])).toEqual([
      [4, 'log'],
      [3, 'fail'],
      [2, 'success'],
      [1, 'start'],
    ]);
    const [, , success, start] = list;
    expect(Object.keys(start)).toEqual(['type', 'date', 'n', 'scheme', 'remote_addr', 'method', 'ua', 'rid', 'body_url']);
    expect(start).toMatchObject({ date: '2020-06-09T14:51:06.113000+00:00', scheme: 'http', method: 'GET', rid: null, body_url: null });
    expect(start.remote_addr).toMatch(/127\.0\.0\.1/);
    expect(Object.keys(success)).toEqual([...Object.keys(start), 'duration']);
    expect(success).toMatchObject({
      date: '2020-06-09T14:51:11.613000+00:00',
      method: 'POST',
      ua: 'curl/8',
      duration: 5.5,
      body_url: `${BASE_URL}/api/v3/checks/${c.uuid}/pings/2/body`,
    });
    // An empty body is no body.
    expect(list[0].body_url).toBeNull();
  });

  it('keeps the fraction when it is exactly zero (the document: dates include fractional seconds) and reports rid', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    clock.set(Date.parse('2020-06-10T00:00:00.000Z'));
    const rid = '4b5c6d7e-0000-4000-8000-0123456789ab';
    await fetch(`${env.url}/ping/${c.uuid}?rid=${rid.toUpperCase()}`).then((r) => r.text());
    const [p] = (await pings(c.uuid)).json.pings;
    expect(p.date).toBe('2020-06-10T00:00:00.000000+00:00');
    expect(p.rid).toBe(rid);
  });

  it('returns at most the project ping log limit', async () => {
    const p = await env.d.createProject({ pingLogLimit: 3 });
    const c = await createCheck(env.url, p.apiKey);
    for (let i = 0; i < 5; i++) await ping(env.url, c.uuid, { body: `b${i + 1}` });
    const r = await pings(c.uuid, p.apiKey);
    expect(r.json.pings.map((x: any) => x.n)).toEqual([5, 4, 3]);
    // Bodies outside the window are gone too.
    expect((await body(c.uuid, 2, p.apiKey)).status).toBe(404);
    expect((await body(c.uuid, 3, p.apiKey)).text).toBe('b3');
  });

  it('a new check has no pings; v1 body_url points under /api/v1/', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await pings(c.uuid)).json).toEqual({ pings: [] });
    await ping(env.url, c.uuid, { body: 'x' });
    const r = await api(env.url, `/api/v1/checks/${c.uuid}/pings/`, { key: env.p.apiKey });
    expect(r.json.pings[0].body_url).toBe(`${BASE_URL}/api/v1/checks/${c.uuid}/pings/1/body`);
  });

  it('401 for a read-only key, 403 for another project, 404 for unknown', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await pings(c.uuid, env.p.apiKeyReadonly)).json).toEqual({ error: 'wrong api key' });
    expect((await pings(c.uuid, env.other.apiKey)).status).toBe(403);
    expect((await pings(MISSING_UUID)).status).toBe(404);
    expect((await api(env.url, v3('/checks/nope/pings/'), { key: env.p.apiKey })).status).toBe(404);
  });
});

describe('ping body', () => {
  it('returns the logged bytes verbatim as text/plain', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const raw = Buffer.from('Hello\x01\x99World', 'latin1');
    await fetch(`${env.url}/ping/${c.uuid}`, { method: 'POST', body: raw }).then((r) => r.text());
    const res = await fetch(env.url + v3(`/checks/${c.uuid}/pings/1/body`), { headers: { 'X-Api-Key': env.p.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(Buffer.from(await res.arrayBuffer()).equals(raw)).toBe(true);
  });

  it('404 for no body, an unknown ping number, an unknown check; 403 and 401 as elsewhere', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    expect((await body(c.uuid, 1)).status).toBe(404);
    expect((await body(c.uuid, 2)).status).toBe(404);
    expect((await body(c.uuid, 0)).status).toBe(404);
    expect((await body(c.uuid, '99999999999999999999')).status).toBe(404);
    expect((await body(c.uuid, 'x')).status).toBe(404);
    expect((await body(MISSING_UUID, 1)).status).toBe(404);
    await ping(env.url, c.uuid, { body: 'secret' });
    expect((await body(c.uuid, 2)).text).toBe('secret');
    expect((await body(c.uuid, 2, env.other.apiKey)).status).toBe(403);
    expect((await body(c.uuid, 2, env.p.apiKeyReadonly)).status).toBe(401);
    const none = await api(env.url, v3(`/checks/${c.uuid}/pings/2/body`), {});
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: 'missing api key' });
  });
});

describe('flips', () => {
  let uuid = '';
  // Timeline: ping (new→up) at T1, pause at T2, resume at T3, ping (new→up) at T4.
  const T1 = Date.parse('2020-06-01T12:24:32.123Z');
  const T2 = T1 + 60_000;
  const T3 = T2 + 60_000;
  const T4 = T3 + 60_000;
  const NOW = T4 + 3600_000;
  const secs = (ms: number) => Math.floor(ms / 1000);

  it('set up', async () => {
    clock.set(T0);
    uuid = (await createCheck(env.url, env.p.apiKey)).uuid;
    clock.set(T1);
    await ping(env.url, uuid);
    clock.set(T2);
    await api(env.url, v3(`/checks/${uuid}/pause`), { method: 'POST', key: env.p.apiKey });
    clock.set(T3);
    await api(env.url, v3(`/checks/${uuid}/resume`), { method: 'POST', key: env.p.apiKey });
    clock.set(T4);
    await ping(env.url, uuid);
    clock.set(NOW);
  });

  it('returns a bare JSON array, newest first, timestamps without fractions', async () => {
    const r = await flips(uuid);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.json).toEqual([
      { timestamp: '2020-06-01T12:27:32+00:00', up: 1 },
      { timestamp: '2020-06-01T12:26:32+00:00', up: 0 },
      { timestamp: '2020-06-01T12:25:32+00:00', up: 0 },
      { timestamp: '2020-06-01T12:24:32+00:00', up: 1 },
    ]);
  });

  it('works by unique_key and with a read-only key', async () => {
    const all = (await flips(uuid)).json;
    expect((await flips(expectedUniqueKey(uuid))).json).toEqual(all);
    expect((await flips(uuid, '', env.p.apiKeyReadonly)).json).toEqual(all);
    expect((await flips(expectedUniqueKey(uuid), '', env.p.apiKeyReadonly)).json).toEqual(all);
  });

  it('a new check has no flips', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await flips(c.uuid)).json).toEqual([]);
  });

  it('start is inclusive, end is exclusive; they combine', async () => {
    const ups = async (q: string) => (await flips(uuid, q)).json.map((f: any) => f.timestamp.slice(11, 19));
    expect(await ups(`?start=${secs(T2)}`)).toEqual(['12:27:32', '12:26:32', '12:25:32']);
    expect(await ups(`?start=${secs(T2) + 1}`)).toEqual(['12:27:32', '12:26:32']);
    // The 12:24:32.123 flip is after 12:24:32 exactly, so end=12:24:32 excludes it and end=…33 keeps it.
    expect(await ups(`?end=${secs(T1)}`)).toEqual([]);
    expect(await ups(`?end=${secs(T1) + 1}`)).toEqual(['12:24:32']);
    expect(await ups(`?start=${secs(T2)}&end=${secs(T4)}`)).toEqual(['12:26:32', '12:25:32']);
    expect(await ups('?start=0')).toHaveLength(4);
    expect(await ups('?end=0')).toEqual([]);
    expect(await ups('?start=1591014300')).toEqual(['12:27:32', '12:26:32', '12:25:32']);
    expect(await ups('?end=1591014180')).toEqual([]);
    expect(await ups(`?start=%20${secs(T4)}%20`)).toEqual(['12:27:32']);
    expect(await ups(`?start=%2B${secs(T4)}`)).toEqual(['12:27:32']);
  });

  it('seconds counts back from now; 0 and empty apply no filter; a trailing .0 is tolerated', async () => {
    const n = async (q: string) => (await flips(uuid, q)).json.length;
    // NOW is one hour after T4.
    expect(await n('?seconds=3600')).toBe(1);
    expect(await n('?seconds=3599')).toBe(0);
    expect(await n(`?seconds=${(NOW - T2) / 1000}`)).toBe(3);
    expect(await n('?seconds=3600.0')).toBe(1);
    expect(await n('?seconds=3600.00')).toBe(1);
    expect(await n('?seconds=0')).toBe(4);
    expect(await n('?seconds=')).toBe(4);
    expect(await n('?seconds=31536000')).toBe(4);
    expect(await n(`?seconds=3600&start=${secs(T4) + 1}`)).toBe(0);
  });

  it('a repeated parameter uses its last value', async () => {
    expect((await flips(uuid, `?start=0&start=${secs(T4)}`)).json).toHaveLength(1);
  });

  it.each([
    '?start=abc',
    '?start=',
    '?start=-1',
    '?start=1.5',
    '?start=12345678901234567890',
    '?start=10000000001',
    '?end=abc',
    '?end=',
    '?end=-5',
    '?seconds=-1',
    '?seconds=31536001',
    '?seconds=1.5',
    '?seconds=abc',
    '?seconds=1e3',
    '?start=0&end=x',
  ])('%s → 400 with an empty body, typed text/html as upstream', async (q) => {
    const r = await flips(uuid, q);
    expect(r.status).toBe(400);
    expect(r.text).toBe('');
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('the limits themselves are valid', async () => {
    expect((await flips(uuid, '?start=10000000000')).status).toBe(200);
    expect((await flips(uuid, '?end=10000000000')).json).toHaveLength(4);
  });

  it('ownership comes before query validation: 403 / 404 even with a bad query', async () => {
    const theirs = await createCheck(env.url, env.other.apiKey);
    expect((await flips(theirs.uuid, '?start=abc')).status).toBe(403);
    expect((await flips(MISSING_UUID, '?start=abc')).status).toBe(404);
    expect((await flips(expectedUniqueKey(theirs.uuid))).status).toBe(404);
  });

  it('a deleted check no longer has flips', async () => {
    const p = await newProject(env);
    const c = await createCheck(env.url, p.apiKey);
    await ping(env.url, c.uuid);
    await api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: p.apiKey });
    expect((await flips(c.uuid, '', p.apiKey)).status).toBe(404);
    expect((await flips(expectedUniqueKey(c.uuid), '', p.apiKey)).status).toBe(404);
  });
});

describe('timing fields of the check representation', () => {
  /** `keys` with last_duration inserted right after badge_url. */
  const withDuration = (keys: readonly string[]) => {
    const i = keys.indexOf('badge_url') + 1;
    return [...keys.slice(0, i), 'last_duration', ...keys.slice(i)];
  };

  it('last_ping / next_ping drop fractions; last_duration follows a timed run', async () => {
    clock.set(Date.parse('2021-03-04T05:06:07.890Z'));
    const c = await createCheck(env.url, env.p.apiKey, { timeout: 3600, grace: 600 });
    await ping(env.url, `${c.uuid}/start`);
    const running = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(running.json).toMatchObject({ started: true, last_ping: null });
    expect(running.json).not.toHaveProperty('last_duration');
    clock.advance(65_400);
    await ping(env.url, c.uuid);
    const rw = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(rw.json).toMatchObject({
      status: 'up',
      started: false,
      last_ping: '2021-03-04T05:07:13+00:00',
      next_ping: '2021-03-04T06:07:13+00:00',
      last_duration: 65,
    });
    expect(Object.keys(rw.json)).toEqual(withDuration(RW_READ_KEYS));
    const ro = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKeyReadonly });
    expect(Object.keys(ro.json)).toEqual(withDuration(RO_READ_KEYS));
    const written = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, body: {} });
    expect(Object.keys(written.json)).toEqual(withDuration(RW_WRITE_KEYS));
    expect(Object.keys(written.json)).toHaveLength(30);
    // A run shorter than a second still ran: last_duration 0 (upstream tests the
    // duration, `if self.last_duration:`, then truncates it).
    await ping(env.url, `${c.uuid}/start`);
    clock.advance(400);
    await ping(env.url, c.uuid);
    expect((await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).json).toHaveProperty('last_duration', 0);
  });

  it('status moves up → grace → down as time passes, without any request changing it', async () => {
    const t = Date.parse('2021-05-01T00:00:00Z');
    clock.set(t);
    const c = await createCheck(env.url, env.p.apiKey, { timeout: 60, grace: 60 });
    await ping(env.url, c.uuid);
    const status = async () => (await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).json.status;
    clock.set(t + 59_000);
    expect(await status()).toBe('up');
    clock.set(t + 60_000);
    expect(await status()).toBe('grace');
    const inGrace = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(inGrace.json.next_ping).toBe('2021-05-01T00:01:00+00:00');
    clock.set(t + 119_000);
    expect(await status()).toBe('grace');
    clock.set(t + 120_000);
    expect(await status()).toBe('down');
  });
});

describe('creation order when the clock does not move', () => {
  it('lists checks in creation order and upserts the oldest, all created at one instant', async () => {
    clock.set(Date.parse('2022-01-01T00:00:00Z'));
    const p = await newProject(env);
    const made: string[] = [];
    for (let i = 0; i < 8; i++) made.push((await createCheck(env.url, p.apiKey, { name: 'same', desc: String(i) })).uuid);
    const list = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(list.json.checks.map((c: any) => c.uuid)).toEqual(made);
    const up = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'same', unique: ['name'], desc: 'x' } });
    expect(up.status).toBe(200);
    expect(up.json.uuid).toBe(made[0]);
  });

  it('lists channels in creation order, all created at one instant', async () => {
    const p = await newProject(env);
    const at = clock.now();
    const made: string[] = [];
    for (let i = 0; i < 8; i++) {
      made.push((await env.d.daemon.store.createChannel({ projectId: p.id, kind: 'email', name: `c${i}`, value: 'a@b.cd' }, at)).id);
    }
    const r = await api(env.url, v3('/channels/'), { key: p.apiKey });
    expect(r.json.channels.map((c: any) => c.id)).toEqual(made);
  });
});
