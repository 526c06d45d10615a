// A check that uses no checkd extension (alert-policies.md) looks on the wire
// exactly as upstream's: the same members, in the same order, on every API
// version, for every answer that carries a check, in every state it can be in.
// Pinned before the extensions existed, so that none of them leaks into it.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { api, ping } from '../helpers/http.js';
import { createChannel, expectedUniqueKey, RO_READ_KEYS, RW_READ_KEYS, RW_WRITE_KEYS, scheduleKeys, useApiDaemon } from './support.js';

const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
const env = useApiDaemon({ clock });

/** last_duration follows badge_url once a timed run has completed (api-details §5). */
const withDuration = (keys: readonly string[]) => keys.flatMap((k) => (k === 'badge_url' ? [k, 'last_duration'] : [k]));

describe.each([1, 2, 3])('API v%i, a check with no extension', (v) => {
  const base = `/api/v${v}`;
  const key = () => env.p.apiKey;
  const ro = () => env.p.apiKeyReadonly;

  /** Every answer that carries the check, with the key set it must have. */
  async function expectKeys(uuid: string, keys: { rwRead: readonly string[]; roRead: readonly string[] }) {
    const get = await api(env.url, `${base}/checks/${uuid}`, { key: key() });
    expect(Object.keys(get.json)).toEqual(keys.rwRead);
    const byUniqueKey = await api(env.url, `${base}/checks/${expectedUniqueKey(uuid)}`, { key: ro() });
    expect(Object.keys(byUniqueKey.json)).toEqual(keys.roRead);
    const list = await api(env.url, `${base}/checks/`, { key: key() });
    expect(Object.keys(list.json.checks.find((c: any) => c.uuid === uuid))).toEqual(keys.rwRead);
    const roList = await api(env.url, `${base}/checks/`, { key: ro() });
    expect(Object.keys(roList.json.checks.find((c: any) => c.unique_key === expectedUniqueKey(uuid)))).toEqual(keys.roRead);
  }

  it('simple: new, up, running, down, paused, resumed, updated and deleted', async () => {
    await createChannel(env, `keys-v${v}`);
    const created = await api(env.url, `${base}/checks/`, { key: key(), body: { name: `keys-v${v}`, channels: '*' } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json)).toEqual([...RW_WRITE_KEYS]);
    const uuid = created.json.uuid as string;
    const reads = { rwRead: RW_READ_KEYS, roRead: RO_READ_KEYS };
    await expectKeys(uuid, reads);

    await ping(env.url, uuid);
    await expectKeys(uuid, reads);
    await ping(env.url, `${uuid}/start`);
    await expectKeys(uuid, reads);
    clock.advance(5_000);
    await ping(env.url, `${uuid}/fail`);
    const timed = { rwRead: withDuration(RW_READ_KEYS), roRead: withDuration(RO_READ_KEYS) };
    await expectKeys(uuid, timed);
    await ping(env.url, `${uuid}/fail`);
    await expectKeys(uuid, { rwRead: RW_READ_KEYS, roRead: RO_READ_KEYS });

    const updated = await api(env.url, `${base}/checks/${uuid}`, { key: key(), body: { timeout: 60, grace: 60, tags: 'a b' } });
    expect(Object.keys(updated.json)).toEqual([...RW_WRITE_KEYS]);
    const paused = await api(env.url, `${base}/checks/${uuid}/pause`, { method: 'POST', key: key() });
    expect(Object.keys(paused.json)).toEqual([...RW_WRITE_KEYS]);
    await expectKeys(uuid, reads);
    const resumed = await api(env.url, `${base}/checks/${uuid}/resume`, { method: 'POST', key: key() });
    expect(Object.keys(resumed.json)).toEqual([...RW_WRITE_KEYS]);
    const deleted = await api(env.url, `${base}/checks/${uuid}`, { method: 'DELETE', key: key() });
    expect(Object.keys(deleted.json)).toEqual([...RW_WRITE_KEYS]);
  });

  it('scheduled: cron and OnCalendar, new and up, upserted', async () => {
    for (const schedule of ['0 2 * * *', '02:00']) {
      const body = { name: `sched-v${v}-${schedule}`, schedule, tz: 'Europe/Riga', unique: ['name'] };
      const created = await api(env.url, `${base}/checks/`, { key: key(), body });
      expect(created.status).toBe(201);
      expect(Object.keys(created.json)).toEqual(scheduleKeys(RW_WRITE_KEYS));
      const reads = { rwRead: scheduleKeys(RW_READ_KEYS), roRead: scheduleKeys(RO_READ_KEYS) };
      await expectKeys(created.json.uuid, reads);
      await ping(env.url, created.json.uuid);
      await expectKeys(created.json.uuid, reads);
      const upserted = await api(env.url, `${base}/checks/`, { key: key(), body: { ...body, desc: 'again' } });
      expect(upserted.status).toBe(200);
      expect(Object.keys(upserted.json)).toEqual(scheduleKeys(RW_WRITE_KEYS));
    }
  });

  it('a check that went down by itself (timeout) keeps the same members', async () => {
    const created = await api(env.url, `${base}/checks/`, { key: key(), body: { timeout: 60, grace: 60 } });
    const uuid = created.json.uuid as string;
    await ping(env.url, uuid);
    clock.advance(121_000);
    await env.d.daemon.monitor.poke();
    const get = await api(env.url, `${base}/checks/${uuid}`, { key: key() });
    expect(get.json.status).toBe('down');
    await expectKeys(uuid, { rwRead: RW_READ_KEYS, roRead: RO_READ_KEYS });
  });
});
