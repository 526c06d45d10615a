// What happens when LMDB cannot commit (full disk, I/O error): the write is
// refused with a clear reason, the process keeps running, and nothing is
// half-written (LMDB commits are atomic; a failed one leaves the previous
// state). Two pieces live here:
//  - recognising a failed commit and saying why it failed, for the HTTP error
//    handler (503) and the logs;
//  - a guard for lmdb-js issue #368: a failed commit also rejects promises
//    that lmdb-js creates internally and never handles (the batch's commit
//    promise and `error.commitError`). Under Node's default
//    --unhandled-rejections=throw those kill the process, so a full disk
//    would crash the daemon. The guard swallows exactly those rejections and
//    leaves every other unhandled rejection fatal, as Node would.
import { statfsSync } from 'node:fs';
import { pino } from 'pino';

/** The message lmdb-js gives every write of a failed commit (write.js rejectCommit). */
export const COMMIT_FAILED_MESSAGE = 'Commit failed (see commitError for details)';

/** LMDB error codes (lmdb.h) that can surface from a commit. */
const MDB_MAP_FULL = -30792;
const MDB_PANIC = -30795;

/** Below this, a failed write on that file system is taken for a full disk. */
const LOW_SPACE_BYTES = 1024 * 1024;

type CommitFailure = Error & { commitError?: PromiseLike<unknown> };

const LMDB_FRAME = /[\\/]node_modules[\\/]lmdb[\\/]/;

/** A write of a commit that LMDB could not complete. */
export function isCommitFailure(err: unknown): err is CommitFailure {
  return err instanceof Error && (err.message === COMMIT_FAILED_MESSAGE || 'commitError' in err);
}

/**
 * The error lmdb-js rejects `error.commitError` with: an Error raised from its
 * write thread callback with LMDB's numeric status as `code`.
 */
function isLmdbStatusError(err: unknown): boolean {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number' && LMDB_FRAME.test(err.stack ?? '');
}

/**
 * The underlying LMDB/OS error of a failed commit (ENOSPC, EIO, MDB_MAP_FULL...),
 * or undefined. Attaching to `commitError` also marks it handled.
 */
export async function underlyingCommitError(err: unknown, timeoutMs = 1000): Promise<Error | undefined> {
  if (!isCommitFailure(err) || !err.commitError) return undefined;
  const inner = Promise.resolve(err.commitError).then(
    () => undefined,
    (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([inner, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Bytes available to unprivileged writers on the file system holding `dir`, or null. */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

/** Why a commit to the data dir `dir` failed, in one sentence for logs and answers. */
export function describeWriteFailure(dir: string, cause?: Error): string {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code as unknown;
  const free = freeBytes(dir);
  const full =
    code === 'ENOSPC' || code === 28 || code === 'EDQUOT' || code === 122 || (free !== null && free < LOW_SPACE_BYTES);
  if (full) {
    return `no space left on the file system of the data dir ${dir} (${free ?? '?'} bytes free); free some space, checkd resumes writing by itself`;
  }
  if (code === MDB_MAP_FULL) return `the LMDB map of ${dir} is full: ${cause?.message ?? ''}`.trim();
  if (code === MDB_PANIC) return `LMDB reported a fatal error in ${dir}; restart checkd: ${cause?.message ?? ''}`.trim();
  return `writing to the data dir ${dir} failed: ${cause?.message ?? 'unknown error'}`;
}

/** Why a write to the data dir `dir` failed, from what it was rejected with (a failed commit or any error). */
export async function commitFailureReason(dir: string, err: unknown): Promise<string> {
  const cause = (await underlyingCommitError(err)) ?? (isCommitFailure(err) || !(err instanceof Error) ? undefined : err);
  return describeWriteFailure(dir, cause);
}

/** An error for a write that could not be stored; the HTTP layer answers 503. */
export class StorageWriteError extends Error {
  readonly statusCode = 503;
  constructor(readonly reason: string, options?: { cause?: unknown }) {
    super(`storage unavailable: ${reason}`, options);
  }
}

/**
 * A write refused because the storage alarm is on (storage-watch.ts): 503 as
 * well, with `refusal` for the client. Expected while the alarm lasts, so it
 * is not logged one by one: the alarm is, once.
 */
export class StorageAlarmError extends StorageWriteError {
  constructor(readonly refusal: string) {
    super(refusal.replace(/^storage unavailable: /, ''));
  }
}

type Reporter = (message: string, fatal: boolean) => void;

let installed = false;
let reporter: Reporter | null = null;
let lastReport = 0;

function defaultReporter(): Reporter {
  // The daemon's logs are pino JSON on stderr; this line joins them there.
  const log = pino({ base: { service: 'checkd', component: 'store' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 2, sync: true }));
  return (message, fatal) => (fatal ? log.fatal(message) : log.error(message));
}

/**
 * Install the unhandled-rejection guard once per process (see the header).
 * `dataDirOf` names the data dir for the message. A failed commit whose cause
 * is MDB_PANIC ends the process with exit code 1: LMDB refuses every later
 * write in that state, and systemd (Restart=on-failure) starts checkd afresh.
 */
export function installCommitFailureGuard(dataDirOf: () => string = dataDirOfCommandLine): void {
  if (installed) return;
  installed = true;
  process.on('unhandledRejection', (reason: unknown) => {
    if (isCommitFailure(reason)) {
      void underlyingCommitError(reason).then((cause) => {
        const fatal = (cause as { code?: unknown } | undefined)?.code === MDB_PANIC;
        const now = Date.now();
        // Under load every queued write fails alike: one line per second is enough.
        if (fatal || now - lastReport >= 1000) {
          lastReport = now;
          reporter ??= defaultReporter();
          reporter(`LMDB commit failed: ${describeWriteFailure(dataDirOf(), cause)}`, fatal);
        }
        if (fatal) process.exit(1);
      });
      return;
    }
    // The rejection of `commitError` itself when nobody asked for it.
    if (isLmdbStatusError(reason)) return;
    // Anything else stays fatal, as without this handler.
    throw reason;
  });
}

/** The data dir of this process's command: --data-dir, else $CHECKD_DATA_DIR, else ./data (as config.ts resolves it). */
export function dataDirOfCommandLine(argv: string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--data-dir' && argv[i + 1] !== undefined) return argv[i + 1]!;
    if (a.startsWith('--data-dir=')) return a.slice('--data-dir='.length);
  }
  return env.CHECKD_DATA_DIR || './data';
}

/** For tests: where guard messages go. */
export function setCommitFailureReporter(fn: Reporter | null): void {
  reporter = fn;
}
