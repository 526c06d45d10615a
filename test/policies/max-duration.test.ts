// alert-policies §1, the run-time limit, end to end: the API field (valid,
// invalid, absent at its default), the down flip with reason `duration` and
// its one notification, and the catch-up after a restart.
import { describe, expect, it } from 'vitest';
import { api, at, createCheck, deliveries, getCheck, H, MIN, ping, restart, startPolicyEnv, T0, type PolicyEnv } from './support.js';

let env: PolicyEnv | undefined;

describe('API', () => {
  it('create and update set it, read it back, and 0 takes it out of the representation', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { name: 'limited', max_duration: 7200 });
    expect(c.max_duration).toBe(7200);
    expect(Object.keys(c).at(-1)).toBe('max_duration');
    for (const v of [1, 2, 3]) expect((await getCheck(env, c.uuid, v)).max_duration).toBe(7200);
    const ro = await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKeyReadonly });
    expect(ro.json.checks[0].max_duration).toBe(7200);
    const up = await api(env.d.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey, body: { max_duration: 60 } });
    expect(up.json.max_duration).toBe(60);
    // An update that does not name it keeps it.
    expect((await api(env.d.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey, body: { desc: 'x' } })).json.max_duration).toBe(60);
    const off = await api(env.d.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey, body: { max_duration: 0 } });
    expect(off.status).toBe(200);
    expect('max_duration' in off.json).toBe(false);
    expect('max_duration' in (await getCheck(env, c.uuid))).toBe(false);
    expect('max_duration' in (await createCheck(env, { max_duration: 0 }))).toBe(false);
  });

  it('refuses what is not 0 or 60 … 31536000 whole seconds with a 400 that says why', async () => {
    env = await startPolicyEnv();
    const cases: Array<[unknown, string]> = [
      [59, 'max_duration is too small'],
      [31_536_001, 'max_duration is too large'],
      ['3600', 'max_duration is not a number'],
      [3600.5, 'max_duration is not a number'],
      [true, 'max_duration is not a number'],
      [null, 'max_duration is not a number'],
    ];
    for (const [value, message] of cases) {
      const r = await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKey, body: { max_duration: value } });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: `json validation error: ${message}` });
    }
    const c = await createCheck(env, {});
    const r = await api(env.d.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey, body: { max_duration: 10 } });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('json validation error: max_duration is too small');
  });
});

describe('the limit at work', () => {
  it('up while running past grace, down at last_start + max_duration with reason duration, notified once', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { name: 'etl', timeout: 86400, grace: 300, max_duration: 2 * 3600 });
    await ping(env, c.uuid);
    await at(env, T0 + H);
    await ping(env, c.uuid, 'start');
    await at(env, T0 + H + 10 * MIN);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'up', started: true });
    await at(env, T0 + 3 * H - 1000);
    expect((await getCheck(env, c.uuid)).status).toBe('up');
    expect(deliveries(env)).toEqual([]);
    await at(env, T0 + 3 * H);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'down', started: true });
    const flips = env.d.daemon.store.listFlips(c.uuid);
    expect(flips[0]).toMatchObject({ created: T0 + 3 * H, oldStatus: 'up', newStatus: 'down', reason: 'duration' });
    expect(deliveries(env)).toEqual([
      expect.objectContaining({ status: 'down', reason: 'duration', reminder: 0, down_since: '2024-01-15T12:00:00+00:00', name: 'etl' }),
    ]);
    await at(env, T0 + 5 * H);
    expect(deliveries(env)).toHaveLength(1);
    // The run ends: up again, and told so.
    await ping(env, c.uuid);
    expect(deliveries(env).map((x) => [x.status, x.reason])).toEqual([
      ['down', 'duration'],
      ['up', ''],
    ]);
    expect(deliveries(env)[1]!.down_since).toBe('2024-01-15T12:00:00+00:00');
  });

  it('a limit that passed while the daemon was stopped gives exactly one flip, at the limit, after any number of restarts', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { name: 'backup', timeout: 86400, grace: 600, max_duration: 3600 });
    await ping(env, c.uuid);
    await at(env, T0 + 2 * H);
    await ping(env, c.uuid, 'start');
    await env.d.stop();
    env.clock.set(T0 + 30 * H);
    env = await restart(env);
    await at(env, T0 + 30 * H);
    env = await restart(env);
    await at(env, T0 + 31 * H);
    const downs = env.d.daemon.store.listFlips(c.uuid).filter((f) => f.newStatus === 'down');
    expect(downs).toEqual([{ created: T0 + 3 * H, oldStatus: 'up', newStatus: 'down', reason: 'duration', processed: false, rev: expect.any(Number) }]);
    expect(deliveries(env).map((x) => [x.status, x.reason, x.now])).toEqual([['down', 'duration', '2024-01-15T12:00:00+00:00']]);
  });
});
