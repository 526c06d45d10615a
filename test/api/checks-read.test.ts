// GET /api/v3/checks/ and /api/v3/checks/<uuid|unique_key>: representations
// for read-write and read-only keys, unique_key, list filters and scoping.
import { describe, expect, it } from 'vitest';
import { api, createCheck, MISSING_UUID } from '../helpers/http.js';
import { plantCheck, plantChecks } from '../helpers/store.js';
import { expectedUniqueKey, newProject, RO_READ_KEYS, RW_READ_KEYS, scheduleKeys, useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

describe('list checks', () => {
  it('lists a project of more than two chunks whole, in creation order, with tag filters across chunks', async () => {
    const p = await newProject(env, 10_000);
    const store = env.d.daemon.store;
    const now = env.d.clock.now();
    const N = 4_500; // the list is read 2,000 checks at a time
    const planted = await plantChecks(store, p.id, N, {
      createdAt: now,
      shape: (c, i) => {
        c.name = `c${i}`;
        c.tags = i % 3 === 0 ? 'three' : i % 2 === 0 ? 'two' : '';
      },
    });
    const uuids = planted.map((c) => c.uuid);
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    // The text is exactly what serializing the whole object at once gives.
    expect(r.text).toBe(JSON.stringify(r.json));
    expect(r.json.checks.map((c: { uuid: string }) => c.uuid)).toEqual(uuids);
    expect(Object.keys(r.json.checks[N - 1])).toEqual(RW_READ_KEYS);
    const three = await api(env.url, v3('/checks/?tag=three'), { key: p.apiKeyReadonly });
    expect(three.json.checks.map((c: { name: string }) => c.name)).toEqual(uuids.flatMap((_, i) => (i % 3 === 0 ? [`c${i}`] : [])));
    expect(Object.keys(three.json.checks[0])).toEqual(RO_READ_KEYS);
  });

  it('lists the project checks in creation order, without subject fields', async () => {
    const p = await newProject(env);
    const a = await createCheck(env.url, p.apiKey, { name: 'a' });
    const b = await createCheck(env.url, p.apiKey, { name: 'b', schedule: '0 0 * * *' });
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.json)).toEqual(['checks']);
    const [la, lb] = r.json.checks;
    expect(r.json.checks).toHaveLength(2);
    expect(Object.keys(la)).toEqual(RW_READ_KEYS);
    expect(Object.keys(la)).toHaveLength(27);
    expect(Object.keys(lb)).toEqual(scheduleKeys(RW_READ_KEYS));
    const { subject: _s, subject_fail: _sf, ...aRead } = a;
    expect(la).toEqual(aRead);
    expect(lb.uuid).toBe(b.uuid);
  });

  it('an empty project gives an empty list', async () => {
    const p = await newProject(env);
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(r.json).toEqual({ checks: [] });
  });

  it('shows only the caller project checks', async () => {
    const p = await newProject(env);
    const q = await newProject(env);
    await createCheck(env.url, p.apiKey, { name: 'mine' });
    await createCheck(env.url, q.apiKey, { name: 'theirs' });
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(r.json.checks.map((c: any) => c.name)).toEqual(['mine']);
  });

  describe('filters', () => {
    let key = '';
    const names = async (query: string) => {
      const r = await api(env.url, v3(`/checks/${query}`), { key });
      expect(r.status).toBe(200);
      return r.json.checks.map((c: any) => c.name);
    };

    it('set up', async () => {
      const p = await newProject(env);
      key = p.apiKey;
      await createCheck(env.url, key, { name: 'c1', slug: 'backup', tags: 'prod db' });
      await createCheck(env.url, key, { name: 'c2', slug: 'backup', tags: 'staging db' });
      await createCheck(env.url, key, { name: 'c3', slug: 'report', tags: 'prod a1-tag' });
      await createCheck(env.url, key, { name: 'c4', slug: '', tags: ' prod  web ' });
    });

    it('slug: exact match, all matches, empty list when none; empty value disables it', async () => {
      expect(await names('?slug=backup')).toEqual(['c1', 'c2']);
      expect(await names('?slug=report')).toEqual(['c3']);
      expect(await names('?slug=back')).toEqual([]);
      expect(await names('?slug=nope')).toEqual([]);
      expect(await names('?slug=')).toEqual(['c1', 'c2', 'c3', 'c4']);
    });

    it('tag: whole tokens, case-sensitive; repeated tags are ANDed', async () => {
      expect(await names('?tag=prod')).toEqual(['c1', 'c3', 'c4']);
      expect(await names('?tag=db')).toEqual(['c1', 'c2']);
      expect(await names('?tag=prod&tag=db')).toEqual(['c1']);
      expect(await names('?tag=prod&tag=web')).toEqual(['c4']);
      expect(await names('?tag=prod&tag=prod')).toEqual(['c1', 'c3', 'c4']);
      expect(await names('?tag=staging&tag=prod')).toEqual([]);
      expect(await names('?tag=PROD')).toEqual([]);
    });

    it('tag: no partial matches, unknown tags and an empty tag match nothing', async () => {
      expect(await names('?tag=tag')).toEqual([]);
      expect(await names('?tag=a1')).toEqual([]);
      expect(await names('?tag=a1-tag')).toEqual(['c3']);
      expect(await names('?tag=missing')).toEqual([]);
      expect(await names('?tag=')).toEqual([]);
    });

    it('slug and tag combine with AND; unknown parameters are ignored', async () => {
      expect(await names('?slug=backup&tag=prod')).toEqual(['c1']);
      expect(await names('?slug=report&tag=db')).toEqual([]);
      expect(await names('?foo=bar')).toEqual(['c1', 'c2', 'c3', 'c4']);
    });

    it('percent-encoded values are decoded', async () => {
      expect(await names('?tag=a1%2Dtag')).toEqual(['c3']);
    });

    it('several checks with one slug come in creation order, like the whole list', async () => {
      const p = await newProject(env);
      const many = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'];
      for (const name of many) await createCheck(env.url, p.apiKey, { name, slug: 'many' });
      const r = await api(env.url, v3('/checks/?slug=many'), { key: p.apiKey });
      expect(r.json.checks.map((c: any) => c.name)).toEqual(many);
    });
  });

  it('read-only key: reduced representation, no UUID anywhere in the response', async () => {
    const p = await newProject(env);
    const c = await createCheck(env.url, p.apiKey, { name: 'ro', schedule: '0 0 * * *' });
    const s = await createCheck(env.url, p.apiKey, { name: 'ro2' });
    const r = await api(env.url, v3('/checks/'), { key: p.apiKeyReadonly });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(c.uuid);
    expect(r.text).not.toContain(s.uuid);
    const [rc, rs] = r.json.checks;
    expect(Object.keys(rc)).toEqual(scheduleKeys(RO_READ_KEYS));
    expect(Object.keys(rs)).toEqual(RO_READ_KEYS);
    expect(Object.keys(rs)).toHaveLength(22);
    expect(rc.unique_key).toBe(expectedUniqueKey(c.uuid));
    expect(rs.unique_key).toBe(expectedUniqueKey(s.uuid));
    expect(rs.badge_url).toBe(s.badge_url);
  });
});

describe('get one check', () => {
  it('by UUID with a read-write key: the 27-key read representation', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'one', filter_subject: true, success_kw: 'SUCCESS', failure_kw: 'ERROR' });
    const r = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.json)).toEqual(RW_READ_KEYS);
    const { subject, subject_fail, ...rest } = c;
    expect([subject, subject_fail]).toEqual(['SUCCESS', 'ERROR']);
    expect(r.json).toEqual(rest);
  });

  it('by UUID with a read-only key: no uuid or URLs, but unique_key', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'ro-one' });
    const r = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKeyReadonly });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toEqual(RO_READ_KEYS);
    for (const s of ['uuid', 'ping_url', 'update_url', 'pause_url', 'resume_url']) expect(r.text).not.toContain(`"${s}"`);
    expect(r.text).not.toContain(c.uuid);
    expect(r.json.unique_key).toBe(expectedUniqueKey(c.uuid));
  });

  it('by unique_key: full for a read-write key, reduced for a read-only key', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'by-key' });
    const uk = expectedUniqueKey(c.uuid);
    const rw = await api(env.url, v3(`/checks/${uk}`), { key: env.p.apiKey });
    expect(rw.status).toBe(200);
    expect(Object.keys(rw.json)).toEqual(RW_READ_KEYS);
    expect(rw.json.uuid).toBe(c.uuid);
    expect(rw.json.ping_url).toBe(c.ping_url);
    const ro = await api(env.url, v3(`/checks/${uk}`), { key: env.p.apiKeyReadonly });
    expect(ro.status).toBe(200);
    expect(Object.keys(ro.json)).toEqual(RO_READ_KEYS);
    expect(ro.json.unique_key).toBe(uk);
    expect(ro.json.name).toBe('by-key');
  });

  it('unique_key follows the worked examples of §5.2', async () => {
    const store = env.d.daemon.store;
    const now = env.d.clock.now();
    const examples: Array<[string, string]> = [
      ['31365bce-8da9-4729-8ff3-aaa71d56b712', 'a6c7b0a8a66bed0df66abfdab3c77736861703ee'],
      ['803f680d-e89b-492b-82ef-2be7b774a92d', '124f983e0e3dcaeba921cfcef46efd084576e783'],
    ];
    for (const [uuid, uk] of examples) {
      // Planted straight into storage: the API cannot choose a UUID.
      await plantCheck(store, env.p.id, { createdAt: now, shape: (c) => Object.assign(c, { uuid, name: uk.slice(0, 6) }) });
      const ro = await api(env.url, v3(`/checks/${uuid}`), { key: env.p.apiKeyReadonly });
      expect(ro.json.unique_key).toBe(uk);
      const byKey = await api(env.url, v3(`/checks/${uk}`), { key: env.p.apiKey });
      expect(byKey.status).toBe(200);
      expect(byKey.json.uuid).toBe(uuid);
      const flips = await api(env.url, v3(`/checks/${uk}/flips/`), { key: env.p.apiKeyReadonly });
      expect(flips.status).toBe(200);
    }
  });

  it('404 for an unknown UUID; 403 with an empty body for another project check', async () => {
    expect((await api(env.url, v3(`/checks/${MISSING_UUID}`), { key: env.p.apiKey })).status).toBe(404);
    const theirs = await createCheck(env.url, env.other.apiKey);
    const r = await api(env.url, v3(`/checks/${theirs.uuid}`), { key: env.p.apiKey });
    expect(r.status).toBe(403);
    expect(r.text).toBe('');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const ro = await api(env.url, v3(`/checks/${theirs.uuid}`), { key: env.p.apiKeyReadonly });
    expect(ro.status).toBe(403);
  });

  it('a unique_key of another project, or unknown, gives 404 and never 403', async () => {
    const theirs = await createCheck(env.url, env.other.apiKey);
    const r = await api(env.url, v3(`/checks/${expectedUniqueKey(theirs.uuid)}`), { key: env.p.apiKey });
    expect(r.status).toBe(404);
    expect(r.text).toBe('');
    expect((await api(env.url, v3(`/checks/${'0'.repeat(40)}`), { key: env.p.apiKey })).status).toBe(404);
  });

  it('malformed identifiers give 404 before authentication', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    for (const code of ['not-an-uuid', c.uuid.toUpperCase(), c.uuid.slice(0, 35), 'a'.repeat(39), 'a'.repeat(41), 'abc%20def']) {
      const r = await api(env.url, v3(`/checks/${code}`), {});
      expect(r.status, code).toBe(404);
    }
  });

  it('40 characters of [A-z0-9] route as a unique_key (401 without a key), anything else is 404 before auth', async () => {
    // The reference's [A-z0-9] range includes [ \\ ] ^ _ and the backtick.
    for (const code of ['_'.repeat(40), '^'.repeat(40), 'Z'.repeat(40), '`'.repeat(40)]) {
      const r = await api(env.url, v3(`/checks/${encodeURIComponent(code)}`), {});
      expect(r.status, code).toBe(401);
      expect((await api(env.url, v3(`/checks/${encodeURIComponent(code)}`), { key: env.p.apiKey })).status).toBe(404);
    }
    for (const code of ['-'.repeat(40), '~'.repeat(40), 'g'.repeat(39) + '!']) {
      expect((await api(env.url, v3(`/checks/${encodeURIComponent(code)}`), {})).status, code).toBe(404);
    }
  });

  it('a single-resource path with a trailing slash gives 404', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await api(env.url, v3(`/checks/${c.uuid}/`), { key: env.p.apiKey })).status).toBe(404);
  });

  it('HEAD on a GET route answers like GET without a body', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const res = await fetch(env.url + v3(`/checks/${c.uuid}`), { method: 'HEAD', headers: { 'X-Api-Key': env.p.apiKey } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});
