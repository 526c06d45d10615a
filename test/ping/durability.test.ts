// Concurrency and durability of the ping path (ping-protocol §14, design
// principle 1): concurrent pings lose no increment and never share a number,
// and a ping answered 200 is in LMDB, even when the daemon is killed right after.
import { describe, expect, it } from 'vitest';
import { open } from 'lmdb';
import { Store } from '../../daemon/store/store.js';
import { newCheck } from '../../daemon/domain/check-input.js';
import { startChild } from '../helpers/child.js';
import { api, send } from '../helpers/http.js';
import { startInProcess } from '../helpers/in-process.js';
import { openStore, storedPingNumbers } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { environmentOf } from '../../daemon/store/environment.js';

describe('concurrency', () => {
  it('200 concurrent pings to one check: n_pings 200, ping numbers 1..200, each once', async () => {
    const d = await startInProcess();
    const p = await d.createProject({ pingLogLimit: 1000 });
    const c = (await api(d.url, '/api/v3/checks/', { key: p.apiKey, body: {} })).json;
    const kinds = ['', '/start', '/log', '/0', '/fail'];
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => send(d.url, `/ping/${c.uuid}${kinds[i % kinds.length]}`, { method: 'POST', body: `#${i}` })),
    );
    expect(results.every((r) => r.status === 200 && r.text === 'OK')).toBe(true);
    const check = (await api(d.url, `/api/v3/checks/${c.uuid}`, { key: p.apiKey })).json;
    expect(check.n_pings).toBe(200);
    const pings = (await api(d.url, `/api/v3/checks/${c.uuid}/pings/`, { key: p.apiKey })).json.pings;
    expect(pings).toHaveLength(200);
    const numbers = pings.map((x: any) => x.n);
    expect(numbers).toEqual(Array.from({ length: 200 }, (_, i) => 200 - i));
    // Every request body landed on exactly one ping.
    const bodies = new Set<string>();
    for (let n = 1; n <= 200; n++) bodies.add(Buffer.from(d.daemon.store.getPing(c.uuid, n)!.body!).toString());
    expect(bodies.size).toBe(200);
  });
});

describe('durability', () => {
  it('a ping answered 200 is readable after the daemon stops and LMDB is reopened', async () => {
    const dir = tempDir();
    const d = await startInProcess({ dataDir: dir });
    const p = await d.createProject();
    const c = (await api(d.url, '/api/v3/checks/', { key: p.apiKey, body: {} })).json;
    const r = await send(d.url, `/ping/${c.uuid}/fail`, { method: 'POST', body: 'it broke' });
    expect(r.status).toBe(200);
    await d.stop();

    const store = openStore(dir);
    const check = store.getCheck(c.uuid)!;
    expect(check).toMatchObject({ nPings: 1, status: 'down' });
    const ping = store.getPing(c.uuid, 1)!;
    expect(ping).toMatchObject({ n: 1, kind: 'fail', method: 'POST' });
    expect(Buffer.from(ping.body!).toString()).toBe('it broke');
    expect(store.listFlips(c.uuid)).toHaveLength(1);
  });

  it('records written without shared msgpack structures (older data dirs) still read, and pings append to them', async () => {
    const dir = tempDir();
    const setup = Store.open(dir);
    const { project, apiKey } = await setup.createProject({ name: 'old', checkLimit: 10, pingLogLimit: 100 }, Date.now());
    await setup.close();
    // Rewrite the project and a check the way the first layout stored them: msgpack records inline.
    const legacy = open({ path: dir, maxDbs: 32, noSubdir: false });
    const uuid = '11111111-2222-4333-8444-555555555555';
    const check = { ...newCheck({ uuid, badgeKey: '66666666-7777-4888-8999-000000000000', projectId: project.id, createdAt: Date.now() }), name: 'legacy' };
    await legacy.transaction(() => {
      legacy.openDB({ name: 'projects' }).put(project.id, { ...project });
      legacy.openDB({ name: 'checks' }).put(uuid, check);
      legacy.openDB({ name: 'checks_by_project' }).put([project.id, check.createdAt, uuid], uuid);
    });
    await legacy.close();

    const d = await startInProcess({ dataDir: dir });
    const got = await api(d.url, `/api/v3/checks/${uuid}`, { key: apiKey });
    expect(got.status).toBe(200);
    expect(got.json.name).toBe('legacy');
    expect((await send(d.url, `/ping/${uuid}`, { method: 'POST', body: 'new' })).status).toBe(200);
    expect((await api(d.url, `/api/v3/checks/${uuid}`, { key: apiKey })).json).toMatchObject({ name: 'legacy', n_pings: 1, status: 'up' });
  });

  it('pings answered 200 survive SIGKILL of the daemon process right after the answers', async () => {
    const dir = tempDir();
    const setup = Store.open(dir);
    const { project, apiKey } = await setup.createProject({ name: 'kill', checkLimit: 10, pingLogLimit: 1000 }, Date.now());
    await setup.close();

    // Run the CLI from source (no build needed) as a separate process.
    const child = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0', '--log-level', 'warn'], {
      fromSource: true,
      timeoutMs: 30_000,
    });
    const uuid: string = (await api(child.url, '/api/v3/checks/', { key: apiKey, body: {} })).json.uuid;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(child.url, `/ping/${uuid}`, { method: 'POST', body: `run ${i}` })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    await child.stop('SIGKILL');

    const store = openStore(dir);
    expect(store.getCheck(uuid)).toMatchObject({ nPings: 50, status: 'up', projectId: project.id });
    expect(store.listPings(uuid, 1000).map((x) => x.n)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
    // Whatever was still in the journal at the kill goes into the B-trees the next time it is applied.
    await store.applyJournal();
    expect(store.journalBytes()).toBe(0);
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ nPings: 50 });
    expect(storedPingNumbers(environmentOf(store), uuid)).toHaveLength(50);
  }, 60_000);
});
