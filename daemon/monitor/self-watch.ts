// Who watches checkd: while the deadline monitor's loop runs, it tells the
// outside world so. Each pass of the loop calls alive(); from there, and only
// from there, go systemd's WATCHDOG=1 (WatchdogSec= in the unit) and the ping
// of --heartbeat-url (a second checkd, Healthchecks). A loop that is wedged
// (a transaction that never commits, a blocked event loop) makes no passes, so
// both stop and systemd restarts checkd, or the other monitor raises an alert.
// A timer of its own would keep reporting whatever the loop does.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../shared/log.js';

/** How often --heartbeat-url is pinged while the loop runs. */
export const HEARTBEAT_EVERY_MS = 60_000;
/** A heartbeat request that takes longer is given up; the next one goes out on time. */
const HEARTBEAT_TIMEOUT_MS = 10_000;

export interface SelfWatchOptions {
  /** Null: no heartbeat. */
  heartbeatUrl: string | null;
  heartbeatEveryMs: number;
  /** The unit's WatchdogSec in ms (watchdogIntervalMs), or null without a watchdog. */
  watchdogMs: number | null;
  /** sd_notify; resolves false when it could not be sent. */
  notify: (state: string) => Promise<boolean>;
  logger: Logger;
}

/**
 * The longest the monitor may sleep between two passes: at most `fallback`, a
 * quarter of the watchdog's interval (WATCHDOG=1 then goes out at least twice
 * within it even when a pass is slow) and half the heartbeat's.
 */
export function passIntervalMs(opts: Pick<SelfWatchOptions, 'watchdogMs' | 'heartbeatUrl' | 'heartbeatEveryMs'>, fallback: number): number {
  let ms = fallback;
  if (opts.watchdogMs !== null) ms = Math.min(ms, opts.watchdogMs / 4);
  if (opts.heartbeatUrl !== null) ms = Math.min(ms, opts.heartbeatEveryMs / 2);
  return Math.max(10, Math.floor(ms));
}

export class SelfWatch {
  private started = false;
  private stopped = false;
  private lastWatchdog = -Infinity;
  private lastHeartbeat = -Infinity;
  private heartbeat: Promise<void> | null = null;
  private failing = false;
  private readonly abort = new AbortController();

  constructor(private readonly opts: SelfWatchOptions) {}

  /** From now on, passes are also reported to --heartbeat-url (the daemon calls it once it is listening). */
  start(): void {
    if (this.stopped) return;
    this.started = true;
    if (this.opts.heartbeatUrl !== null) {
      this.opts.logger.info({ heartbeat: new URL(this.opts.heartbeatUrl).origin, everyMs: this.opts.heartbeatEveryMs }, 'heartbeat on');
    }
  }

  /**
   * A pass of the monitor loop finished: report it, if due. WATCHDOG=1 goes out
   * from the first pass (a long catch-up at start-up is progress), the
   * heartbeat once the daemon is listening.
   */
  readonly alive = (): void => {
    if (this.stopped) return;
    const now = performance.now();
    const { watchdogMs } = this.opts;
    if (watchdogMs !== null && now - this.lastWatchdog >= watchdogMs / 4) {
      this.lastWatchdog = now;
      void this.opts.notify('WATCHDOG=1');
    }
    if (!this.started) return;
    if (this.opts.heartbeatUrl !== null && this.heartbeat === null && now - this.lastHeartbeat >= this.opts.heartbeatEveryMs) {
      this.lastHeartbeat = now;
      this.heartbeat = this.ping(this.opts.heartbeatUrl).finally(() => {
        this.heartbeat = null;
      });
    }
  };

  private async ping(url: string): Promise<void> {
    const signal = AbortSignal.any([AbortSignal.timeout(HEARTBEAT_TIMEOUT_MS), this.abort.signal]);
    let problem: string | null = null;
    try {
      const res = await fetch(url, { headers: { 'User-Agent': 'checkd' }, signal });
      await res.arrayBuffer();
      if (res.status < 200 || res.status >= 300) problem = `status ${res.status}`;
    } catch (err) {
      if (this.stopped) return;
      const e = err as Error & { cause?: { code?: string } };
      problem = e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? e.name);
    }
    // One line when it starts failing and one when it works again, not one a minute.
    const origin = new URL(url).origin;
    if (problem !== null && !this.failing) this.opts.logger.warn({ heartbeat: origin, problem }, 'heartbeat ping failed');
    if (problem === null && this.failing) this.opts.logger.info({ heartbeat: origin }, 'heartbeat ping works again');
    this.failing = problem !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.heartbeat;
  }
}
