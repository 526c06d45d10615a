// Stopping the daemon with gRPC clients attached. The built daemon as a child
// process and clients that are not ours (Python grpcio, Debian's
// python3-grpcio): one whose Watch has bytes queued that it never reads, its
// process stopped so that not even its gRPC threads read the socket, and one
// that made a call and then holds an idle connection. SIGTERM must still end
// the daemon, well within systemd's TimeoutStopSec (30 s). And every Watch of
// a stopping daemon ends UNAVAILABLE, which a client retries, not OK.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { createProjectCli, startChild } from '../helpers/child.js';
import { onCleanup } from '../helpers/cleanup.js';
import { api, createCheck, ping } from '../helpers/http.js';
import { startInProcess } from '../helpers/in-process.js';
import { tempDir } from '../helpers/temp.js';
import { GRPC_SHUTDOWN_GRACE_MS } from '../../daemon/grpc/server.js';
import { connect, Watcher } from './support.js';

const CLIENT = join(import.meta.dirname, 'fixtures/stalled_client.py');
/** systemd/checkd.service's TimeoutStopSec: the daemon must be gone well before. */
const TIMEOUT_STOP_MS = 30_000;
/** Bytes of Watch messages queued in the daemon's socket to the stopped client. */
const STALLED_BYTES = 64 * 1024;

/** A Python with grpcio: python3 on PATH may be another one than Debian's. */
function pythonWithGrpc(): string {
  for (const python of ['python3', '/usr/bin/python3']) {
    if (spawnSync(python, ['-c', 'import grpc']).status === 0) return python;
  }
  throw new Error('no python3 with grpcio: apt-get install -y python3-grpcio (.ci/run does)');
}

/** Starts the Python client; resolves once it says it is connected. */
async function pythonClient(address: string, key: string, mode: 'watch' | 'idle'): Promise<ChildProcess> {
  const proc = spawn(pythonWithGrpc(), [CLIENT, address, key, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  onCleanup(() => {
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
  });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: proc.stdout! });
  await new Promise<void>((resolve, reject) => {
    lines.once('line', () => resolve());
    proc.once('exit', (code) => reject(new Error(`python client exited with ${code}: ${stderr}`)));
  });
  return proc;
}

/** Bytes the daemon has queued on its sockets to `port`'s peers and not yet sent (ss's Send-Q). */
function unsentBytes(pid: number): number {
  const out = spawnSync('ss', ['-tnpH'], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[2] ?? 0), 0);
}

describe('SIGTERM with gRPC clients connected', () => {
  it('ends the daemon within its grace although a Watch client stopped reading and never closes', async () => {
    const dir = tempDir('checkd-grpc-stop-');
    const { api_key: key } = await createProjectCli(dir, 'stop', ['--check-limit', '100']);
    const daemon = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0', '--api-rate-limit', '0']);
    // Big checks make big events: each ping of one is ~20 KB on the Watch.
    const uuids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await api(daemon.url, '/api/v3/checks/', { key, body: { name: `big-${i}`, desc: 'x'.repeat(20_000) } });
      uuids.push(r.json.ping_url.split('/').pop());
    }
    const idle = await pythonClient(daemon.grpc, key, 'idle');
    const stalled = await pythonClient(daemon.grpc, key, 'watch');
    stalled.kill('SIGSTOP');
    idle.kill('SIGSTOP');
    // Pings until the daemon holds bytes for the stopped client that cannot go
    // out: at least HTTP/2's initial window (64 KiB); how much more the socket
    // takes depends on the window the client's grpcio grew, which varies with load.
    for (let round = 0; round < 100 && unsentBytes(daemon.proc.pid!) < STALLED_BYTES; round++) {
      await Promise.all(uuids.map((u) => fetch(`${daemon.url}/ping/${u}`).then((r) => r.arrayBuffer())));
    }
    expect(unsentBytes(daemon.proc.pid!)).toBeGreaterThanOrEqual(STALLED_BYTES);

    const t0 = Date.now();
    const code = await Promise.race([
      daemon.stop('SIGTERM').then((exit) => exit.code),
      new Promise((r) => setTimeout(() => r('still running'), TIMEOUT_STOP_MS)),
    ]);
    const took = Date.now() - t0;
    expect(code).toBe(0);
    // The gRPC grace, and a little for the rest of the shutdown.
    expect(took).toBeLessThan(GRPC_SHUTDOWN_GRACE_MS + 5000);
    expect(took).toBeLessThan(TIMEOUT_STOP_MS / 2);
  }, 120_000);
});

describe('a Watch when the daemon stops', () => {
  it('ends with UNAVAILABLE (retryable), not OK', async () => {
    const d = await startInProcess();
    const p = await d.createProject();
    const { uuid } = await createCheck(d.url, p.apiKey, { name: 'w' });
    const client = connect(d.daemon.grpcAddress);
    const w = new Watcher(client, p.apiKey);
    await w.until(() => w.events.length >= 1, 'the snapshot');
    await ping(d.url, uuid);
    await w.untilChanges(1);
    const stopped = d.stop();
    const err = await w.ending();
    expect(err.code).toBe(grpc.status.UNAVAILABLE);
    expect(err.details).toMatch(/shutting down/);
    await stopped;
  });

  it('with a resumed stream too, and a read-only key', async () => {
    const d = await startInProcess();
    const p = await d.createProject();
    await createCheck(d.url, p.apiKey, { name: 'w' });
    const client = connect(d.daemon.grpcAddress);
    const w = new Watcher(client, p.apiKeyReadonly, d.daemon.store.revision());
    // Headers come at once for a resumed stream; give it a moment to be registered.
    await once(w.call, 'metadata');
    const stopped = d.stop();
    expect((await w.ending()).code).toBe(grpc.status.UNAVAILABLE);
    await stopped;
  });
});
