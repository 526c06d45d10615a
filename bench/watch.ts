// Watch benchmark (`npm run bench:watch`): what 50 live gRPC watchers cost the
// ping path, and how fast they hear about a ping.
//
// 1. The built daemon (`dist/daemon/cli.js serve`, own process, temp data dir,
//    --api-rate-limit 0) with a project made by `checkd project create --json`
//    and 1,000 checks created through the API.
// 2. Ping throughput with autocannon on /ping/<uuid>, rotating over the checks,
//    for 10 s without any watcher (after a 3 s warm-up that also turns every
//    check up, so each measured ping is exactly one event).
// 3. The same with 50 Watch subscribers connected, each on its own connection.
//    They run in separate processes (bench/watch-clients.ts), 5 by default
//    (10 watchers each), as operators' checktops each have their own: here
//    they would share one event loop with autocannon, and all 50 in one
//    process would queue behind each other's decoding, inflating the latencies
//    (BENCH_WATCHER_PROCESSES=1 measures that case). Delivery latency
//    is receipt time minus the event's at_ms (= the ping's date), on the same
//    machine clock, over every PING_RECEIVED every watcher got; after the load
//    the watchers must all reach the latest revision, with every event once.
//    At full load the watchers cannot keep up (each ping is 50 messages), so
//    that latency is mostly queueing:
// 4. hence also 10 s at a steady BENCH_RATE (200) pings/s with the watchers,
//    whose latency is the delivery path itself.
//
// Prints both throughputs, their ratio, the latency p50/p90/p99 and the CPU
// each process used. All processes share this machine's cores, so the ratio
// includes the watcher clients' own CPU, not only the daemon's extra work.
// Env: BENCH_DURATION, BENCH_CONNECTIONS, BENCH_CHECKS, BENCH_WATCHERS, BENCH_RATE,
// BENCH_WATCHER_PROCESSES;
// BENCH_CLI (another build of cli.js, for A/B runs).
// Stops by itself in one to two minutes (hard limit: 150 s).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { WatchReport } from './watch-clients.js';
import { cliJson, daemonNodeArgs, pool, serveArgs, spawnUntilReady } from './support.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = resolve(ROOT, process.env.BENCH_CLI ?? 'dist/daemon/cli.js');
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const CHECKS = Number(process.env.BENCH_CHECKS ?? 1000);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const WATCHER_PROCESSES = Math.max(1, Number(process.env.BENCH_WATCHER_PROCESSES ?? 5));
const HARD_LIMIT_MS = 150_000;

// autocannon ships no types; the part used here.
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  overallRate?: number;
  duration: number;
  requests: Array<{ method: string; setupRequest: (req: { path: string }) => { path: string } }>;
}) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

function log(line = ''): void {
  process.stdout.write(line + '\n');
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time (user + system) of a process so far, in ms, from /proc. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

interface Daemon {
  proc: ChildProcess;
  url: string;
  grpc: string;
  stop(): Promise<void>;
}

async function startDaemon(dataDir: string): Promise<Daemon> {
  const s = await spawnUntilReady('checkd serve', serveArgs(CLI, dataDir, daemonNodeArgs()), /^checkd ready http=(\S+) grpc=(\S+)$/, ROOT, 30_000);
  return { proc: s.proc, url: `http://${s.ready[1]!}`, grpc: s.ready[2]!, stop: s.stop };
}

const cli = (args: string[]): any => cliJson(CLI, args);


interface Load {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  failed: number;
  daemonCpuMs: number;
}

/** autocannon on /ping/<uuid>, rotating over the checks; `rate` caps the pings per second. */
async function load(daemon: Daemon, uuids: string[], seconds: number, rate?: number): Promise<Load> {
  let i = 0;
  const cpu0 = cpuMs(daemon.proc.pid!);
  const r = await autocannon({
    url: daemon.url,
    connections: rate ? Math.min(CONNECTIONS, 16) : CONNECTIONS,
    ...(rate ? { overallRate: rate } : {}),
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          req.path = `/ping/${uuids[i++ % uuids.length]}`;
          return req;
        },
      },
    ],
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    failed: r.non2xx + r.errors + r.timeouts,
    daemonCpuMs: cpuMs(daemon.proc.pid!) - cpu0,
  };
}

function describeDelivery(r: Delivery): string {
  const expected = r.targetRevision - r.markRevision;
  return (
    `delivery: ${fmt(expected)} events × ${r.watchers} watchers, ${r.complete}/${r.watchers} got every one exactly once and in order ` +
    `(per watcher ${fmt(r.minEvents)}..${fmt(r.maxEvents)}; ${r.resumes} RESOURCE_EXHAUSTED resumes; ` +
    `${fmt((r.minEvents * r.watchers) / Math.max(r.elapsedMs / 1000, 0.001))} messages/s; watcher CPU ${fmt(r.cpuMs / 1000, 1)} s); ` +
    `latency ping → watcher p50 ${r.p50} ms, p90 ${r.p90} ms, p99 ${r.p99} ms, max ${r.max} ms` +
    (r.errors.length ? `; errors: ${r.errors.join('; ')}` : '')
  );
}

function describeLoad(l: Load, seconds: number): string {
  return (
    `${fmt(l.rps)} pings/s, HTTP p50 ${l.p50} ms / p99 ${l.p99} ms ` +
    `(${fmt(l.total)} pings, ${l.failed} failed; daemon CPU ${fmt((l.daemonCpuMs / (seconds * 1000)) * 100)} %)`
  );
}

/** One watcher process, once all its watchers hold a snapshot. */
async function startWatcherProcess(grpcAddress: string, apiKey: string, n: number) {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/watch-clients.ts'), grpcAddress, apiKey, String(n)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string, timeoutMs: number) =>
    new Promise<T>((resolveMsg, reject) => {
      const timer = setTimeout(() => reject(new Error(`watchers: no "${type}" within ${timeoutMs} ms`)), timeoutMs);
      const onMessage = (msg: { type: string; error?: string }) => {
        if (msg.type === 'failed') reject(new Error(msg.error));
        if (msg.type !== type && msg.type !== 'failed') return;
        clearTimeout(timer);
        proc.off('message', onMessage);
        resolveMsg(msg as T);
      };
      proc.on('message', onMessage);
      proc.once('exit', (code) => reject(new Error(`watcher process exited with ${code}`)));
    });
  await next('ready', 60_000);
  return {
    proc,
    async mark(): Promise<number> {
      const m = next<{ revision: number }>('marked', 10_000);
      proc.send({ type: 'mark' });
      return (await m).revision;
    },
    async report(timeoutMs: number): Promise<WatchReport> {
      const r = next<WatchReport>('report', timeoutMs + 10_000);
      proc.send({ type: 'report', timeoutMs });
      return r;
    },
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      if (proc.connected) proc.disconnect();
      const exited = once(proc, 'exit');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** What every watcher process saw, together. */
interface Delivery extends Omit<WatchReport, 'latencies'> {
  samples: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

function merge(reports: WatchReport[]): Delivery {
  const hist = new Map<number, number>();
  for (const r of reports) for (const [ms, n] of r.latencies) hist.set(ms, (hist.get(ms) ?? 0) + n);
  const buckets = [...hist].sort((a, b) => a[0] - b[0]);
  const samples = buckets.reduce((a, [, n]) => a + n, 0);
  const quantile = (q: number) => {
    let seen = 0;
    for (const [ms, n] of buckets) if ((seen += n) >= Math.ceil(q * samples)) return ms;
    return NaN;
  };
  const sum = (f: (r: WatchReport) => number) => reports.reduce((a, r) => a + f(r), 0);
  return {
    watchers: sum((r) => r.watchers),
    markRevision: Math.min(...reports.map((r) => r.markRevision)),
    targetRevision: Math.max(...reports.map((r) => r.targetRevision)),
    caughtUp: sum((r) => r.caughtUp),
    minEvents: Math.min(...reports.map((r) => r.minEvents)),
    maxEvents: Math.max(...reports.map((r) => r.maxEvents)),
    complete: reports.every((r) => r.markRevision === reports[0]!.markRevision) ? sum((r) => r.complete) : 0,
    outOfOrder: sum((r) => r.outOfOrder),
    resumes: sum((r) => r.resumes),
    errors: [...new Set(reports.flatMap((r) => r.errors))],
    elapsedMs: Math.max(...reports.map((r) => r.elapsedMs)),
    cpuMs: sum((r) => r.cpuMs),
    samples,
    p50: quantile(0.5),
    p90: quantile(0.9),
    p99: quantile(0.99),
    max: buckets.length ? buckets[buckets.length - 1]![0] : NaN,
  };
}

/** `n` watchers spread evenly over `processes` processes, as separate operators' clients would be. */
async function startWatchers(grpcAddress: string, apiKey: string, n: number, processes: number) {
  const counts = Array.from({ length: processes }, (_, i) => Math.floor(n / processes) + (i < n % processes ? 1 : 0)).filter((c) => c > 0);
  const procs = await Promise.all(counts.map((c) => startWatcherProcess(grpcAddress, apiKey, c)));
  return {
    /** CPU milliseconds all watcher processes have used so far. */
    cpuMs: () => procs.reduce((a, w) => a + cpuMs(w.proc.pid!), 0),
    async mark(): Promise<void> {
      await Promise.all(procs.map((w) => w.mark()));
    },
    async report(timeoutMs: number): Promise<Delivery> {
      return merge(await Promise.all(procs.map((w) => w.report(timeoutMs))));
    },
    async stop() {
      await Promise.all(procs.map((w) => w.stop()));
    },
  };
}

async function main(): Promise<void> {
  const hard = setTimeout(() => {
    process.stderr.write(`bench:watch: still running after ${HARD_LIMIT_MS / 1000} s, giving up\n`);
    process.exit(1);
  }, HARD_LIMIT_MS);
  hard.unref();
  const started = performance.now();
  if (!existsSync(CLI)) {
    log('dist/ is missing: building first (npm run build)');
    const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  log(
    `checkd watch benchmark: ${fmt(CHECKS)} checks, ${CONNECTIONS} HTTP connections, ${DURATION_S} s per run, ` +
      `${WATCHERS} watchers; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), Node ${process.version}`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'checkd-bench-watch-'));
  let daemon: Daemon | null = null;
  let watchers: Awaited<ReturnType<typeof startWatchers>> | null = null;
  try {
    const project = cli(['project', 'create', '--name', 'bench-watch', '--check-limit', String(CHECKS + 100), '--json', '--data-dir', dir]);
    daemon = await startDaemon(dir);
    const d = daemon;
    const t0 = performance.now();
    const uuids = await pool(CHECKS, 32, async (i) => {
      const r = await fetch(`${d.url}/api/v3/checks/`, {
        method: 'POST',
        headers: { 'X-Api-Key': project.api_key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `job ${i}`, tags: 'bench', timeout: 3600, grace: 600 }),
      });
      if (r.status !== 201) throw new Error(`create check: ${r.status} ${await r.text()}`);
      return ((await r.json()) as { uuid: string }).uuid;
    });
    log(`created ${fmt(CHECKS)} checks through the API in ${fmt((performance.now() - t0) / 1000, 1)} s`);

    await load(d, uuids, 3); // warm-up; turns every check up
    const without = await load(d, uuids, DURATION_S);
    log(`without watchers: ${describeLoad(without, DURATION_S)}`);

    const t1 = performance.now();
    watchers = await startWatchers(d.grpc, project.api_key, WATCHERS, WATCHER_PROCESSES);
    log(`${WATCHERS} watchers connected in ${WATCHER_PROCESSES} processes, each with its snapshot of ${fmt(CHECKS)} checks, in ${fmt((performance.now() - t1) / 1000, 1)} s`);

    // Saturating load: every ping is one event for each of the watchers.
    await watchers.mark();
    let wcpu = watchers.cpuMs();
    const withW = await load(d, uuids, DURATION_S);
    wcpu = watchers.cpuMs() - wcpu;
    log(`with ${WATCHERS} watchers: ${describeLoad(withW, DURATION_S)}; watcher processes CPU ${fmt((wcpu / (DURATION_S * 1000)) * 100)} %`);
    const flood = await watchers.report(45_000);
    log(`  ${describeDelivery(flood)}`);

    // A steady rate the watchers can follow: latency without a backlog.
    await watchers.mark();
    const steady = await load(d, uuids, DURATION_S, RATE);
    log(`with ${WATCHERS} watchers at a steady ${RATE} pings/s: ${describeLoad(steady, DURATION_S)}`);
    const paced = await watchers.report(30_000);
    log(`  ${describeDelivery(paced)}`);

    log();
    log(`ping throughput without watchers:       ${fmt(without.rps)} /s`);
    log(`ping throughput with ${WATCHERS} watchers:        ${fmt(withW.rps)} /s`);
    log(`ratio with/without:                     ${fmt((withW.rps / without.rps) * 100, 1)} %`);
    log(`delivery latency at full load:          p50 ${flood.p50} ms, p99 ${flood.p99} ms (${fmt(flood.samples)} samples)`);
    log(`delivery latency at ${RATE} pings/s:       p50 ${paced.p50} ms, p99 ${paced.p99} ms (${fmt(paced.samples)} samples)`);
    const failed = without.failed + withW.failed + steady.failed;
    const incomplete = [flood, paced].some((r) => r.complete !== r.watchers || r.errors.length > 0);
    if (failed || incomplete) {
      log(`FAILED: ${failed} pings failed; every watcher got every event: ${!incomplete}`);
      process.exitCode = 1;
    }
    log(`done in ${fmt((performance.now() - started) / 1000, 1)} s`);
  } finally {
    await watchers?.stop();
    await daemon?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
