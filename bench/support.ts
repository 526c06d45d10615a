// Helpers shared by the benchmarks.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { newCheck } from '../daemon/domain/check-input.js';
import { newUuid } from '../daemon/domain/ids.js';
import type { CheckRecord } from '../daemon/domain/types.js';
import { SERVE_NODE_FLAGS } from '../daemon/shared/node-flags.js';

/** Run the built `checkd` with arguments and parse its `--json` output. */
export function cliJson(cliPath: string, args: string[]): any {
  const r = spawnSync(process.execPath, [cliPath, ...args], { cwd: dirname(dirname(dirname(cliPath))), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`checkd ${args.join(' ')} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Node arguments that start the built `checkd serve` the way the benchmarks
 * measure it: the service's node options (plus any given, e.g. profiling),
 * ports chosen by the OS on loopback, no API rate limit, quiet logs.
 */
export function serveArgs(cliPath: string, dataDir: string, extraNodeArgs: readonly string[] = [], logLevel = 'warn'): string[] {
  return [
    ...SERVE_NODE_FLAGS,
    ...extraNodeArgs,
    cliPath,
    'serve',
    '--data-dir',
    dataDir,
    '--listen',
    '127.0.0.1:0',
    '--grpc-listen',
    '127.0.0.1:0',
    '--api-rate-limit',
    '0',
    '--log-level',
    logLevel,
  ];
}

/** Node arguments for the daemon from BENCH_DAEMON_NODE_OPTIONS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it. */
export function daemonNodeArgs(): string[] {
  return (process.env.BENCH_DAEMON_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
}

export interface Spawned {
  proc: ChildProcess;
  /** The ready line, matched. */
  ready: RegExpExecArray;
  /** Everything it wrote to stderr so far (its log). */
  stderr(): string;
  /** SIGTERM unless it has exited, and wait for the exit. */
  stop(): Promise<void>;
}

/** Spawn `node <args>` (`name` in messages) in `cwd` and wait for the stdout line `readyRe` matches; fails with its stderr. */
export async function spawnUntilReady(name: string, args: string[], readyRe: RegExp, cwd: string, timeoutMs = 60_000): Promise<Spawned> {
  const proc = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const ready = await new Promise<RegExpExecArray>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no ready line within ${timeoutMs / 1000} s; stderr: ${stderr}`)), timeoutMs);
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = readyRe.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveReady(m);
      }
    });
    proc.on('exit', (code) => reject(new Error(`${name} exited with ${code} before ready; stderr: ${stderr}`)));
  });
  return {
    proc,
    ready,
    stderr: () => stderr,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}

/**
 * Check `i` of a benchmark's big project: named and tagged, and every other
 * one up with a deadline a day or so ahead (the monitor's heap holds half).
 */
export function benchCheck(i: number, now: number, projectId: string, createdAt: number): CheckRecord {
  const c = newCheck({ uuid: newUuid(), badgeKey: newUuid(), projectId, createdAt });
  c.name = `job ${i}`;
  c.slug = `job-${i}`;
  c.tags = i % 3 === 0 ? 'prod nightly' : 'staging';
  if (i % 2 === 0) {
    c.status = 'up';
    c.lastPing = now - (i % 3600) * 1000;
    c.nPings = 1;
    c.alertAfter = c.lastPing + (c.timeout + c.grace) * 1000;
  }
  return c;
}

/** Run `task(0..n-1)` with at most `width` in flight; results in index order. */
export async function pool<T>(n: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

/** Write-side counters of the block device holding a path (Linux /proc/diskstats). */
export interface DiskCounters {
  writes: number;
  sectorsWritten: number;
  flushes: number;
}

/**
 * The counters of the device `path` lives on, or null where they cannot be
 * read (not Linux, tmpfs, overlay without a block device).
 */
export function diskCounters(path: string): DiskCounters | null {
  try {
    const dev = statSync(path).dev;
    // Linux's dev_t encoding (glibc's gnu_dev_major/minor).
    const major = Math.floor(dev / 256) & 0xfff;
    const minor = (dev & 0xff) | (Math.floor(dev / 4096) & ~0xff);
    for (const line of readFileSync('/proc/diskstats', 'utf8').split('\n')) {
      const f = line.trim().split(/\s+/);
      if (Number(f[0]) !== major || Number(f[1]) !== minor) continue;
      // After major, minor, name: writes completed is field 4, sectors written 6, flushes 15.
      const stat = f.slice(3).map(Number);
      return { writes: stat[4]!, sectorsWritten: stat[6]!, flushes: stat[15] ?? 0 };
    }
  } catch {
    // fall through: no counters
  }
  return null;
}

/** The counters of several runs added up; null if any run had none. */
export function diskSum(runs: ReadonlyArray<DiskCounters | null>): DiskCounters | null {
  if (runs.some((d) => d === null)) return null;
  const all = runs as DiskCounters[];
  return {
    writes: all.reduce((a, d) => a + d.writes, 0),
    sectorsWritten: all.reduce((a, d) => a + d.sectorsWritten, 0),
    flushes: all.reduce((a, d) => a + d.flushes, 0),
  };
}

export function diskDelta(before: DiskCounters | null, after: DiskCounters | null): DiskCounters | null {
  if (!before || !after) return null;
  return {
    writes: after.writes - before.writes,
    sectorsWritten: after.sectorsWritten - before.sectorsWritten,
    flushes: after.flushes - before.flushes,
  };
}

export interface Rss {
  total: number;
  anon: number;
  file: number;
  peak: number;
}

/** VmRSS of a process in MB, with its anonymous and file-backed (node binary, mapped data.mdb) parts, and VmHWM. */
export function rss(pid: number): Rss {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { total: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), peak: kb('VmHWM') };
}
