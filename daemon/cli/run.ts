// `checkd run`: a job wrapper (contract.md). It pings /start, runs the command
// with its output passed through, then pings /<exit status> with the tail of
// that output, and exits as the command did. The monitor being down or slow
// never fails the job and never holds it for long: the start ping runs beside
// the job after a short wait, and every ping gives up after a bounded time.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { constants as osConstants } from 'node:os';

/** How long pings may go on being retried after the job has ended. */
export const PING_GIVE_UP_MS = 9_000;
/** How long the job waits for its start ping to be answered before it runs anyway. */
const START_WAIT_MS = 1_000;
/** One attempt's timeout: a hung monitor costs at most this per try. */
const ATTEMPT_TIMEOUT_MS = 3_000;
/** The body limit assumed when the server does not say (the reference's default). */
export const DEFAULT_BODY_LIMIT = 10_000;
/** Exit statuses of a command that could not be started, as POSIX shells use them. */
const EXIT_NOT_FOUND = 127;
const EXIT_CANNOT_RUN = 126;

export interface RunTarget {
  /** The ping base, e.g. http://127.0.0.1:8000 (a trailing slash or /ping is tolerated). */
  url: string;
  uuid?: string;
  slug?: string;
  pingKey?: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The target from the command line, or what is wrong with it. */
export function checkRunTarget(opts: { uuid?: string; slug?: string; pingKey?: string; url: string }): RunTarget | string {
  if (opts.uuid !== undefined && opts.slug !== undefined) return 'give either --uuid or --slug, not both';
  if (!isHttpUrl(opts.url)) return `--url must be an http(s) URL, got "${opts.url}"`;
  if (opts.uuid !== undefined) {
    if (!UUID_RE.test(opts.uuid)) return `--uuid must be a check's UUID, got "${opts.uuid}"`;
    return { url: opts.url, uuid: opts.uuid };
  }
  if (opts.slug === undefined) return 'give --uuid UUID, or --slug SLUG with --ping-key KEY';
  if (opts.slug === '') return '--slug must not be empty';
  if (!opts.pingKey) return '--slug needs --ping-key KEY (or CHECKD_PING_KEY)';
  return { url: opts.url, slug: opts.slug, pingKey: opts.pingKey };
}

function isHttpUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The check's ping URL without a suffix: BASE/ping/UUID or BASE/ping/KEY/SLUG. */
export function pingUrl(target: RunTarget): string {
  const base = target.url.replace(/\/+$/, '').replace(/\/ping$/, '');
  const path = target.uuid !== undefined
    ? encodeURIComponent(target.uuid)
    : `${encodeURIComponent(target.pingKey ?? '')}/${encodeURIComponent(target.slug ?? '')}`;
  return `${base}/ping/${path}`;
}

/** Keeps the last `limit` bytes of everything written to it. */
export class OutputTail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private limit: number) {}

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.trim();
  }

  /** The server's limit is only known once the start ping is answered. */
  setLimit(limit: number): void {
    this.limit = limit;
    this.trim();
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }

  private trim(): void {
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }
}

/** The exit status a shell would report: the code, or 128 + the signal's number. */
export function exitStatusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? (osConstants.signals as Record<string, number>)[signal] : undefined;
  return 128 + (number ?? 0);
}

export interface PingResult {
  ok: boolean;
  /** Ping-Body-Limit of the answer, when the server sent one. */
  bodyLimit?: number;
  error?: string;
}

/**
 * Sends one ping, retrying network errors, 429 and 5xx with backoff until
 * `deadline` (epoch ms). Any other answer is final.
 */
export async function sendPing(url: string, body: Buffer | null, deadline: number): Promise<PingResult> {
  let delay = 250;
  let lastError = 'no attempt made';
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return { ok: false, error: lastError };
    try {
      const res = await fetch(url, {
        method: 'POST',
        body,
        headers: { 'user-agent': 'checkd-run' },
        signal: AbortSignal.timeout(Math.min(ATTEMPT_TIMEOUT_MS, left)),
      });
      await res.arrayBuffer().catch(() => undefined);
      const limit = Number(res.headers.get('ping-body-limit'));
      const bodyLimit = Number.isSafeInteger(limit) && limit >= 0 ? limit : undefined;
      if (res.ok) return { ok: true, bodyLimit };
      lastError = `HTTP ${res.status}`;
      if (res.status !== 429 && res.status < 500) return { ok: false, error: lastError, bodyLimit };
    } catch (err) {
      lastError = describeFetchError(err);
    }
    const wait = Math.min(delay, deadline - Date.now());
    if (wait <= 0) return { ok: false, error: lastError };
    await new Promise((resolve) => setTimeout(resolve, wait));
    delay = Math.min(delay * 2, 2_000);
  }
}

function describeFetchError(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'timed out';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

export interface RunOptions {
  target: RunTarget;
  command: string;
  args: string[];
  /** Where the wrapper's own messages go (stderr). */
  warn?: (line: string) => void;
}

/** Runs the command under the monitor; resolves with the exit status to exit with. */
export async function runJob(opts: RunOptions): Promise<number> {
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`checkd run: ${line}\n`));
  const base = pingUrl(opts.target);
  const rid = randomUUID();
  const tail = new OutputTail(DEFAULT_BODY_LIMIT);
  const started = sendPing(`${base}/start?rid=${rid}`, null, Date.now() + PING_GIVE_UP_MS).then((r) => {
    if (r.bodyLimit !== undefined) tail.setLimit(r.bodyLimit);
    if (!r.ok) warn(`start ping not delivered (${r.error}); the job runs all the same`);
    return r;
  });

  // A monitor that answers at once records the start before the job runs (an
  // exact duration); one that does not delays the job by START_WAIT_MS at most.
  await Promise.race([started, new Promise((r) => setTimeout(r, START_WAIT_MS).unref())]);
  const status = await runCommand(opts.command, opts.args, tail, warn);

  // Both pings together stay within PING_GIVE_UP_MS of the job's end.
  const deadline = Date.now() + PING_GIVE_UP_MS;
  const start = await Promise.race([started, new Promise<null>((r) => setTimeout(() => r(null), PING_GIVE_UP_MS / 3).unref())]);
  if (start?.bodyLimit !== undefined) tail.setLimit(start.bodyLimit);
  const result = await sendPing(`${base}/${status}?rid=${rid}`, tail.bytes(), deadline);
  if (!result.ok) warn(`exit status ${status} not delivered to the monitor (${result.error})`);
  return status;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function runCommand(command: string, args: string[], tail: OutputTail, warn: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['inherit', 'pipe', 'pipe'] });
    const forward = (signal: NodeJS.Signals) => () => {
      child.kill(signal);
    };
    const handlers = FORWARDED_SIGNALS.map((s) => [s, forward(s)] as const);
    for (const [s, h] of handlers) process.on(s, h);
    let ended = false;
    // A spawn failure may or may not be followed by 'exit': the first word counts.
    const done = (status: number) => {
      if (ended) return;
      ended = true;
      for (const [s, h] of handlers) process.off(s, h);
      resolve(status);
    };
    for (const [stream, out] of [[child.stdout, process.stdout], [child.stderr, process.stderr]] as const) {
      stream.on('data', (chunk: Buffer) => {
        tail.write(chunk);
        // Backpressure: a slow reader of our output slows the job as it would unwrapped.
        if (!out.write(chunk)) {
          stream.pause();
          out.once('drain', () => stream.resume());
        }
      });
    }
    child.on('error', (err: NodeJS.ErrnoException) => {
      const status = err.code === 'ENOENT' ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
      const message = `cannot run ${command}: ${err.code === 'ENOENT' ? 'command not found' : err.message}`;
      warn(message);
      tail.write(Buffer.from(`checkd run: ${message}\n`));
      done(status);
    });
    // 'close' waits for the output to end; a job that leaves a child holding
    // its output open would hold us too, so 'exit' plus a short drain wins.
    child.on('exit', (code, signal) => {
      const finish = () => done(exitStatusOf(code, signal));
      child.on('close', finish);
      setTimeout(finish, 1_000).unref();
    });
  });
}
