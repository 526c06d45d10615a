// Scale benchmark (`npm run bench:scale`): a project of a million checks
// (BENCH_SCALE_CHECKS, default 1,000,000, at most that), half of them up with a
// deadline, loaded the way a user would: an export file written exactly as
// `checkd export` writes it, then the built `checkd import FILE` in its own
// process. Then the built `checkd serve` on that data dir.
//
// Prints, each beside its target (issue #23):
// - the import's wall time and peak RSS (target < 60 s, < 1 GB);
// - the daemon's time from spawn to its ready line (target <= 3 s), and to
//   the monitor's having read every check (it goes on reading after the ready
//   line: its log says when it is done), and its RSS once it has, and after a
//   ping burst over every check (target < 1 GB; 300 MB for 100,000 checks);
// - data.mdb bytes per check;
// - how late a down flip comes after its deadline with all those deadlines in
//   the monitor's heap (target <= 1 s): a few checks in a second project, with
//   deadlines a few seconds after the daemon's start, are watched through the
//   v3 API's flips endpoint (polled every POLL_MS, so the figure is an upper
//   bound by about that much).
//
// Knobs: BENCH_SCALE_DIR=<dir> uses a data dir imported before (no generation,
// no import; the dir is kept; each run adds a small project of planted
// checks); BENCH_SCALE_BURST=0 skips the ping burst (then the data dir is
// unchanged apart from the planted project); BENCH_SCALE_KEEP=1 keeps the
// temp dir (the export file and the data dir) and says where it is;
// BENCH_DAEMON_NODE_OPTIONS adds Node flags to the daemon's, BENCH_CLI runs
// another build (both as in bench:ping).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, existsSync, fsyncSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { newCheck } from '../daemon/domain/check-input.js';
import { hashApiKey, newApiKey, newPingKey, newUuid } from '../daemon/domain/ids.js';
import type { CheckRecord } from '../daemon/domain/types.js';
import { CHECK_FIELDS, EXPORT_FORMAT, EXPORT_VERSION, PROJECT_FIELDS, toJson, type Json } from '../daemon/ops/export-fields.js';
import { benchCheck, daemonNodeArgs, rss, serveArgs, spawnUntilReady, type Rss } from './support.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = resolve(ROOT, process.env.BENCH_CLI ?? 'dist/daemon/cli.js');
const CHECKS = Number(process.env.BENCH_SCALE_CHECKS ?? 1_000_000);
const REUSE = process.env.BENCH_SCALE_DIR;
const BURST = process.env.BENCH_SCALE_BURST !== '0';
const KEEP = process.env.BENCH_SCALE_KEEP === '1';
const CONNECTIONS = 64;
/** Checks with a deadline soon after the daemon starts, to time their down flips. */
const PLANTED = 10;
/** The first planted deadline, after the planted import finished; one more every PLANT_STEP_MS. */
const PLANT_AFTER_MS = Number(process.env.BENCH_SCALE_PLANT_MS ?? 10_000);
/** How long the daemon idles after the burst before its RSS is read again. */
const SETTLE_S = 20;
const PLANT_STEP_MS = 200;
const POLL_MS = 20;
const MB = 1024 * 1024;

function log(line: string): void {
  process.stdout.write(line + '\n');
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

// ---- the export files ------------------------------------------------------

interface Generated {
  /** The project's checks, in creation order. */
  uuids: string[];
  apiKey: string;
}

/** A project of `checks` as `checkd export` writes it (JSON.stringify(doc, null, 2)), written to `path` a piece at a time. */
async function writeExportFile(path: string, checks: CheckRecord[] | ((i: number) => CheckRecord), n: number, name: string): Promise<Generated> {
  const now = Date.now();
  const apiKey = newApiKey(false);
  const projectId = newUuid();
  const project = {
    ...toJson(
      { id: projectId, name, checkLimit: Math.max(n, 20), pingLogLimit: 100, pingKey: newPingKey(), badgeKey: newUuid(), createdAt: now - n - 1 },
      PROJECT_FIELDS,
    ),
    api_keys: [{ sha256: hashApiKey(apiKey), read_only: false, created_at: now }],
    channels: [],
  };
  const at = (value: Json, level: number) => JSON.stringify(value, null, 2).replaceAll('\n', '\n' + '  '.repeat(level));
  const out = createWriteStream(path, { mode: 0o600 });
  let piece = '';
  const write = async (text: string) => {
    piece += text;
    if (piece.length < 1 << 20) return;
    const ok = out.write(piece);
    piece = '';
    if (!ok) await once(out, 'drain');
  };
  await write('{\n');
  const header = { format: EXPORT_FORMAT, version: EXPORT_VERSION, exported_at: new Date(now).toISOString(), badge_secret: null };
  for (const [k, v] of Object.entries(header)) await write(`  ${JSON.stringify(k)}: ${at(v, 1)},\n`);
  await write('  "projects": [\n    {\n');
  for (const [k, v] of Object.entries(project)) await write(`      ${JSON.stringify(k)}: ${at(v as Json, 3)},\n`);
  await write('      "checks": [');
  const uuids: string[] = [];
  for (let i = 0; i < n; i++) {
    const check = typeof checks === 'function' ? checks(i) : checks[i]!;
    check.projectId = projectId;
    uuids.push(check.uuid);
    await write((i === 0 ? '\n' : ',\n') + '        ' + at(toJson(check, CHECK_FIELDS), 4));
  }
  await write(n === 0 ? ']\n    }\n  ]\n}\n' : '\n      ]\n    }\n  ]\n}\n');
  out.end(piece);
  await once(out, 'finish');
  return { uuids, apiKey };
}


/** Checks that go down at `deadlines` (timeout and grace at their minimum, 60 s each). */
function plantedChecks(deadlines: number[]): CheckRecord[] {
  return deadlines.map((d, i) => {
    const c = newCheck({ uuid: newUuid(), badgeKey: newUuid(), projectId: '', createdAt: Date.now() - PLANTED + i });
    c.name = `planted ${i}`;
    c.timeout = 60;
    c.grace = 60;
    c.status = 'up';
    c.lastPing = d - (c.timeout + c.grace) * 1000;
    c.nPings = 1;
    c.alertAfter = d;
    return c;
  });
}

// ---- processes and their memory ----------------------------------------------


const describeRss = (r: Rss) => `${fmt(r.total, 1)} MB (anonymous ${fmt(r.anon, 1)}, file-backed ${fmt(r.file, 1)}; peak so far ${fmt(r.peak, 1)})`;

const TIME = '/usr/bin/time';

/**
 * Run the built `checkd import` and measure it: wall time and peak RSS, from
 * /usr/bin/time (the kernel's ru_maxrss) where there is one, else from polling
 * the process's VmHWM.
 */
async function timedImport(file: string, dataDir: string): Promise<{ seconds: number; peakMb: number; out: string }> {
  const withTime = existsSync(TIME);
  const args = [CLI, 'import', file, '--data-dir', dataDir, '--json'];
  const t0 = performance.now();
  const proc = withTime
    ? spawn(TIME, ['-f', 'TIME %e %M', process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  let polled = 0;
  const poll = withTime
    ? null
    : setInterval(() => {
        try {
          polled = Math.max(polled, rss(proc.pid!).peak);
        } catch {
          // exited meanwhile
        }
      }, 100);
  const [code] = (await once(proc, 'exit')) as [number | null];
  const seconds = (performance.now() - t0) / 1000;
  if (poll) clearInterval(poll);
  if (code !== 0) throw new Error(`checkd import exited with ${code}: ${err}`);
  const m = /TIME (\S+) (\d+)/.exec(err);
  return { seconds, peakMb: m ? Number(m[2]) / 1024 : polled, out: out.trim() };
}

interface Daemon {
  proc: ChildProcess;
  url: string;
  readySeconds: number;
  /** Resolves with the seconds from spawn until the monitor had read every check. */
  allRead: Promise<number>;
  stop(): Promise<void>;
}

/** The monitor's log lines that say it has read every check: at start, or later. */
const ALL_READ = /"allRead":true|deadline monitor read every check/;

async function serveDaemon(dataDir: string): Promise<Daemon> {
  const t0 = performance.now();
  // At info level for the monitor's line; a ping logs nothing at info.
  const s = await spawnUntilReady('checkd serve', serveArgs(CLI, dataDir, daemonNodeArgs(), 'info'), /^checkd ready http=(\S+) /, ROOT, 120_000);
  const readySeconds = (performance.now() - t0) / 1000;
  const allRead = (async () => {
    while (!ALL_READ.test(s.stderr())) {
      if (s.proc.exitCode !== null) throw new Error(`checkd serve exited; stderr: ${s.stderr()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return (performance.now() - t0) / 1000;
  })();
  return { proc: s.proc, url: `http://${s.ready[1]!}`, readySeconds, allRead, stop: s.stop };
}

/** When each planted check's down flip first shows in the API, minus its deadline, in ms (null: not within the wait). */
async function flipLateness(url: string, apiKey: string, uuids: string[], deadlines: number[]): Promise<Array<number | null>> {
  const late: Array<number | null> = uuids.map(() => null);
  const giveUp = Math.max(...deadlines) + 15_000;
  while (Date.now() < giveUp && late.some((l) => l === null)) {
    for (let i = 0; i < uuids.length; i++) {
      if (late[i] !== null) continue;
      const r = await fetch(`${url}/api/v3/checks/${uuids[i]}/flips/`, { headers: { 'X-Api-Key': apiKey } });
      const flips = (await r.json()) as Array<{ up: number }>;
      if (flips.some((f) => f.up === 0)) late[i] = Date.now() - deadlines[i]!;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return late;
}

/** One ping to every check, 64 connections. */
async function burst(url: string, uuids: string[]): Promise<{ seconds: number; rps: number; p99: number; non2xx: number; errors: number }> {
  let i = 0;
  const t0 = performance.now();
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    amount: uuids.length,
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
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, rps: result.requests.total / seconds, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

const dataBytes = (dir: string) => statSync(join(dir, 'data.mdb')).size;

// ---- the run ------------------------------------------------------------------

/** The daemon's main-thread V8 heap and external memory as its /metrics tells them: the part of the RSS that is its JavaScript. */
async function heapOf(url: string): Promise<string> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const mb = (name: string) => fmt(Number(new RegExp(`^checkd_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / MB, 1);
  return `heap ${mb('nodejs_heap_size_used_bytes')} MB used of ${mb('nodejs_heap_size_total_bytes')}, external ${mb('nodejs_external_memory_bytes')} MB`;
}

function verdict(value: number, target: number): string {
  return `${fmt((value / target) * 100)} % of the target ${value <= target ? 'OK' : 'MISSED'}`;
}

async function main(): Promise<void> {
  const started = performance.now();
  if (CHECKS > 1_000_000) throw new Error('BENCH_SCALE_CHECKS: at most 1,000,000 (a project holds at most that many)');
  if (!existsSync(CLI)) {
    log('dist/ is missing: building first (npm run build)');
    const b = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  const work = mkdtempSync(join(tmpdir(), 'checkd-bench-scale-'));
  const dataDir = REUSE ?? join(work, 'data');
  const memTarget = CHECKS <= 100_000 ? 300 : 1000;
  let daemon: Daemon | null = null;
  try {
    let uuids: string[] = [];
    let imported: { seconds: number; peakMb: number } | null = null;
    if (!REUSE) {
      log(`checkd scale benchmark: ${fmt(CHECKS)} checks, half of them up with a deadline`);
      const file = join(work, 'export.json');
      const t0 = performance.now();
      const now = Date.now();
      ({ uuids } = await writeExportFile(file, (i) => benchCheck(i, now, '', now - CHECKS + i), CHECKS, 'scale'));
      // On disk before the import starts, as a user's export file would be: its
      // write-back is not the import's to pay.
      const fd = openSync(file, 'r');
      fsyncSync(fd);
      closeSync(fd);
      const size = statSync(file).size;
      log(`wrote the export file: ${fmt(size / MB, 1)} MB (${fmt(size / CHECKS)} bytes per check) in ${fmt((performance.now() - t0) / 1000, 1)} s`);
      imported = await timedImport(file, dataDir);
      if (!KEEP) rmSync(file);
      log(`checkd import: ${fmt(imported.seconds, 1)} s, peak RSS ${fmt(imported.peakMb, 1)} MB`);
    } else {
      log(`checkd scale benchmark on ${REUSE} (imported before; ${BURST ? 'with' : 'without'} the burst)`);
      if (BURST) throw new Error('BENCH_SCALE_DIR needs BENCH_SCALE_BURST=0: the bench does not know the uuids of its checks');
    }
    const bytes = dataBytes(dataDir);
    log(`data.mdb: ${fmt(bytes / MB, 1)} MB, ${fmt(bytes / CHECKS)} bytes per check`);

    // The planted checks: a second project, imported just before the daemon starts.
    const plantedFile = join(work, 'planted.json');
    const t = Date.now();
    const deadlines = Array.from({ length: PLANTED }, (_, i) => t + PLANT_AFTER_MS + i * PLANT_STEP_MS);
    const planted = await writeExportFile(plantedFile, plantedChecks(deadlines), PLANTED, `planted ${t}`);
    await timedImport(plantedFile, dataDir);

    daemon = await serveDaemon(dataDir);
    const pid = daemon.proc.pid!;
    const readySeconds = daemon.readySeconds;
    log(`checkd serve: ready line ${fmt(daemon.readySeconds, 2)} s after spawn; first planted deadline ${fmt((deadlines[0]! - Date.now()) / 1000, 1)} s from now`);
    const watching = flipLateness(daemon.url, planted.apiKey, planted.uuids, deadlines);
    const allReadSeconds = await daemon.allRead;
    log(`every check read by the monitor ${fmt(allReadSeconds, 2)} s after spawn`);
    await new Promise((r) => setTimeout(r, 1000));
    const atStart = rss(pid);
    log(`daemon RSS 1 s after that: ${describeRss(atStart)}`);
    const late = await watching;
    const seen = late.filter((l): l is number => l !== null);
    log(`planted down flips (${PLANTED}, seen through the API every ${POLL_MS} ms): ${late.map((l) => (l === null ? 'none' : `${fmt(l)} ms`)).join(', ')}`);
    const worstLate = seen.length === late.length ? Math.max(...seen) : Infinity;

    let afterBurst: Rss | null = null;
    if (BURST) {
      const b = await burst(daemon.url, uuids);
      log(`ping burst over all ${fmt(uuids.length)} checks: ${fmt(b.seconds, 1)} s, ${fmt(b.rps)} pings/s, p99 ${b.p99} ms, ${b.non2xx} non-2xx, ${b.errors} errors`);
      afterBurst = rss(pid);
      log(`daemon RSS right after the burst: ${describeRss(afterBurst)}`);
      log(`daemon's main thread right after the burst: ${await heapOf(daemon.url)}`);
      // What of it was garbage and pages the next collections give back.
      await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
      log(`daemon RSS ${SETTLE_S} s later, idle: ${describeRss(rss(pid))}`);
      log(`daemon's main thread then: ${await heapOf(daemon.url)}`);
    }
    await daemon.stop();
    daemon = null;
    const bytesAfter = dataBytes(dataDir);
    if (BURST) log(`data.mdb after the burst: ${fmt(bytesAfter / MB, 1)} MB, ${fmt(bytesAfter / CHECKS)} bytes per check`);

    log('');
    log(`summary (${fmt(CHECKS)} checks)`);
    if (imported) {
      log(`  import:        ${fmt(imported.seconds, 1)} s (target < 60 s: ${verdict(imported.seconds, 60)})`);
      log(`                 peak RSS ${fmt(imported.peakMb, 1)} MB (target < 1,000 MB: ${verdict(imported.peakMb, 1000)})`);
    }
    log(`  ready line:    ${fmt(readySeconds, 2)} s after spawn (target <= 3 s: ${verdict(readySeconds, 3)})`);
    log(`  all read:      ${fmt(allReadSeconds, 2)} s after spawn (every deadline in the monitor's heap)`);
    log(`  data.mdb:      ${fmt(bytes / CHECKS)} bytes per check after the import${BURST ? `, ${fmt(bytesAfter / CHECKS)} after the burst` : ''}`);
    log(`  flip lateness: worst ${worstLate === Infinity ? 'not seen' : `${fmt(worstLate)} ms`} (target <= 1,000 ms: ${verdict(worstLate, 1000)})`);
    log(`  RSS at start:  ${fmt(atStart.total, 1)} MB (target < ${fmt(memTarget)} MB: ${verdict(atStart.total, memTarget)})`);
    if (afterBurst) log(`  after burst:   ${fmt(afterBurst.total, 1)} MB (target < ${fmt(memTarget)} MB: ${verdict(afterBurst.total, memTarget)})`);
    log(`  total time:    ${fmt((performance.now() - started) / 1000)} s`);
  } finally {
    await daemon?.stop();
    if (KEEP) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
