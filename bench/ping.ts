// Ping-path benchmark (`npm run bench:ping`).
//
// 1. Throughput: the built daemon (`dist/daemon/cli.js serve`, own process,
//    temp data dir) with 10,000 checks, loaded by autocannon on /ping/<uuid>
//    rotating over the checks. Beside it, loaded the same way, the floor: a
//    bare Fastify route answering only after one durable LMDB put of a
//    ping-sized record (bare-server.ts), the most any durable ping can do on
//    this machine and disk; and the bare route answering "OK". At 64 and at
//    256 connections, two alternating rounds each; the headline is the ratio
//    to the floor (target: >= 80 %). Every ping is durable: the service
//    answers only after the LMDB commit is flushed. Then the latency at half
//    the floor's throughput (64 connections): p99 target <= 10 ms.
// 2. Memory: a daemon started on a data dir holding 100,000 checks (written
//    with the Store API before start, half of them armed in the monitor heap);
//    prints its RSS after start-up (target: < 300 MB), right after a ping
//    burst, and once it has been idle for a while.
//
// Env: BENCH_DURATION (s per load, split over the rounds), BENCH_CONNECTIONS
// (a comma-separated list, default 64,256), BENCH_CLI (another build of
// cli.js, for A/B runs), BENCH_DAEMON_NODE_OPTIONS, BENCH_SKIP_MEMORY=1.
// Stops by itself in about four minutes.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { Store } from '../daemon/store/store.js';
import { newUuid } from '../daemon/domain/ids.js';
import { benchCheck, cliJson, daemonNodeArgs, diskCounters, diskDelta, diskSum, pool, rss, serveArgs, spawnUntilReady, type DiskCounters, type Rss } from './support.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = resolve(ROOT, process.env.BENCH_CLI ?? 'dist/daemon/cli.js');
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTION_COUNTS = (process.env.BENCH_CONNECTIONS ?? '64,256').split(',').map(Number);
/** The floor ratio the ping path is to reach, and the p99 at half the floor's rate. */
const FLOOR_TARGET = 0.8;
const HALF_FLOOR_P99_MS = 10;
const CHECKS = 10_000;
const MEMORY_CHECKS = 100_000;

interface Served {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

function log(line: string): void {
  process.stdout.write(line + '\n');
}

/** Spawn a server process and wait for its `... ready http=HOST:PORT` line. */
async function serve(name: string, args: string[], readyRe: RegExp): Promise<Served> {
  const s = await spawnUntilReady(name, args, readyRe, ROOT);
  return { proc: s.proc, url: `http://${s.ready[1]!}`, stop: s.stop };
}

function serveDaemon(dataDir: string): Promise<Served> {
  return serve('checkd serve', serveArgs(CLI, dataDir, daemonNodeArgs()), /^checkd ready http=(\S+) /);
}

const cli = (args: string[]): any => cliJson(CLI, args);


function describeRss(r: Rss): string {
  return `${r.total.toFixed(1)} MB (anonymous ${r.anon.toFixed(1)} MB, file-backed ${r.file.toFixed(1)} MB)`;
}


interface LoadResult {
  seconds: number;
  /** Write-side I/O of the data dir's device during the run (null where unreadable). */
  disk: DiskCounters | null;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

interface LoadOptions {
  connections: number;
  /** A path on the device whose write I/O to count. */
  diskOf?: string;
  /** Requests per second in all, paced; unpaced when absent. */
  rate?: number;
}

/** autocannon against /ping/<uuid>, one uuid after another. */
async function load(url: string, uuids: string[], seconds: number, opts: LoadOptions): Promise<LoadResult> {
  let i = 0;
  const diskOf = opts.diskOf ?? tmpdir();
  const diskBefore = diskCounters(diskOf);
  const result = await autocannon({
    url,
    connections: opts.connections,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: (req: any) => {
          req.path = `/ping/${uuids[i++ % uuids.length]}`;
          return req;
        },
      },
    ],
  });
  return {
    seconds,
    disk: diskDelta(diskBefore, diskCounters(diskOf)),
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

function describe(r: LoadResult): string {
  return `${Math.round(r.rps).toLocaleString('en-US')} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${r.total.toLocaleString('en-US')} requests, ${r.non2xx} non-2xx, ${r.errors} errors)`;
}

/**
 * What the disk did per request: durable pings are bound by the write I/Os
 * each LMDB commit needs (one 4 KiB page per B-tree leaf and branch touched)
 * and by the flushes that make them durable.
 */
function describeDisk(r: LoadResult): string {
  const d = r.disk;
  if (!d || r.total === 0) return 'disk counters not available here';
  const perReq = (n: number) => (n / r.total).toFixed(2);
  return `${Math.round(d.writes / r.seconds).toLocaleString('en-US')} write I/Os/s (${perReq(d.writes)} per request, ${perReq((d.sectorsWritten * 512) / 1024)} KiB), ${Math.round(d.flushes / r.seconds).toLocaleString('en-US')} flushes/s (${(r.total / Math.max(d.flushes, 1)).toFixed(1)} requests per flush)`;
}

/** Combine alternating rounds: overall rate, worst p99. */
function combine(rounds: LoadResult[]): LoadResult {
  const total = rounds.reduce((a, r) => a + r.total, 0);
  return {
    seconds: rounds.reduce((a, r) => a + r.seconds, 0),
    disk: diskSum(rounds.map((r) => r.disk)),
    rps: rounds.reduce((a, r) => a + r.rps, 0) / rounds.length,
    p50: Math.max(...rounds.map((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    total,
    non2xx: rounds.reduce((a, r) => a + r.non2xx, 0),
    errors: rounds.reduce((a, r) => a + r.errors, 0),
  };
}

interface AtConnections {
  connections: number;
  daemon: LoadResult;
  bare: LoadResult;
  floor: LoadResult;
}

interface Throughput {
  runs: AtConnections[];
  /** The daemon paced at half the floor's rate at the first connection count. */
  halfFloor: LoadResult & { rate: number };
  /** The floor itself paced at that rate: the latency no durable ping can beat here. */
  floorAtHalf: LoadResult;
}

async function throughput(): Promise<Throughput> {
  const dir = mkdtempSync(join(tmpdir(), 'checkd-bench-'));
  const floorDir = mkdtempSync(join(tmpdir(), 'checkd-bench-floor-'));
  const servers: Served[] = [];
  try {
    const project = cli(['project', 'create', '--name', 'bench', '--check-limit', '100000', '--ping-log-limit', '100', '--json', '--data-dir', dir]);
    const daemon = await serveDaemon(dir);
    servers.push(daemon);
    const t0 = performance.now();
    const uuids = await pool(CHECKS, 64, async (i) => {
      const r = await fetch(`${daemon.url}/api/v3/checks/`, {
        method: 'POST',
        headers: { 'X-Api-Key': project.api_key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `job ${i}`, timeout: 3600, grace: 600 }),
      });
      if (r.status !== 201) throw new Error(`create check: ${r.status} ${await r.text()}`);
      return ((await r.json()) as { uuid: string }).uuid;
    });
    log(`provisioned ${CHECKS.toLocaleString('en-US')} checks through the API in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Shuffle, so consecutive pings hit unrelated checks.
    for (let j = uuids.length - 1; j > 0; j--) {
      const k = Math.floor(Math.random() * (j + 1));
      [uuids[j], uuids[k]] = [uuids[k]!, uuids[j]!];
    }
    const bareServer = await serve('the bare route', ['--import', 'tsx', join(ROOT, 'bench/bare-server.ts')], /^bare ready http=(\S+)$/);
    servers.push(bareServer);
    const floorServer = await serve('the floor', ['--import', 'tsx', join(ROOT, 'bench/bare-server.ts'), 'one-put', floorDir], /^bare ready http=(\S+)$/);
    servers.push(floorServer);
    const fake = Array.from({ length: CHECKS }, () => newUuid());
    const runs: AtConnections[] = [];
    for (const connections of CONNECTION_COUNTS) {
      log(`${connections} connections:`);
      await load(daemon.url, uuids, 2, { connections }); // warm-up
      await load(bareServer.url, fake, 2, { connections });
      await load(floorServer.url, fake, 2, { connections });
      // Alternate half-length rounds, so a change in background load hits all alike.
      const rounds = { daemon: [] as LoadResult[], bare: [] as LoadResult[], floor: [] as LoadResult[] };
      for (let round = 0; round < 2; round++) {
        const d = await load(daemon.url, uuids, DURATION_S / 2, { connections, diskOf: dir });
        log(`  round ${round + 1} daemon /ping/<uuid>: ${describe(d)}`);
        log(`          disk: ${describeDisk(d)}`);
        const f = await load(floorServer.url, fake, DURATION_S / 2, { connections, diskOf: floorDir });
        log(`  round ${round + 1} floor (bare route + one durable put): ${describe(f)}`);
        const b = await load(bareServer.url, fake, DURATION_S / 2, { connections });
        log(`  round ${round + 1} bare Fastify route:  ${describe(b)}`);
        log(`          daemon/floor ${((d.rps / f.rps) * 100).toFixed(1)} %`);
        rounds.daemon.push(d);
        rounds.bare.push(b);
        rounds.floor.push(f);
      }
      runs.push({ connections, daemon: combine(rounds.daemon), bare: combine(rounds.bare), floor: combine(rounds.floor) });
    }
    const rate = Math.round(runs[0]!.floor.rps / 2);
    const paced = await load(daemon.url, uuids, DURATION_S, { connections: runs[0]!.connections, diskOf: dir, rate });
    log(`daemon paced at half the floor (${rate.toLocaleString('en-US')} pings/s, ${runs[0]!.connections} connections): ${describe(paced)}`);
    const floorPaced = await load(floorServer.url, fake, DURATION_S, { connections: runs[0]!.connections, diskOf: floorDir, rate });
    log(`floor paced at the same rate: ${describe(floorPaced)}`);
    const probe = await fetch(`${daemon.url}/api/v3/checks/${uuids[0]}`, { headers: { 'X-Api-Key': project.api_key } });
    const n = ((await probe.json()) as { n_pings: number }).n_pings;
    log(`  (check ${uuids[0]!.slice(0, 8)}… has n_pings ${n}; every 200 above was committed and flushed before the answer)`);
    return { runs, halfFloor: { ...paced, rate }, floorAtHalf: floorPaced };
  } finally {
    for (const s of servers) await s.stop();
    rmSync(dir, { recursive: true, force: true });
    rmSync(floorDir, { recursive: true, force: true });
  }
}

interface MemoryFigures {
  /** With the checks loaded: what the acceptance line measures. */
  start: number;
  /** Right after a ping burst over all of them. */
  after: number;
  /** After the daemon has been idle a while following the burst. */
  settled: number;
}

/** How long the daemon is left idle after the burst: V8 gives back its garbage after ~10 s idle. */
const SETTLE_S = 20;

async function memory(): Promise<MemoryFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'checkd-bench-mem-'));
  try {
    const t0 = performance.now();
    const store = Store.open(dir);
    const { project } = await store.createProject({ name: 'memory', checkLimit: MEMORY_CHECKS, pingLogLimit: 100 }, Date.now());
    const uuids: string[] = [];
    const now = Date.now();
    // Few large transactions: fast, and the file keeps few free pages.
    const BATCH = 50_000;
    for (let b = 0; b < MEMORY_CHECKS; b += BATCH) {
      await store.transact(() => {
        for (let i = b; i < b + BATCH; i++) {
          const c = benchCheck(i, now, project.id, now + i);
          store.insertCheckInTxn(c, now);
          uuids.push(c.uuid);
        }
      });
    }
    await store.close();
    log(`wrote ${MEMORY_CHECKS.toLocaleString('en-US')} checks with the Store API in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const daemon = await serveDaemon(dir);
    try {
      await new Promise((r) => setTimeout(r, 1000));
      const start = rss(daemon.proc.pid!);
      log(`daemon VmRSS with ${MEMORY_CHECKS.toLocaleString('en-US')} checks loaded: ${describeRss(start)}`);
      const burst = await load(daemon.url, uuids, 5, { connections: 64, diskOf: dir });
      log(`ping burst over all of them: ${describe(burst)}`);
      const after = rss(daemon.proc.pid!);
      log(`daemon VmRSS right after the burst: ${describeRss(after)}`);
      await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
      const settled = rss(daemon.proc.pid!);
      log(`daemon VmRSS ${SETTLE_S} s later, idle: ${describeRss(settled)}`);
      return { start: start.total, after: after.total, settled: settled.total };
    } finally {
      await daemon.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  if (!existsSync(CLI)) {
    log('dist/ is missing: building first (npm run build)');
    const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  log(`checkd ping benchmark: ${DURATION_S} s per load, connections ${CONNECTION_COUNTS.join(' and ')}, ${CHECKS.toLocaleString('en-US')} checks; ${CLI}`);
  const { runs, halfFloor, floorAtHalf } = await throughput();
  const mem = process.env.BENCH_SKIP_MEMORY ? null : await memory();
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
  log('');
  log('summary');
  for (const r of runs) {
    const ofFloor = r.daemon.rps / r.floor.rps;
    log(`  ${r.connections} connections: the ping path is ${pct(ofFloor)} of the floor (target >= ${pct(FLOOR_TARGET)}) ${verdict(ofFloor >= FLOOR_TARGET)}`);
    log(`    ping path:  ${Math.round(r.daemon.rps).toLocaleString('en-US')} pings/s, p99 ${r.daemon.p99} ms (durable); ${pct(r.daemon.rps / r.bare.rps)} of the bare route`);
    log(`    floor:      ${Math.round(r.floor.rps).toLocaleString('en-US')} req/s, p99 ${r.floor.p99} ms; ${pct(r.floor.rps / r.bare.rps)} of the bare route`);
    log(`    bare route: ${Math.round(r.bare.rps).toLocaleString('en-US')} req/s, p99 ${r.bare.p99} ms`);
    log(`    its disk:   ${describeDisk(r.daemon)}`);
  }
  log(`  at half the floor (${halfFloor.rate.toLocaleString('en-US')} pings/s): p99 ${halfFloor.p99} ms (target <= ${HALF_FLOOR_P99_MS} ms) ${verdict(halfFloor.p99 <= HALF_FLOOR_P99_MS)}; the floor itself at that rate: p99 ${floorAtHalf.p99} ms`);
  if (mem) {
    log(`  memory:      ${mem.start.toFixed(1)} MB RSS with ${MEMORY_CHECKS.toLocaleString('en-US')} checks loaded (target < 300 MB) ${mem.start < 300 ? 'OK' : 'MISSED'}`);
    log(`               ${mem.after.toFixed(1)} MB right after the ping burst (garbage V8 has not collected yet, data pages read), ${mem.settled.toFixed(1)} MB after ${SETTLE_S} s idle`);
  }
  log(`  total time:  ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();
