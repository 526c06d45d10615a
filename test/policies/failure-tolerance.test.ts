// alert-policies §2, failure tolerance, end to end: the API fields, fail pings
// stored but not flipping, the flip and its one notification with the count,
// and a count that survives a restart.
import { describe, expect, it } from 'vitest';
import { api, at, createCheck, deliveries, getCheck, MIN, ping, restart, startPolicyEnv, T0, type PolicyEnv } from './support.js';

let env: PolicyEnv | undefined;

describe('API', () => {
  it('failure_tolerance is set, read back, and absent at 0; consecutive_failures shows only while non-zero', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { failure_tolerance: 3 });
    expect(c.failure_tolerance).toBe(3);
    expect('consecutive_failures' in c).toBe(false);
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    await ping(env, c.uuid, '1');
    for (const v of [1, 2, 3]) expect(await getCheck(env, c.uuid, v)).toMatchObject({ status: 'up', failure_tolerance: 3, consecutive_failures: 2 });
    const ro = await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKeyReadonly });
    expect(ro.json.checks[0]).toMatchObject({ failure_tolerance: 3, consecutive_failures: 2 });
    await ping(env, c.uuid);
    expect('consecutive_failures' in (await getCheck(env, c.uuid))).toBe(false);
    const off = await api(env.d.url, `/api/v3/checks/${c.uuid}`, { key: env.p.apiKey, body: { failure_tolerance: 0 } });
    expect('failure_tolerance' in off.json).toBe(false);
  });

  it('refuses values outside 0 … 100 with a 400 that says why', async () => {
    env = await startPolicyEnv();
    for (const [value, message] of [
      [101, 'failure_tolerance is too large'],
      [-1, 'failure_tolerance is too small'],
      ['1', 'failure_tolerance is not a number'],
      [0.5, 'failure_tolerance is not a number'],
    ] as const) {
      const r = await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKey, body: { failure_tolerance: value } });
      expect([r.status, r.json]).toEqual([400, { error: `json validation error: ${message}` }]);
    }
  });
});

describe('tolerated failures', () => {
  it('two failures pass quietly; the third goes down once, notified with the count; a success resets it', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { name: 'flaky', timeout: 3600, grace: 60, failure_tolerance: 2 });
    await ping(env, c.uuid);
    await at(env, T0 + MIN);
    await ping(env, c.uuid, 'fail');
    await at(env, T0 + 2 * MIN);
    await ping(env, c.uuid, '2');
    const pings = (await api(env.d.url, `/api/v3/checks/${c.uuid}/pings/`, { key: env.p.apiKey })).json.pings;
    // Stored as fail pings, and last_ping moved with them.
    expect(pings.map((x: any) => x.type)).toEqual(['fail', 'fail', 'success']);
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'up', last_ping: '2024-01-15T09:02:00+00:00', consecutive_failures: 2 });
    expect(env.d.daemon.store.listFlips(c.uuid)).toHaveLength(1);
    expect(deliveries(env)).toEqual([]);

    await at(env, T0 + 3 * MIN);
    await ping(env, c.uuid, 'fail');
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'down', consecutive_failures: 3 });
    expect(env.d.daemon.store.listFlips(c.uuid)[0]).toMatchObject({ newStatus: 'down', reason: 'fail', failures: 3 });
    await ping(env, c.uuid, 'fail');
    expect(deliveries(env).map((x) => [x.status, x.reason])).toEqual([['down', 'fail']]);

    await ping(env, c.uuid);
    expect(deliveries(env).map((x) => x.status)).toEqual(['down', 'up']);
    const back = await getCheck(env, c.uuid);
    expect(back.status).toBe('up');
    expect('consecutive_failures' in back).toBe(false);
    await ping(env, c.uuid, 'fail');
    expect((await getCheck(env, c.uuid)).status).toBe('up');
  });

  it('the count is stored state: it survives a restart', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 3600, grace: 60, failure_tolerance: 1 });
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    env = await restart(env);
    expect((await getCheck(env, c.uuid)).consecutive_failures).toBe(1);
    await ping(env, c.uuid, 'fail');
    expect((await getCheck(env, c.uuid)).status).toBe('down');
    expect(deliveries(env)).toHaveLength(1);
  });
});
