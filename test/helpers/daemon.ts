// Test harness: real daemons on real LMDB environments in temp dirs, bound to
// 127.0.0.1 on port 0. In-process daemons take an injected clock; the child
// process form runs the built CLI exactly as a user would.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { startDaemon, type RunningDaemon } from '../../daemon/daemon.js';
import { createLogger, type Logger } from '../../daemon/shared/log.js';
import { ManualClock, systemClock, type Clock } from '../../daemon/shared/clock.js';
import { DEFAULTS, type ServeConfig } from '../../daemon/config/serve.js';
import { NOTIFY_DEFAULTS, type NotifyConfig } from '../../daemon/config/notify.js';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const CHECKD_BIN = join(REPO_ROOT, 'dist/daemon/cli.js');
export const CHECKTOP_BIN = join(REPO_ROOT, 'dist/tui/cli.js');

export function tempDir(prefix = 'checkd-test-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestProject {
  id: string;
  apiKey: string;
  apiKeyReadonly: string;
  pingKey: string;
}

export interface InProcessDaemon {
  daemon: RunningDaemon;
  url: string;
  dataDir: string;
  clock: Clock;
  createProject(opts?: { name?: string; checkLimit?: number; pingLogLimit?: number }): Promise<TestProject>;
  stop(): Promise<void>;
}

export async function startInProcess(
  opts: {
    dataDir?: string;
    clock?: Clock;
    apiRateLimit?: number;
    pingBodyLimit?: number;
    baseUrl?: string;
    trustProxy?: boolean;
    /** Label of the `*` badge; default checkd's. */
    badgeLabel?: string;
    /** HTTP address; default 127.0.0.1 on a free port. */
    listen?: { host: string; port: number };
    /** gRPC address (host:port or unix:/path); default 127.0.0.1 on a free port. */
    grpcListen?: string;
    /** Notifier settings over the defaults (SMTP, shell, retry timings). */
    notify?: Partial<NotifyConfig>;
    /** E-mail pings: the SMTP address (off by default), the ping domain, the message limit. */
    smtpListen?: { host: string; port: number };
    pingEmailDomain?: string;
    smtpMessageLimit?: number;
    /** Where the daemon logs; silent by default. */
    logger?: Logger;
    /** --heartbeat-url, and how often it is pinged (default a minute). */
    heartbeatUrl?: string;
    heartbeatEveryMs?: number;
  } = {},
): Promise<InProcessDaemon> {
  const dataDir = opts.dataDir ?? tempDir().path;
  const config: ServeConfig = {
    dataDir,
    listen: opts.listen ?? { host: '127.0.0.1', port: 0 },
    grpcListen: opts.grpcListen ?? '127.0.0.1:0',
    baseUrl: opts.baseUrl ?? 'http://checkd.test',
    apiRateLimit: opts.apiRateLimit ?? 0,
    pingBodyLimit: opts.pingBodyLimit ?? 10000,
    trustProxy: opts.trustProxy ?? false,
    logLevel: 'silent',
    badgeLabel: opts.badgeLabel ?? DEFAULTS.badgeLabel,
    smtpListen: opts.smtpListen ?? null,
    pingEmailDomain: opts.pingEmailDomain ?? null,
    smtpMessageLimit: opts.smtpMessageLimit ?? Number(DEFAULTS.smtpMessageLimit),
    heartbeatUrl: opts.heartbeatUrl ?? null,
    heartbeatEveryMs: opts.heartbeatEveryMs,
    notify: { ...NOTIFY_DEFAULTS, ...opts.notify },
  };
  const clock = opts.clock ?? systemClock;
  const daemon = await startDaemon(config, opts.logger ?? createLogger('silent'), clock);
  return {
    daemon,
    url: `http://${daemon.httpAddress}`,
    dataDir,
    clock,
    async createProject(p = {}) {
      const { project, apiKey, apiKeyReadonly } = await daemon.store.createProject(
        { name: p.name ?? 'test', checkLimit: p.checkLimit ?? 20, pingLogLimit: p.pingLogLimit ?? 100 },
        clock.now(),
      );
      return { id: project.id, apiKey, apiKeyReadonly, pingKey: project.pingKey };
    },
    stop: () => daemon.stop(),
  };
}

export { ManualClock };

export interface ChildDaemon {
  proc: ChildProcessWithoutNullStreams;
  http: string;
  grpc: string;
  /** The SMTP address of e-mail pings, when started with --smtp-listen. */
  smtp?: string;
  url: string;
  stdout: string[];
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Run `checkd serve` from the build; resolves on the ready line. */
export async function startChild(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 10000): Promise<ChildDaemon> {
  const proc = spawn(process.execPath, [CHECKD_BIN, 'serve', ...args], {
    env: { ...process.env, CHECKD_LOG_LEVEL: 'warn', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: proc.stdout });
  const ready = new Promise<{ http: string; grpc: string; smtp?: string }>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    lines.on('line', (line) => {
      stdout.push(line);
      const m = /^checkd ready http=(\S+) grpc=(\S+)(?: smtp=(\S+))?$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveReady({ http: m[1]!, grpc: m[2]!, ...(m[3] ? { smtp: m[3] } : {}) });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`checkd exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
  const addr = await ready;
  return {
    proc,
    ...addr,
    url: `http://${addr.http}`,
    stdout,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      // Already gone (exited, or killed by a signal): there is no exit event left to wait for.
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill(signal);
      const [code] = await once(proc, 'exit');
      return code as number | null;
    },
  };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built `checkd` with arguments and wait for it to exit. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const proc = spawn(process.execPath, [CHECKD_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const [code] = await once(proc, 'exit');
  return { code: code as number | null, stdout, stderr };
}

/** What `checkd project create --json` prints. */
export interface CreatedProject {
  id: string;
  name: string;
  api_key: string;
  api_key_readonly: string;
  ping_key: string;
  check_limit: number;
  ping_log_limit: number;
}

/** Create a project with the built CLI; throws (failing the test) unless it exits 0. */
export async function createProjectCli(dataDir: string, name: string, extra: string[] = []): Promise<CreatedProject> {
  const r = await runCli(['project', 'create', '--name', name, '--data-dir', dataDir, '--json', ...extra]);
  if (r.code !== 0) throw new Error(`checkd project create exited with ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as CreatedProject;
}

/** fetch with a JSON body and the key header by default. */
export async function api(
  base: string,
  path: string,
  opts: { method?: string; key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers['X-Api-Key'] = opts.key;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(base + path, { method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POST /api/v3/checks/ with a read-write key; returns the representation (throws unless 201). */
export async function createCheck(url: string, key: string, body: Record<string, unknown> = {}): Promise<any> {
  const r = await api(url, '/api/v3/checks/', { method: 'POST', key, body });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.json;
}

/** A ping over HTTP: success, or a suffix such as "fail" / "start"; throws unless 200. */
export async function ping(url: string, uuid: string, suffix = ''): Promise<void> {
  const res = await fetch(`${url}/ping/${uuid}${suffix ? `/${suffix}` : ''}`);
  await res.text();
  if (res.status !== 200) throw new Error(`ping ${uuid}/${suffix} gave ${res.status}`);
}

/** A TCP port that was free a moment ago (bound to port 0, then released). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const srv = createServer();
  srv.listen(0, host);
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  return port;
}
