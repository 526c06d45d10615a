// /api/v1/ and /api/v2/ next to /api/v3/ (api-details §18): the same endpoints,
// slug derived from name before v3, URLs under the request's version, and the
// v1 "started" status.
import { describe, expect, it } from 'vitest';
import { api, BASE_URL, createCheck, ping } from '../helpers/http.js';
import { createChannel, expectedUniqueKey, RW_READ_KEYS, RW_WRITE_KEYS, useApiDaemon } from './support.js';

const env = useApiDaemon();

const create = (v: number, body: Record<string, unknown>) =>
  api(env.url, `/api/v${v}/checks/`, { key: env.p.apiKey, body });

describe.each([1, 2])('v%i', (v) => {
  it('create derives the slug from the name unless slug is given', async () => {
    const a = await create(v, { name: 'Foo' });
    expect(a.status).toBe(201);
    expect(Object.keys(a.json)).toEqual([...RW_WRITE_KEYS]);
    expect(a.json.slug).toBe('foo');
    expect((await create(v, { name: 'Alice 1' })).json.slug).toBe('alice-1');
    expect((await create(v, { name: 'Héllo,  Wörld!' })).json.slug).toBe('hello-world');
    expect((await create(v, { name: '  --Mixed_Case--  ' })).json.slug).toBe('mixed_case');
    expect((await create(v, { name: 'Foo', slug: 'explicit' })).json.slug).toBe('explicit');
    // Python's whitespace includes the separators \x1c-\x1f: they become a hyphen.
    expect((await create(v, { name: 'backup\u001fjob\u001cx' })).json.slug).toBe('backup-job-x');
    expect((await create(v, {})).json.slug).toBe('');
  });

  it('update derives the slug from a new name; other updates keep it', async () => {
    const c = (await create(v, { name: 'First' })).json;
    const path = `/api/v${v}/checks/${c.uuid}`;
    const r = await api(env.url, path, { key: env.p.apiKey, body: { name: 'Second Name' } });
    expect(r.json.slug).toBe('second-name');
    expect((await api(env.url, path, { key: env.p.apiKey, body: { desc: 'x' } })).json.slug).toBe('second-name');
    expect((await api(env.url, path, { key: env.p.apiKey, body: { name: 'Third', slug: 'own' } })).json.slug).toBe('own');
  });

  it('URLs in responses point under the request version', async () => {
    const c = (await create(v, { name: 'urls' })).json;
    expect(c.update_url).toBe(`${BASE_URL}/api/v${v}/checks/${c.uuid}`);
    expect(c.pause_url).toBe(`${BASE_URL}/api/v${v}/checks/${c.uuid}/pause`);
    expect(c.resume_url).toBe(`${BASE_URL}/api/v${v}/checks/${c.uuid}/resume`);
    expect(c.ping_url).toBe(`${BASE_URL}/ping/${c.uuid}`);
    const list = await api(env.url, `/api/v${v}/checks/`, { key: env.p.apiKey });
    const mine = list.json.checks.find((x: any) => x.uuid === c.uuid);
    expect(Object.keys(mine)).toEqual(RW_READ_KEYS);
    expect(mine.update_url).toBe(`${BASE_URL}/api/v${v}/checks/${c.uuid}`);
    // The same check seen through v3 has v3 URLs.
    const v3 = await api(env.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey });
    expect(v3.json.update_url).toBe(`${BASE_URL}/api/v3/checks/${c.uuid}`);
  });

  it('serves every endpoint', async () => {
    const c = (await create(v, { tags: 'vt' })).json;
    await ping(env.url, c.uuid, { body: 'b' });
    await createChannel(env, `chan-v${v}`);
    const k = env.p.apiKey;
    const base = `/api/v${v}`;
    expect((await api(env.url, `${base}/checks/${c.uuid}`, { key: k })).status).toBe(200);
    expect((await api(env.url, `${base}/checks/${expectedUniqueKey(c.uuid)}`, { key: k })).status).toBe(200);
    expect((await api(env.url, `${base}/checks/${c.uuid}/pings/`, { key: k })).json.pings).toHaveLength(1);
    expect((await api(env.url, `${base}/checks/${c.uuid}/pings/1/body`, { key: k })).text).toBe('b');
    // v1 and v2 wrap the list as the real service does (v3's bare array: pings-flips.test.ts).
    expect((await api(env.url, `${base}/checks/${c.uuid}/flips/`, { key: k })).json).toEqual({
      flips: [{ timestamp: expect.any(String), up: 1 }],
    });
    expect((await api(env.url, `${base}/channels/`, { key: k })).json.channels.length).toBeGreaterThan(0);
    expect(Object.keys((await api(env.url, `${base}/badges/`, { key: k })).json.badges)).toContain('vt');
    expect((await api(env.url, `${base}/status/`)).text).toBe('OK');
    expect((await api(env.url, `${base}/checks/${c.uuid}/pause`, { method: 'POST', key: k })).json.status).toBe('paused');
    expect((await api(env.url, `${base}/checks/${c.uuid}/resume`, { method: 'POST', key: k })).json.status).toBe('new');
    expect((await api(env.url, `${base}/checks/${c.uuid}`, { method: 'DELETE', key: k })).status).toBe(200);
    expect((await api(env.url, `${base}/checks`, { key: k })).status).toBe(301);
    expect((await api(env.url, `${base}/checks/`, { method: 'OPTIONS' })).status).toBe(204);
  });

  it('upsert works the same (200 on a match)', async () => {
    const first = await create(v, { name: `up-v${v}`, unique: ['name'] });
    const again = await create(v, { name: `up-v${v}`, unique: ['name'], tags: 'z' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.json.uuid).toBe(first.json.uuid);
  });
});

describe('status of a running check', () => {
  it('v1 reports "started"; v2 and v3 report the status with started separately', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, `${c.uuid}/start`);
    const get = (v: number, code = c.uuid, key = env.p.apiKey) => api(env.url, `/api/v${v}/checks/${code}`, { key });
    expect((await get(1)).json).toMatchObject({ status: 'started', started: true });
    expect((await get(2)).json).toMatchObject({ status: 'new', started: true });
    expect((await get(3)).json).toMatchObject({ status: 'new', started: true });
    const uk = expectedUniqueKey(c.uuid);
    expect((await get(1, uk, env.p.apiKeyReadonly)).json).toMatchObject({ status: 'started', started: true });
    expect((await get(2, uk, env.p.apiKeyReadonly)).json).toMatchObject({ status: 'new', started: true });
    const list1 = await api(env.url, '/api/v1/checks/', { key: env.p.apiKey });
    expect(list1.json.checks.find((x: any) => x.uuid === c.uuid).status).toBe('started');
    // After the success ping the run is over: up everywhere, started false.
    await ping(env.url, c.uuid);
    expect((await get(1)).json).toMatchObject({ status: 'up', started: false });
    expect((await get(3)).json).toMatchObject({ status: 'up', started: false });
  });

  it('v3 keeps the slug on update and never derives it', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'Foo', slug: 'foo' });
    const r = await api(env.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey, body: { name: 'Bar' } });
    expect(r.json).toMatchObject({ name: 'Bar', slug: 'foo' });
  });
});
