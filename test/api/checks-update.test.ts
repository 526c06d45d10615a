// POST /api/v3/checks/<uuid>: partial updates with no defaults, kind changes,
// methods/manual_resume, legacy subject fields, and the status codes.
import { describe, expect, it } from 'vitest';
import { api, createCheck, MISSING_UUID, ping } from '../helpers/http.js';
import { RW_WRITE_KEYS, scheduleKeys, useApiDaemon, v3 } from './support.js';

const env = useApiDaemon();

const update = (uuid: string, body: unknown, key = env.p.apiKey) =>
  api(env.url, v3(`/checks/${uuid}`), { method: 'POST', key, body });

describe('update', () => {
  it('changes only the given fields and answers 200 with the write representation', async () => {
    const c = await createCheck(env.url, env.p.apiKey, {
      name: 'orig',
      slug: 'orig',
      tags: 't1 t2',
      desc: 'd',
      timeout: 600,
      grace: 120,
      methods: 'POST',
      manual_resume: true,
      success_kw: 'ok',
    });
    const r = await update(c.uuid, { name: 'Renamed' });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(Object.keys(r.json)).toEqual([...RW_WRITE_KEYS]);
    expect(r.json).toEqual({ ...c, name: 'Renamed' });
    // v3 never derives a slug from the name.
    expect(r.json.slug).toBe('orig');
  });

  it('an empty body or {} changes nothing', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { name: 'same', timeout: 300 });
    const r1 = await api(env.url, v3(`/checks/${c.uuid}`), { method: 'POST', key: env.p.apiKey });
    expect(r1.status).toBe(200);
    expect(r1.json).toEqual(c);
    const r2 = await update(c.uuid, {});
    expect(r2.json).toEqual(c);
  });

  it('keeps n_pings, last_ping and status across an update', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await ping(env.url, c.uuid);
    const r = await update(c.uuid, { timeout: 120, grace: 60 });
    expect(r.json).toMatchObject({ n_pings: 1, status: 'up', timeout: 120, grace: 60 });
    expect(r.json.last_ping).not.toBeNull();
    // next_ping follows the new timeout: last_ping + 120 s.
    expect(Date.parse(r.json.next_ping) - Date.parse(r.json.last_ping)).toBe(120_000);
  });

  it('switches simple → cron → OnCalendar → simple', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { timeout: 3600 });
    const cron = await update(c.uuid, { schedule: '*/5 * * * *', tz: 'Asia/Tokyo' });
    expect(cron.status).toBe(200);
    expect(Object.keys(cron.json)).toEqual(scheduleKeys(RW_WRITE_KEYS));
    expect(cron.json).toMatchObject({ schedule: '*/5 * * * *', tz: 'Asia/Tokyo' });
    const cal = await update(c.uuid, { schedule: 'Mon 12:00' });
    expect(cal.json).toMatchObject({ schedule: 'Mon 12:00', tz: 'Asia/Tokyo' });
    const simple = await update(c.uuid, { timeout: 900 });
    expect(Object.keys(simple.json)).toEqual([...RW_WRITE_KEYS]);
    expect(simple.json.timeout).toBe(900);
    expect(simple.json).not.toHaveProperty('schedule');
  });

  it('with both schedule and timeout the schedule wins and timeout is not stored', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { timeout: 3661 });
    const r = await update(c.uuid, { schedule: '0 0 * * *', timeout: 120 });
    expect(r.json.schedule).toBe('0 0 * * *');
    const back = await update(c.uuid, { tz: 'UTC' });
    expect(back.json.schedule).toBe('0 0 * * *');
    // The old timeout is still the stored one (120 was ignored): unique matching on it proves it.
    const found = await api(env.url, v3('/checks/'), { key: env.p.apiKey, body: { timeout: 3661, unique: ['timeout'], tags: 'hit' } });
    expect(found.status).toBe(200);
    expect(found.json.uuid).toBe(c.uuid);
  });

  it('a rejected schedule leaves the stored schedule unchanged', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { schedule: '0 1 * * *' });
    for (const bad of ['* invalid *', '1,2 61 * * *', '0 0 31 2 *', 'Surprise 12:34', '12:34 Europe/surprise']) {
      const r = await update(c.uuid, { schedule: bad });
      expect(r.status, bad).toBe(400);
    }
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(got.json.schedule).toBe('0 1 * * *');
  });

  it('sets, clears and leaves methods; sets manual_resume both ways', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await update(c.uuid, { methods: 'POST' })).json.methods).toBe('POST');
    expect((await update(c.uuid, { name: 'x' })).json.methods).toBe('POST');
    expect((await update(c.uuid, { methods: '' })).json.methods).toBe('');
    expect((await update(c.uuid, { manual_resume: true })).json.manual_resume).toBe(true);
    expect((await update(c.uuid, { manual_resume: false })).json.manual_resume).toBe(false);
  });

  it('accepts a 60-day timeout, rejects 500 days', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    expect((await update(c.uuid, { timeout: 60 * 86400 })).json.timeout).toBe(60 * 86400);
    const r = await update(c.uuid, { timeout: 500 * 86400 });
    expect(r.json).toEqual({ error: 'json validation error: timeout is too large' });
  });

  it('legacy subject fields on update', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const a = await update(c.uuid, { subject: 'SUCCESS' });
    expect(a.json).toMatchObject({ success_kw: 'SUCCESS', filter_subject: true, subject: 'SUCCESS' });
    const b = await update(c.uuid, { subject_fail: 'FAIL' });
    expect(b.json).toMatchObject({ failure_kw: 'FAIL', filter_subject: true, subject_fail: 'FAIL', subject: 'SUCCESS' });
    // subject "" with a failure keyword still set keeps the filter on.
    const c2 = await update(c.uuid, { subject: '' });
    expect(c2.json).toMatchObject({ success_kw: '', filter_subject: true, subject: '', subject_fail: 'FAIL' });
    const d = await update(c.uuid, { subject_fail: '' });
    expect(d.json).toMatchObject({ failure_kw: '', filter_subject: false });
    // filter_subject given explicitly wins over the legacy field.
    const e = await update(c.uuid, { subject: 'SUCCESS', filter_subject: false });
    expect(e.json).toMatchObject({ success_kw: 'SUCCESS', filter_subject: false, subject: '' });
  });

  it('unsets filter_subject with subject "" when there is no failure keyword', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { subject: 'SUCCESS' });
    const r = await update(c.uuid, { subject: '' });
    expect(r.json).toMatchObject({ success_kw: '', filter_subject: false });
  });

  it('404 for an unknown UUID, 403 for another project, 404 for a malformed UUID', async () => {
    expect((await update(MISSING_UUID, { name: 'x' })).status).toBe(404);
    const theirs = await createCheck(env.url, env.other.apiKey, { name: 'theirs' });
    const r = await update(theirs.uuid, { name: 'mine now' });
    expect(r.status).toBe(403);
    expect(r.text).toBe('');
    const still = await api(env.url, v3(`/checks/${theirs.uuid}`), { key: env.other.apiKey });
    expect(still.json.name).toBe('theirs');
    expect((await update('not-an-uuid', { name: 'x' })).status).toBe(404);
    expect((await update(theirs.uuid.toUpperCase(), { name: 'x' })).status).toBe(404);
  });

  it('checks existence and ownership before the schema', async () => {
    expect((await update(MISSING_UUID, { timeout: 'x' })).status).toBe(404);
    const theirs = await createCheck(env.url, env.other.apiKey);
    expect((await update(theirs.uuid, { timeout: 'x' })).status).toBe(403);
  });

  it('answers 404 after the check is deleted', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    await api(env.url, v3(`/checks/${c.uuid}`), { method: 'DELETE', key: env.p.apiKey });
    expect((await update(c.uuid, { name: 'x' })).status).toBe(404);
  });

  it('serialises concurrent updates of one check: every request succeeds', async () => {
    const c = await createCheck(env.url, env.p.apiKey);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => update(c.uuid, { desc: `d${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const got = await api(env.url, v3(`/checks/${c.uuid}`), { key: env.p.apiKey });
    expect(results.map((r) => r.json.desc)).toContain(got.json.desc);
  });
});
