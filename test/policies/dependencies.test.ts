// alert-policies §5, dependencies, end to end: depends_on in the API (valid,
// invalid, cycles, absent at its default), suppressed_by, a dependent's down
// held while its parent is down and released when the parent comes up (or
// nothing, if it came up first), deleting the parent, and a parent that came
// up just before a crash.
import { describe, expect, it } from 'vitest';
import { expectedUniqueKey } from '../api/support.js';
import { openStore } from '../helpers/store.js';
import { api, at, createCheck, deliveries, getCheck, MIN, ping, restart, startPolicyEnv, T0, type PolicyEnv } from './support.js';

let env: PolicyEnv | undefined;

const update = (e: PolicyEnv, uuid: string, body: Record<string, unknown>) => api(e.d.url, `/api/v3/checks/${uuid}`, { key: e.p.apiKey, body });

describe('API', () => {
  it('depends_on is set on create and update, shown (by unique_key to a read-only key), and cleared with null', async () => {
    env = await startPolicyEnv();
    const db = await createCheck(env, { name: 'db' });
    const app = await createCheck(env, { name: 'app', depends_on: db.uuid });
    expect(app.depends_on).toBe(db.uuid);
    expect('depends_on' in db).toBe(false);
    for (const v of [1, 2, 3]) expect((await getCheck(env, app.uuid, v)).depends_on).toBe(db.uuid);
    const ro = await api(env.d.url, `/api/v3/checks/${expectedUniqueKey(app.uuid)}`, { key: env.p.apiKeyReadonly });
    expect(ro.json.depends_on).toBe(expectedUniqueKey(db.uuid));
    const cleared = await update(env, app.uuid, { depends_on: null });
    expect('depends_on' in cleared.json).toBe(false);
    const again = await update(env, app.uuid, { depends_on: db.uuid });
    expect(again.json.depends_on).toBe(db.uuid);
    expect((await update(env, app.uuid, { desc: 'kept' })).json.depends_on).toBe(db.uuid);
  });

  it('refuses what is not another check of the project, and cycles', async () => {
    env = await startPolicyEnv();
    const a = await createCheck(env, {});
    const b = await createCheck(env, { depends_on: a.uuid });
    const c = await createCheck(env, { depends_on: b.uuid });
    const other = await env.d.createProject({ name: 'other' });
    const theirs = (await api(env.d.url, '/api/v3/checks/', { key: other.apiKey, body: {} })).json;
    const cases: Array<[string, unknown, string]> = [
      [a.uuid, 'nope', 'json validation error: depends_on is not a check UUID'],
      [a.uuid, 5, 'json validation error: depends_on is not a check UUID'],
      [a.uuid, '00000000-0000-4000-8000-000000000000', 'json validation error: depends_on is not a check of this project'],
      [a.uuid, theirs.uuid, 'json validation error: depends_on is not a check of this project'],
      [a.uuid, a.uuid, 'dependency cycle'],
      [a.uuid, c.uuid, 'dependency cycle'],
      [b.uuid, c.uuid, 'dependency cycle'],
    ];
    for (const [uuid, dependsOn, message] of cases) {
      const r = await update(env, uuid, { depends_on: dependsOn });
      expect([r.status, r.json]).toEqual([400, { error: message }]);
    }
    const created = await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKey, body: { depends_on: theirs.uuid } });
    expect([created.status, created.json.error]).toEqual([400, 'json validation error: depends_on is not a check of this project']);
    expect('depends_on' in (await getCheck(env, a.uuid))).toBe(false);
    expect((await api(env.d.url, '/api/v3/checks/', { key: env.p.apiKey })).json.checks).toHaveLength(3);
  });

  it('deleting a check clears the depends_on of its dependents', async () => {
    env = await startPolicyEnv();
    const db = await createCheck(env, {});
    const app = await createCheck(env, { depends_on: db.uuid });
    await api(env.d.url, `/api/v3/checks/${db.uuid}`, { method: 'DELETE', key: env.p.apiKey });
    expect('depends_on' in (await getCheck(env, app.uuid))).toBe(false);
  });
});

describe('held notifications', () => {
  async function pair(e: PolicyEnv) {
    const db = await createCheck(e, { name: 'db', timeout: 3600, grace: 60 });
    const app = await createCheck(e, { name: 'app', timeout: 3600, grace: 60, depends_on: db.uuid });
    await ping(e, db.uuid);
    await ping(e, app.uuid);
    return { db, app };
  }

  it("a dependent's down while its parent is down waits, with suppressed_by, and is told when the parent comes up", async () => {
    env = await startPolicyEnv();
    const { db, app } = await pair(env);
    await at(env, T0 + 2 * MIN);
    await ping(env, db.uuid, 'fail');
    await at(env, T0 + 3 * MIN);
    await ping(env, app.uuid, 'fail');
    expect(await getCheck(env, app.uuid)).toMatchObject({ status: 'down', suppressed_by: db.uuid });
    expect(deliveries(env).map((x) => x.name)).toEqual(['db']);
    await at(env, T0 + 30 * MIN);
    await ping(env, db.uuid);
    expect(deliveries(env).map((x) => [x.name, x.status])).toEqual([
      ['db', 'down'],
      ['db', 'up'],
      ['app', 'down'],
    ]);
    expect(deliveries(env)[2]).toMatchObject({ reason: 'fail', down_since: '2024-01-15T09:03:00+00:00' });
    expect('suppressed_by' in (await getCheck(env, app.uuid))).toBe(false);
    const released = env.d.daemon.store.eventsAfter(0, 10_000).find((e) => e.type === 'notification.released')!;
    expect(released.release).toMatchObject({ event: 'down', cause: 'dependency', parent: db.uuid });
    // Told once: it is an ordinary down check now, whose recovery is told too.
    await ping(env, app.uuid);
    expect(deliveries(env).map((x) => [x.name, x.status]).at(-1)).toEqual(['app', 'up']);
  });

  it('a dependent that came up before its parent sends nothing', async () => {
    env = await startPolicyEnv();
    const { db, app } = await pair(env);
    await ping(env, db.uuid, 'fail');
    await ping(env, app.uuid, 'fail');
    await at(env, T0 + 10 * MIN);
    await ping(env, app.uuid);
    await at(env, T0 + 20 * MIN);
    await ping(env, db.uuid);
    expect(deliveries(env).map((x) => [x.name, x.status])).toEqual([
      ['db', 'down'],
      ['db', 'up'],
    ]);
  });

  it('through a chain: held for the nearest down ancestor', async () => {
    env = await startPolicyEnv();
    const { db, app } = await pair(env);
    const web = await createCheck(env, { name: 'web', timeout: 3600, grace: 60, depends_on: app.uuid });
    await ping(env, web.uuid);
    await ping(env, db.uuid, 'fail');
    await ping(env, web.uuid, 'fail');
    expect((await getCheck(env, web.uuid)).suppressed_by).toBe(db.uuid);
    await ping(env, db.uuid);
    expect(deliveries(env).map((x) => [x.name, x.status])).toEqual([
      ['db', 'down'],
      ['db', 'up'],
      ['web', 'down'],
    ]);
  });

  it('deleting the parent releases what it held', async () => {
    env = await startPolicyEnv();
    const { db, app } = await pair(env);
    await ping(env, db.uuid, 'fail');
    await ping(env, app.uuid, 'fail');
    await api(env.d.url, `/api/v3/checks/${db.uuid}`, { method: 'DELETE', key: env.p.apiKey });
    await at(env, T0 + MIN);
    expect(deliveries(env, app.uuid).map((x) => x.status)).toEqual(['down']);
  });

  it('a parent that came up just before a crash: its dependent is released once at the next start', async () => {
    env = await startPolicyEnv();
    const { db, app } = await pair(env);
    await ping(env, db.uuid, 'fail');
    await ping(env, app.uuid, 'fail');
    await env.d.stop();
    // The parent's recovery committed, and nothing after it (as if the daemon died right then).
    const store = openStore(env.dataDir);
    await store.transact(() => {
      const parent = store.getCheck(db.uuid)!;
      store.saveCheckInTxn({ ...parent, status: 'up', lastPing: T0 + MIN }, T0 + MIN, 'check.updated');
    });
    await store.close();
    env = await restart(env);
    await at(env, T0 + 2 * MIN);
    env = await restart(env);
    await at(env, T0 + 3 * MIN);
    expect(deliveries(env, app.uuid).map((x) => x.status)).toEqual(['down']);
  });
});
