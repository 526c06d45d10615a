// alert-policies §4.2, maintenance windows, end to end: the API (valid,
// invalid, keys), in_maintenance, notifications held while a window covering
// the check is open and released once when it closes, the window events, a
// window that closes while the daemon is stopped, and the admin CLI.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/child.js';
import { api, at, createCheck, deliveries, getCheck, H, MIN, ping, restart, startPolicyEnv, T0, type PolicyEnv } from './support.js';

let env: PolicyEnv | undefined;

const addWindow = (e: PolicyEnv, body: Record<string, unknown>, key = e.p.apiKey) => api(e.d.url, '/api/v3/maintenance/', { key, body });
const windowEvents = (e: PolicyEnv) =>
  e.d.daemon.store
    .eventsAfter(0, 100_000)
    .filter((x) => x.type.startsWith('window.'))
    .map((x) => [x.type, new Date(x.at).toISOString()]);

describe('API', () => {
  it('creates, lists, gets and deletes one-off and recurring windows', async () => {
    env = await startPolicyEnv();
    const once = await addWindow(env, { name: 'db upgrade', tags: 'db', start: '2024-01-15T10:00:00Z', end: '2024-01-15T12:00:00+01:00' });
    expect(once.status).toBe(201);
    expect(once.json).toEqual({ id: expect.any(String), name: 'db upgrade', tags: 'db', start: '2024-01-15T10:00:00+00:00', end: '2024-01-15T11:00:00+00:00' });
    const weekly = await addWindow(env, { schedule: '0 2 * * 0', tz: 'Europe/Riga', duration: 7200 });
    expect(weekly.json).toEqual({ id: expect.any(String), name: '', tags: '', schedule: '0 2 * * 0', tz: 'Europe/Riga', duration: 7200 });
    for (const v of [1, 2, 3]) {
      const list = await api(env.d.url, `/api/v${v}/maintenance/`, { key: env.p.apiKeyReadonly });
      expect(list.json).toEqual({ windows: [once.json, weekly.json] });
    }
    expect((await api(env.d.url, `/api/v3/maintenance/${once.json.id}`, { key: env.p.apiKeyReadonly })).json).toEqual(once.json);
    const del = await api(env.d.url, `/api/v3/maintenance/${once.json.id}`, { method: 'DELETE', key: env.p.apiKey });
    expect([del.status, del.json]).toEqual([200, once.json]);
    expect((await api(env.d.url, `/api/v3/maintenance/${once.json.id}`, { key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.d.url, '/api/v3/maintenance/', { key: env.p.apiKey })).json.windows).toEqual([weekly.json]);
  });

  it('refusals: 400 with a message, 401 for writes with a read-only key, 403 for another project, 404, 405', async () => {
    env = await startPolicyEnv();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'start and end, or schedule and duration, are required'],
      [{ start: '2024-01-15T10:00:00Z', end: '2024-01-15T09:00:00Z' }, 'end is not after start'],
      [{ schedule: 'every day', duration: 60 }, 'schedule is not a valid cron or OnCalendar expression'],
      [{ schedule: '0 2 * * *', tz: 'Nowhere', duration: 60 }, 'tz is not a valid timezone'],
      [{ schedule: '0 2 * * *', duration: 30 }, 'duration is too small'],
      [{ start: '2024-01-15T10:00:00Z', end: '2024-01-15T11:00:00Z', duration: 60 }, 'a window has start and end, or schedule, tz and duration, not both'],
    ];
    for (const [body, message] of cases) {
      const r = await addWindow(env, body);
      expect([r.status, r.json]).toEqual([400, { error: `json validation error: ${message}` }]);
    }
    const ok = { start: '2024-01-15T10:00:00Z', end: '2024-01-15T11:00:00Z' };
    expect((await addWindow(env, ok, env.p.apiKeyReadonly)).status).toBe(401);
    const w = (await addWindow(env, ok)).json;
    const other = await env.d.createProject({ name: 'other' });
    expect((await api(env.d.url, `/api/v3/maintenance/${w.id}`, { key: other.apiKey })).status).toBe(403);
    expect((await api(env.d.url, `/api/v3/maintenance/${w.id}`, { method: 'DELETE', key: other.apiKey })).status).toBe(403);
    expect((await api(env.d.url, `/api/v3/maintenance/${w.id}`, { method: 'DELETE', key: env.p.apiKeyReadonly })).status).toBe(401);
    expect((await api(env.d.url, '/api/v3/maintenance/00000000-0000-4000-8000-000000000000', { key: env.p.apiKey })).status).toBe(404);
    expect((await api(env.d.url, `/api/v3/maintenance/${w.id}`, { method: 'POST', key: env.p.apiKey, body: {} })).status).toBe(405);
    expect((await api(env.d.url, '/api/v3/maintenance/', { key: other.apiKey })).json).toEqual({ windows: [] });
  });

  it('in_maintenance shows on the checks a window covers while it is open, and only then', async () => {
    env = await startPolicyEnv();
    const db = await createCheck(env, { tags: 'db prod' });
    const web = await createCheck(env, { tags: 'web' });
    await addWindow(env, { tags: 'db', start: '2024-01-15T10:00:00Z', end: '2024-01-15T11:00:00Z' });
    expect('in_maintenance' in (await getCheck(env, db.uuid))).toBe(false);
    await at(env, T0 + H);
    for (const v of [1, 2, 3]) expect((await getCheck(env, db.uuid, v)).in_maintenance).toBe(true);
    expect('in_maintenance' in (await getCheck(env, web.uuid))).toBe(false);
    const list = (await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKeyReadonly })).json.checks;
    expect(list.map((c: any) => c.in_maintenance ?? false)).toEqual([true, false]);
    const bySlug = await api(env.d.url, '/api/v3/checks/?tag=db', { key: env.p.apiKey });
    expect(bySlug.json.checks[0].in_maintenance).toBe(true);
    await at(env, T0 + 2 * H);
    expect('in_maintenance' in (await getCheck(env, db.uuid))).toBe(false);
  });
});

describe('held notifications', () => {
  it('a covered check that goes down during the window is told once when it closes; others as always', async () => {
    env = await startPolicyEnv();
    const db = await createCheck(env, { name: 'db', tags: 'db', timeout: 3600, grace: 60 });
    const web = await createCheck(env, { name: 'web', tags: 'web', timeout: 3600, grace: 60 });
    await ping(env, db.uuid);
    await ping(env, web.uuid);
    await addWindow(env, { tags: 'db', start: '2024-01-15T09:30:00Z', end: '2024-01-15T10:30:00Z' });
    await at(env, T0 + 30 * MIN);
    await at(env, T0 + 40 * MIN);
    await ping(env, db.uuid, 'fail');
    await ping(env, web.uuid, 'fail');
    expect(deliveries(env).map((x) => x.name)).toEqual(['web']);
    expect(env.d.daemon.store.listFlips(db.uuid)[0]).toMatchObject({ newStatus: 'down', held: 'maintenance' });
    await at(env, T0 + 89 * MIN);
    expect(deliveries(env, db.uuid)).toEqual([]);
    await at(env, T0 + 90 * MIN);
    expect(deliveries(env, db.uuid)).toEqual([expect.objectContaining({ status: 'down', reason: 'fail', down_since: '2024-01-15T09:40:00+00:00' })]);
    expect(windowEvents(env)).toEqual([
      ['window.changed', '2024-01-15T09:00:00.000Z'],
      ['window.opened', '2024-01-15T09:30:00.000Z'],
      ['window.closed', '2024-01-15T10:30:00.000Z'],
    ]);
    await at(env, T0 + 3 * H);
    expect(deliveries(env, db.uuid)).toHaveLength(1);
  });

  it('a recurring window, night after night: an outage healed inside sends nothing; one that outlasts it is told at the end', async () => {
    env = await startPolicyEnv();
    // Every night 00:00-01:00 UTC, a nightly job that runs at 00:30 and is noisy during the window.
    const c = await createCheck(env, { name: 'nightly', timeout: 86400, grace: 3600 });
    await addWindow(env, { schedule: '0 0 * * *', tz: 'UTC', duration: 3600 });
    const night = Date.UTC(2024, 0, 16);
    await at(env, night + 30 * MIN);
    await ping(env, c.uuid, 'fail');
    await at(env, night + 40 * MIN);
    await ping(env, c.uuid);
    await at(env, night + 2 * H);
    expect(deliveries(env)).toEqual([]);
    await at(env, night + 24 * H + 30 * MIN);
    await ping(env, c.uuid, 'fail');
    await at(env, night + 26 * H);
    expect(deliveries(env)).toEqual([expect.objectContaining({ status: 'down', down_since: '2024-01-17T00:30:00+00:00' })]);
  });

  it('removing an open window releases what it held', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    const w = (await addWindow(env, { start: '2024-01-15T09:00:00Z', end: '2024-01-15T12:00:00Z' })).json;
    await ping(env, c.uuid, 'fail');
    expect(deliveries(env)).toEqual([]);
    await api(env.d.url, `/api/v3/maintenance/${w.id}`, { method: 'DELETE', key: env.p.apiKey });
    await at(env, T0 + MIN);
    expect(deliveries(env).map((x) => x.status)).toEqual(['down']);
  });

  it('a window that closed while the daemon was stopped releases exactly once after the restart', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { tags: 'db', timeout: 3600, grace: 60 });
    await ping(env, c.uuid);
    await addWindow(env, { tags: 'db', start: '2024-01-15T09:00:00Z', end: '2024-01-15T10:00:00Z' });
    await ping(env, c.uuid, 'fail');
    await env.d.stop();
    env.clock.set(T0 + 5 * H);
    env = await restart(env);
    await at(env, T0 + 5 * H);
    env = await restart(env);
    await at(env, T0 + 6 * H);
    expect(deliveries(env)).toEqual([expect.objectContaining({ status: 'down' })]);
  });
});

describe('admin CLI (the built checkd)', () => {
  it('maintenance add, list and remove, refusing bad input with exit code 2', async () => {
    env = await startPolicyEnv();
    const dir = ['--data-dir', env.dataDir];
    const add = await runCli(['maintenance', 'add', '--project', env.p.id, '--name', 'weekly', '--tags', 'db web', '--schedule', '0 2 * * 0', '--tz', 'Europe/Riga', '--duration', '2h', ...dir, '--json']);
    expect(add.code).toBe(0);
    const recurring = JSON.parse(add.stdout);
    expect(recurring).toEqual({ id: expect.any(String), name: 'weekly', tags: 'db web', schedule: '0 2 * * 0', tz: 'Europe/Riga', duration: 7200 });
    const once = await runCli(['maintenance', 'add', '--project', env.p.id, '--start', '2024-01-15T10:00:00Z', '--end', '2024-01-15T11:00:00Z', ...dir, '--json']);
    expect(JSON.parse(once.stdout)).toMatchObject({ tags: '', start: '2024-01-15T10:00:00+00:00', end: '2024-01-15T11:00:00+00:00' });
    const list = await runCli(['maintenance', 'list', '--project', env.p.id, ...dir, '--json']);
    expect(JSON.parse(list.stdout).windows.map((w: any) => w.id)).toEqual([recurring.id, JSON.parse(once.stdout).id]);
    const human = await runCli(['maintenance', 'list', '--project', env.p.id, ...dir]);
    expect(human.stdout).toContain('"0 2 * * 0" in Europe/Riga');
    // The running daemon sees the admin command's windows at once.
    expect((await api(env.d.url, '/api/v3/maintenance/', { key: env.p.apiKey })).json.windows).toHaveLength(2);
    const removed = await runCli(['maintenance', 'remove', recurring.id, ...dir, '--json']);
    expect([removed.code, JSON.parse(removed.stdout)]).toEqual([0, { deleted: true }]);
    for (const bad of [
      ['maintenance', 'remove', recurring.id],
      ['maintenance', 'add', '--project', env.p.id, '--start', '2024-01-15T10:00:00Z'],
      ['maintenance', 'add', '--project', env.p.id, '--schedule', '0 2 * * *', '--duration', '2 hours'],
      ['maintenance', 'add', '--project', env.p.id, '--schedule', '0 2 * * *', '--duration', '1h', '--start', '2024-01-15T10:00:00Z'],
      ['maintenance', 'add', '--project', env.p.id, '--schedule', '0 25 * * *', '--duration', '1h'],
      ['maintenance', 'add', '--project', '00000000-0000-4000-8000-000000000000', '--schedule', '0 2 * * *', '--duration', '1h'],
    ]) {
      const r = await runCli([...bad, ...dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^checkd: /);
    }
    const bad = await runCli(['maintenance', 'add', '--project', env.p.id, '--schedule', '0 25 * * *', '--duration', '1h', ...dir]);
    expect(bad.stderr).toContain('--schedule is not a valid cron or OnCalendar expression');
    expect(JSON.parse((await runCli(['maintenance', 'list', '--project', env.p.id, ...dir, '--json'])).stdout).windows).toHaveLength(1);
  }, 120_000);
});
