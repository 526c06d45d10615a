// End to end through the BUILT daemon: `checkd project create` provisions keys,
// `checkd serve` (dist/daemon/cli.js, spawned as a user would) serves the API on
// a real port, and create / list / get / ping / delete work against it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProjectCli, startChild, type ChildDaemon } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { CHECKD_BIN, REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';

/** Newest modification time of the daemon sources. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

let data: string;
let child: ChildDaemon;
let key = '';
let roKey = '';

setupSuite(async () => {
  // `npm test` builds first; when run on its own, build if dist is missing or stale.
  if (!existsSync(CHECKD_BIN) || statSync(CHECKD_BIN).mtimeMs < newestSource(join(REPO_ROOT, 'daemon'))) {
    execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'pipe' });
  }
  data = tempDir('checkd-e2e-');
  const doc = await createProjectCli(data, 'e2e', ['--check-limit', '3']);
  key = doc.api_key;
  roKey = doc.api_key_readonly;
  child = await startChild([
    '--data-dir', data,
    '--listen', '127.0.0.1:0',
    '--grpc-listen', '127.0.0.1:0',
    '--base-url', 'https://cron.example.com/',
    '--api-rate-limit', '0',
  ]);
}, 180_000);

describe('built CLI daemon', () => {
  it('create, list, get, ping, upsert, limit, delete over the real port', async () => {
    const url = child.url;
    expect((await api(url, '/api/v3/status/')).text).toBe('OK');
    const created = await api(url, '/api/v3/checks/', { key, body: { name: 'nightly', tags: 'prod', timeout: 3600, grace: 300 } });
    expect(created.status).toBe(201);
    const c = created.json;
    expect(Object.keys(c)).toHaveLength(29);
    // --base-url is used without its trailing slash.
    expect(c.ping_url).toBe(`https://cron.example.com/ping/${c.uuid}`);
    expect(c.update_url).toBe(`https://cron.example.com/api/v3/checks/${c.uuid}`);

    const list = await api(url, '/api/v3/checks/?tag=prod', { key });
    expect(list.status).toBe(200);
    expect(list.json.checks.map((x: any) => x.uuid)).toEqual([c.uuid]);

    const got = await api(url, `/api/v3/checks/${c.uuid}`, { key });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ name: 'nightly', tags: 'prod', timeout: 3600, grace: 300, status: 'new' });

    const ro = await api(url, '/api/v3/checks/', { key: roKey });
    expect(ro.json.checks[0]).toHaveProperty('unique_key');
    expect(ro.text).not.toContain(c.uuid);

    const pinged = await fetch(`${url}/ping/${c.uuid}`);
    expect(pinged.status).toBe(200);
    await pinged.text();
    const after = await api(url, `/api/v3/checks/${c.uuid}`, { key });
    expect(after.json).toMatchObject({ status: 'up', n_pings: 1 });

    const upsert = await api(url, '/api/v3/checks/', { key, body: { name: 'nightly', unique: ['name'], desc: 'd' } });
    expect(upsert.status).toBe(200);
    expect((await api(url, '/api/v3/checks/', { key, body: {} })).status).toBe(201);
    expect((await api(url, '/api/v3/checks/', { key, body: {} })).status).toBe(201);
    expect((await api(url, '/api/v3/checks/', { key, body: {} })).status).toBe(403);

    const del = await api(url, `/api/v3/checks/${c.uuid}`, { method: 'DELETE', key });
    expect(del.status).toBe(200);
    expect((await api(url, `/api/v3/checks/${c.uuid}`, { key })).status).toBe(404);
  });

  it('data survives a restart', async () => {
    const before = (await api(child.url, '/api/v3/checks/', { key })).json.checks;
    expect((await child.stop()).code).toBe(0);
    const restarted = await startChild(['--data-dir', data, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0', '--api-rate-limit', '0']);
    const after = (await api(restarted.url, '/api/v3/checks/', { key })).json.checks;
    expect(after.map((c: any) => c.uuid)).toEqual(before.map((c: any) => c.uuid));
    expect((await restarted.stop()).code).toBe(0);
  });
});
