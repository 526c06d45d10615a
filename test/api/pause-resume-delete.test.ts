// POST …/pause, POST …/resume and DELETE /api/v3/checks/<uuid> (api-details §7).
import { describe, expect, it } from 'vitest';
import { api, createCheck, MISSING_UUID, ping } from '../helpers/http.js';
import { RW_WRITE_KEYS, useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

const post = (path: string, opts: { key?: string | null; body?: unknown; rawBody?: string } = {}) =>
  api(env.url, v3(path), { method: 'POST', key: opts.key === undefined ? env.p.apiKey : opts.key, body: opts.body, rawBody: opts.rawBody });

const flipsOf = async (uuid: string) => (await api(env.url, v3(`/checks/${uuid}/flips/`), { key: env.p.apiKey })).json;

describe('pause', () => {
  it('pauses with an empty body: 200, status paused, write representation', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    const r = await post(`/checks/${c.uuid}/pause`);
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.json)).toEqual([...RW_WRITE_KEYS]);
    expect(r.json.status).toBe('paused');
    expect(r.json.next_ping).toBeNull();
    // The check is not removed and keeps its pings.
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(got.json).toMatchObject({ status: 'paused', n_pings: 1 });
  });

  it('accepts a JSON body with an empty content type, {} and the key in the body', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r1 = await api(env.url, v3(`/checks/${c.uuid}/pause`), {
      method: 'POST',
      key: env.p.apiKey,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r1.status).toBe(200);
    const r2 = await post(`/checks/${c.uuid}/pause`, { body: {} });
    expect(r2.status).toBe(200);
    const r3 = await post(`/checks/${c.uuid}/pause`, { key: null, body: { api_key: env.p.apiKey } });
    expect(r3.status).toBe(200);
    expect(r3.json.status).toBe('paused');
  });

  it('pausing a paused check answers 200 and records no second flip', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    await post(`/checks/${c.uuid}/pause`);
    const before = await flipsOf(c.uuid);
    const r = await post(`/checks/${c.uuid}/pause`);
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('paused');
    expect(await flipsOf(c.uuid)).toEqual(before);
  });

  it('rejects a non-object body with 400', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await post(`/checks/${c.uuid}/pause`, { rawBody: '123' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'json validation error: value is not an object' });
  });

  it('401 / 403 / 404', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await post(`/checks/${c.uuid}/pause`, { key: null })).status).toBe(401);
    expect((await post(`/checks/${c.uuid}/pause`, { key: env.p.apiKeyReadonly })).json).toEqual({ error: 'wrong api key' });
    const theirs = await createCheck(env.url, env.other.apiKey);
    const r = await post(`/checks/${theirs.uuid}/pause`);
    expect(r.status).toBe(403);
    expect(r.text).toBe('');
    expect((await api(env.url, v3(`/checks/${theirs.uuid}`), { key: env.other.apiKey })).json.status).toBe('new');
    expect((await post(`/checks/${MISSING_UUID}/pause`)).status).toBe(404);
    expect((await post('/checks/not-an-uuid/pause')).status).toBe(404);
  });

  it('only POST is allowed (GET gives 405)', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await api(env.url, v3(`/checks/${c.uuid}/pause`), { key: env.p.apiKey });
    expect(r.status).toBe(405);
  });
});

describe('resume', () => {
  it('resumes a paused check: 200, status new, last_ping null', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    await post(`/checks/${c.uuid}/pause`);
    const r = await post(`/checks/${c.uuid}/resume`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual([...RW_WRITE_KEYS]);
    expect(r.json).toMatchObject({ status: 'new', last_ping: null, next_ping: null, n_pings: 1 });
  });

  it('409 "check is not paused" as plain text when the check is not paused', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await post(`/checks/${c.uuid}/resume`);
    expect(r.status).toBe(409);
    expect(r.text).toBe('check is not paused');
    expect(r.json).toBeUndefined();
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    await ping(env.url, c.uuid);
    const up = await post(`/checks/${c.uuid}/resume`);
    expect(up.status).toBe(409);
    expect((await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).json.status).toBe('up');
  });

  it('accepts the key in the body; rejects non-object bodies', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await post(`/checks/${c.uuid}/pause`);
    expect((await post(`/checks/${c.uuid}/resume`, { rawBody: '[1]' })).status).toBe(400);
    const r = await post(`/checks/${c.uuid}/resume`, { key: null, body: { api_key: env.p.apiKey } });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('new');
  });

  it('401 / 403 / 404', async () => {
    const theirs = await createCheck(env.url, env.other.apiKey);
    await api(env.url, v3(`/checks/${theirs.uuid}/pause`), { method: 'POST', key: env.other.apiKey });
    expect((await post(`/checks/${theirs.uuid}/resume`, { key: null })).json).toEqual({ error: 'missing api key' });
    expect((await post(`/checks/${theirs.uuid}/resume`, { key: env.p.apiKeyReadonly })).status).toBe(401);
    expect((await post(`/checks/${theirs.uuid}/resume`)).status).toBe(403);
    expect((await api(env.url, v3(`/checks/${theirs.uuid}`), { key: env.other.apiKey })).json.status).toBe('paused');
    expect((await post(`/checks/${MISSING_UUID}/resume`)).status).toBe(404);
  });

  it('pause and resume record flips (up 0 each)', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    await post(`/checks/${c.uuid}/pause`);
    await post(`/checks/${c.uuid}/resume`);
    const flips = await flipsOf(c.uuid);
    expect(flips.map((f: any) => f.up)).toEqual([0, 0, 1]);
  });
});

describe('delete', () => {
  it('answers 200 with the representation as it was, then the check is gone', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'doomed', tags: 'x' });
    const r = await api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: env.p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.json)).toEqual([...RW_WRITE_KEYS]);
    expect(r.json).toEqual(c);
    expect((await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.url, v3(`/checks/${c.uuid}/flips/`), { key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.url, v3(`/checks/${c.uuid}/pings/`), { key: env.p.apiKey })).status).toBe(404);
    const list = await api(env.url, v3('/checks/'), { key: env.p.apiKey });
    expect(list.json.checks.map((x: any) => x.uuid)).not.toContain(c.uuid);
    // The unique_key no longer resolves either.
    const ro = await api(env.url, v3('/checks/'), { key: env.p.apiKeyReadonly });
    expect(ro.json.checks.some((x: any) => x.name === 'doomed')).toBe(false);
  });

  it('pings to a deleted check are refused', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: env.p.apiKey });
    const res = await fetch(`${env.url}/ping/${c.uuid}`);
    expect(res.status).toBe(404);
  });

  it('takes the key from the header only', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await api(env.url, v3(`/checks/${c.uuid}`), {
      method: 'DELETE',
      rawBody: JSON.stringify({ api_key: env.p.apiKey }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'missing api key' });
    expect((await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).status).toBe(200);
  });

  it('401 for a read-only key, 403 for another project, 404 for unknown or malformed', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const ro = await api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: env.p.apiKeyReadonly });
    expect(ro.status).toBe(401);
    expect(ro.json).toEqual({ error: 'wrong api key' });
    const theirs = await createCheck(env.url, env.other.apiKey);
    const r = await api(env.url, v3(`/checks/${theirs.uuid}`), { method: 'DELETE', key: env.p.apiKey });
    expect(r.status).toBe(403);
    expect((await api(env.url, v3(`/checks/${theirs.uuid}`), { key: env.other.apiKey })).status).toBe(200);
    expect((await api(env.url, v3(`/checks/${MISSING_UUID}`), { method: 'DELETE', key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.url, v3('/checks/nope'), { method: 'DELETE', key: env.p.apiKey })).status).toBe(404);
  });

  it('DELETE on a unique_key path is not allowed (405)', async () => {
    const r = await api(env.url, v3(`/checks/${'a'.repeat(40)}`), { method: 'DELETE', key: env.p.apiKey });
    expect(r.status).toBe(405);
  });
});
