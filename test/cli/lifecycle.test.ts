// Process life of `checkd serve` (contract.md): SIGTERM/SIGINT end it cleanly
// with exit 0 (in-flight requests finish, gRPC streams are closed, LMDB is
// closed), and a restart on the same data dir keeps everything.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connect, rpc, Watcher } from '../grpc/support.js';
import { childEnv, createProjectCli, PORT0, runCliJson, startChild } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { listProjects } from './support.js';

let tmp: string;
setupSuite(() => {
  tmp = tempDir('checkd-cli-life-');
});
let n = 0;
const fresh = () => `${tmp}/data-${++n}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('signals', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: exit 0 promptly, no error output`, async () => {
      const dir = fresh();
      const p = await createProjectCli(dir);
      const d = await startChild(['--data-dir', dir, ...PORT0]);
      expect((await api(d.url, '/api/v3/checks/', { key: p.api_key })).status).toBe(200);
      const stopped = await d.stop(signal);
      console.log(`${signal}: exit after ${stopped.ms.toFixed(0)} ms`);
      expect(stopped).toMatchObject({ code: 0, signal: null });
      expect(stopped.ms).toBeLessThan(5000);
      expect(d.stderr()).not.toMatch(/"level":(50|60)|Error/);
    });
  }

  it('SIGTERM while the program is still loading (before the ready line): clean shutdown, exit 0', async () => {
    const dir = fresh();
    const loading = `${tmp}/loading-${n}`;
    const proc = spawn(
      process.execPath,
      ['--import', join(import.meta.dirname, 'fixtures/slow-commander.mjs'), CHECKD_BIN, 'serve', '--data-dir', dir, ...PORT0],
      { env: childEnv({ CHECKD_LOG_LEVEL: 'info', CHECKD_TEST_LOADING: loading }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    for (let waited = 0; !existsSync(loading); waited += 5) {
      if (waited > 10_000 || proc.exitCode !== null) throw new Error(`the program never started loading; stderr: ${stderr}`);
      await sleep(5);
    }
    proc.kill('SIGTERM');
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stdout).toBe('');
    expect(stderr).toContain('"msg":"shutting down"');
  });

  it('SIGTERM while a request is in flight: the request completes, then exit 0', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    const check = (await api(d.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'slow' } })).json;

    // A ping whose body arrives in two halves, with the signal in between.
    const body = 'first half|second half';
    const req = request(`${d.url}/ping/${check.uuid}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 11));
    await sleep(200);
    const exited = d.stop('SIGTERM');
    await sleep(300);
    // Still running: it waits for the request.
    expect(d.proc.exitCode).toBeNull();
    req.end(body.slice(11));
    expect(await response).toEqual({ status: 200, text: 'OK' });
    expect((await exited).code).toBe(0);

    // The ping was stored before the daemon closed LMDB.
    const again = await startChild(['--data-dir', dir, ...PORT0]);
    const pings = (await api(again.url, `/api/v3/checks/${check.uuid}/pings/`, { key: p.api_key })).json.pings;
    expect(pings).toHaveLength(1);
    const stored = await api(again.url, `/api/v3/checks/${check.uuid}/pings/${pings[0].n}/body`, { key: p.api_key });
    expect(stored.text).toBe(body);
    expect((await again.stop()).code).toBe(0);
  });

  it('SIGTERM with a gRPC Watch stream open: the stream is closed, exit 0 promptly', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    const client = connect(d.grpc);
    const w = new Watcher(client, p.api_key);
    await w.until(() => w.events.length > 0, 'the snapshot');
    const stopped = await d.stop('SIGTERM');
    console.log(`SIGTERM with an open Watch stream: exit after ${stopped.ms.toFixed(0)} ms`);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5000);
    await w.until(() => w.ended, 'the end of the stream', 5000);
  });

  it('a signal before the daemon has anything in flight still exits 0 (idle keep-alive connection)', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    // fetch keeps the connection alive: an idle connection must not hold shutdown up.
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key })).status).toBe(200);
    const stopped = await d.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(5000);
  });
});

describe('restart on the same data dir keeps everything', () => {
  it('projects, keys, checks, pings and channels made via CLI and API', async () => {
    const dir = fresh();
    const p1 = await createProjectCli(dir, 'one', ['--check-limit', '7', '--ping-log-limit', '50']);
    const p2 = await createProjectCli(dir, 'two');
    const extraRw = await runCliJson(['key', 'create', '--project', p1.id, '--data-dir', dir]);
    const extraRo = await runCliJson(['key', 'create', '--project', p1.id, '--read-only', '--data-dir', dir]);
    const revoked = await runCliJson(['key', 'create', '--project', p1.id, '--data-dir', dir]);
    expect(await runCliJson(['key', 'revoke', '--project', p1.id, revoked.api_key, '--data-dir', dir])).toEqual({ revoked: true });
    const ch1 = await runCliJson(['channel', 'create', '--project', p1.id, '--kind', 'email', '--name', 'ops', '--value', 'ops@example.com', '--data-dir', dir]);

    const a = await startChild(['--data-dir', dir, ...PORT0]);
    // Made while the daemon runs: a channel by the CLI, checks and pings by the API.
    const ch2 = await runCliJson(['channel', 'create', '--project', p1.id, '--kind', 'webhook', '--value', 'https://hooks.example.com/x', '--data-dir', dir]);
    const c1 = (await api(a.url, '/api/v3/checks/', { key: p1.api_key, body: { name: 'backup', slug: 'backup', tags: 'db nightly', timeout: 3600, grace: 60, channels: 'ops' } })).json;
    const c2 = (await api(a.url, '/api/v3/checks/', { key: extraRw.api_key, body: { name: 'second', slug: 'second' } })).json;
    const c3 = (await api(a.url, '/api/v3/checks/', { key: p2.api_key, body: { name: 'other project' } })).json;
    for (const c of [c1, c2, c3]) expect(c.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await api(a.url, `/ping/${c1.uuid}`, { rawBody: 'hello' })).status).toBe(200);
    expect((await api(a.url, `/ping/${p1.ping_key}/backup/fail`)).status).toBe(200);
    const before = (await api(a.url, '/api/v3/checks/', { key: p1.api_key })).json.checks;
    const beforeC1 = (await api(a.url, `/api/v3/checks/${c1.uuid}`, { key: p1.api_key })).json;
    expect(beforeC1.n_pings).toBe(2);
    expect(beforeC1.status).toBe('down');
    expect((await a.stop('SIGTERM')).code).toBe(0);

    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const b = await startChild(['--data-dir', dir, ...PORT0]);
      // Projects (admin view).
      expect(await listProjects(dir)).toEqual([
        { id: p1.id, name: 'one', check_limit: 7, ping_log_limit: 50, n_checks: 2 },
        { id: p2.id, name: 'two', check_limit: 20, ping_log_limit: 100, n_checks: 1 },
      ]);
      // Every key still works with its rights; the revoked one stays revoked.
      for (const key of [p1.api_key, extraRw.api_key]) {
        expect((await api(b.url, '/api/v3/checks/', { key })).status).toBe(200);
      }
      for (const key of [p1.api_key_readonly, extraRo.api_key]) {
        expect((await api(b.url, '/api/v3/checks/', { key })).status).toBe(200);
        expect((await api(b.url, '/api/v3/checks/', { key, body: { name: 'nope' } })).status).toBe(401);
      }
      expect((await api(b.url, '/api/v3/checks/', { key: revoked.api_key })).status).toBe(401);
      // Checks, their pings, their channels.
      const after = (await api(b.url, '/api/v3/checks/', { key: p1.api_key })).json.checks;
      expect(after).toEqual(before);
      const afterC1 = (await api(b.url, `/api/v3/checks/${c1.uuid}`, { key: p1.api_key })).json;
      expect(afterC1).toEqual(beforeC1);
      expect(afterC1.channels).toBe(ch1.id);
      const pings = (await api(b.url, `/api/v3/checks/${c1.uuid}/pings/`, { key: p1.api_key })).json.pings;
      expect(pings.map((x: { type: string }) => x.type)).toEqual(['fail', 'success']);
      expect((await api(b.url, `/api/v3/checks/${c1.uuid}/pings/${pings[1].n}/body`, { key: p1.api_key })).text).toBe('hello');
      const channels = (await api(b.url, '/api/v3/channels/', { key: p1.api_key })).json.channels;
      expect(channels).toEqual([
        { id: ch1.id, name: 'ops', kind: 'email' },
        { id: ch2.id, name: '', kind: 'webhook' },
      ]);
      const other = (await api(b.url, '/api/v3/checks/', { key: p2.api_key })).json.checks;
      expect(other.map((c: { name: string }) => c.name)).toEqual(['other project']);
      // Ping keys survive too (last round only: the ping changes the check).
      if (signal === 'SIGTERM') expect((await api(b.url, `/ping/${p1.ping_key}/second`)).status).toBe(200);
      expect((await b.stop(signal)).code).toBe(0);
    }
  });
});

describe('gRPC answers on the address of the ready line', () => {
  it('GetProject with a key made by the CLI', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir, 'grpc');
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    const client = connect(d.grpc);
    const project = await rpc(client, 'GetProject', {}, p.api_key_readonly);
    expect(project).toMatchObject({ id: p.id, name: 'grpc', read_only: true, check_limit: 20, n_checks: 0 });
    client.close();
    expect((await d.stop()).code).toBe(0);
  });
});
