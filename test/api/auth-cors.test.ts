// Authentication (api-details §2), method handling (§1.3, §1.4) and CORS (§16)
// over every API route.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createCheck, ping } from '../helpers/http.js';
import { expectedUniqueKey, useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

type Access = 'read' | 'write';
interface Route {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: () => string;
  access: Access;
  /** Methods in Access-Control-Allow-Methods (besides OPTIONS). */
  allowed: string[];
  /** A method that must give 405. */
  wrong: string;
}

let uuid = '';
let pausedUuid = '';
const routes: Route[] = [
  { name: 'list checks', method: 'GET', path: () => v3('/checks/'), access: 'read', allowed: ['GET', 'POST'], wrong: 'PUT' },
  { name: 'create check', method: 'POST', path: () => v3('/checks/'), access: 'write', allowed: ['GET', 'POST'], wrong: 'PATCH' },
  { name: 'get check', method: 'GET', path: () => v3(`/checks/${uuid}`), access: 'read', allowed: ['GET', 'POST', 'DELETE'], wrong: 'PUT' },
  {
    name: 'get by unique_key',
    method: 'GET',
    path: () => v3(`/checks/${expectedUniqueKey(uuid)}`),
    access: 'read',
    allowed: ['GET'],
    wrong: 'POST',
  },
  { name: 'update check', method: 'POST', path: () => v3(`/checks/${uuid}`), access: 'write', allowed: ['GET', 'POST', 'DELETE'], wrong: 'PATCH' },
  { name: 'pause', method: 'POST', path: () => v3(`/checks/${uuid}/pause`), access: 'write', allowed: ['POST'], wrong: 'GET' },
  { name: 'resume', method: 'POST', path: () => v3(`/checks/${pausedUuid}/resume`), access: 'write', allowed: ['POST'], wrong: 'GET' },
  { name: 'list pings', method: 'GET', path: () => v3(`/checks/${uuid}/pings/`), access: 'write', allowed: ['GET'], wrong: 'POST' },
  { name: 'ping body', method: 'GET', path: () => v3(`/checks/${uuid}/pings/1/body`), access: 'write', allowed: ['GET'], wrong: 'POST' },
  { name: 'flips', method: 'GET', path: () => v3(`/checks/${uuid}/flips/`), access: 'read', allowed: ['GET'], wrong: 'POST' },
  {
    name: 'flips by unique_key',
    method: 'GET',
    path: () => v3(`/checks/${expectedUniqueKey(uuid)}/flips/`),
    access: 'read',
    allowed: ['GET'],
    wrong: 'DELETE',
  },
  { name: 'channels', method: 'GET', path: () => v3('/channels/'), access: 'write', allowed: ['GET'], wrong: 'POST' },
  { name: 'badges', method: 'GET', path: () => v3('/badges/'), access: 'read', allowed: ['GET'], wrong: 'POST' },
];
// The delete route is exercised separately: a successful call would destroy the fixture.

beforeAll(async () => {
  const c = await createCheck(env.url, env.p.apiKey, { name: 'fixture', tags: 'foo' });
  uuid = c.uuid;
  await ping(env.url, uuid, { body: 'hello body' });
  const p = await createCheck(env.url, env.p.apiKey, { name: 'paused' });
  pausedUuid = p.uuid;
  await api(env.url, v3(`/checks/${pausedUuid}/pause`), { method: 'POST', key: env.p.apiKey });
});

const call = (r: Route, opts: { key?: string | null; headers?: Record<string, string>; body?: unknown } = {}) =>
  api(env.url, r.path(), { method: r.method, key: opts.key, headers: opts.headers, body: opts.body });

function expectCors(headers: Headers, allowed?: string[]) {
  expect(headers.get('access-control-allow-origin')).toBe('*');
  expect(headers.get('access-control-allow-headers')).toBe('X-Api-Key');
  expect(headers.get('access-control-max-age')).toBe('600');
  const methods = (headers.get('access-control-allow-methods') ?? '').split(',').map((s) => s.trim());
  expect(methods).toContain('OPTIONS');
  // Exactly the route's methods: a unique_key path must not advertise POST or DELETE.
  if (allowed) expect([...methods].sort()).toEqual([...allowed, 'OPTIONS'].sort());
}

describe('authentication on every route', () => {
  it.each(routes.map((r) => [r.name, r] as const))('%s: no key → 401 missing api key (JSON, with CORS)', async (_n, r) => {
    const res = await call(r, { key: null });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'missing api key' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectCors(res.headers);
  });

  it.each(routes.map((r) => [r.name, r] as const))('%s: keys of the wrong length → 401 missing api key', async (_n, r) => {
    for (const key of ['', 'short', env.p.apiKey.slice(0, 31), env.p.apiKey + 'x']) {
      const res = await call(r, { headers: { 'X-Api-Key': key } });
      expect(res.status, key).toBe(401);
      expect(res.json).toEqual({ error: 'missing api key' });
    }
  });

  it.each(routes.map((r) => [r.name, r] as const))('%s: an unknown 32-character key → 401 wrong api key', async (_n, r) => {
    const res = await call(r, { key: 'x'.repeat(32) });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'wrong api key' });
  });

  it.each(routes.map((r) => [r.name, r] as const))('%s: read-only key per the access matrix', async (_n, r) => {
    const res = await call(r, { key: env.p.apiKeyReadonly });
    if (r.access === 'write') {
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: 'wrong api key' });
    } else {
      expect(res.status).toBe(200);
    }
  });

  it.each(routes.map((r) => [r.name, r] as const))('%s: read-write key works', async (_n, r) => {
    const res = await call(r, { key: env.p.apiKey });
    expect(res.status).toBeLessThan(300);
    expectCors(res.headers, r.allowed);
    if (r.name === 'resume') {
      // Put the fixture back in the paused state for later calls.
      await api(env.url, v3(`/checks/${pausedUuid}/pause`), { method: 'POST', key: env.p.apiKey });
    }
  });

  it('another project key: 403 on its check routes, 404 by unique_key', async () => {
    for (const r of routes) {
      if (r.path().includes('/checks/') && !r.path().endsWith('/checks/')) {
        const res = await call(r, { key: env.other.apiKey });
        const expected = r.name.includes('unique_key') ? 404 : 403;
        expect(res.status, r.name).toBe(expected);
        expect(res.text).toBe('');
        expectCors(res.headers);
      }
    }
  });

  it('DELETE: missing, wrong and read-only keys give 401', async () => {
    const path = v3(`/checks/${uuid}`);
    expect((await api(env.url, path, { method: 'DELETE' })).json).toEqual({ error: 'missing api key' });
    expect((await api(env.url, path, { method: 'DELETE', key: 'y'.repeat(32) })).json).toEqual({ error: 'wrong api key' });
    expect((await api(env.url, path, { method: 'DELETE', key: env.p.apiKeyReadonly })).json).toEqual({ error: 'wrong api key' });
  });

  it('a body api_key that is an object or array is no key: 401 missing api key, never a 500', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const raw of [`{"api_key": ${deep}}`, '{"api_key": {"a": 1}}', '{"api_key": ["hcw_aaaaaaaaaaaaaaaaaaaaaaaaaaaa"]}']) {
      const r = await api(env.url, v3('/checks/'), { rawBody: raw });
      expect(r.status, raw.slice(0, 40)).toBe(401);
      expect(r.json).toEqual({ error: 'missing api key' });
    }
  });

  it('a request body must arrive within a minute (Fastify would wait for ever)', () => {
    expect(env.d.daemon.http.server.requestTimeout).toBe(60_000);
  });

  it('key length counts characters (code points), not UTF-16 units', async () => {
    // 31 ASCII characters and an emoji: 32 characters, so a wrong key, not a missing one.
    const emoji32 = `\u{1F600}${'1'.repeat(31)}`;
    const emoji31 = `\u{1F600}${'1'.repeat(30)}`;
    expect((await api(env.url, v3('/checks/'), { body: { api_key: emoji32 } })).json).toEqual({ error: 'wrong api key' });
    expect((await api(env.url, v3('/checks/'), { body: { api_key: emoji31 } })).json).toEqual({ error: 'missing api key' });
  });

  it('a unique_key path answers PUT, POST and DELETE with 405 and Allow: GET, OPTIONS', async () => {
    const path = v3(`/checks/${expectedUniqueKey(uuid)}`);
    for (const method of ['POST', 'DELETE', 'PUT', 'PATCH']) {
      const res = await api(env.url, path, { method, key: env.p.apiKey });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('GET, OPTIONS');
      expectCors(res.headers, ['GET']);
    }
  });

  it('a POST may carry the key in the body as api_key', async () => {
    const r = await api(env.url, v3('/checks/'), { body: { api_key: env.p.apiKey, name: 'body-key' } });
    expect(r.status).toBe(201);
    const u = await api(env.url, v3(`/checks/${r.json.uuid}`), { body: { api_key: env.p.apiKey, desc: 'x' } });
    expect(u.status).toBe(200);
    expect(u.json.desc).toBe('x');
  });

  it('the header wins over the body key, even when present but empty', async () => {
    const empty = await api(env.url, v3('/checks/'), { body: { api_key: env.p.apiKey }, headers: { 'X-Api-Key': '' } });
    expect(empty.status).toBe(401);
    expect(empty.json).toEqual({ error: 'missing api key' });
    const wrong = await api(env.url, v3('/checks/'), { body: { api_key: env.p.apiKey }, key: 'z'.repeat(32) });
    expect(wrong.json).toEqual({ error: 'wrong api key' });
    const ok = await api(env.url, v3('/checks/'), { body: { api_key: 'z'.repeat(32) }, key: env.p.apiKey });
    expect(ok.status).toBe(201);
  });

  it('a body api_key that is not a 32-character string is a missing key', async () => {
    for (const k of [null, 12345, true, ['a'], { k: env.p.apiKey }]) {
      const r = await api(env.url, v3('/checks/'), { body: { api_key: k } });
      expect(r.status, JSON.stringify(k)).toBe(401);
      expect(r.json).toEqual({ error: 'missing api key' });
    }
    // A 32-digit number becomes its decimal text: right length, unknown key.
    const n = await api(env.url, v3('/checks/'), { rawBody: '{"api_key": 12345678901234567890123456789012}' });
    expect(n.status).toBe(401);
  });

  it('a read-only key in the body cannot write', async () => {
    const r = await api(env.url, v3('/checks/'), { body: { api_key: env.p.apiKeyReadonly } });
    expect(r.json).toEqual({ error: 'wrong api key' });
  });

  it('the body is parsed before the key is checked: bad JSON without a key is a 400', async () => {
    const r = await api(env.url, v3('/checks/'), { rawBody: '{oops' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'could not parse request body' });
  });

  it('a revoked key stops working at once', async () => {
    const p = await env.d.createProject({ name: 'revoke' });
    const key = await env.d.daemon.store.createKey(p.id, false, Date.now());
    expect((await api(env.url, v3('/checks/'), { key })).status).toBe(200);
    expect(await env.d.daemon.store.revokeKey(p.id, key)).toBe(true);
    const r = await api(env.url, v3('/checks/'), { key });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'wrong api key' });
  });
});

describe('OPTIONS and 405', () => {
  it.each(routes.map((r) => [r.name, r] as const))('%s: OPTIONS → 204, empty, CORS, no key needed', async (_n, r) => {
    const res = await api(env.url, r.path(), { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectCors(res.headers, r.allowed);
  });

  it.each(routes.map((r) => [r.name, r] as const))('%s: a method not allowed → 405, empty, CORS, before auth', async (_n, r) => {
    const res = await api(env.url, r.path(), { method: r.wrong });
    expect(res.status).toBe(405);
    expect(res.text).toBe('');
    expectCors(res.headers);
  });

  it('a path parameter of the wrong form matches no route: 404 for every method, never 405, 204 or a redirect', async () => {
    const paths = [
      v3('/checks/not-an-uuid'),
      v3(`/checks/${uuid.toUpperCase()}`),
      v3('/checks/not-an-uuid/pause'),
      v3(`/checks/${uuid.toUpperCase()}/resume`),
      v3('/checks/not-an-uuid/pings/'),
      v3(`/checks/${expectedUniqueKey(uuid)}/pings/`),
      v3(`/checks/${uuid}/pings/abc/body`),
      v3(`/checks/${uuid}/pings/-1/body`),
      v3(`/checks/${expectedUniqueKey(uuid)}/pings/1/body`),
      v3(`/checks/${uuid.toUpperCase()}/flips/`),
      v3('/checks/not-an-uuid/flips'),
      v3('/checks/not-an-uuid/pings'),
    ];
    for (const path of paths) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const res = await api(env.url, path, { method, key: env.p.apiKey });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.text, `${method} ${path}`).toBe('');
      }
    }
  });

  it('PUT and PATCH are 405 on the single-check route too', async () => {
    for (const m of ['PUT', 'PATCH']) {
      const res = await api(env.url, v3(`/checks/${uuid}`), { method: m, key: env.p.apiKey });
      expect(res.status, m).toBe(405);
    }
  });
});

describe('trailing slashes', () => {
  it.each(['/checks', '/channels', '/badges', '/checks/UUID/flips', '/checks/UUID/pings'])(
    'GET %s → 301 to the slash form, keeping the query',
    async (p) => {
      const path = v3(p.replace('UUID', uuid));
      const res = await api(env.url, path + '?tag=foo&x=1', { key: env.p.apiKey });
      expect(res.status).toBe(301);
      expect(res.headers.get('location')).toBe(path + '/?tag=foo&x=1');
      const plain = await api(env.url, path, {});
      expect(plain.status).toBe(301);
      expect(plain.headers.get('location')).toBe(path + '/');
    },
  );

  it.each(['/checks', '/checks/UUID/flips', '/checks/UUID/pings'])('HEAD %s → 301 like GET', async (p) => {
    const path = v3(p.replace('UUID', uuid));
    const res = await api(env.url, path + '?seconds=60', { method: 'HEAD', key: env.p.apiKey });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(path + '/?seconds=60');
  });

  it('GET /api/v3/status → 301 to /api/v3/status/, no key needed', async () => {
    const res = await api(env.url, v3('/status'));
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(v3('/status/'));
  });

  it('a POST to /api/v3/checks is redirected with its body kept (308)', async () => {
    const res = await api(env.url, v3('/checks'), { key: env.p.apiKey, body: { name: 'via-308' } });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(v3('/checks/'));
    const followed = await fetch(env.url + v3('/checks'), {
      method: 'POST',
      headers: { 'X-Api-Key': env.p.apiKey },
      body: JSON.stringify({ name: 'via-308' }),
      redirect: 'follow',
    });
    expect(followed.status).toBe(201);
    expect(((await followed.json()) as { name: string }).name).toBe('via-308');
  });

  it('unknown API paths give 404', async () => {
    for (const p of ['/nope/', '/checks/x/y/z', '/metrics/', '/channels/x']) {
      expect((await api(env.url, v3(p), { key: env.p.apiKey })).status, p).toBe(404);
    }
    expect((await api(env.url, '/api/v4/checks/', { key: env.p.apiKey })).status).toBe(404);
  });
});

describe('status endpoint', () => {
  it('needs no key and has no CORS handling', async () => {
    const r = await api(env.url, v3('/status/'));
    expect(r.status).toBe(200);
    expect(r.text).toBe('OK');
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});
