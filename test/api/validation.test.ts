// api-details §3 and §6: body parsing, every validation rule and its exact
// message, null values, number edge cases, first-error order, and that a
// rejected request changes nothing. Each case runs on create and on update.
import { describe, expect, it } from 'vitest';
import { api, createCheck } from '../helpers/http.js';
import { useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();
const PREFIX = 'json validation error: ';

const long = (n: number, ch = 'a') => ch.repeat(n);

/** [request body, expected message without the prefix]. */
const INVALID: Array<[Record<string, unknown>, string]> = [
  // channels
  [{ channels: 1 }, 'channels is not a string'],
  [{ channels: ['a'] }, 'channels is not a string'],
  // desc
  [{ desc: 5 }, 'desc is not a string'],
  [{ desc: { a: 1 } }, 'desc is not a string'],
  // keywords: type and 200-char limit
  [{ failure_kw: 0 }, 'failure_kw is not a string'],
  [{ failure_kw: long(201) }, 'failure_kw is too long'],
  [{ start_kw: true }, 'start_kw is not a string'],
  [{ start_kw: long(201) }, 'start_kw is too long'],
  [{ success_kw: [] }, 'success_kw is not a string'],
  [{ success_kw: long(201) }, 'success_kw is too long'],
  [{ subject: 1 }, 'subject is not a string'],
  [{ subject: long(201) }, 'subject is too long'],
  [{ subject_fail: false }, 'subject_fail is not a string'],
  [{ subject_fail: long(201) }, 'subject_fail is too long'],
  // booleans: no coercion
  [{ filter_subject: 'true' }, 'filter_subject is not a boolean'],
  [{ filter_body: 1 }, 'filter_body is not a boolean'],
  [{ filter_http_body: 0 }, 'filter_http_body is not a boolean'],
  [{ filter_default_fail: 'yes' }, 'filter_default_fail is not a boolean'],
  [{ manual_resume: 1 }, 'manual_resume is not a boolean'],
  [{ manual_resume: 'true' }, 'manual_resume is not a boolean'],
  // grace / timeout
  [{ grace: 'oops' }, 'grace is not a number'],
  [{ grace: 59 }, 'grace is too small'],
  [{ grace: 31536001 }, 'grace is too large'],
  [{ grace: 3600.5 }, 'grace is not a number'],
  [{ grace: [60] }, 'grace is not a number'],
  [{ timeout: 'oops' }, 'timeout is not a number'],
  [{ timeout: '3600' }, 'timeout is not a number'],
  [{ timeout: 0 }, 'timeout is too small'],
  [{ timeout: 59 }, 'timeout is too small'],
  [{ timeout: -5 }, 'timeout is too small'],
  [{ timeout: 31536001 }, 'timeout is too large'],
  [{ timeout: 500 * 86400 }, 'timeout is too large'],
  [{ timeout: 3600.5 }, 'timeout is not a number'],
  // a fraction is not a number at any size: the type comes before the range (§6.6)
  [{ timeout: 31536000.5 }, 'timeout is not a number'],
  [{ grace: 40000000.25 }, 'grace is not a number'],
  [{ grace: -31536000.5 }, 'grace is not a number'],
  [{ timeout: { v: 1 } }, 'timeout is not a number'],
  // booleans count as 1 / 0, then the range applies
  [{ timeout: true }, 'timeout is too small'],
  [{ timeout: false }, 'timeout is too small'],
  [{ grace: true }, 'grace is too small'],
  // huge numbers: "too large", never a crash
  [{ timeout: 1e30 }, 'timeout is too large'],
  [{ grace: 1e300 }, 'grace is too large'],
  [{ timeout: -1e30 }, 'timeout is too small'],
  // methods
  [{ methods: 'GET' }, 'methods has unexpected value'],
  [{ methods: 'post' }, 'methods has unexpected value'],
  [{ methods: ' POST' }, 'methods has unexpected value'],
  [{ methods: 1 }, 'methods has unexpected value'],
  [{ methods: ['POST'] }, 'methods has unexpected value'],
  // name
  [{ name: false }, 'name is not a string'],
  [{ name: 12 }, 'name is not a string'],
  [{ name: long(101) }, 'name is too long'],
  [{ name: long(220) }, 'name is too long'],
  // schedule
  [{ schedule: 5 }, 'schedule is not a string'],
  [{ schedule: long(101, '*') }, 'schedule is too long'],
  [{ schedule: Array.from({ length: 35 }, (_, i) => i).join(',') + ' * * * *' }, 'schedule is too long'],
  [{ schedule: '' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: 'bad-expression' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '* * * * * *' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '* invalid *' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '1,2 61 * * *' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '0 0 31 2 *' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '0 0 30 2 *' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '@daily' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '12:34\nsurprise' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: 'Surprise 12:34' }, 'schedule is not a valid cron or OnCalendar expression'],
  [{ schedule: '12:34 Europe/surprise' }, 'schedule is not a valid cron or OnCalendar expression'],
  // slug
  [{ slug: 1 }, 'slug is not a string'],
  [{ slug: long(101) }, 'slug is too long'],
  [{ slug: 'Uppercase' }, 'slug does not match pattern'],
  [{ slug: 'special!' }, 'slug does not match pattern'],
  [{ slug: 'look spaces' }, 'slug does not match pattern'],
  [{ slug: 'ünïcode' }, 'slug does not match pattern'],
  // tags
  [{ tags: ['a', 'b'] }, 'tags is not a string'],
  [{ tags: 1 }, 'tags is not a string'],
  // tz
  [{ tz: 1 }, 'tz is not a string'],
  [{ tz: 'utc' }, 'tz is not a valid timezone'],
  [{ tz: '' }, 'tz is not a valid timezone'],
  [{ tz: 'not-a-timezone' }, 'tz is not a valid timezone'],
  [{ tz: 'Factory' }, 'tz is not a valid timezone'],
  [{ tz: 'localtime' }, 'tz is not a valid timezone'],
  [{ tz: 'europe/riga' }, 'tz is not a valid timezone'],
  // unique
  [{ unique: 'not a list' }, 'unique is not an array'],
  [{ unique: { name: true } }, 'unique is not an array'],
  [{ unique: ['status'] }, "an item in 'unique' has unexpected value"],
  [{ unique: ['name', 1] }, "an item in 'unique' has unexpected value"],
  [{ unique: [['name']] }, "an item in 'unique' has unexpected value"],
];

/** api-details §6.2: null is always the type error of the field. */
const NULLS: Array<[string, string]> = [
  ['channels', 'channels is not a string'],
  ['desc', 'desc is not a string'],
  ['failure_kw', 'failure_kw is not a string'],
  ['filter_subject', 'filter_subject is not a boolean'],
  ['filter_body', 'filter_body is not a boolean'],
  ['filter_http_body', 'filter_http_body is not a boolean'],
  ['filter_default_fail', 'filter_default_fail is not a boolean'],
  ['grace', 'grace is not a number'],
  ['manual_resume', 'manual_resume is not a boolean'],
  ['methods', 'methods has unexpected value'],
  ['name', 'name is not a string'],
  ['schedule', 'schedule is not a string'],
  ['slug', 'slug is not a string'],
  ['start_kw', 'start_kw is not a string'],
  ['subject', 'subject is not a string'],
  ['subject_fail', 'subject_fail is not a string'],
  ['success_kw', 'success_kw is not a string'],
  ['tags', 'tags is not a string'],
  ['timeout', 'timeout is not a number'],
  ['tz', 'tz is not a string'],
  ['unique', 'unique is not an array'],
];

async function listNames(key: string): Promise<number> {
  const r = await api(env.url, v3('/checks/'), { key });
  return r.json.checks.length;
}

describe('create: each invalid field gives 400 with its exact message and creates nothing', () => {
  it.each(INVALID)('%j → %s', async (body, message) => {
    const before = await listNames(env.p.apiKey);
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json).toEqual({ error: PREFIX + message });
    expect(await listNames(env.p.apiKey)).toBe(before);
  });

  it.each(NULLS)('null %s → %s', async (field, message) => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { [field]: null } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: PREFIX + message });
  });
});

describe('update: the same rules, and the check is left unchanged', () => {
  it.each(INVALID)('%j → %s', async (body, message) => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'keep', schedule: '0 3 * * *', tz: 'Europe/Riga' });
    const r = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, body: { name: 'changed', ...body } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: PREFIX + message });
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(got.json).toMatchObject({ name: 'keep', schedule: '0 3 * * *', tz: 'Europe/Riga' });
  });

  it.each(NULLS)('null %s → %s', async (field, message) => {
    const c = await createCheck(env.url, env.p.apiKey);
    const r = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, body: { [field]: null } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: PREFIX + message });
  });

  it('validates unique on update too (type errors), though it has no effect there', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const bad = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, body: { unique: 'name' } });
    expect(bad.json).toEqual({ error: PREFIX + 'unique is not an array' });
    const ok = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey, body: { unique: ['name'], name: 'n' } });
    expect(ok.status).toBe(200);
    expect(ok.json.uuid).toBe(c.uuid);
  });
});

describe('limits are inclusive', () => {
  it('accepts exactly 100 characters for name, slug and schedule, and 200 for keywords', async () => {
    const c = await createCheck(env.url, env.p.apiKey, {
      name: long(100),
      slug: long(100, 'z'),
      start_kw: long(200),
      success_kw: long(200),
      failure_kw: long(200),
      subject: long(200),
      subject_fail: long(200),
    });
    expect(c.name).toHaveLength(100);
    expect(c.slug).toHaveLength(100);
    // A 100-character schedule: minutes 1..34 listed, then four '*' fields.
    const sched = Array.from({ length: 34 }, (_, i) => i + 1).join(',') + ' * * * *';
    expect(sched).toHaveLength(100);
    const s = await createCheck(env.url, env.p.apiKey, { schedule: sched });
    expect(s.schedule).toBe(sched);
  });

  it('counts characters, not UTF-16 code units: 100 emoji make a valid name', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: '😀'.repeat(100) });
    expect(c.name).toBe('😀'.repeat(100));
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { name: '😀'.repeat(101) } });
    expect(r.json).toEqual({ error: PREFIX + 'name is too long' });
  });

  it('desc and tags have no length limit', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { desc: long(5000), tags: 'x '.repeat(2000) });
    expect(c.desc).toHaveLength(5000);
  });

  it('slug accepts a-z, 0-9, hyphen and underscore, and the empty string', async () => {
    expect((await createCheck(env.url, env.p.apiKey, { slug: 'a-z_0-9' })).slug).toBe('a-z_0-9');
    expect((await createCheck(env.url, env.p.apiKey, { slug: '' })).slug).toBe('');
    expect((await createCheck(env.url, env.p.apiKey, { slug: '-_-' })).slug).toBe('-_-');
  });

  it('methods accepts exactly "" and "POST"', async () => {
    expect((await createCheck(env.url, env.p.apiKey, { methods: 'POST' })).methods).toBe('POST');
    expect((await createCheck(env.url, env.p.apiKey, { methods: '' })).methods).toBe('');
  });
});

describe('first error wins, in the fixed field order', () => {
  it.each([
    [{ name: 1, timeout: 'x' }, 'name is not a string'],
    [{ timeout: 'x', grace: 'y' }, 'grace is not a number'],
    [{ tz: 'bad', schedule: 'bad' }, 'schedule is not a valid cron or OnCalendar expression'],
    [{ unique: 'x', tz: 'bad' }, 'tz is not a valid timezone'],
    [{ tags: 1, slug: 'BAD' }, 'slug does not match pattern'],
    [{ success_kw: 1, subject_fail: 1, subject: 1 }, 'subject is not a string'],
    [{ methods: 'x', manual_resume: 'x' }, 'manual_resume is not a boolean'],
    [{ desc: 1, channels: 1 }, 'channels is not a string'],
    [{ filter_default_fail: 1, filter_http_body: 1, filter_body: 1 }, 'filter_body is not a boolean'],
    [{ schedule: 1, name: long(101) }, 'name is too long'],
    [{ timeout: 1, unique: ['bad'] }, 'timeout is too small'],
  ])('%j → %s', async (body, message) => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: PREFIX + message });
  });

  it('within a field the type is checked before the length', async () => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { schedule: 7 } });
    expect(r.json.error).toBe(PREFIX + 'schedule is not a string');
    const r2 = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { schedule: 'x'.repeat(150) } });
    expect(r2.json.error).toBe(PREFIX + 'schedule is too long');
  });

  it('schema errors come before channel resolution', async () => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { channels: 'no-such', timeout: 1 } });
    expect(r.json).toEqual({ error: PREFIX + 'timeout is too small' });
  });
});

describe('request body parsing (§3)', () => {
  const writePaths = async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    return [v3('/checks/'), v3(`/checks/${c.uuid}`), v3(`/checks/${c.uuid}/pause`), v3(`/checks/${c.uuid}/resume`)];
  };

  it.each([
    ['{', 'truncated JSON'],
    ['not json', 'plain text'],
    ['   ', 'whitespace only'],
    ['{"a":1}{"b":2}', 'two documents'],
    ["{'name': 'x'}", 'single quotes'],
    ['name=x&timeout=60', 'form-encoded'],
  ])('%s (%s) gives 400 could not parse request body, before auth', async (raw) => {
    for (const path of await writePaths()) {
      const r = await api(env.url, path, { method: 'POST', rawBody: raw, headers: { 'Content-Type': 'application/json' } });
      expect(r.status, path).toBe(400);
      expect(r.json).toEqual({ error: 'could not parse request body' });
    }
  });

  it('rejects invalid UTF-8 as unparseable', async () => {
    const res = await fetch(env.url + v3('/checks/'), {
      method: 'POST',
      headers: { 'X-Api-Key': env.p.apiKey },
      body: Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'could not parse request body' });
  });

  it('a body starting with a UTF-8 byte-order mark is unparseable, as json.loads finds it', async () => {
    const res = await fetch(env.url + v3('/checks/'), {
      method: 'POST',
      headers: { 'X-Api-Key': env.p.apiKey },
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name": "bom"}')]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'could not parse request body' });
  });

  it('a lone surrogate escape is unparseable like invalid UTF-8; a proper pair is an emoji', async () => {
    for (const raw of ['{"name": "s\\ud800e"}', '{"tags": "ok", "desc": ["\\udc00"]}', '{"\\udbff": 1}']) {
      const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: raw });
      expect(r.status, raw).toBe(400);
      expect(r.json).toEqual({ error: 'could not parse request body' });
    }
    const ok = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: '{"name": "\\ud83d\\ude00 \\u00e9"}' });
    expect(ok.status).toBe(201);
    expect(ok.json.name).toBe('\u{1F600} é');
  });

  it('an integer too long for a double is too large, not a crash', async () => {
    const r = await api(env.url, v3('/checks/'), { key: env.p.apiKey, rawBody: `{"timeout": 1${'0'.repeat(400)}}` });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'json validation error: timeout is too large' });
  });

  it('a multipart/form-data body is not accepted', async () => {
    const form = new FormData();
    form.append('name', 'x');
    const res = await fetch(env.url + v3('/checks/'), { method: 'POST', headers: { 'X-Api-Key': env.p.apiKey }, body: form });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'could not parse request body' });
  });

  it.each(['[1,2,3]', '123', '"string"', 'null', 'true', '[]'])(
    'top-level %s gives 400 value is not an object, before auth',
    async (raw) => {
      for (const path of await writePaths()) {
        const r = await api(env.url, path, { method: 'POST', rawBody: raw });
        expect(r.status, path).toBe(400);
        expect(r.json).toEqual({ error: 'json validation error: value is not an object' });
      }
    },
  );

  it('ignores the Content-Type: a JSON document sent as text/plain works', async () => {
    const r = await api(env.url, v3('/checks/'), {
      method: 'POST',
      key: env.p.apiKey,
      rawBody: '{"name": "typed"}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(r.status).toBe(201);
    expect(r.json.name).toBe('typed');
  });

  it.each(['text', 'foo', 'a b', '/', 'text/'])('ignores a Content-Type that is not a media type (%j): no 415', async (type) => {
    const r = await api(env.url, v3('/checks/'), {
      method: 'POST',
      key: env.p.apiKey,
      rawBody: JSON.stringify({ name: `typed ${type}` }),
      headers: { 'Content-Type': type },
    });
    expect(r.status).toBe(201);
    expect(r.json.name).toBe(`typed ${type}`);
  });
});
