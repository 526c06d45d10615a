// checkd started the way systemd starts the unit: the ExecStart arguments,
// the Environment= values and the example EnvironmentFile, the unit's UMask,
// a minimal environment and $NOTIFY_SOCKET. Only the paths systemd would make
// (StateDirectory, RuntimeDirectory) and the HTTP port move to a temp dir.
// READY=1 must come only once HTTP and the gRPC unix socket answer; SIGTERM
// must give STOPPING=1 and a clean exit. Under a watchdog, WATCHDOG=1 keeps
// coming from the daemon's own process while it runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onCleanup } from '../helpers/cleanup.js';
import { freePort } from '../helpers/http.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { startHttpReceiver } from '../notify/support.js';
import { ENV_EXAMPLE_PATH, parseEnvFile, readUnit, splitWords, startNotifyListener, unitEnvironment, type NotifyListener } from './support.js';

interface AsUnit {
  proc: ChildProcess;
  listener: NotifyListener;
  httpPort: number;
  grpcSocket: string;
  stateDir: string;
  started: number;
  stdout(): string;
  stderr(): string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/**
 * Start the built checkd as systemd starts the unit: ExecStart, EnvironmentFile
 * then Environment=, UMask, the unit's directories in a temp dir, a minimal
 * environment with $NOTIFY_SOCKET, and `extraEnv` (what systemd adds, such as
 * WATCHDOG_USEC, or settings of the EnvironmentFile).
 */
async function startAsUnit(extraEnv: Record<string, string> = {}): Promise<AsUnit> {
  const unit = readUnit();
  const tmp = tempDir('checkd-notify-');

  // The directories systemd creates for the unit, in the temp dir.
  const stateName = unit.get('Service', 'StateDirectory')!;
  const runtimeName = unit.get('Service', 'RuntimeDirectory')!;
  const stateDir = join(tmp, 'state', stateName);
  const runtimeDir = join(tmp, 'run', runtimeName);
  mkdirSync(stateDir, { recursive: true, mode: Number.parseInt(unit.get('Service', 'StateDirectoryMode') ?? '0755', 8) });
  mkdirSync(runtimeDir, { recursive: true, mode: Number.parseInt(unit.get('Service', 'RuntimeDirectoryMode') ?? '0755', 8) });
  const adapt = (value: string) =>
    value.replaceAll(`/var/lib/${stateName}`, stateDir).replaceAll(`/run/${runtimeName}`, runtimeDir);

  // EnvironmentFile= is read first, Environment= lines win over it (as in systemd).
  const fileEnv = parseEnvFile(readFileSync(ENV_EXAMPLE_PATH, 'utf8')).active;
  const httpPort = await freePort();
  fileEnv.CHECKD_LISTEN = `127.0.0.1:${httpPort}`;
  const env: Record<string, string> = { ...fileEnv };
  for (const [k, v] of Object.entries(unitEnvironment(unit))) env[k] = adapt(v);
  expect(env.CHECKD_GRPC_LISTEN).toMatch(/^unix:\//);
  const grpcSocket = env.CHECKD_GRPC_LISTEN!.slice('unix:'.length);

  const notifySocket = join(tmp, 'notify.sock');
  const listener: NotifyListener = await startNotifyListener(notifySocket, httpPort, grpcSocket);

  // ExecStart=/usr/bin/node <node options> /opt/checkd/dist/daemon/cli.js serve: this node, the build.
  const exec = splitWords(unit.get('Service', 'ExecStart')!);
  const cli = exec.findIndex((w) => /\/dist\/daemon\/cli\.js$/.test(w));
  expect(cli).toBeGreaterThan(0);
  const nodeOptions = exec.slice(1, cli);
  const args = exec.slice(cli + 1);
  const umask = unit.get('Service', 'UMask') ?? '0022';
  const started = performance.now();
  const proc = spawn('/bin/sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, ...nodeOptions, CHECKD_BIN, ...args], {
    // systemd passes a small environment: no CHECKD_* from the test runner.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env, ...extraEnv, NOTIFY_SOCKET: notifySocket },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  onCleanup(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  });
  return { proc, listener, httpPort, grpcSocket, stateDir, started, stdout: () => stdout, stderr: () => stderr, exited };
}

describe('Type=notify', () => {
  it('sends READY=1 only when HTTP and the gRPC socket answer, and STOPPING=1 on SIGTERM', async () => {
    const { proc, listener, httpPort, grpcSocket, stateDir, started, stdout, stderr, exited } = await startAsUnit();

    const ready = await listener.next((m) => m.fields.READY === '1', `READY=1 (stderr: ${stderr()})`);
    // At the moment READY=1 arrived, both listeners answered.
    expect(ready.probe, JSON.stringify(ready)).toEqual({ http: 200, grpc: 'http2-settings' });
    expect(ready.fields.STATUS).toContain(`http=127.0.0.1:${httpPort}`);
    // Nothing claimed readiness earlier.
    expect(listener.messages.indexOf(ready)).toBe(listener.messages.findIndex((m) => 'READY' in m.fields));
    // From the main process itself, as the unit's NotifyAccess=main requires.
    expect(ready.pid).toBe(proc.pid);
    expect(stdout()).toMatch(/^checkd ready http=127\.0\.0\.1:\d+ grpc=unix:/m);
    expect(ready.at - started).toBeLessThan(15_000);

    // The data went where the unit says (StateDirectory), the socket into the
    // RuntimeDirectory, and UMask left the socket usable by the group.
    expect(statSync(join(stateDir, 'data.mdb')).isFile()).toBe(true);
    const sock = statSync(grpcSocket);
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o060, `socket mode ${(sock.mode & 0o777).toString(8)}`).toBe(0o060);

    proc.kill('SIGTERM');
    const stopping = await listener.next((m) => m.fields.STOPPING === '1', `STOPPING=1 (stderr: ${stderr()})`);
    expect(stopping.at).toBeGreaterThan(ready.at);
    expect(stopping.pid).toBe(proc.pid);
    const [code, signal] = await exited;
    expect({ code, signal }, stderr()).toEqual({ code: 0, signal: null });
  });

  it('under a watchdog, WATCHDOG=1 keeps coming from the main process; the heartbeat URL is pinged', async () => {
    // The unit has a watchdog; systemd hands its interval over as WATCHDOG_USEC
    // (2 s here instead of the unit's, so that the test need not wait for it).
    const unitWatchdog = readUnit().get('Service', 'WatchdogSec');
    expect(unitWatchdog).toMatch(/^\d+s$/);
    expect(Number.parseInt(unitWatchdog!, 10)).toBeGreaterThanOrEqual(30);
    const rx = await startHttpReceiver();
    const { proc, listener, stderr, exited } = await startAsUnit({ WATCHDOG_USEC: '2000000', CHECKD_HEARTBEAT_URL: `${rx.url}/ping/heartbeat` });
    const ready = await listener.next((m) => m.fields.READY === '1', `READY=1 (stderr: ${stderr()})`);
    await new Promise((r) => setTimeout(r, 3000));
    const beats = listener.messages.filter((m) => m.fields.WATCHDOG === '1' && m.at > ready.at).map((m) => m.at);
    expect(beats.length, stderr()).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < beats.length; i++) expect(beats[i]! - beats[i - 1]!).toBeLessThan(2000);
    // Sent by the daemon itself (unix-dgram from its own PID: NotifyAccess=main works).
    expect(listener.messages.filter((m) => m.fields.WATCHDOG === '1').every((m) => m.pid === proc.pid)).toBe(true);
    await rx.waitFor((reqs) => reqs.length >= 1);
    expect(rx.requests[0]!).toMatchObject({ method: 'GET', url: '/ping/heartbeat' });
    proc.kill('SIGTERM');
    const [code] = await exited;
    expect(code, stderr()).toBe(0);
  });
});
