// checkd started the way systemd starts the unit: the ExecStart arguments,
// the Environment= values and the example EnvironmentFile, the unit's UMask,
// a minimal environment and $NOTIFY_SOCKET. Only the paths systemd would make
// (StateDirectory, RuntimeDirectory) and the HTTP port move to a temp dir.
// READY=1 must come only once HTTP and the gRPC unix socket answer; SIGTERM
// must give STOPPING=1 and a clean exit.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../helpers/http.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp.js';
import { ENV_EXAMPLE_PATH, parseEnvFile, readUnit, splitWords, startNotifyListener, unitEnvironment, type NotifyListener } from './support.js';

describe('Type=notify', () => {
  it('sends READY=1 only when HTTP and the gRPC socket answer, and STOPPING=1 on SIGTERM', async () => {
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
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env, NOTIFY_SOCKET: notifySocket },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    onTestFinished(async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    });

    const ready = await listener.next((m) => m.fields.READY === '1', `READY=1 (stderr: ${stderr})`);
    // At the moment READY=1 arrived, both listeners answered.
    expect(ready.probe, JSON.stringify(ready)).toEqual({ http: 200, grpc: 'http2-settings' });
    expect(ready.fields.STATUS).toContain(`http=127.0.0.1:${httpPort}`);
    // Nothing claimed readiness earlier.
    expect(listener.messages.indexOf(ready)).toBe(listener.messages.findIndex((m) => 'READY' in m.fields));
    expect(stdout).toMatch(/^checkd ready http=127\.0\.0\.1:\d+ grpc=unix:/m);
    expect(ready.at - started).toBeLessThan(15_000);

    // The data went where the unit says (StateDirectory), the socket into the
    // RuntimeDirectory, and UMask left the socket usable by the group.
    expect(statSync(join(stateDir, 'data.mdb')).isFile()).toBe(true);
    const sock = statSync(grpcSocket);
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o060, `socket mode ${(sock.mode & 0o777).toString(8)}`).toBe(0o060);

    proc.kill('SIGTERM');
    const stopping = await listener.next((m) => m.fields.STOPPING === '1', `STOPPING=1 (stderr: ${stderr})`);
    expect(stopping.at).toBeGreaterThan(ready.at);
    const [code, signal] = await exited;
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
  });
});
