// alert-policies §3, repeated alerts, end to end: a channel's repeat_every
// (the admin CLI and the channel list), reminders on its cadence while a
// check stays down and only on that channel, none while muted, the stop when
// the check comes up, one catch-up reminder after a day stopped, and a
// group's repeat_every reminding the group's members.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/child.js';
import { api, at, createCheck, deliveries, H, makeChannel, MIN, ping, restart, startPolicyEnv, T0, webhookValue, type Delivery, type PolicyEnv } from './support.js';

let env: PolicyEnv | undefined;

/** A second channel that repeats every `seconds`, delivering under /hook/repeat. */
async function repeatingChannel(e: PolicyEnv, seconds: number): Promise<string> {
  const c = await makeChannel(e.d, e.p, 'webhook', webhookValue(e.rx, '/repeat'), 'repeat');
  await e.d.daemon.store.transact(() => e.d.daemon.store.insertChannelInTxn({ ...c, repeatEvery: seconds }, e.clock.now()));
  return c.id;
}

const repeated = (e: PolicyEnv): Delivery[] => e.rx.on('/hook/repeat').map((r) => JSON.parse(r.body) as Delivery);
const plain = (e: PolicyEnv): Delivery[] => e.rx.on('/hook').filter((r) => !r.url.startsWith('/hook/repeat')).map((r) => JSON.parse(r.body) as Delivery);

describe('reminders', () => {
  it('every repeat_every while down, numbered, on that channel only; they stop when the check comes up', async () => {
    env = await startPolicyEnv();
    const repeat = await repeatingChannel(env, 3600);
    const c = await createCheck(env, { name: 'etl', timeout: 86400, grace: 3600, channels: `${env.channel},${repeat}` });
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    expect(repeated(env).map((x) => [x.status, x.reminder])).toEqual([['down', 0]]);
    await at(env, T0 + H - 1000);
    expect(repeated(env)).toHaveLength(1);
    await at(env, T0 + H);
    await at(env, T0 + 2 * H);
    expect(repeated(env).map((x) => [x.status, x.reminder, x.reason, x.down_since])).toEqual([
      ['down', 0, 'fail', '2024-01-15T09:00:00+00:00'],
      ['down', 1, 'fail', '2024-01-15T09:00:00+00:00'],
      ['down', 2, 'fail', '2024-01-15T09:00:00+00:00'],
    ]);
    // The channel without repeat_every heard of the down once.
    expect(plain(env).map((x) => [x.status, x.reminder])).toEqual([['down', 0]]);
    await at(env, T0 + 2 * H + 30 * MIN);
    await ping(env, c.uuid);
    await at(env, T0 + 6 * H);
    expect(repeated(env).map((x) => [x.status, x.reminder])).toEqual([
      ['down', 0],
      ['down', 1],
      ['down', 2],
      ['up', 0],
    ]);
  });

  it('a muted check is not reminded; when the mute ends one catch-up reminder goes out, then the cadence goes on', async () => {
    env = await startPolicyEnv();
    const repeat = await repeatingChannel(env, 3600);
    const c = await createCheck(env, { timeout: 86400, grace: 3600, channels: repeat });
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    await api(env.d.url, `/api/v3/checks/${c.uuid}/mute`, { key: env.p.apiKey, body: { seconds: 3 * 3600 + 600 } });
    for (const h of [1, 2, 3]) await at(env, T0 + h * H);
    expect(repeated(env).map((x) => x.reminder)).toEqual([0]);
    await at(env, T0 + 3 * H + 10 * MIN);
    expect(repeated(env).map((x) => x.reminder)).toEqual([0, 3]);
    await at(env, T0 + 4 * H);
    expect(repeated(env).map((x) => x.reminder)).toEqual([0, 3, 4]);
  });

  it('after a day stopped: exactly one catch-up reminder on start, then the cadence', async () => {
    env = await startPolicyEnv();
    const repeat = await repeatingChannel(env, 3600);
    const c = await createCheck(env, { timeout: 86400, grace: 3600, channels: repeat });
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    await at(env, T0 + H);
    await env.d.stop();
    env.clock.set(T0 + 25 * H + 20 * MIN);
    env = await restart(env);
    await at(env, T0 + 25 * H + 20 * MIN);
    env = await restart(env);
    await at(env, T0 + 25 * H + 30 * MIN);
    expect(repeated(env).map((x) => x.reminder)).toEqual([0, 1, 25]);
    await at(env, T0 + 26 * H);
    expect(repeated(env).map((x) => x.reminder)).toEqual([0, 1, 25, 26]);
  });

  it("a group's repeat_every reminds its members, on the group's cadence, not a member's own", async () => {
    env = await startPolicyEnv();
    const e = env;
    const a = await makeChannel(e.d, e.p, 'webhook', webhookValue(e.rx, '/ga'), 'a');
    const b = await makeChannel(e.d, e.p, 'webhook', webhookValue(e.rx, '/gb'), 'b');
    // A service kind says which reminder it is too.
    const spike = await makeChannel(e.d, e.p, 'spike', `${e.rx.url}/svc/spike`, 'spike');
    const group = await makeChannel(e.d, e.p, 'group', `${a.id},${b.id},${spike.id}`, 'on call');
    const { store } = e.d.daemon;
    await store.transact(() => {
      store.insertChannelInTxn({ ...group, repeatEvery: 3600 }, e.clock.now());
      // Reached through the group only: its own, shorter cadence does not apply.
      store.insertChannelInTxn({ ...b, repeatEvery: 600 }, e.clock.now());
    });
    const c = await createCheck(e, { name: 'etl', timeout: 86400, grace: 3600, channels: group.id });
    await ping(e, c.uuid);
    await ping(e, c.uuid, 'fail');
    const heard = (path: string) => e.rx.on(path).map((r) => JSON.parse(r.body) as Delivery).map((x) => [x.status, x.reminder]);
    for (const m of [10, 20, 30, 59]) await at(e, T0 + m * MIN);
    expect(heard('/hook/ga')).toEqual([['down', 0]]);
    expect(heard('/hook/gb')).toEqual([['down', 0]]);
    await at(e, T0 + H);
    await at(e, T0 + 2 * H);
    for (const path of ['/hook/ga', '/hook/gb']) {
      expect(heard(path), path).toEqual([
        ['down', 0],
        ['down', 1],
        ['down', 2],
      ]);
    }
    expect(e.rx.on('/svc/spike').map((r) => JSON.parse(r.body).title)).toEqual([
      'etl is DOWN (received a failure signal)',
      'etl is DOWN (received a failure signal; reminder 1, down for 1h 0m)',
      'etl is DOWN (received a failure signal; reminder 2, down for 2h 0m)',
    ]);
    await ping(e, c.uuid);
    for (const path of ['/hook/ga', '/hook/gb']) expect(heard(path).at(-1), path).toEqual(['up', 0]);
    expect(e.rx.on('/svc/spike').map((r) => JSON.parse(r.body).status)).toEqual(['down', 'down', 'down', 'up']);
    // The project's own webhook is not assigned to the check: it heard nothing.
    expect(e.rx.requests.filter((r) => r.url === '/hook')).toEqual([]);
  });

  it('a member assigned directly with its own repeat_every also keeps its own cadence, told once when both fall due', async () => {
    env = await startPolicyEnv();
    const e = env;
    const a = await makeChannel(e.d, e.p, 'webhook', webhookValue(e.rx, '/ga'), 'a');
    const group = await makeChannel(e.d, e.p, 'group', a.id, 'on call');
    const { store } = e.d.daemon;
    await store.transact(() => {
      store.insertChannelInTxn({ ...group, repeatEvery: 3600 }, e.clock.now());
      store.insertChannelInTxn({ ...a, repeatEvery: 1800 }, e.clock.now());
    });
    const c = await createCheck(e, { timeout: 86400, grace: 3600, channels: `${group.id},${a.id}` });
    await ping(e, c.uuid);
    await ping(e, c.uuid, 'fail');
    for (const m of [30, 60, 90]) await at(e, T0 + m * MIN);
    const heard = e.rx.on('/hook/ga').map((r) => (JSON.parse(r.body) as Delivery).reminder);
    // Its own 1, 2, 3 every 30 minutes; at 60 minutes the group's first falls due too: one message, its own number.
    expect(heard).toEqual([0, 1, 2, 3]);
  });

  it('a channel given repeat_every while a check is down starts reminding it', async () => {
    env = await startPolicyEnv();
    const c = await createCheck(env, { timeout: 86400, grace: 3600 });
    await ping(env, c.uuid);
    await ping(env, c.uuid, 'fail');
    await at(env, T0 + 30 * MIN);
    const { store } = env.d.daemon;
    const channel = store.getChannel(env.channel)!;
    const now = env.clock.now();
    await store.transact(() => store.insertChannelInTxn({ ...channel, repeatEvery: 600 }, now));
    await at(env, T0 + 30 * MIN);
    expect(deliveries(env).map((x) => x.reminder)).toEqual([0, 3]);
    await at(env, T0 + 40 * MIN);
    expect(deliveries(env).map((x) => x.reminder)).toEqual([0, 3, 4]);
  });
});

describe('admin CLI and API (the built checkd)', () => {
  it('channel create and update take --repeat-every; the channel list shows repeat_every only when set', async () => {
    env = await startPolicyEnv();
    const dir = ['--data-dir', env.dataDir];
    const made = await runCli(['channel', 'create', '--project', env.p.id, '--kind', 'webhook', '--value', `${env.rx.url}/x`, '--repeat-every', '1h', ...dir, '--json']);
    expect(made.code).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    expect(env.d.daemon.store.getChannel(id)!.repeatEvery).toBe(3600);
    const list = async () => (await api(env!.d.url, '/api/v3/channels/', { key: env!.p.apiKey })).json.channels;
    expect(await list()).toEqual([
      { id: env.channel, name: 'hook', kind: 'webhook' },
      { id, name: '', kind: 'webhook', repeat_every: 3600 },
    ]);
    const updated = await runCli(['channel', 'update', id, '--repeat-every', '30m', '--name', 'pager', ...dir, '--json']);
    expect([updated.code, JSON.parse(updated.stdout)]).toEqual([0, { id, name: 'pager', kind: 'webhook' }]);
    expect((await list())[1]).toEqual({ id, name: 'pager', kind: 'webhook', repeat_every: 1800 });
    const off = await runCli(['channel', 'update', id, '--repeat-every', '0', ...dir]);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe(`channel ${id} (webhook, "pager") updated\n(data dir ${env.dataDir})\n`);
    expect((await list())[1]).toEqual({ id, name: 'pager', kind: 'webhook' });
    expect('repeatEvery' in env.d.daemon.store.getChannel(id)!).toBe(false);
    const value = await runCli(['channel', 'update', id, '--value', `${env.rx.url}/y`, ...dir]);
    expect(value.code).toBe(0);
    expect(env.d.daemon.store.getChannel(id)!.value).toBe(`${env.rx.url}/y`);
    for (const bad of [
      ['channel', 'create', '--project', env.p.id, '--kind', 'webhook', '--value', `${env.rx.url}/x`, '--repeat-every', '1m'],
      ['channel', 'update', id, '--repeat-every', '30 days'],
      ['channel', 'update', id, '--value', 'not a url'],
      ['channel', 'update', id],
      ['channel', 'update', '00000000-0000-4000-8000-000000000000', '--name', 'x'],
    ]) {
      const r = await runCli([...bad, ...dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^checkd: /);
    }
    expect(env.d.daemon.store.listChannels(env.p.id)).toHaveLength(2);
  }, 120_000);
});
