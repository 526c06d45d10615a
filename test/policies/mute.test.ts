// alert-policies §4.1, muting a check, end to end: the mute and unmute
// endpoints (keys, validation, the representation's muted_until), held
// notifications and the one release at the end (by unmute or by time), and
// a mute that ends while the daemon is stopped.
import { describe, expect, it } from 'vitest';
import { api, at, createCheck, deliveries, getCheck, H, MIN, ping, restart, startPolicyEnv, T0, type PolicyEnv } from './support.js';

let env: PolicyEnv | undefined;

const mute = (e: PolicyEnv, uuid: string, body: unknown, key = e.p.apiKey, version = 3) =>
  api(e.d.url, `/api/v${version}/checks/${uuid}/mute`, { method: 'POST', key, body });
const unmute = (e: PolicyEnv, uuid: string, key = e.p.apiKey) => api(e.d.url, `/api/v3/checks/${uuid}/unmute`, { method: 'POST', key });

describe('API', () => {
  it('mute by seconds or until answers with the check and muted_until; unmute takes it away', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, {});
    const r = await mute(env, c.uuid, { seconds: 3600 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ uuid: c.uuid, muted_until: '2024-01-15T10:00:00+00:00' });
    expect(Object.keys(r.json).at(-1)).toBe('muted_until');
    for (const v of [1, 2, 3]) expect((await getCheck(env, c.uuid, v)).muted_until).toBe('2024-01-15T10:00:00+00:00');
    const again = await mute(env, c.uuid, { until: '2024-01-15T13:30:00+02:00' }, env.p.apiKey, 1);
    expect(again.json.muted_until).toBe('2024-01-15T11:30:00+00:00');
    const off = await unmute(env, c.uuid);
    expect(off.status).toBe(200);
    expect('muted_until' in off.json).toBe(false);
    expect('muted_until' in (await getCheck(env, c.uuid))).toBe(false);
    // Unmuting a check that is not muted changes nothing, and is no error.
    expect((await unmute(env, c.uuid)).status).toBe(200);
  });

  it('muted_until goes away when the time is reached', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, {});
    await mute(env, c.uuid, { seconds: 60 });
    await at(env, T0 + MIN);
    expect('muted_until' in (await getCheck(env, c.uuid))).toBe(false);
    expect(env.d.daemon.store.getCheck(c.uuid)!.mutedUntil).toBeUndefined();
  });

  it('refusals: 400 with a message, 401 for a read-only or no key, 403 for another project, 404 for none', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, {});
    const cases: Array<[unknown, string]> = [
      [{}, 'until or seconds is required'],
      [{ seconds: 30 }, 'seconds is too small'],
      [{ seconds: 60, until: '2024-01-16T00:00:00Z' }, 'give until or seconds, not both'],
      [{ until: '2024-01-16 00:00' }, 'until is not an ISO 8601 instant with an offset'],
      [{ until: '2024-01-15T08:00:00Z' }, 'until is in the past'],
    ];
    for (const [body, message] of cases) {
      const r = await mute(env, c.uuid, body);
      expect([r.status, r.json]).toEqual([400, { error: `json validation error: ${message}` }]);
    }
    expect((await mute(env, c.uuid, { seconds: 60 }, env.p.apiKeyReadonly)).status).toBe(401);
    expect((await unmute(env, c.uuid, env.p.apiKeyReadonly)).status).toBe(401);
    expect((await api(env.d.url, `/api/v3/checks/${c.uuid}/mute`, { method: 'POST', body: { seconds: 60 } })).status).toBe(401);
    const other = await env.d.createProject({ name: 'other' });
    expect((await mute(env, c.uuid, { seconds: 60 }, other.apiKey)).status).toBe(403);
    expect((await unmute(env, c.uuid, other.apiKey)).status).toBe(403);
    expect((await mute(env, '00000000-0000-4000-8000-000000000000', { seconds: 60 })).status).toBe(404);
    expect((await api(env.d.url, `/api/v3/checks/${c.uuid}/mute`, { key: env.p.apiKey })).status).toBe(405);
    expect('muted_until' in (await getCheck(env, c.uuid))).toBe(false);
  });
});

describe('held notifications', () => {
  it('while muted nothing is sent; unmute releases one down, marked as released', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { name: 'db', timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    await mute(env, c.uuid, { seconds: 2 * 3600 });
    await at(env, T0 + 10 * MIN);
    await ping(env, c.uuid, 'fail');
    await ping(env, c.uuid, 'fail');
    expect((await getCheck(env, c.uuid)).status).toBe('down');
    expect(env.d.daemon.store.listFlips(c.uuid)[0]).toMatchObject({ newStatus: 'down', held: 'mute' });
    await at(env, T0 + H);
    expect(deliveries(env)).toEqual([]);
    await unmute(env, c.uuid);
    await at(env, T0 + H);
    expect(deliveries(env)).toEqual([
      expect.objectContaining({ status: 'down', reason: 'fail', reminder: 0, down_since: '2024-01-15T09:10:00+00:00', now: '2024-01-15T09:10:00+00:00' }),
    ]);
    await at(env, T0 + 3 * H);
    expect(deliveries(env)).toHaveLength(1);
    await ping(env, c.uuid);
    expect(deliveries(env).map((x) => x.status)).toEqual(['down', 'up']);
  });

  it('an outage that healed inside the mute sends nothing at its end', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    await mute(env, c.uuid, { seconds: 3600 });
    await ping(env, c.uuid, 'fail');
    await at(env, T0 + 5 * MIN);
    await ping(env, c.uuid);
    await at(env, T0 + H);
    expect((await getCheck(env, c.uuid)).status).toBe('up');
    expect(deliveries(env)).toEqual([]);
    expect(env.d.daemon.store.getCheck(c.uuid)!.hold).toBeUndefined();
  });

  it('a mute whose time passes releases by itself, also a timeout that happened during it', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 3600, grace: 600 });
    await ping(env, c.uuid);
    await mute(env, c.uuid, { seconds: 3 * 3600 });
    await at(env, T0 + H + 10 * MIN);
    expect((await getCheck(env, c.uuid)).status).toBe('down');
    expect(deliveries(env)).toEqual([]);
    await at(env, T0 + 3 * H);
    expect(deliveries(env)).toEqual([expect.objectContaining({ status: 'down', reason: 'timeout', down_since: '2024-01-15T10:10:00+00:00' })]);
  });

  it('a down told before the mute and healed during it: up is released at the end', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    expect(deliveries(env).map((x) => x.status)).toEqual(['down']);
    await mute(env, c.uuid, { seconds: 3600 });
    await at(env, T0 + 30 * MIN);
    await ping(env, c.uuid);
    expect(deliveries(env)).toHaveLength(1);
    await at(env, T0 + H);
    expect(deliveries(env).map((x) => x.status)).toEqual(['down', 'up']);
  });

  it('a mute that ended while the daemon was stopped releases exactly once after the restart', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    await mute(env, c.uuid, { seconds: 3600 });
    await ping(env, c.uuid, 'fail');
    await env.d.stop();
    env.clock.set(T0 + 5 * H);
    env = await restart(env);
    await at(env, T0 + 5 * H);
    env = await restart(env);
    await at(env, T0 + 6 * H);
    expect(deliveries(env)).toEqual([expect.objectContaining({ status: 'down', reason: 'fail' })]);
    const types = env.d.daemon.store.eventsAfter(0, 10_000).filter((e) => e.checkUuid === c.uuid).map((e) => e.type);
    expect(types.filter((t) => t === 'check.unmuted' || t === 'notification.released')).toEqual(['check.unmuted', 'notification.released']);
  });
});
