// No input may produce a 5xx: odd JSON values in every field, huge numbers,
// unicode, deep nesting, long strings, odd query strings and paths. Each
// request must also answer promptly, and the daemon must keep working.
import { describe, expect, it } from 'vitest';
import { badgeSignature } from '../../daemon/domain/badges.js';
import { api, createCheck } from '../helpers/http.js';
import { useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

const FIELDS = [
  'name', 'slug', 'tags', 'desc', 'timeout', 'grace', 'schedule', 'tz', 'manual_resume', 'methods',
  'channels', 'unique', 'start_kw', 'success_kw', 'failure_kw', 'filter_subject', 'filter_body',
  'filter_http_body', 'filter_default_fail', 'subject', 'subject_fail', 'api_key',
];

/** Raw JSON texts of values to put into every field. */
const VALUES = [
  'null', 'true', 'false', '0', '-0', '-1', '60', '1e308', '-1e308', '1e999', '-1e999', '5e-324',
  '123456789012345678901234567890', '3600.000000000001', '31536000.5', '9007199254740993',
  '""', '" "', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"😀"', '"\\u202e\\u0645\\u0631\\u062d\\u0628\\u0627"',
  '"POST"', '"*"', '","', '"UTC"', '"Europe/Kiev"', '"0 0 * * *"', '"12:34"', '"name"',
  '[]', '[null]', '["name"]', '["name","name"]', '[1,2,3]', '[[["deep"]]]', '{}', '{"a":{"b":{"c":1}}}',
  '{"__proto__":{"x":1}}', '{"toString":1}', '"__proto__"', '"constructor"', '"hasOwnProperty"',
];

const SCHEDULES = [
  '* * * * *\n', '0 0 0 0 0', '60 * * * *', '*/0 * * * *', '0 0 * * 8', 'L L L L L', '9999999999 * * * *',
  '0 0 31 4,6,9,11 *', '0 0 30 2 *', '0 0 L 2 *', '0 0 * * 5#6', '0 0 * * 9L', '0 0 * * L', '1-0 * * * *',
  '0 0 1 1 * 2099', '*-*-* *:*:*', '2000..3000-01-01', '*:0/0', '*:*:0/0', 'Mon..Sun *-*-* 00:00:00 Foo/Bar',
  '1970-01-01', '2199-12-31 23:59:59', '2201-01-01', '*-02-30', '*-*~0', '*-*~32', 'Feb 30', 'Mon,Tue,Mon 25:00',
  'hourly\nhourly\nhourly\nhourly\nhourly\nhourly\nhourly\nhourly\nhourly\nhourly\nhourly\nhourly', '\n\n\n',
  '00:00 ' + 'Europe/Riga'.repeat(8), '*/1 */1 */1 */1 */1', '0-59/59 0-23/23 1-31/30 1-12/11 0-7/7',
  'MON#1 * * * *', '0 0 * JAN-DEC/0 *', '0 0 ? * *', '0 0 * * ?', 'H H * * *', '@reboot',
  '  0 0 * * *  ', '\t0\t0\t*\t*\t*', '0 0 * * SUN-SAT', '0 0 * * 7-0', '0 0 * * 0#5', '0 0 LW * *',
  '*-*-* 00:00:60', '*-*-* 00:00:59.5', '00:00 UTC', '00:00 utc', '00:00 Factory', '00:00 /etc/passwd',
];

const TIMEZONES = ['../../etc/passwd', 'Europe/../UTC', 'UTC\u0000', 'Etc/GMT+15', 'Etc/GMT-15', 'posix/Europe/Riga', 'right/UTC', 'Europe/Riga ', 'EST5EDT', 'America/Coyhaique', '+02:00', 'Z'];

async function expectNo5xx(r: { status: number; text: string }, what: string) {
  expect(r.status, `${what} → ${r.status} ${r.text.slice(0, 200)}`).toBeLessThan(500);
}

describe('fuzz: no 5xx', () => {
  it('every field × odd JSON values on create, update and pause', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'fuzz-target' });
    for (const field of FIELDS) {
      for (const value of VALUES) {
        const raw = `{"${field}": ${value}}`;
        const created = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: raw });
        await expectNo5xx(created, `create ${raw}`);
        if (created.status === 201) {
          // Whatever got stored must read back.
          const back = await api(env.url, v3(`/checks/${created.json.uuid}`), { key: env.p.apiKey });
          expect(back.status, raw).toBe(200);
          await api(env.url, v3(`/checks/${created.json.uuid}`), { method: 'DELETE', key: env.p.apiKey });
        }
        await expectNo5xx(await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, rawBody: raw }), `update ${raw}`);
        await expectNo5xx(await api(env.url, v3(`/checks/${c.uuid}/pause`), { key: env.p.apiKey, rawBody: raw }), `pause ${raw}`);
      }
    }
    const list = await api(env.url, v3('/checks/'), { key: env.p.apiKey });
    expect(list.status).toBe(200);
    expect((await api(env.url, v3('/badges/'), { key: env.p.apiKey })).status).toBe(200);
  }, 180_000);

  it('odd schedules and time zones answer 201 or 400, promptly', async () => {
    for (const schedule of SCHEDULES) {
      for (const tz of ['UTC', 'Europe/Riga', 'Pacific/Kiritimati']) {
        const started = Date.now();
        const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { schedule, tz } });
        expect([201, 400], `${JSON.stringify(schedule)} ${tz}: ${r.status} ${r.text.slice(0, 200)}`).toContain(r.status);
        expect(Date.now() - started, JSON.stringify(schedule)).toBeLessThan(5000);
        if (r.status === 400) expect(r.json.error).toMatch(/^json validation error: schedule is /);
        else {
          expect(r.json.schedule).toBe(schedule);
          const got = await api(env.url, v3(`/checks/${r.json.uuid}`), { key: env.p.apiKey });
          expect(got.status).toBe(200);
          await api(env.url, v3(`/checks/${r.json.uuid}`), { method: 'DELETE', key: env.p.apiKey });
        }
      }
    }
    for (const tz of TIMEZONES) {
      const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { schedule: '0 0 * * *', tz } });
      expect([201, 400], `${tz}: ${r.status} ${r.text}`).toContain(r.status);
      if (r.status === 400) expect(r.json).toEqual({ error: 'json validation error: tz is not a valid timezone' });
      else await api(env.url, v3(`/checks/${r.json.uuid}`), { method: 'DELETE', key: env.p.apiKey });
    }
  });

  it('a pinged check with an odd schedule still reads back', async () => {
    for (const schedule of ['0 0 29 2 *', '2019-01-01', '0 0 * * 0#5', '*-*~1 23:59:59']) {
      const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { schedule, tz: 'Pacific/Apia' } });
      expect(r.status, schedule).toBe(201);
      const res = await fetch(`${env.url}/ping/${r.json.uuid}`);
      expect(res.status).toBe(200);
      await res.text();
      const got = await api(env.url, v3(`/checks/${r.json.uuid}`), { key: env.p.apiKey });
      expect(got.status).toBe(200);
      expect(got.json.status).toBe('up');
    }
  });

  it('malformed and hostile bodies', async () => {
    const deep = '{"name":' + '['.repeat(20000) + ']'.repeat(20000) + '}';
    const bodies = [
      deep,
      '['.repeat(100000),
      '{"name": "' + 'x'.repeat(500_000) + '"}',
      '{"desc": "' + 'é'.repeat(300_000) + '"}',
      '{"tags": "' + 't '.repeat(20000) + '"}',
      '{"channels": "' + ','.repeat(50000) + '"}',
      '{"channels": "' + 'x,'.repeat(20000) + 'x"}',
      '{"unique": [' + Array(20000).fill('"name"').join(',') + ']}',
      '{"unique": [' + Array(20000).fill('"name"').join(',') + '], "name": "u"}',
      '\ufeff{"name": "bom"}',
      '{"name": "a"}\u0000',
      '{"name": "a", "name": 5}',
      '{"timeout": 60, "timeout": "x"}',
      '{"api_key": "' + env.p.apiKey + '", "api_key": null}',
      '\u0000',
    ];
    for (const raw of bodies) {
      const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: raw });
      await expectNo5xx(r, `body ${raw.slice(0, 40)}…`);
      if (r.status === 201) await api(env.url, v3(`/checks/${r.json.uuid}`), { method: 'DELETE', key: env.p.apiKey });
    }
  });

  it('a body over the size limit is refused with a 4xx', async () => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: '{"desc": "' + 'x'.repeat(2_000_000) + '"}' });
    expect(r.status).toBe(413);
  });

  it('odd query strings', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { tags: 'a b' });
    const queries = [
      '?tag[]=a', '?tag[a]=b', '?slug[]=x', '?slug[a]=b', '?tag=%ff', '?tag=%', '?slug=%E0%A4%A', '?__proto__=1',
      '?constructor=1', '?tag=' + 'a'.repeat(10000), '?' + 'tag=a&'.repeat(500), '?tag=a&tag[]=b', '?=', '?&&&', '?tag',
    ];
    for (const q of queries) {
      await expectNo5xx(await api(env.url, v3(`/checks/${q}`), { key: env.p.apiKey }), `list ${q.slice(0, 40)}`);
    }
    const flipQueries = [
      '?start[]=1', '?start[a]=1', '?seconds[]=1', '?start=%00', '?seconds=%00', '?start=1&start[]=2', '?end=9'.repeat(50),
      '?seconds=' + '9'.repeat(400), '?start=' + '9'.repeat(400), '?seconds=Infinity', '?seconds=NaN', '?start=0x10',
      '?seconds=.0', '?seconds=-0', '?start=-0', '?start', '?seconds', '?end',
    ];
    for (const q of flipQueries) {
      const r = await api(env.url, v3(`/checks/${c.uuid}/flips/${q}`), { key: env.p.apiKey });
      expect([200, 400], `flips ${q.slice(0, 40)}: ${r.status}`).toContain(r.status);
    }
  });

  it('odd paths and headers', async () => {
    const paths = [
      '/checks/%ff', '/checks/..%2F..%2Fstatus%2F', '/checks/' + 'a'.repeat(10000), '/checks/%00', '/checks/%2e%2e',
      '/checks/' + 'a'.repeat(40) + '/flips/', '/checks/' + '`'.repeat(40), '/checks/' + '['.repeat(40) + '/flips/',
      '/checks/00000000-0000-0000-0000-000000000000/pings/999999999999999999999999/body',
      '/checks/00000000-0000-0000-0000-000000000000/pings/-1/body', '//checks/', '/checks//',
    ];
    for (const p of paths) {
      for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
        const r = await api(env.url, v3(p), { method, key: env.p.apiKey });
        await expectNo5xx(r, `${method} ${p.slice(0, 60)}`);
      }
    }
    const headerKeys = ['é'.repeat(32), ' '.repeat(32), '\t'.repeat(3), env.p.apiKey + ', ' + env.p.apiKey];
    for (const key of headerKeys) {
      const r = await api(env.url, v3('/checks/'), { headers: { 'X-Api-Key': key } });
      expect(r.status).toBe(401);
    }
  });

  it('concurrent mixed operations on the same checks never give a 5xx', async () => {
    const checks = await Promise.all(Array.from({ length: 3 }, () => createCheck(env.url, env.p.apiKey, { tags: 'race' })));
    const ops = (uuid: string): Array<() => Promise<{ status: number; text: string }>> => [
      () => api(env.url, v3(`/checks/${uuid}`), { key: env.p.apiKey, body: { name: 'r', schedule: '*/5 * * * *' } }),
      () => api(env.url, v3(`/checks/${uuid}`), { key: env.p.apiKey, body: { timeout: 60, channels: '' } }),
      () => api(env.url, v3(`/checks/${uuid}/pause`), { method: 'POST', key: env.p.apiKey }),
      () => api(env.url, v3(`/checks/${uuid}/resume`), { method: 'POST', key: env.p.apiKey }),
      () => api(env.url, v3(`/checks/${uuid}`), { key: env.p.apiKey }),
      () => api(env.url, v3(`/checks/${uuid}/flips/`), { key: env.p.apiKey }),
      () => api(env.url, v3(`/checks/${uuid}/pings/`), { key: env.p.apiKey }),
      () => fetch(`${env.url}/ping/${uuid}/start`).then(async (r) => ({ status: r.status, text: await r.text() })),
      () => fetch(`${env.url}/ping/${uuid}`, { method: 'POST', body: 'x' }).then(async (r) => ({ status: r.status, text: await r.text() })),
      () => api(env.url, v3('/checks/?tag=race'), { key: env.p.apiKey }),
      () => api(env.url, v3('/badges/'), { key: env.p.apiKey }),
    ];
    const all: Array<() => Promise<{ status: number; text: string }>> = [];
    for (let round = 0; round < 4; round++) for (const c of checks) all.push(...ops(c.uuid));
    // Deletes land in the middle of the storm.
    for (const c of checks) all.splice(all.length / 2, 0, () => api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: env.p.apiKey }));
    const results = await Promise.all(all.map((f) => f()));
    for (const r of results) expect(r.status, r.text.slice(0, 200)).toBeLessThan(500);
    for (const c of checks) expect((await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).status).toBe(404);
  });

  it('over-long keys in every route: a 4xx, never a 5xx', async () => {
    // 100/101: the API's limit on a slug or name; 1938+: LMDB's key size (1978 bytes)
    // with the project's id around it; 4093+: lmdb-js's read buffer for a lookup.
    const lengths = [100, 101, 1937, 1938, 1979, 4092, 4093, 8000];
    const c = await createCheck(env.url, env.p.apiKey, { name: 'long-keys', slug: 'long-keys' });
    const secret = env.d.daemon.store.currentBadgeSecret()!;
    const { project } = env.d.daemon.store.authenticate(env.p.apiKey)!;
    const statuses = new Map<number, number>();
    const check = async (r: { status: number; text: string }, what: string) => {
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      await expectNo5xx(r, what);
    };
    const ping = async (path: string) => {
      const res = await fetch(`${env.url}${path}`, { method: 'POST', body: 'x' });
      return { status: res.status, text: await res.text() };
    };
    for (const n of lengths) {
      const long = 'a'.repeat(n);
      const key = env.p.apiKey;
      for (const version of ['v1', 'v2', 'v3']) {
        for (const q of [`slug=${long}`, `tag=${long}`, `slug=${long}&tag=${long}`]) {
          await check(await api(env.url, `/api/${version}/checks/?${q}`, { key }), `${version} list ${q.slice(0, 10)} ${n}`);
        }
        for (const path of [`/checks/${long}`, `/checks/${long}/pings/`, `/checks/${long}/flips/`, `/checks/${long}/pings/1/body`]) {
          for (const method of ['GET', 'POST', 'DELETE']) {
            await check(await api(env.url, `/api/${version}${path}`, { method, key }), `${version} ${method} ${path.slice(0, 12)} ${n}`);
          }
        }
        for (const action of ['pause', 'resume']) {
          await check(await api(env.url, `/api/${version}/checks/${long}/${action}`, { method: 'POST', key }), `${version} ${action} ${n}`);
        }
      }
      // Creates and updates with over-long keyed fields, plain and as upserts by them.
      for (const body of [
        { name: long },
        { slug: long },
        { name: long, unique: ['name'] },
        { slug: long, unique: ['slug'] },
        { name: long, slug: long, unique: ['name', 'slug'] },
        { tags: long, unique: ['tags'] },
      ]) {
        const created = await api(env.url, v3('/checks/'), { key, body });
        await check(created, `create ${Object.keys(body)} ${n}`);
        if (created.status === 201) await api(env.url, v3(`/checks/${created.json.uuid}`), { method: 'DELETE', key });
        await check(await api(env.url, v3(`/checks/${c.uuid}`), { key, body }), `update ${Object.keys(body)} ${n}`);
      }
      // Pings: by UUID, by slug (with and without create, every suffix), by ping key.
      for (const suffix of ['', '/start', '/fail', '/log', '/0', '/256']) {
        for (const q of ['', '?create=1']) {
          await check(await ping(`/ping/${env.p.pingKey}/${long}${suffix}${q}`), `slug ping ${n}${suffix}${q}`);
          await check(await ping(`/ping/${long}/long-keys${suffix}${q}`), `ping key ${n}${suffix}${q}`);
          await check(await ping(`/ping/${long}/${long}${suffix}${q}`), `both ${n}${suffix}${q}`);
        }
        await check(await ping(`/ping/${long}${suffix}`), `uuid ping ${n}${suffix}`);
        await check(await ping(`/ping/${c.uuid}${suffix}?rid=${long}`), `rid ${n}${suffix}`);
      }
      // Badges: an over-long badge key (signed, so that the lookup is reached), tag and states.
      const sig = badgeSignature(long, secret, '*');
      for (const path of [
        `/badge/${long}/${sig}.svg`,
        `/badge/${long}/${sig}/${long}.svg`,
        `/badge/${project.badgeKey}/${badgeSignature(project.badgeKey, secret, long)}/${long}.svg`,
        `/badge/${project.badgeKey}/${long}.svg`,
        `/b/2/${long}.svg`,
        `/b/${long}/${c.badge_url.split('/').at(-1)}`,
      ]) {
        await check(await api(env.url, path), `badge ${path.slice(0, 20)} ${n}`);
      }
    }
    // Over-long keys were refused or not found, never stored: the check and the project are as they were.
    expect(Math.max(...statuses.keys())).toBeLessThan(500);
    const list = await api(env.url, v3('/checks/'), { key: env.p.apiKey });
    expect(list.json.checks.every((x: any) => [...x.name].length <= 100 && [...x.slug].length <= 100)).toBe(true);
  }, 300_000);

  it('the daemon still works afterwards', async () => {
    expect((await api(env.url, v3('/status/'))).text).toBe('OK');
    const c = await createCheck(env.url, env.p.apiKey, { name: 'after' });
    expect((await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey })).json.name).toBe('after');
  });
});
