// The BUILT `checkd` (dist/daemon/cli.js) run as a child process, exactly as a
// user or an external harness runs it: one-shot commands, and `checkd serve`
// up to its ready line (stopped at cleanup if the test did not stop it).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { onCleanup } from './cleanup.js';
import { CHECKD_BIN, REPO_ROOT } from './paths.js';

/** The ready line of contract.md, with the addresses actually bound. */
export const READY_RE = /^checkd ready http=(\S+):(\d+) grpc=(\S+)(?: smtp=(\S+))?$/;

/** Ports 0 for both listeners: every test daemon picks free ports. */
export const PORT0 = ['--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'];

/**
 * The environment of every child: the runner's, minus any CHECKD_* setting
 * and NOTIFY_SOCKET (so that defaults and precedence are tested from a clean
 * slate), plus `env` (an undefined value leaves a variable out).
 */
export function childEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHECKD_') && k !== 'NOTIFY_SOCKET') out[k] = v;
  return { ...out, ...env };
}

export interface ChildOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * runCli: kill the command after this long, which fails the test (default:
   * the test's own timeout). startChild: the ready line must come within it
   * (default 10 s).
   */
  timeoutMs?: number;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built `checkd` with arguments to completion; one still running at cleanup (a timed-out test) is killed. */
export async function runCli(args: string[], opts: ChildOptions = {}): Promise<CliResult> {
  const proc = spawn(process.execPath, [CHECKD_BIN, ...args], { env: childEnv(opts.env), cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const closed = once(proc, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  onCleanup(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await closed;
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let timedOut = false;
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          proc.kill('SIGKILL');
        }, opts.timeoutMs);
  const [code, signal] = await closed;
  clearTimeout(timer);
  if (timedOut) throw new Error(`checkd ${args.join(' ')} did not exit within ${opts.timeoutMs} ms; stderr: ${stderr}`);
  return { code, signal, stdout, stderr };
}

/** `checkd <args> --json`, expected to succeed with one JSON document on one stdout line. */
export async function runCliJson(args: string[], opts: ChildOptions = {}): Promise<any> {
  const r = await runCli([...args, '--json'], opts);
  expect(r.code, `checkd ${args.join(' ')}: ${r.stderr}`).toBe(0);
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout);
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

/** `checkd project create` on `dataDir` (extra flags such as --check-limit); returns the document. */
export function createProjectCli(dataDir: string, name = 'p', extra: string[] = []): Promise<CreatedProject> {
  return runCliJson(['project', 'create', '--name', name, '--data-dir', dataDir, ...extra]);
}

export interface ChildDaemon {
  proc: ChildProcessWithoutNullStreams;
  /** Host and port of the ready line. */
  httpHost: string;
  httpPort: number;
  /** host:port of HTTP, and the gRPC address, as the ready line says. */
  http: string;
  grpc: string;
  /** The SMTP address of e-mail pings, when started with --smtp-listen. */
  smtp?: string;
  url: string;
  readyLine: string;
  /** Milliseconds from spawn to the ready line. */
  startupMs: number;
  stdoutLines: string[];
  stderr(): string;
  /** Send `signal` (SIGTERM by default) unless it has exited, and wait for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }>;
}

/**
 * `checkd serve <args>` (the build, or with `fromSource` the TypeScript
 * sources through tsx); resolves on the ready line. Still running at cleanup,
 * it is killed (SIGKILL).
 */
export async function startChild(args: string[], opts: ChildOptions & { fromSource?: boolean } = {}): Promise<ChildDaemon> {
  const started = performance.now();
  const program = opts.fromSource ? ['--import', 'tsx', join(REPO_ROOT, 'daemon/cli.ts')] : [CHECKD_BIN];
  const proc = spawn(process.execPath, [...program, 'serve', ...args], {
    env: childEnv({ CHECKD_LOG_LEVEL: 'warn', ...opts.env }),
    cwd: opts.cwd ?? (opts.fromSource ? REPO_ROOT : undefined),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(proc, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const running = () => proc.exitCode === null && proc.signalCode === null;
  onCleanup(async () => {
    if (running()) proc.kill('SIGKILL');
    await exited;
  });
  const stdoutLines: string[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
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
  const [, host, port, grpc, smtp] = ready.m;
  const httpPort = Number(port);
  return {
    proc,
    httpHost: host!,
    httpPort,
    http: `${host}:${httpPort}`,
    grpc: grpc!,
    ...(smtp ? { smtp } : {}),
    url: `http://${host}:${httpPort}`,
    readyLine: ready.line,
    startupMs: ready.ms,
    stdoutLines,
    stderr: () => stderr,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      const t0 = performance.now();
      if (running()) proc.kill(signal);
      const [code, sig] = await exited;
      return { code, signal: sig, ms: performance.now() - t0 };
    },
  };
}
