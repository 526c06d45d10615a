// The deadline monitor: a timer armed for the earliest instant at which any
// check's status can change by itself (grace → down), or an alert policy's
// time comes (the end of a mute: check-step.ts). It flips a check within
// milliseconds of its deadline while running, and on start-up catches up with
// every check that went overdue while the daemon was stopped, timestamping the
// flip with the deadline itself (status-machine §4). Its loop runs at least
// every maxSleepMs, deadlines or not, and each pass that completes is reported
// (onAlive): that is how checkd tells that it is alive (self-watch.ts).
//
// The checks are read at start a chunk at a time. What is read within a time
// budget is caught up with before start() resolves; the rest is read between
// passes while the daemon already serves, so a million checks do not hold the
// ready line back. A ping for a check whose deadline passed while the daemon
// was stopped, and which the catch-up has not reached yet, steps it first
// (catchUp), so that missed deadline still comes out as its flip.
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { DeadlineHeap } from './min-heap.js';
import { stepCheck, wakeAt } from './check-step.js';
import { isWindowKey, WindowTracker, type Wake } from './windows.js';
import { HeldByParent } from './dependents.js';
import type { StoredEvent } from '../store/events.js';
import type { CheckRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';

/** Re-check at least this often, so a wall-clock jump cannot strand a deadline. */
export const MAX_SLEEP_MS = 30_000;
/** After a pass whose write failed (a full disk), its checks are tried again this much later. */
const RETRY_AFTER_FAILURE_MS = 5000;
/** Checks evaluated per transaction during a catch-up. */
const BATCH = 500;
/** Checks read per chunk at start: a few milliseconds of reading between two turns of the event loop. */
const LOAD_CHUNK = 2000;
/** How long start() reads checks before it lets the daemon serve and reads the rest meanwhile. */
export const LOAD_BUDGET_MS = 500;

export interface DeadlineMonitorOptions {
  /** The longest sleep between two passes (MAX_SLEEP_MS unless shorter). */
  maxSleepMs?: number;
  /** Called after each pass, and each batch of a long one, that completed without an error. */
  onAlive?: () => void;
  /** How long start() reads checks before it resolves (LOAD_BUDGET_MS unless given; tests shorten it). */
  loadBudgetMs?: number;
}

export class DeadlineMonitor {
  private readonly heap = new DeadlineHeap();
  private readonly windows: WindowTracker;
  /** Down checks whose channels were told, which may have reminders → their project. */
  private readonly reminding = new Map<string, string>();
  private readonly heldByParent = new HeldByParent();
  private timer: NodeJS.Timeout | null = null;
  /** When the armed timer fires (performance.now()). */
  private timerAt = Infinity;
  private readonly maxSleepMs: number;
  private readonly onAlive: () => void;
  private running = false;
  private stopped = false;
  private idle: Promise<void> = Promise.resolve();
  private readonly loadBudgetMs: number;
  /** When the monitor was made: a deadline before it passed while the daemon was stopped. */
  private readonly startedAt: number;
  /** Every check was read and a pass followed: nothing is left from before the start. */
  private caughtUp = false;
  /** The reading of the checks that goes on after start() resolved. */
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
    opts: DeadlineMonitorOptions = {},
  ) {
    this.maxSleepMs = Math.min(opts.maxSleepMs ?? MAX_SLEEP_MS, MAX_SLEEP_MS);
    this.onAlive = opts.onAlive ?? (() => {});
    this.loadBudgetMs = opts.loadBudgetMs ?? LOAD_BUDGET_MS;
    this.startedAt = clock.now();
    this.windows = new WindowTracker(store);
  }

  /**
   * Load the armed deadlines from the store and process what is already due
   * (the catch-up after a stop). Resolves once the checks read within the
   * load budget are caught up with and committed, so the caller can finish
   * that before accepting pings; the rest are read meanwhile (loadedAll).
   */
  async start(): Promise<void> {
    for (const [key, at] of this.windows.load(this.clock.now())) this.heap.set(key, at);
    const reading = { after: undefined as string | undefined };
    const until = performance.now() + this.loadBudgetMs;
    let done = false;
    while (!done && !this.stopped && performance.now() < until) done = this.loadChunk(reading);
    this.logger.info({ armed: this.heap.size, allRead: done }, 'deadline monitor started');
    this.tick();
    await this.idle;
    if (done) this.caughtUp = true;
    else this.loading = this.loadRest(reading);
  }

  /** Resolves once every check has been read (and the monitor has stopped or armed for it). */
  get loadedAll(): Promise<void> {
    return this.loading;
  }

  private async loadRest(reading: { after: string | undefined }): Promise<void> {
    try {
      // A turn of the event loop between two chunks lets pings and passes through.
      while (!this.stopped && !this.loadChunk(reading)) {
        this.arm();
        await setImmediate();
      }
      await this.poke();
      this.caughtUp = true;
      this.logger.info({ armed: this.heap.size }, 'deadline monitor read every check');
    } catch (err) {
      // Left unhandled, so fatal: a check whose deadline was never read would never go down.
      this.logger.error({ err }, 'reading the checks at start failed');
      throw err;
    }
  }

  /**
   * Read the chunk of checks after `reading.after` into the heap, one check at
   * a time (a chunk held whole would outlive young collections and swell the
   * old heap); true once there are no more.
   */
  private loadChunk(reading: { after: string | undefined }): boolean {
    let n = 0;
    for (const check of this.store.checksAfter(reading.after, LOAD_CHUNK)) {
      // A held check is looked at once at start: its hold may have ended while the daemon was stopped.
      this.heap.set(check.uuid, check.hold ? 0 : wakeAt(this.store, check));
      this.follow(check);
      reading.after = check.uuid;
      n++;
    }
    return n < LOAD_CHUNK;
  }

  /**
   * Inside a ping's transaction, before the ping applies: a check still due
   * from before the start is one the catch-up has not reached (a step moves
   * a check's wake past the step, or clears it). It is stepped as the
   * catch-up would have (its missed deadline becomes its flip), and the ping
   * applies to what that left. A deadline that passed while running is the
   * monitor's: a ping before its pass wins, as it always has.
   */
  catchUp(check: CheckRecord, now: number): CheckRecord {
    if (this.caughtUp) return check;
    const wake = wakeAt(this.store, check);
    if (wake === null || wake > this.startedAt) return check;
    this.store.applyJournalInTxn();
    const step = stepCheck(this.store, check, now, this.logger);
    this.follow(step.check);
    return step.check;
  }

  /**
   * Evaluate now instead of when the timer says: for clocks that jump (a
   * ManualClock in tests, or a wall-clock step). Resolves when the pass is done.
   */
  async poke(): Promise<void> {
    if (this.stopped) return;
    await this.idle;
    this.tick();
    await this.idle;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.loading.catch(() => {});
    await this.idle;
  }

  /** Keep the maps of checks that other things than their own events wake: held ones, and down ones with reminders. */
  private follow(check: CheckRecord): void {
    this.windows.noteCheck(check);
    this.heldByParent.note(check);
    if (check.status === 'down' && check.downAlert) this.reminding.set(check.uuid, check.projectId);
    else this.reminding.delete(check.uuid);
  }

  get armedCount(): number {
    return this.heap.size;
  }

  /** Event-log subscriber: re-arm the checks that changed. */
  readonly onEvents = (events: StoredEvent[]): void => {
    // Looked at once the batch is through, so that a later event of the same check does not re-arm it for later.
    const wake = new Set<string>();
    for (const e of events) {
      if (e.type === 'window.changed' && e.windowId) this.heap.set(...this.windows.changed(e.windowId));
      // A channel's repeat_every may have changed: its project's reminders are due again.
      if (e.type === 'channel.changed') for (const [uuid, project] of this.reminding) if (project === e.projectId) wake.add(uuid);
      if (!e.checkUuid) continue;
      if (e.type === 'check.deleted') {
        this.heap.set(e.checkUuid, null);
        this.windows.forgetCheck(e.checkUuid);
        this.reminding.delete(e.checkUuid);
        this.heldByParent.forget(e.checkUuid);
      } else if (e.check) {
        this.heap.set(e.checkUuid, wakeAt(this.store, e.check));
        this.follow(e.check);
      }
      // A check that is not down (or gone) holds back no dependent's notification any more.
      const held = e.check?.status === 'down' ? undefined : this.heldByParent.heldFor(e.checkUuid);
      if (held) for (const child of held) wake.add(child);
    }
    for (const uuid of wake) this.heap.set(uuid, 0);
    this.arm();
  };

  private arm(): void {
    if (this.stopped || this.running) return;
    const next = this.heap.peek();
    const delay = Math.min(next === null ? Infinity : Math.max(next - this.clock.now(), 0), this.maxSleepMs);
    const at = performance.now() + delay;
    // An earlier wake-up stays: a stream of pings re-arming the timer must not
    // push the next pass, and the liveness it reports, further and further away.
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref();
  }

  private tick(): void {
    if (this.stopped || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = true;
    this.idle = this.processDue()
      .then(() => this.onAlive(), (err: unknown) => this.logger.error({ err }, 'deadline evaluation failed'))
      .finally(() => {
        this.running = false;
        this.arm();
      });
  }

  private async processDue(): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const due = this.heap.popDue(now, BATCH);
      if (due.length === 0) return;
      const rearm = await this.store.transact(() => {
        const out: Wake[] = [];
        for (const uuid of due) {
          if (isWindowKey(uuid)) {
            out.push(...this.windows.step(uuid, now));
            continue;
          }
          const check = this.store.getCheck(uuid);
          if (!check) continue;
          const step = stepCheck(this.store, check, now, this.logger);
          this.follow(step.check);
          out.push([uuid, step.wake !== null && step.wake > now ? step.wake : null]);
        }
        return out;
      }).catch((err: unknown) => {
        // Not written (a full disk): the checks stay due and are evaluated again
        // shortly, with the time they are evaluated at then.
        const retryAt = this.clock.now() + RETRY_AFTER_FAILURE_MS;
        for (const uuid of due) this.heap.set(uuid, retryAt);
        throw err;
      });
      for (const [id, at] of rearm) this.heap.set(id, at);
      if (this.stopped) return;
      // A catch-up of many batches is progress too.
      this.onAlive();
    }
  }
}
