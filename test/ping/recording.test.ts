// What a ping records (ping-protocol §5, §10) and how it is classified (§6,
// §8): bodies up to the limit and read back verbatim, user agent, scheme,
// remote address without a trusted proxy, keyword filtering, paused checks.
import { describe, expect, it } from 'vitest';
import { api, BASE_URL, createCheck, ping, send } from '../helpers/http.js';
import { type DaemonEnv, useDaemon } from '../helpers/in-process.js';
import { apiPost, getCheck, listFlips, listPings } from './support.js';

const env = useDaemon();

async function body(e: DaemonEnv, uuid: string, n: number) {
  const r = await fetch(`${e.url}/api/v3/checks/${uuid}/pings/${n}/body`, { headers: { 'X-Api-Key': e.p.apiKey } });
  return { status: r.status, type: r.headers.get('content-type'), bytes: Buffer.from(await r.arrayBuffer()) };
}

describe('bodies', () => {
  it('a POST body is stored and read back from body_url as text/plain', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { method: 'POST', body: 'hello world', headers: { 'Content-Type': 'application/json' } });
    const [p] = await listPings(env, c.uuid);
    expect(p.body_url).toBe(`${BASE_URL}/api/v3/checks/${c.uuid}/pings/1/body`);
    const b = await body(env, c.uuid, 1);
    expect(b.status).toBe(200);
    expect(b.type).toBe('text/plain');
    expect(b.bytes.toString()).toBe('hello world');
  });

  it('body_url is versioned like the request', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { method: 'POST', body: 'x' });
    const r = await api(env.url, `/api/v2/checks/${c.uuid}/pings/`, { key: env.p.apiKey });
    expect(r.json.pings[0].body_url).toBe(`${BASE_URL}/api/v2/checks/${c.uuid}/pings/1/body`);
  });

  it('an empty body gives body_url null and the body endpoint 404', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { method: 'POST', body: '' });
    await ping(env.url, c.uuid);
    for (const p of await listPings(env, c.uuid)) expect(p.body_url).toBeNull();
    expect((await body(env, c.uuid, 1)).status).toBe(404);
    expect((await body(env, c.uuid, 2)).status).toBe(404);
    expect((await body(env, c.uuid, 3)).status).toBe(404);
  });

  it('the body of a GET (and of any other method) is stored too', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { method: 'GET', body: 'sent with GET' });
    await ping(env.url, `${c.uuid}/log`, { method: 'PUT', body: 'sent with PUT' });
    await ping(env.url, c.uuid, { method: 'DELETE', body: 'sent with DELETE' });
    expect((await body(env, c.uuid, 1)).bytes.toString()).toBe('sent with GET');
    expect((await body(env, c.uuid, 2)).bytes.toString()).toBe('sent with PUT');
    expect((await body(env, c.uuid, 3)).bytes.toString()).toBe('sent with DELETE');
  });

  it('invalid UTF-8 is stored and returned byte for byte', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const raw = [Buffer.from('Hello \xe9 World', 'latin1'), Buffer.from([0x48, 0x65, 0x01, 0x99, 0xff, 0xfe, 0x00, 0x57])];
    for (const b of raw) await ping(env.url, c.uuid, { method: 'POST', body: b });
    expect((await body(env, c.uuid, 1)).bytes.equals(raw[0]!)).toBe(true);
    expect((await body(env, c.uuid, 2)).bytes.equals(raw[1]!)).toBe(true);
  });

  it('bodies are cut to 10000 bytes by default', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const long = Buffer.alloc(15000, 'a');
    long.write('END', 14997);
    await ping(env.url, c.uuid, { method: 'POST', body: long });
    const b = await body(env, c.uuid, 1);
    expect(b.bytes.length).toBe(10000);
    expect(b.bytes.equals(long.subarray(0, 10000))).toBe(true);
  });

  it('a request above the 2.5 MB hard cap is refused and records nothing', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const huge = Buffer.alloc(2_621_441, 'z');
    const r = await send(env.url, `/ping/${c.uuid}`, { method: 'GET', body: huge }).catch(() => null);
    if (r) expect([400, 413]).toContain(r.status);
    const r2 = await send(env.url, `/ping/${c.uuid}`, { method: 'POST', body: huge }).catch(() => null);
    if (r2) expect([400, 413]).toContain(r2.status);
    expect((await getCheck(env, c.uuid)).n_pings).toBe(0);
  });

  describe('with --ping-body-limit 5', () => {
    const small = useDaemon({ pingBodyLimit: 5 });
    it('stores `hello` of `hello world` and announces the limit', async () => {
      const c = await createCheck(small.url, small.p.apiKey);
      const r = await ping(small.url, c.uuid, { method: 'POST', body: 'hello world' });
      expect(r.headers['ping-body-limit']).toBe('5');
      await ping(small.url, c.uuid, { method: 'GET', body: 'abcdefgh' });
      expect((await body(small, c.uuid, 1)).bytes.toString()).toBe('hello');
      expect((await body(small, c.uuid, 2)).bytes.toString()).toBe('abcde');
    });

    it('keyword filtering only sees the stored bytes', async () => {
      const c = await createCheck(small.url, small.p.apiKey, { filter_http_body: true, failure_kw: 'FAIL' });
      await ping(small.url, c.uuid, { method: 'POST', body: 'okay FAIL' });
      expect((await listPings(small, c.uuid))[0].type).toBe('ign');
      await ping(small.url, c.uuid, { method: 'POST', body: 'FAIL!' });
      expect((await listPings(small, c.uuid))[0].type).toBe('fail');
    });
  });
});

describe('recorded fields', () => {
  it('user agent: kept up to 200 characters, "" when absent', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { headers: { 'User-Agent': 'A'.repeat(120) } });
    await ping(env.url, c.uuid, { headers: { 'User-Agent': 'B'.repeat(250) } });
    await ping(env.url, c.uuid);
    const [none, long, short] = await listPings(env, c.uuid);
    expect(short.ua).toBe('A'.repeat(120));
    expect(long.ua).toBe('B'.repeat(200));
    expect(none.ua).toBe('');
  });

  it('scheme comes from X-Forwarded-Proto, else http', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { headers: { 'X-Forwarded-Proto': 'https' } });
    await ping(env.url, c.uuid);
    const [plain, forwarded] = await listPings(env, c.uuid);
    expect(forwarded.scheme).toBe('https');
    expect(plain.scheme).toBe('http');
  });

  it('an X-Forwarded-Proto sent empty is recorded empty, not as http', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { headers: { 'X-Forwarded-Proto': '' } });
    expect((await listPings(env, c.uuid))[0].scheme).toBe('');
  });

  it('without --trust-proxy, X-Forwarded-For is ignored: the peer address is recorded', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid, { headers: { 'X-Forwarded-For': '1.1.1.1, 2.2.2.2' } });
    await ping(env.url, c.uuid, { headers: { 'X-Forwarded-For': '2001::1' } });
    for (const p of await listPings(env, c.uuid)) expect(p.remote_addr).toBe('127.0.0.1');
  });

  it('the ping list members, in order', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, `${c.uuid}/start?rid=${'a'.repeat(8)}-aaaa-4aaa-8aaa-${'a'.repeat(12)}`);
    const [p] = await listPings(env, c.uuid);
    expect(Object.keys(p)).toEqual(['type', 'date', 'n', 'scheme', 'remote_addr', 'method', 'ua', 'rid', 'body_url']);
    expect(p.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
  });
});

describe('keyword filtering (filter_http_body)', () => {
  const cases: Array<{ name: string; check: Record<string, unknown>; path?: string; method?: string; body?: string; kind: string }> = [
    { name: 'success keyword', check: { success_kw: 'SUCCESS' }, body: 'SUCCESS!', kind: 'success' },
    { name: 'success miss', check: { success_kw: 'SUCCESS' }, body: 'hello world', kind: 'ign' },
    { name: 'failure keyword', check: { failure_kw: 'FAIL' }, body: 'FAIL!', kind: 'fail' },
    { name: 'failure miss', check: { failure_kw: 'FAIL' }, body: '---', kind: 'ign' },
    { name: 'start keyword', check: { start_kw: 'START' }, body: 'STARTING', kind: 'start' },
    { name: 'default fail', check: { filter_default_fail: true }, body: 'no keywords', kind: 'fail' },
    { name: 'keyword list, substring match', check: { success_kw: 'SUCCESS, COMPLETED' }, body: 'xxCOMPLETEDxx', kind: 'success' },
    { name: 'case-sensitive', check: { success_kw: 'success' }, body: 'SUCCESS', kind: 'ign' },
    { name: 'failure wins over success', check: { success_kw: 'OK', failure_kw: 'ERR' }, body: 'OK then ERR', kind: 'fail' },
    { name: 'success wins over start', check: { success_kw: 'done', start_kw: 'begin' }, body: 'begin ... done', kind: 'success' },
    { name: 'empty GET with default fail', check: { filter_default_fail: true }, method: 'GET', kind: 'fail' },
    { name: 'empty GET without default fail', check: { success_kw: 'x' }, method: 'GET', kind: 'ign' },
    { name: '/log is reclassified', check: { success_kw: 'SUCCESS' }, path: '/log', body: 'SUCCESS', kind: 'success' },
    { name: '/1 is reclassified', check: { success_kw: 'SUCCESS' }, path: '/1', body: 'SUCCESS', kind: 'success' },
    { name: '/start is reclassified', check: { failure_kw: 'boom' }, path: '/start', body: 'boom', kind: 'fail' },
    {
      name: 'methods=POST wins over keywords',
      check: { methods: 'POST', filter_default_fail: true },
      method: 'GET',
      kind: 'ign',
    },
    { name: 'invalid UTF-8 does not fail the request', check: { success_kw: 'SUCCESS' }, body: '\xff\xfe SUCCESS \xe9', kind: 'success' },
  ];
  for (const t of cases) {
    it(`${t.name} → ${t.kind}`, async () => {
      const c = await createCheck(env.url, env.p.apiKey, { filter_http_body: true, ...t.check });
      const payload = t.body === undefined ? undefined : Buffer.from(t.body, 'latin1');
      await ping(env.url, `${c.uuid}${t.path ?? ''}`, { method: t.method ?? 'POST', body: payload });
      const [p] = await listPings(env, c.uuid);
      expect(p.type).toBe(t.kind);
      const after = await getCheck(env, c.uuid);
      expect(after.n_pings).toBe(1);
      const status = { success: 'up', fail: 'down' }[t.kind] ?? 'new';
      expect(after.status).toBe(status);
      expect(after.started).toBe(t.kind === 'start');
    });
  }

  it('the e-mail filters do not touch HTTP pings', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { filter_subject: true, filter_body: true, success_kw: 'SUCCESS', filter_default_fail: true });
    await ping(env.url, c.uuid);
    expect((await listPings(env, c.uuid))[0].type).toBe('success');
  });

  it('keywords beyond the first 10000 bytes are not seen', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { filter_http_body: true, failure_kw: 'FAIL' });
    await ping(env.url, c.uuid, { method: 'POST', body: 'x'.repeat(10000) + 'FAIL' });
    expect((await listPings(env, c.uuid))[0].type).toBe('ign');
  });
});

describe('paused checks', () => {
  it('without manual_resume: success un-pauses to up (flip paused → up)', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    expect((await apiPost(env, `/checks/${c.uuid}/pause`)).status).toBe(200);
    await ping(env.url, c.uuid);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'up', n_pings: 2 });
    expect((await listFlips(env, c.uuid)).map((f) => f.up)).toEqual([1, 0, 1]);
  });

  it('without manual_resume: start keeps it paused but started; log and ign change nothing', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await apiPost(env, `/checks/${c.uuid}/pause`);
    await ping(env.url, `${c.uuid}/log`);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'paused', started: false });
    await ping(env.url, `${c.uuid}/start`);
    const after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'paused', started: true, n_pings: 2 });
    expect(after.next_ping).not.toBeNull();
  });

  it('without manual_resume: fail un-pauses to down', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await apiPost(env, `/checks/${c.uuid}/pause`);
    await ping(env.url, `${c.uuid}/fail`);
    expect((await getCheck(env, c.uuid)).status).toBe('down');
  });

  it('with manual_resume every ping is ign, keywords included, and the check stays paused', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { manual_resume: true, filter_http_body: true, success_kw: 'SUCCESS' });
    await ping(env.url, c.uuid);
    await apiPost(env, `/checks/${c.uuid}/pause`);
    const flipsBefore = await listFlips(env, c.uuid);
    for (const path of ['', '/fail', '/start', '/log', '/0', '/5']) {
      await ping(env.url, `${c.uuid}${path}`, { method: 'POST', body: 'SUCCESS!' });
    }
    await ping(env.url, c.uuid);
    const after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'paused', started: false, n_pings: 8 });
    const pings = await listPings(env, c.uuid);
    expect(pings.slice(0, 7).every((p) => p.type === 'ign')).toBe(true);
    expect(await listFlips(env, c.uuid)).toEqual(flipsBefore);
    // Only resume leaves the paused state.
    expect((await apiPost(env, `/checks/${c.uuid}/resume`)).status).toBe(200);
    await ping(env.url, c.uuid, { method: 'POST', body: 'SUCCESS!' });
    expect((await getCheck(env, c.uuid)).status).toBe('up');
  });
});

describe('status transitions visible in the API', () => {
  it('new → up → down → up, with a flip for each change and none for repeats', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    await ping(env.url, c.uuid);
    expect((await getCheck(env, c.uuid)).status).toBe('up');
    await ping(env.url, `${c.uuid}/fail`);
    await ping(env.url, `${c.uuid}/3`);
    expect((await getCheck(env, c.uuid)).status).toBe('down');
    await ping(env.url, `${c.uuid}/0`);
    const after = await getCheck(env, c.uuid);
    expect(after).toMatchObject({ status: 'up', n_pings: 5 });
    expect((await listFlips(env, c.uuid)).map((f) => f.up)).toEqual([1, 0, 1]);
  });

  it('start → started, success ends the run; a v1 client sees "started"', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    await ping(env.url, `${c.uuid}/start`);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'up', started: true });
    expect((await getCheck(env, c.uuid, 1)).status).toBe('started');
    await ping(env.url, c.uuid);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'up', started: false });
  });

  it('a down check that receives a start stays down and started; next_ping stays null', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, `${c.uuid}/fail`);
    await ping(env.url, `${c.uuid}/start`);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'down', started: true, next_ping: null });
  });
});
