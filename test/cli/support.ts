// Shared pieces of the CLI contract suite (contract.md): the BUILT `checkd`
// (dist/daemon/cli.js) run as a child process, exactly as a user or an external
// harness would run it. Not a test file.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { CHECKD_BIN } from '../helpers/daemon.js';

export { api, CHECKD_BIN, freePort, REPO_ROOT, tempDir } from '../helpers/daemon.js';

/** The ready line of contract.md, with the addresses actually bound. */
export const READY_RE = /^checkd ready http=(\S+):(\d+) grpc=(\S+)$/;

/** API keys of contract.md: 32 characters, hcw_/hcr_ then 28 URL-safe characters. */
export const RW_KEY_RE = /^hcw_[A-Za-z0-9_-]{28}$/;
export const RO_KEY_RE = /^hcr_[A-Za-z0-9_-]{28}$/;
export const PING_KEY_RE = /^[a-z0-9]{22}$/;
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The environment of every child: the runner's, minus any CHECKD_* setting
 * (so that defaults and precedence are tested from a clean slate), plus `env`.
 */
export function childEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHECKD_') && k !== 'NOTIFY_SOCKET') out[k] = v;
  return { ...out, ...env };
}

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built `checkd` to completion (killed after `timeoutMs`, which fails the test). */
export async function checkd(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Result> {
  const proc = spawn(process.execPath, [CHECKD_BIN, ...args], {
    env: childEnv(opts.env),
    cwd: opts.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill('SIGKILL');
  }, opts.timeoutMs ?? 10_000);
  const [code, signal] = (await once(proc, 'close')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  if (timedOut) throw new Error(`checkd ${args.join(' ')} did not exit within ${opts.timeoutMs ?? 10_000} ms; stderr: ${stderr}`);
  return { code, signal, stdout, stderr };
}

/** `checkd <args> --json`, expected to succeed with one JSON document on stdout. */
export async function checkdJson(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<any> {
  const r = await checkd([...args, '--json'], opts);
  expect(r.code, `checkd ${args.join(' ')}: ${r.stderr}`).toBe(0);
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout);
}

export interface Served {
  proc: ChildProcessWithoutNullStreams;
  /** Host and port of the ready line. */
  httpHost: string;
  httpPort: number;
  grpc: string;
  url: string;
  readyLine: string;
  /** Milliseconds from spawn to the ready line. */
  startupMs: number;
  stdoutLines: string[];
  stderr(): string;
  /** Send `signal` and wait for the exit; resolves the exit code and how long it took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

const running = new Set<ChildProcessWithoutNullStreams>();

/** Kill whatever a failed test left running (afterEach / afterAll). */
export async function killLeftovers(): Promise<void> {
  for (const proc of running) {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await once(proc, 'exit');
    }
  }
  running.clear();
}

/** `checkd serve <args>` from the build; resolves on the ready line. */
export async function serve(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Served> {
  const started = performance.now();
  const proc = spawn(process.execPath, [CHECKD_BIN, 'serve', ...args], {
    env: childEnv({ CHECKD_LOG_LEVEL: 'warn', ...opts.env }),
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(proc);
  const stdoutLines: string[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const ready = await new Promise<{ m: RegExpExecArray; ms: number; line: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      stdoutLines.push(line);
      const m = READY_RE.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve({ m, ms: performance.now() - started, line });
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`checkd serve exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
  const [, host, port, grpc] = ready.m;
  const httpPort = Number(port);
  return {
    proc,
    httpHost: host!,
    httpPort,
    grpc: grpc!,
    url: `http://${host}:${httpPort}`,
    readyLine: ready.line,
    startupMs: ready.ms,
    stdoutLines,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const t0 = performance.now();
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const [code, sig] = await exited;
      running.delete(proc);
      return { code, signal: sig, ms: performance.now() - t0 };
    },
  };
}

/** Every path under `dir` (relative), for "nothing was written" assertions. */
export function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel === '' ? e.name : `${rel}/${e.name}`;
      out.push(e.isDirectory() ? `${p}/` : `${p} ${statSync(join(dir, p)).size}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk('');
  return out.sort();
}


/** Whether something can bind host:port right now. */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const srv = createServer();
  return new Promise((resolve) => {
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** Ports 0 for both listeners: every test daemon picks free ports. */
export const PORT0 = ['--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'];

/** `project create --json` on `dataDir`; returns the document. */
export async function createProject(dataDir: string, name = 'p', extra: string[] = []): Promise<any> {
  return checkdJson(['project', 'create', '--name', name, '--data-dir', dataDir, ...extra]);
}

/** `project list --json` on `dataDir`. */
export async function listProjects(dataDir: string): Promise<any[]> {
  return (await checkdJson(['project', 'list', '--data-dir', dataDir])).projects;
}
