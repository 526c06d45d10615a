// POST /api/v3/checks/: defaults, representation, schedules and time zones,
// legacy subject fields, upsert by `unique`, channels and the check limit.
import { describe, expect, it } from 'vitest';
import { api, BASE_URL, createCheck, UUID_RE } from '../helpers/http.js';
import { createChannel, newProject, RW_WRITE_KEYS, scheduleKeys, useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

describe('create: defaults and representation', () => {
  it('creates a check with every default and answers 201 with the 29-key write representation', async () => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: {} });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const c = r.json;
    expect(Object.keys(c)).toEqual([...RW_WRITE_KEYS]);
    expect(Object.keys(c)).toHaveLength(29);
    expect(c.uuid).toMatch(UUID_RE);
    expect(c).toMatchObject({
      name: '',
      slug: '',
      tags: '',
      desc: '',
      grace: 3600,
      n_pings: 0,
      status: 'new',
      started: false,
      last_ping: null,
      next_ping: null,
      manual_resume: false,
      methods: '',
      subject: '',
      subject_fail: '',
      start_kw: '',
      success_kw: '',
      failure_kw: '',
      filter_subject: false,
      filter_body: false,
      filter_http_body: false,
      filter_default_fail: false,
      channels: '',
      timeout: 86400,
    });
    expect(c.ping_url).toBe(`${BASE_URL}/ping/${c.uuid}`);
    expect(c.update_url).toBe(`${BASE_URL}/api/v3/checks/${c.uuid}`);
    expect(c.pause_url).toBe(`${BASE_URL}/api/v3/checks/${c.uuid}/pause`);
    expect(c.resume_url).toBe(`${BASE_URL}/api/v3/checks/${c.uuid}/resume`);
    // The badge key is a separate random UUID, not the check UUID.
    const m = /^http:\/\/checkd\.test\/b\/2\/([0-9a-f-]{36})\.svg$/.exec(c.badge_url);
    expect(m).not.toBeNull();
    expect(m![1]).not.toBe(c.uuid);
  });

  it('an empty body (no content at all) is treated as {}', async () => {
    const r = await api(env.url, v3('/checks/'), { method: 'POST', key: env.p.apiKey });
    expect(r.status).toBe(201);
    expect(r.json.timeout).toBe(86400);
  });

  it('stores and echoes every settable field', async () => {
    const body = {
      name: 'Backups',
      slug: 'backups-1_x',
      tags: 'prod db',
      desc: 'Nightly backup',
      timeout: 120,
      grace: 60,
      manual_resume: true,
      methods: 'POST',
      start_kw: 'begin',
      success_kw: 'ok,done',
      failure_kw: 'error',
      filter_subject: false,
      filter_body: true,
      filter_http_body: true,
      filter_default_fail: true,
    };
    const c = await createCheck(env.url, env.p.apiKey, body);
    const { filter_subject: _fs, ...rest } = body;
    expect(c).toMatchObject(rest);
    expect(c.filter_subject).toBe(false);
    // subject/subject_fail only mirror the keywords when filter_subject is on.
    expect(c.subject).toBe('');
    expect(c.subject_fail).toBe('');
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject(rest);
  });

  it('ignores unknown members', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'x', color: 'blue', nested: { a: [1, 2] } });
    expect(c.name).toBe('x');
    expect(c).not.toHaveProperty('color');
  });

  it('v3 never derives the slug from the name', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'Foo Bar' });
    expect(c.slug).toBe('');
    const c2 = await createCheck(env.url, env.p.apiKey, { name: 'Foo Bar', slug: 'given' });
    expect(c2.slug).toBe('given');
  });

  it('accepts the boundaries 60 and 31536000 for timeout and grace, and 30 days', async () => {
    expect((await createCheck(env.url, env.p.apiKey, { timeout: 60, grace: 60 })).timeout).toBe(60);
    const big = await createCheck(env.url, env.p.apiKey, { timeout: 31536000, grace: 31536000 });
    expect([big.timeout, big.grace]).toEqual([31536000, 31536000]);
    const month = await createCheck(env.url, env.p.apiKey, { timeout: 2592000, grace: 2592000 });
    expect([month.timeout, month.grace]).toEqual([2592000, 2592000]);
  });

  it('accepts a JSON number written with a zero fraction (3600.0 parses to an integer)', async () => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: '{"timeout": 3600.0}' });
    expect(r.status).toBe(201);
    expect(r.json.timeout).toBe(3600);
  });
});

describe('create: schedules and time zones', () => {
  it('creates a cron check: schedule and tz instead of timeout', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { schedule: '5 4 * * *', tz: 'Europe/Riga', timeout: 300 });
    expect(Object.keys(c)).toEqual(scheduleKeys(RW_WRITE_KEYS));
    expect(c.schedule).toBe('5 4 * * *');
    expect(c.tz).toBe('Europe/Riga');
    expect(c).not.toHaveProperty('timeout');
  });

  it('creates an OnCalendar check, with tz defaulting to UTC', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { schedule: '12:34' });
    expect(c.schedule).toBe('12:34');
    expect(c.tz).toBe('UTC');
    expect(c).not.toHaveProperty('timeout');
  });

  it('stores multi-line OnCalendar schedules verbatim', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { schedule: 'Mon..Fri 09:00\n12:00 Asia/Tokyo' });
    expect(c.schedule).toBe('Mon..Fri 09:00\n12:00 Asia/Tokyo');
  });

  it('accepts cron extensions and names', async () => {
    for (const s of ['0 9 * * 1L', '0 0 L * *', '0 9 * * MON#1', '*/15 0-6 * JAN-MAR MON-FRI', '0 0 29 2 *']) {
      const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { schedule: s } });
      expect(r.status, s).toBe(201);
      expect(r.json.schedule).toBe(s);
    }
  });

  it.each([
    ['Europe/Kiev', 'Europe/Kyiv'],
    ['UCT', 'Etc/UTC'],
    ['CET', 'Europe/Brussels'],
    ['US/Eastern', 'America/New_York'],
    ['Asia/Calcutta', 'Asia/Kolkata'],
    ['GMT0', 'Etc/GMT'],
  ])('rewrites the legacy zone %s to %s, in the response and in storage', async (legacy, canonical) => {
    const c = await createCheck(env.url, env.p.apiKey, { schedule: '* * * * *', tz: legacy });
    expect(c.tz).toBe(canonical);
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(got.json.tz).toBe(canonical);
  });

  it.each(['UTC', 'GMT', 'Etc/GMT+5', 'Australia/Canberra', 'America/Argentina/Buenos_Aires', 'Europe/Riga'])(
    'accepts the zone %s as is',
    async (tz) => {
      const c = await createCheck(env.url, env.p.apiKey, { schedule: '0 0 * * *', tz });
      expect(c.tz).toBe(tz);
    },
  );

  it('validates and stores tz given without a schedule; it shows once the check gets a schedule', async () => {
    const bad = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { tz: 'Mars/Olympus' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'json validation error: tz is not a valid timezone' });
    const c = await createCheck(env.url, env.p.apiKey, { tz: 'Europe/Kiev', timeout: 3600 });
    expect(c).not.toHaveProperty('tz');
    const up = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, body: { schedule: '0 1 * * *' } });
    expect(up.status).toBe(200);
    expect(up.json.tz).toBe('Europe/Kyiv');
  });
});

describe('create: legacy subject / subject_fail', () => {
  it('subject sets success_kw and turns filter_subject on', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { subject: 'SUCCESS,COMPLETE' });
    expect(c).toMatchObject({ success_kw: 'SUCCESS,COMPLETE', filter_subject: true, subject: 'SUCCESS,COMPLETE', subject_fail: '' });
  });

  it('subject_fail sets failure_kw and turns filter_subject on', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { subject_fail: 'ERROR,FAILED' });
    expect(c).toMatchObject({ failure_kw: 'ERROR,FAILED', filter_subject: true, subject: '', subject_fail: 'ERROR,FAILED' });
  });

  it('explicit modern fields in the same request win over the legacy ones', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { subject: 'SUCCESS', filter_subject: false });
    expect(c).toMatchObject({ success_kw: 'SUCCESS', filter_subject: false, subject: '' });
    const c2 = await createCheck(env.url, env.p.apiKey, { subject: 'A', success_kw: 'B' });
    expect(c2).toMatchObject({ success_kw: 'B', filter_subject: true, subject: 'B' });
  });
});

describe('create: upsert with unique', () => {
  it('creates (201) when nothing matches, then updates the match (200)', async () => {
    const p = await newProject(env);
    const key = p.apiKey;
    const first = await api(env.url, v3('/checks/'), { key, body: { name: 'upsert-me', tags: 'a', unique: ['name'] } });
    expect(first.status).toBe(201);
    const second = await api(env.url, v3('/checks/'), { key, body: { name: 'upsert-me', tags: 'b', unique: ['name'] } });
    expect(second.status).toBe(200);
    expect(second.json.uuid).toBe(first.json.uuid);
    expect(second.json.tags).toBe('b');
    // The 200 upsert response is the write representation too.
    expect(Object.keys(second.json)).toEqual([...RW_WRITE_KEYS]);
    const list = await api(env.url, v3('/checks/'), { key });
    expect(list.json.checks).toHaveLength(1);
  });

  it.each([
    ['slug', { slug: 'the-slug' }, { slug: 'the-slug', name: 'changed' }],
    ['tags', { tags: 'x y' }, { tags: 'x y', name: 'changed' }],
    ['timeout', { timeout: 600 }, { timeout: 600, name: 'changed' }],
    ['grace', { grace: 120 }, { grace: 120, name: 'changed' }],
  ])('matches on %s', async (field, seed, update) => {
    const p = await newProject(env);
    const a = await api(env.url, v3('/checks/'), { key: p.apiKey, body: seed });
    expect(a.status).toBe(201);
    const b = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { ...update, unique: [field] } });
    expect(b.status).toBe(200);
    expect(b.json.uuid).toBe(a.json.uuid);
    expect(b.json.name).toBe('changed');
  });

  it('compares tags as the whole raw string', async () => {
    const p = await newProject(env);
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { tags: 'a b' } });
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { tags: 'b a', unique: ['tags'] } });
    expect(r.status).toBe(201);
  });

  it('requires every listed field to match', async () => {
    const p = await newProject(env);
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'n', slug: 's' } });
    const miss = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'n', slug: 'other', unique: ['name', 'slug'] } });
    expect(miss.status).toBe(201);
    const hit = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'n', slug: 's', unique: ['name', 'slug'] } });
    expect(hit.status).toBe(200);
  });

  it('updates the oldest of several matches', async () => {
    const p = await newProject(env);
    const oldest = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'dup', desc: '1' } });
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'dup', desc: '2' } });
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'dup', desc: '3' } });
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'dup', desc: 'new', unique: ['name'] } });
    expect(r.status).toBe(200);
    expect(r.json.uuid).toBe(oldest.json.uuid);
    const list = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(list.json.checks.map((c: any) => c.desc)).toEqual(['new', '2', '3']);
  });

  it('matches a renamed check by its new name only', async () => {
    const p = await newProject(env);
    const made = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'old name', unique: ['name'] } });
    expect(made.status).toBe(201);
    const renamed = await api(env.url, v3(`/checks/${made.json.uuid}`), { key: p.apiKey, body: { name: 'new name' } });
    expect(renamed.status).toBe(200);
    const byNew = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'new name', desc: 'x', unique: ['name'] } });
    expect(byNew.status).toBe(200);
    expect(byNew.json.uuid).toBe(made.json.uuid);
    const byOld = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'old name', unique: ['name'] } });
    expect(byOld.status).toBe(201);
    expect(byOld.json.uuid).not.toBe(made.json.uuid);
  });

  it('creates a new check when a unique field is absent from the request', async () => {
    const p = await newProject(env);
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'x' } });
    // name was never given, so no lookup: even the default '' would not be compared.
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { tags: 't', unique: ['name'] } });
    expect(r.status).toBe(201);
    const r2 = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { tags: 't', unique: ['name'] } });
    expect(r2.status).toBe(201);
    expect((await api(env.url, v3('/checks/'), { key: p.apiKey })).json.checks).toHaveLength(3);
  });

  it('an empty unique list always creates', async () => {
    const p = await newProject(env);
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'same', unique: [] } });
    const r = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'same', unique: [] } });
    expect(r.status).toBe(201);
  });

  it('only matches checks of the caller project', async () => {
    const p = await newProject(env);
    const q = await newProject(env);
    await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'shared-name' } });
    const r = await api(env.url, v3('/checks/'), { key: q.apiKey, body: { name: 'shared-name', unique: ['name'] } });
    expect(r.status).toBe(201);
  });

  it('upsert applies channels to the matched check', async () => {
    const p = await newProject(env);
    const ch = await createChannel(env, 'upsert-chan', p.id);
    const a = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'u' } });
    const b = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'u', unique: ['name'], channels: '*' } });
    expect(b.status).toBe(200);
    expect(b.json.uuid).toBe(a.json.uuid);
    expect(b.json.channels).toBe(ch.id);
  });
});

describe('create: check limit', () => {
  it('answers 403 with an empty body at the limit, and still upserts a match (200)', async () => {
    const p = await newProject(env, 2);
    expect((await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'a' } })).status).toBe(201);
    expect((await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'b' } })).status).toBe(201);
    const over = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'c' } });
    expect(over.status).toBe(403);
    expect(over.text).toBe('');
    expect(over.headers.get('access-control-allow-origin')).toBe('*');
    const up = await api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'a', unique: ['name'], desc: 'd' } });
    expect(up.status).toBe(200);
    expect(up.json.desc).toBe('d');
    const list = await api(env.url, v3('/checks/'), { key: p.apiKey });
    expect(list.json.checks.map((c: any) => c.name)).toEqual(['a', 'b']);
  });

  it('a limit of 0 refuses the first create; deleting frees a slot', async () => {
    const zero = await newProject(env, 0);
    expect((await api(env.url, v3('/checks/'), { key: zero.apiKey, body: {} })).status).toBe(403);
    const one = await newProject(env, 1);
    const c = await api(env.url, v3('/checks/'), { key: one.apiKey, body: {} });
    expect(c.status).toBe(201);
    expect((await api(env.url, v3('/checks/'), { key: one.apiKey, body: {} })).status).toBe(403);
    expect((await api(env.url, v3(`/checks/${c.json.uuid}`), { method: 'DELETE', key: one.apiKey })).status).toBe(200);
    expect((await api(env.url, v3('/checks/'), { key: one.apiKey, body: {} })).status).toBe(201);
  });

  it('schema errors come before the limit', async () => {
    const zero = await newProject(env, 0);
    const r = await api(env.url, v3('/checks/'), { key: zero.apiKey, body: { timeout: 1 } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'json validation error: timeout is too small' });
  });
});

describe('create: concurrency', () => {
  it('parallel creates never exceed the check limit', async () => {
    const p = await newProject(env, 3);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: `p${i}` } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 403, 403, 403, 403, 403, 403, 403]);
    expect((await api(env.url, v3('/checks/'), { key: p.apiKey })).json.checks).toHaveLength(3);
  });

  it('parallel upserts of one name create exactly one check', async () => {
    const p = await newProject(env);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        api(env.url, v3('/checks/'), { key: p.apiKey, body: { name: 'race', desc: `d${i}`, unique: ['name'] } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(7);
    expect(new Set(results.map((r) => r.json.uuid)).size).toBe(1);
    expect((await api(env.url, v3('/checks/'), { key: p.apiKey })).json.checks).toHaveLength(1);
  });
});
