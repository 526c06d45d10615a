// Integrations: the list endpoint and the `channels` parameter of create and
// update (api-details §6.10, §13); the badges map (§14.1, §14.2); the status
// endpoint (§15).
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { api, BASE_URL, createCheck } from '../helpers/http.js';
import { createChannel, newProject, useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

describe('GET /api/v3/channels/', () => {
  it('lists the project integrations in creation order: id, name (may be empty), kind', async () => {
    const p = await newProject(env);
    const a = await createChannel(env, 'Ops mail', p.id, 'email');
    const b = await createChannel(env, '', p.id, 'sms');
    const c = await createChannel(env, 'hook', p.id, 'webhook');
    await createChannel(env, 'not mine', env.other.id, 'email');
    const r = await api(env.url, v3('/channels/'), { key: p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.json).toEqual({
      channels: [
        { id: a.id, name: 'Ops mail', kind: 'email' },
        { id: b.id, name: '', kind: 'sms' },
        { id: c.id, name: 'hook', kind: 'webhook' },
      ],
    });
  });

  it('an empty project gives an empty list', async () => {
    const p = await newProject(env);
    expect((await api(env.url, v3('/channels/'), { key: p.apiKey })).json).toEqual({ channels: [] });
  });

  it('needs a read-write key', async () => {
    const p = await newProject(env);
    const r = await api(env.url, v3('/channels/'), { key: p.apiKeyReadonly });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'wrong api key' });
  });
});

describe('channels parameter', () => {
  const setup = async () => {
    const p = await newProject(env);
    const key = p.apiKey;
    const create = (body: Record<string, unknown>) => api(env.url, v3('/checks/'), { key, body });
    const update = (uuid: string, body: Record<string, unknown>) => api(env.url, v3(`/checks/${uuid}`), { key, body });
    const count = async () => (await api(env.url, v3('/checks/'), { key })).json.checks.length;
    return { p, key, create, update, count };
  };
  const sorted = (...ids: string[]) => [...ids].sort().join(',');

  it('"*" assigns all the project integrations, sorted', async () => {
    const t = await setup();
    const a = await createChannel(env, 'a', t.p.id);
    const b = await createChannel(env, 'b', t.p.id);
    await createChannel(env, 'x', env.other.id);
    const r = await t.create({ channels: '*' });
    expect(r.status).toBe(201);
    expect(r.json.channels).toBe(sorted(a.id, b.id));
  });

  it('"*" with no integrations assigns none', async () => {
    const t = await setup();
    expect((await t.create({ channels: '*' })).json.channels).toBe('');
  });

  it('by UUID, by name, and a comma-separated mix; duplicates count once', async () => {
    const t = await setup();
    const a = await createChannel(env, 'alpha', t.p.id);
    const b = await createChannel(env, 'beta', t.p.id);
    expect((await t.create({ channels: a.id })).json.channels).toBe(a.id);
    expect((await t.create({ channels: 'beta' })).json.channels).toBe(b.id);
    expect((await t.create({ channels: `beta,${a.id}` })).json.channels).toBe(sorted(a.id, b.id));
    expect((await t.create({ channels: `alpha,alpha,${a.id}` })).json.channels).toBe(a.id);
  });

  it('a name formatted as a UUID resolves by name', async () => {
    const t = await setup();
    const name = '11111111-2222-4333-8444-555555555555';
    const ch = await createChannel(env, name, t.p.id);
    expect((await t.create({ channels: name })).json.channels).toBe(ch.id);
  });

  it('names match exactly: case and whitespace are significant', async () => {
    const t = await setup();
    const spaced = await createChannel(env, ' spaced ', t.p.id);
    expect((await t.create({ channels: ' spaced ' })).json.channels).toBe(spaced.id);
    const r = await t.create({ channels: 'spaced' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'invalid channel identifier: spaced' });
    await createChannel(env, 'Upper', t.p.id);
    expect((await t.create({ channels: 'upper' })).json).toEqual({ error: 'invalid channel identifier: upper' });
  });

  it('errors: unknown, empty pieces, non-unique names; nothing is created', async () => {
    const t = await setup();
    const dup1 = await createChannel(env, 'foo', t.p.id);
    await createChannel(env, 'foo', t.p.id);
    const theirs = await createChannel(env, 'theirs', env.other.id);
    const cases: Array<[string, string]> = [
      ['abc', 'invalid channel identifier: abc'],
      [',', 'empty channel identifier'],
      [`${dup1.id},`, 'empty channel identifier'],
      [`,${dup1.id}`, 'empty channel identifier'],
      ['foo', 'non-unique channel identifier: foo'],
      [theirs.id, `invalid channel identifier: ${theirs.id}`],
      ['theirs', 'invalid channel identifier: theirs'],
      ['not-a-uuid', 'invalid channel identifier: not-a-uuid'],
      [` ${dup1.id}`, `invalid channel identifier:  ${dup1.id}`],
      [dup1.id.toUpperCase(), `invalid channel identifier: ${dup1.id.toUpperCase()}`],
      // Pieces are processed left to right: the first error wins.
      ['nope,foo', 'invalid channel identifier: nope'],
      ['foo,nope', 'non-unique channel identifier: foo'],
    ];
    for (const [spec, message] of cases) {
      const r = await t.create({ channels: spec, name: 'should-not-exist' });
      expect(r.status, spec).toBe(400);
      expect(r.json).toEqual({ error: message });
    }
    expect(await t.count()).toBe(0);
  });

  it('an integration named like another one\u2019s UUID is ambiguous', async () => {
    const t = await setup();
    const a = await createChannel(env, 'a', t.p.id);
    await createChannel(env, a.id, t.p.id);
    const r = await t.create({ channels: a.id });
    expect(r.json).toEqual({ error: `non-unique channel identifier: ${a.id}` });
  });

  it('on update: sets, replaces, "" unassigns, absent leaves unchanged', async () => {
    const t = await setup();
    const a = await createChannel(env, 'a', t.p.id);
    const b = await createChannel(env, 'b', t.p.id);
    const c = (await t.create({})).json;
    expect(c.channels).toBe('');
    expect((await t.update(c.uuid, { channels: 'a' })).json.channels).toBe(a.id);
    expect((await t.update(c.uuid, { name: 'renamed' })).json.channels).toBe(a.id);
    expect((await t.update(c.uuid, { channels: b.id })).json.channels).toBe(b.id);
    expect((await t.update(c.uuid, { channels: '*' })).json.channels).toBe(sorted(a.id, b.id));
    expect((await t.update(c.uuid, { channels: '' })).json.channels).toBe('');
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: t.key });
    expect(got.json.channels).toBe('');
  });

  it('a failed channel lookup on update changes nothing, not even other fields', async () => {
    const t = await setup();
    const a = await createChannel(env, 'a', t.p.id);
    const c = (await t.create({ name: 'before', channels: 'a' })).json;
    for (const spec of ['missing', ',', 'a,']) {
      const r = await t.update(c.uuid, { name: 'after', channels: spec });
      expect(r.status, spec).toBe(400);
    }
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: t.key });
    expect(got.json).toMatchObject({ name: 'before', channels: a.id });
  });

  it('a failed channel lookup on an upsert leaves the matched check unchanged', async () => {
    const t = await setup();
    await t.create({ name: 'u', desc: 'old' });
    const r = await t.create({ name: 'u', desc: 'new', unique: ['name'], channels: 'nope' });
    expect(r.status).toBe(400);
    const list = (await api(env.url, v3('/checks/'), { key: t.key })).json.checks;
    expect(list.map((c: any) => c.desc)).toEqual(['old']);
  });

  it('the check limit comes before channel errors', async () => {
    const p = await newProject(env, 0);
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { channels: 'nope' } });
    expect(r.status).toBe(403);
  });
});

describe('GET /api/v3/badges/', () => {
  /** Independent implementation of the §14.2 signature. */
  const sig = (badgeKey: string, secret: string, tag: string) => {
    const key = createHash('sha1').update(badgeKey + secret, 'utf8').digest();
    return createHmac('sha1', key).update(tag, 'utf8').digest('base64url').slice(0, 8);
  };

  it('maps every distinct tag plus "*" to the six badge URLs', async () => {
    const p = await newProject(env);
    await createCheck(env.url, p.apiKey, { tags: 'foo db@dc1' });
    await createCheck(env.url, p.apiKey, { tags: 'foo  c++ v1.2' });
    const r = await api(env.url, v3('/badges/'), { key: p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.json)).toEqual(['badges']);
    const badges = r.json.badges;
    expect(Object.keys(badges).sort()).toEqual(['*', 'c++', 'db@dc1', 'foo', 'v1.2']);
    const project = env.d.daemon.store.getProject(p.id)!;
    const secret = await env.d.daemon.store.badgeSecret();
    const K = project.badgeKey;
    const encoded: Record<string, string> = { foo: '/foo', 'db@dc1': '/db%2540dc1', 'c++': '/c%252B%252B', 'v1.2': '/v1.2', '*': '' };
    for (const [tag, tail] of Object.entries(encoded)) {
      const s = sig(K, secret, tag);
      const prefix = `${BASE_URL}/badge/${K}/`;
      expect(badges[tag], tag).toEqual({
        svg: `${prefix}${s}-2${tail}.svg`,
        svg3: `${prefix}${s}${tail}.svg`,
        json: `${prefix}${s}-2${tail}.json`,
        json3: `${prefix}${s}${tail}.json`,
        shields: `${prefix}${s}-2${tail}.shields`,
        shields3: `${prefix}${s}${tail}.shields`,
      });
    }
  });

  it('"*" is present even with no checks; read-only keys are allowed', async () => {
    const p = await newProject(env);
    const r = await api(env.url, v3('/badges/'), { key: p.apiKeyReadonly });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.badges)).toEqual(['*']);
    expect(Object.keys(r.json.badges['*'])).toEqual(['svg', 'svg3', 'json', 'json3', 'shields', 'shields3']);
  });

  it('only the caller project tags appear, with its own badge key', async () => {
    const p = await newProject(env);
    const q = await newProject(env);
    await createCheck(env.url, p.apiKey, { tags: 'mine' });
    await createCheck(env.url, q.apiKey, { tags: 'theirs' });
    const r = await api(env.url, v3('/badges/'), { key: p.apiKey });
    expect(Object.keys(r.json.badges).sort()).toEqual(['*', 'mine']);
    const K = env.d.daemon.store.getProject(p.id)!.badgeKey;
    expect(r.json.badges.mine.svg.startsWith(`${BASE_URL}/badge/${K}/`)).toBe(true);
  });
});

describe('GET /api/vN/status/', () => {
  it.each([1, 2, 3])('v%i: 200 "OK" as plain text, no key needed (a bad key is ignored)', async (v) => {
    const r = await api(env.url, `/api/v${v}/status/`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('OK');
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const bad = await api(env.url, `/api/v${v}/status/`, { key: 'x' });
    expect(bad.status).toBe(200);
  });

  it('HEAD works too', async () => {
    const res = await fetch(env.url + v3('/status/'), { method: 'HEAD' });
    expect(res.status).toBe(200);
  });

  it('answers 500 when the storage probe fails', async () => {
    const spy = vi.spyOn(env.d.daemon.store, 'probe').mockImplementation(() => {
      throw new Error('disk on fire');
    });
    onTestFinished(() => spy.mockRestore());
    const r = await api(env.url, v3('/status/'));
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('disk on fire');
    spy.mockRestore();
    expect((await api(env.url, v3('/status/'))).status).toBe(200);
  });
});
