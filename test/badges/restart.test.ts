// Badge URLs survive a restart (api-details §14.2 product decisions): the
// signing secret and the project and check badge keys live in the data
// directory, so URLs handed out before a restart still resolve after it.
import { describe, expect, it } from 'vitest';
import { createCheck, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon } from '../helpers/in-process.js';
import { tempDir } from '../helpers/temp.js';
import { badgeMap, get, local, signature } from './support.js';

describe('restart', () => {
  it('keeps the secret and the keys: every badge URL from before still answers the same', async () => {
    const tmp = tempDir();
    const a = await startInProcess({ dataDir: tmp });
    const p = await a.createProject();
    const secret = await a.daemon.store.badgeSecret();
    const c1 = await createCheck(a.url, p.apiKey, { name: 'db', tags: 'db@dc1 prod' });
    const c2 = await createCheck(a.url, p.apiKey, { name: 'web', tags: 'prod café' });
    await ping(a.url, `${c1.uuid}/fail`);
    await ping(a.url, c2.uuid);
    const before = await badgeMap(a.url, p.apiKey);
    const fetchAll = async (d: InProcessDaemon) => {
      const out: Record<string, string> = {};
      for (const [tag, urls] of Object.entries(before)) {
        for (const [k, u] of Object.entries(urls)) {
          const r = await get(local(d, u));
          expect(r.status, `${tag} ${k}`).toBe(200);
          out[`${tag} ${k}`] = r.text;
        }
      }
      for (const c of [c1, c2]) {
        for (const fmt of ['svg', 'json', 'shields']) {
          const r = await get(local(d, c.badge_url.replace(/\.svg$/, `.${fmt}`)));
          expect(r.status).toBe(200);
          out[`${c.uuid} ${fmt}`] = r.text;
        }
      }
      return out;
    };
    const docsBefore = await fetchAll(a);
    expect(JSON.parse(docsBefore['prod json3']!)).toEqual({ status: 'down', total: 2, grace: 0, down: 1 });
    await a.stop();

    const b = await startInProcess({ dataDir: tmp });
    expect(await b.daemon.store.badgeSecret()).toBe(secret);
    const after = await badgeMap(b.url, p.apiKey);
    expect(after).toEqual(before);
    // Same documents: nothing moved while stopped (timeouts are a day).
    expect(await fetchAll(b)).toEqual(docsBefore);
    // And a hand-built URL with the independently computed signature still verifies.
    const K = b.daemon.store.getProject(p.id)!.badgeKey;
    const r = await get(`${b.url}/badge/${K}/${signature(K, secret, 'prod')}-2/prod.shields`);
    expect(r.json).toEqual({ schemaVersion: 1, label: 'prod', message: 'down', color: 'critical' });
  });

  it('each data directory makes its own secret', async () => {
    const a = await startInProcess();
    const b = await startInProcess();
    const sa = await a.daemon.store.badgeSecret();
    const sb = await b.daemon.store.badgeSecret();
    expect(sa).not.toBe(sb);
    expect(sa.length).toBeGreaterThanOrEqual(16);
  });
});
