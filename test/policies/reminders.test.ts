// alert-policies §3, repeated alerts, end to end: a channel's repeat_every
// (the admin CLI and the channel list), reminders on its cadence while a
// check stays down and only on that channel, none while muted, the stop when
// the check comes up, and one catch-up reminder after a day stopped.
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
