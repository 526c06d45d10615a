// Ping URL forms, methods and responses over a real HTTP port (ping-protocol
// §1–§4, §6 steps 1–3, §7 validation): exact bodies, status codes and headers,
// and that refused requests record nothing.
import { describe, expect, it } from 'vitest';
import { api, createCheck, MISSING_UUID, type RawResponse, send } from '../helpers/http.js';
import { useDaemon } from '../helpers/in-process.js';
import { apiPost, getCheck, listPings } from './support.js';

const env = useDaemon();

function expectAccepted(r: RawResponse, body = 'OK', status = 200): void {
  expect(r.status).toBe(status);
  expect(r.text).toBe(body);
  expect(r.headers['access-control-allow-origin']).toBe('*');
  expect(r.headers['ping-body-limit']).toBe('10000');
  expect(r.headers['cache-control']).toContain('no-cache');
  expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
}

async function nPings(uuid: string): Promise<number> {
  return (await getCheck(env, uuid)).n_pings;
}

describe('UUID forms U1–U5', () => {
  it('U1 /ping/<uuid>: 200 OK with CORS, Ping-Body-Limit and never-cache headers; new → up', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await send(env.url, `/ping/${c.uuid}`);
    expectAccepted(r);
    expect(r.headers.expires).toBeDefined();
    const after = await getCheck(env, c.uuid);
    expect(after.n_pings).toBe(1);
    expect(after.status).toBe('up');
    expect(after.last_ping).not.toBeNull();
    const [p] = await listPings(env, c.uuid);
    expect(p).toMatchObject({ type: 'success', n: 1, scheme: 'http', method: 'GET', ua: '', rid: null, body_url: null });
    expect(p.remote_addr).toBe('127.0.0.1');
    expect(p).not.toHaveProperty('duration');
  });

  it("U1' /ping/<uuid>/ (trailing slash) is a success ping too", async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expectAccepted(await send(env.url, `/ping/${c.uuid}/`));
    expect((await getCheck(env, c.uuid)).status).toBe('up');
  });

  it('U2 /start: started, status stays new, last_ping unchanged', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expectAccepted(await send(env.url, `/ping/${c.uuid}/start`));
    const after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'new', started: true, last_ping: null, n_pings: 1 });
    expect((await listPings(env, c.uuid))[0].type).toBe('start');
  });

  it('U3 /fail: down at once', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expectAccepted(await send(env.url, `/ping/${c.uuid}/fail`));
    const after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'down', n_pings: 1, next_ping: null });
    expect(after.last_ping).not.toBeNull();
    expect((await listPings(env, c.uuid))[0].type).toBe('fail');
  });

  it('U4 /log: recorded, nothing else changes', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expectAccepted(await send(env.url, `/ping/${c.uuid}/log`, { method: 'POST', body: 'hello' }));
    const after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'new', started: false, last_ping: null, n_pings: 1 });
    expect((await listPings(env, c.uuid))[0].type).toBe('log');
  });

  it('U5 exit status 0 is success; 1..255 (leading zeros allowed) are fail', async () => {
    const ok = await createCheck(env.url, env.p.apiKey);
    expectAccepted(await send(env.url, `/ping/${ok.uuid}/0`));
    expect((await getCheck(env, ok.uuid)).status).toBe('up');
    expectAccepted(await send(env.url, `/ping/${ok.uuid}/000`));
    expect((await listPings(env, ok.uuid)).map((p) => p.type)).toEqual(['success', 'success']);

    for (const code of ['1', '7', '007', '123', '255']) {
      const c = await createCheck(env.url, env.p.apiKey);
      expectAccepted(await send(env.url, `/ping/${c.uuid}/${code}`));
      expect((await getCheck(env, c.uuid)).status).toBe('down');
      expect((await listPings(env, c.uuid))[0].type).toBe('fail');
    }
  });

  it('exit status above 255 is 400 `invalid url format` and records nothing', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    for (const code of ['256', '1000', '99999999999999999999']) {
      const r = await send(env.url, `/ping/${c.uuid}/${code}`);
      expect(r.status).toBe(400);
      expect(r.text).toBe('invalid url format');
      expect(r.headers['cache-control']).toContain('no-cache');
    }
    expect(await nPings(c.uuid)).toBe(0);
    expect(await listPings(env, c.uuid)).toEqual([]);
  });

  it('an exit status above 255 is refused whatever the check settings (methods=POST, paused with manual_resume)', async () => {
    const post = await createCheck(env.url, env.p.apiKey, { methods: 'POST' });
    const paused = await createCheck(env.url, env.p.apiKey, { manual_resume: true });
    expect((await apiPost(env, `/checks/${paused.uuid}/pause`)).status).toBe(200);
    for (const c of [post, paused]) {
      for (const method of ['GET', 'POST']) {
        const r = await send(env.url, `/ping/${c.uuid}/256`, { method });
        expect(r.status, method).toBe(400);
        expect(r.text, method).toBe('invalid url format');
      }
      expect(await nPings(c.uuid)).toBe(0);
    }
  });

  it('the check lookup comes first: /256 and a bad rid on an unknown UUID are 404 `not found`', async () => {
    for (const path of [`/ping/${MISSING_UUID}/256`, `/ping/${MISSING_UUID}?rid=bad`, `/ping/${MISSING_UUID}/start?rid=`]) {
      const r = await send(env.url, path);
      expect(r.status).toBe(404);
      expect(r.text).toBe('not found');
    }
  });

  it('exit status is validated before rid', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await send(env.url, `/ping/${c.uuid}/256?rid=nope`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('invalid url format');
  });
});

describe('404s', () => {
  it('an unknown UUID is 404 `not found` with never-cache headers', async () => {
    for (const suffix of ['', '/', '/start', '/fail', '/log', '/0', '/3']) {
      const r = await send(env.url, `/ping/${MISSING_UUID}${suffix}`);
      expect(r.status, suffix).toBe(404);
      expect(r.text, suffix).toBe('not found');
      expect(r.headers['cache-control'], suffix).toContain('no-cache');
      expect(r.headers['ping-body-limit'], suffix).toBeUndefined();
    }
  });

  it('uppercase UUIDs, UUIDs without hyphens and junk match no route: generic 404, nothing recorded', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const upper = c.uuid.toUpperCase();
    const bare = c.uuid.replace(/-/g, '');
    for (const path of [`/ping/${upper}`, `/ping/${upper}/`, `/ping/${bare}`, '/ping/XYZ', '/ping/', '/ping', `/ping/{${c.uuid}}`]) {
      const r = await send(env.url, path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).not.toBe('OK');
      expect(r.text, path).not.toBe('not found');
    }
    expect(await nPings(c.uuid)).toBe(0);
  });

  it('trailing slashes are accepted on U1 only; /-1 and other suffixes are 404', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    for (const suffix of ['/start/', '/fail/', '/log/', '/0/', '/1/', '//', '/-1', '/+1', '/1.0', '/bogus/x']) {
      const r = await send(env.url, `/ping/${c.uuid}${suffix}`);
      expect(r.status, suffix).toBe(404);
      expect(r.text, suffix).not.toBe('OK');
    }
    expect(await nPings(c.uuid)).toBe(0);
  });
});

describe('run ids', () => {
  it('a present but malformed rid is 400 `invalid uuid format` and records nothing', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const bad = ['', '12345', `${MISSING_UUID}0`, MISSING_UUID.replace(/-/g, ''), `{${MISSING_UUID}}`, 'x'.repeat(36)];
    for (const rid of bad) {
      for (const suffix of ['', '/start', '/fail', '/log', '/0']) {
        const r = await send(env.url, `/ping/${c.uuid}${suffix}?rid=${encodeURIComponent(rid)}`);
        expect(r.status, `${suffix}?rid=${rid}`).toBe(400);
        expect(r.text).toBe('invalid uuid format');
        expect(r.headers['cache-control']).toContain('no-cache');
      }
    }
    expect(await nPings(c.uuid)).toBe(0);
  });

  it('an uppercase rid is accepted and reported in lowercase; other query parameters are ignored', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const rid = '04603D8B-EDF4-4E85-8F61-24BEDBCAAB59';
    expect((await send(env.url, `/ping/${c.uuid}/start?foo=bar&rid=${rid}&create=1`)).status).toBe(200);
    const [p] = await listPings(env, c.uuid);
    expect(p.rid).toBe(rid.toLowerCase());
  });
});

describe('methods', () => {
  it('HEAD, GET, POST, PUT, DELETE, PATCH and OPTIONS are all pings, recorded with their method', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const methods = ['HEAD', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
    for (const method of methods) {
      const r = await send(env.url, `/ping/${c.uuid}`, { method });
      expect(r.status, method).toBe(200);
      expect(r.text, method).toBe(method === 'HEAD' ? '' : 'OK');
      expect(r.headers['access-control-allow-origin'], method).toBe('*');
      expect(r.headers['ping-body-limit'], method).toBe('10000');
    }
    const pings = await listPings(env, c.uuid);
    expect(pings.map((p) => p.method)).toEqual([...methods].reverse());
    expect(pings.every((p) => p.type === 'success')).toBe(true);
    expect(await nPings(c.uuid)).toBe(methods.length);
  });

  it('every other method Node parses (TRACE, PURGE, PROPFIND...) is a ping too, with its body', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const methods = ['TRACE', 'PURGE', 'PROPFIND', 'MKCOL', 'REPORT', 'LINK', 'NOTIFY', 'M-SEARCH'];
    for (const method of methods) {
      const r = await send(env.url, `/ping/${c.uuid}`, { method, body: `via ${method}` });
      expectAccepted(r);
    }
    const pings = await listPings(env, c.uuid);
    expect(pings.map((p) => p.method)).toEqual([...methods].reverse());
    expect(pings.every((p) => p.type === 'success')).toBe(true);
    for (const p of pings) {
      const body = await api(env.url, `/api/v3/checks/${c.uuid}/pings/${p.n}/body`, { key: env.p.apiKey });
      expect(body.text, p.method).toBe(`via ${p.method}`);
    }
    // The slug forms and the suffixes take them as well.
    const s = await createCheck(env.url, env.p.apiKey, { slug: 'purged' });
    expectAccepted(await send(env.url, `/ping/${env.p.pingKey}/purged/fail`, { method: 'PURGE' }));
    expect(await getCheck(env, s.uuid)).toMatchObject({ status: 'down', n_pings: 1 });
  });

  it('a Content-Type that is not a media type is ignored: the ping is recorded with its body, never 415', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const cases: Array<[string, string, string | undefined]> = [
      ['POST', 'text', 'hello'],
      ['POST', 'foo', undefined],
      ['GET', 'a b', 'on a get'],
      ['PUT', '/', 'put'],
      ['POST', 'text/', 'last'],
    ];
    for (const [method, type, body] of cases) {
      const r = await send(env.url, `/ping/${c.uuid}/log`, { method, body, headers: { 'Content-Type': type } });
      expectAccepted(r);
    }
    expectAccepted(await send(env.url, `/ping/${c.uuid}/fail`, { method: 'POST', body: 'x', headers: { 'Content-Type': 'foo' } }));
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'down', n_pings: cases.length + 1 });
    const logged = (await listPings(env, c.uuid)).filter((p) => p.type === 'log').reverse();
    for (const [i, [, type, body]] of cases.entries()) {
      const r = await api(env.url, `/api/v3/checks/${c.uuid}/pings/${logged[i].n}/body`, { key: env.p.apiKey });
      expect(r.status, type).toBe(body === undefined ? 404 : 200);
      if (body !== undefined) expect(r.text, type).toBe(body);
    }
  });

  it('HEAD is a full ping: counted and changes the status', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await send(env.url, `/ping/${c.uuid}/fail`, { method: 'HEAD' })).status).toBe(200);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'down', n_pings: 1 });
  });

  it('OPTIONS is not a CORS preflight: it is a ping', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await send(env.url, `/ping/${c.uuid}/start`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.com', 'Access-Control-Request-Method': 'POST' },
    });
    expect(r.status).toBe(200);
    expect(r.text).toBe('OK');
    expect(await getCheck(env, c.uuid)).toMatchObject({ started: true, n_pings: 1 });
  });

  it('methods=POST: anything but POST (HEAD included) is answered 200 OK and recorded as ign', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { methods: 'POST' });
    for (const method of ['GET', 'HEAD', 'PUT', 'OPTIONS']) {
      const r = await send(env.url, `/ping/${c.uuid}/fail`, { method });
      expect(r.status, method).toBe(200);
    }
    let after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'new', last_ping: null, started: false, n_pings: 4 });
    expect((await listPings(env, c.uuid)).every((p) => p.type === 'ign')).toBe(true);
    expect((await send(env.url, `/ping/${c.uuid}`, { method: 'POST' })).status).toBe(200);
    after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'up', n_pings: 5 });
    expect((await listPings(env, c.uuid))[0]).toMatchObject({ type: 'success', method: 'POST' });
  });
});
