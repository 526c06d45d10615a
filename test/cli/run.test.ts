// `checkd run`, the job wrapper, as a child process of the built CLI: against a
// local receiver that records every ping, and end to end against a real daemon.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { childEnv, createProjectCli, PORT0, startChild, type ChildDaemon } from '../helpers/child.js';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { api, createCheck, freePort } from '../helpers/http.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const UUID = '0b4e6f52-6c1a-4a57-9a43-1f2a3b4c5d6e';

interface Received {
  method: string;
  path: string;
  body: Buffer;
  at: number;
}

/** A ping endpoint that records what it is sent and answers as checkd does. */
async function receiver(opts: { bodyLimit?: number; status?: number } = {}) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', body: Buffer.concat(chunks), at: Date.now() });
      res.writeHead(opts.status ?? 200, { 'ping-body-limit': String(opts.bodyLimit ?? 10000) });
      res.end('OK');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** When the wrapper exited. */
  endedAt: number;
}

/** `checkd run <args>` of the build, to its end (stdout as bytes); one still running at cleanup is killed. */
function run(args: string[], opts: { env?: NodeJS.ProcessEnv; onSpawn?: (pid: number) => void } = {}): Promise<RunResult> {
  const child = spawn(process.execPath, [CHECKD_BIN, 'run', ...args], {
    env: childEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = once(child, 'close');
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await closed;
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  if (child.pid !== undefined) opts.onSpawn?.(child.pid);
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr, endedAt: Date.now() }));
  });
}

const sh = (script: string) => ['sh', '-c', script];

describe('checkd run against a recording receiver', () => {
  it('success: /start then /0 with the same rid, output passed through and sent as the body', async () => {
    const r = await receiver();
    const res = await run(['--uuid', UUID, '--url', r.url, '--', ...sh('echo hello; echo oops >&2')]);
    expect(res.code).toBe(0);
    expect(res.stdout.toString()).toBe('hello\n');
    expect(res.stderr).toBe('oops\n');
    expect(r.received.map((p) => p.path.replace(/rid=[^&]+/, 'rid=R'))).toEqual([
      `/ping/${UUID}/start?rid=R`,
      `/ping/${UUID}/0?rid=R`,
    ]);
    const rids = r.received.map((p) => new URL(p.path, 'http://x').searchParams.get('rid'));
    expect(rids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(rids[1]).toBe(rids[0]);
    expect(r.received[1]!.method).toBe('POST');
    expect(r.received[1]!.body.toString()).toContain('hello\n');
    expect(r.received[1]!.body.toString()).toContain('oops\n');
  });

  it.each([3, 255])('exit %i is passed through and reported as /<status>', async (status) => {
    const r = await receiver();
    const res = await run(['--uuid', UUID, '--url', r.url, '--', ...sh(`exit ${status}`)]);
    expect(res.code).toBe(status);
    expect(r.received.at(-1)!.path).toMatch(new RegExp(`^/ping/${UUID}/${status}\\?rid=`));
  });

  it('a job killed by SIGTERM exits 143 and reports /143; SIGTERM to the wrapper is forwarded', async () => {
    const r = await receiver();
    let wrapper = 0;
    const pending = run(['--uuid', UUID, '--url', r.url, '--', ...sh('echo started; sleep 30')], { onSpawn: (pid) => (wrapper = pid) });
    // Wait until the job runs (its start ping is in), then stop the wrapper as systemd or a user would.
    await waitFor(() => r.received.length > 0, { timeout: 5000, interval: 50, what: 'the start ping' });
    await new Promise((s) => setTimeout(s, 200));
    process.kill(wrapper, 'SIGTERM');
    const res = await pending;
    expect(res.code).toBe(143);
    expect(r.received.at(-1)!.path).toMatch(new RegExp(`^/ping/${UUID}/143\\?rid=`));
    expect(r.received.at(-1)!.body.toString()).toContain('started');
  });

  it('a command that does not exist: exit 127, reported with the reason as the body', async () => {
    const r = await receiver();
    const res = await run(['--uuid', UUID, '--url', r.url, '--', 'checkd-no-such-command-xyz']);
    expect(res.code).toBe(127);
    expect(res.stderr).toContain('cannot run checkd-no-such-command-xyz: command not found');
    expect(r.received.at(-1)!.path).toMatch(new RegExp(`^/ping/${UUID}/127\\?rid=`));
    expect(r.received.at(-1)!.body.toString()).toContain('command not found');
  });

  it('50 kB of output: all of it passed through, its last Ping-Body-Limit bytes sent', async () => {
    const r = await receiver({ bodyLimit: 1000 });
    // 50 lines of 1,000 bytes, each ending with its number, so the tail is recognisable.
    const script = 'i=1; while [ $i -le 50 ]; do printf "%0999d\\n" $i; i=$((i+1)); done';
    const res = await run(['--uuid', UUID, '--url', r.url, '--', ...sh(script)]);
    expect(res.code).toBe(0);
    expect(res.stdout.length).toBe(50_000);
    const body = r.received.at(-1)!.body;
    expect(body.length).toBe(1000);
    expect(body.equals(res.stdout.subarray(49_000))).toBe(true);
  });

  it('the monitor down: the job runs, its status is returned within 10 s of its end, with a message', async () => {
    const port = await freePort();
    // The job's last act is to write when it ended (ms), so the wrapper's own start-up is not counted.
    const res = await run(['--uuid', UUID, '--url', `http://127.0.0.1:${port}`, '--', ...sh('echo ran; date +%s%3N >&2; exit 4')]);
    expect(res.code).toBe(4);
    expect(res.stdout.toString()).toBe('ran\n');
    const jobEnded = Number(/^(\d{13})$/m.exec(res.stderr)![1]);
    expect(res.endedAt - jobEnded).toBeLessThan(10_000);
    expect(res.stderr).toMatch(/exit status 4 not delivered to the monitor/);
  }, 20_000);

  it('the monitor answering 500: retried, then given up within 10 s; a 404 is not retried', async () => {
    const failing = await receiver({ status: 500 });
    const res = await run(['--uuid', UUID, '--url', failing.url, '--', 'true']);
    expect(res.code).toBe(0);
    expect(failing.received.filter((p) => /\/0\?/.test(p.path)).length).toBeGreaterThan(1);
    const missing = await receiver({ status: 404 });
    const res404 = await run(['--uuid', UUID, '--url', missing.url, '--', 'true']);
    expect(res404.code).toBe(0);
    expect(missing.received.length).toBe(2);
    expect(res404.stderr).toContain('HTTP 404');
  }, 30_000);

  it('--slug with --ping-key pings /ping/KEY/SLUG; the command keeps its own options', async () => {
    const r = await receiver();
    const res = await run(['--slug', 'nightly-backup', '--ping-key', 'abcdefghijklmnopqrstuv', '--url', r.url, '--', 'sh', '-c', 'echo "$1"', 'x', '--uuid']);
    expect(res.code).toBe(0);
    expect(res.stdout.toString()).toBe('--uuid\n');
    expect(r.received[0]!.path).toMatch(/^\/ping\/abcdefghijklmnopqrstuv\/nightly-backup\/start\?rid=/);
  });

  it('bad arguments: exit 2 with a clear message, the command is not run', async () => {
    for (const [args, message] of [
      [['--', 'true'], 'give --uuid UUID, or --slug SLUG with --ping-key KEY'],
      [['--uuid', 'nope', '--', 'true'], '--uuid must be a check\'s UUID'],
      [['--slug', 's', '--', 'true'], '--slug needs --ping-key'],
      [['--uuid', UUID, '--url', 'ftp://x', '--', 'true'], '--url must be an http(s) URL'],
    ] as const) {
      const res = await run([...args], { env: { CHECKD_PING_KEY: '' } });
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(message);
    }
  });
});

describe('checkd run against a real daemon', () => {
  let dir: string;
  let daemon: ChildDaemon;
  setupSuite(async () => {
    dir = tempDir();
    daemon = await startChild(['--data-dir', dir, ...PORT0]);
  });

  it('a failing job turns its check down; the output is the last ping body; the duration is measured', async () => {
    const project = await createProjectCli(dir, 'run');
    const check = await createCheck(daemon.url, project.api_key, { name: 'job', timeout: 3600 });
    const res = await run(['--uuid', check.uuid, '--url', daemon.url, '--', ...sh('echo "disk full" >&2; sleep 1; exit 3')]);
    expect(res.code).toBe(3);
    const read = await api(daemon.url, `/api/v3/checks/${check.uuid}`, { key: project.api_key });
    expect(read.json.status).toBe('down');
    const pings = await api(daemon.url, `/api/v3/checks/${check.uuid}/pings/`, { key: project.api_key });
    expect(pings.json.pings.map((p: any) => p.type)).toEqual(['fail', 'start']);
    expect(pings.json.pings[0].duration).toBeGreaterThanOrEqual(1);
    const body = await fetch(pings.json.pings[0].body_url.replace('http://localhost:8000', daemon.url), {
      headers: { 'X-Api-Key': project.api_key },
    });
    expect(await body.text()).toBe('disk full\n');
  });
});
