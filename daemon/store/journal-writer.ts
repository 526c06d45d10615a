// Writes journaled pings into their checks' records about once a second, and
// sweeps the ping log (store/journal.ts). In the built daemon this runs in a
// worker thread: under load, reading and encoding a second's worth of pings costs the thread
// that answers pings as much as a third of its time. Run from the TypeScript
// sources (tests, tsx) it runs on the main thread, with the same function.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/log.js';
import type { Store } from './store.js';
import type { JournalWorkerReply, JournalWorkerRequest } from './journal-worker.js';
import { commitFailureReason } from './write-failure.js';

/**
 * How often the journal is applied. Longer means fewer page writes per ping
 * (a page touched by many pings is written once) but more pings held in
 * memory meanwhile.
 */
export const JOURNAL_APPLY_EVERY_MS = 1000;

/** Apply the journal somewhere; resolves with the revision the checks are current with. */
interface Applier {
  /** With `maxBytes`, only the oldest entries whose pings fit in it (journal.ts). */
  apply(maxBytes?: number): Promise<number>;
  close(): Promise<void>;
  /** False once the applier cannot work any more (its worker is gone). */
  readonly usable: boolean;
}

function inThreadApplier(store: Store, dataDir: string): Applier {
  return {
    apply: (maxBytes) =>
      store.applyJournal(maxBytes).catch(async (err: unknown) => {
        throw new Error(await commitFailureReason(dataDir, err));
      }),
    close: async () => {},
    usable: true,
  };
}

function workerApplier(script: URL, dataDir: string, logger: Logger): Applier {
  const worker = new Worker(script, { workerData: { dataDir } });
  let usable = true;
  worker.on('error', (err) => logger.error({ err }, 'journal worker failed'));
  worker.on('exit', () => (usable = false));
  return {
    get usable() {
      return usable;
    },
    apply: (maxBytes) =>
      new Promise<number>((resolve, reject) => {
        if (!usable) return reject(new Error('journal worker exited'));
        const onExit = () => reject(new Error('journal worker exited'));
        worker.once('exit', onExit);
        worker.once('message', (reply: JournalWorkerReply) => {
          worker.off('exit', onExit);
          if (reply.error !== undefined) reject(new Error(reply.error));
          else resolve(reply.rev!);
        });
        worker.postMessage({ apply: true, maxBytes } satisfies JournalWorkerRequest);
      }),
    async close() {
      if (!usable) return;
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('close');
      const timeout = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

export class JournalWriter {
  private applier: Applier;
  private readonly timer: NodeJS.Timeout;
  private inFlight: Promise<void> | null = null;
  private failing = false;
  private held = false;
  private readonly budget: () => number | null;

  constructor(
    private readonly store: Store,
    private readonly dataDir: string,
    private readonly logger: Logger,
    opts: {
      everyMs?: number;
      script?: URL;
      /** How much of the journal the disk has room to move now (storage-watch.ts journalBudget); all when absent. */
      budget?: () => number | null;
    } = {},
  ) {
    const everyMs = opts.everyMs ?? JOURNAL_APPLY_EVERY_MS;
    const script = opts.script ?? new URL('./journal-worker.js', import.meta.url);
    this.budget = opts.budget ?? (() => null);
    this.applier = existsSync(fileURLToPath(script))
      ? workerApplier(script, dataDir, logger)
      : inThreadApplier(store, dataDir);
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
  }

  private tick(): Promise<void> {
    if (this.inFlight || this.store.pendingChecks === 0) return this.inFlight ?? Promise.resolve();
    // A move that cannot fit would fail only after taking the last free bytes,
    // which flips and notifications need: it goes in parts that fit, or the
    // pings wait, durable in the journal, until there is room.
    const budget = this.budget();
    if (budget === 0) {
      if (!this.held) this.logger.warn('journaled pings wait: the disk has no room to write them into their checks now');
      this.held = true;
      return Promise.resolve();
    }
    if (this.held) this.logger.info('journaled pings are being written again');
    this.held = false;
    this.inFlight = this.applier
      .apply(budget ?? undefined)
      .then((rev) => {
        if (this.failing) this.logger.info('journaled pings are being written again');
        this.failing = false;
        this.store.forgetPendingUpTo(rev);
      })
      .catch((err: unknown) => {
        if (!this.applier.usable) {
          // The pings keep coming: without an applier they would pile up in memory.
          this.logger.warn('the journal worker is gone; applying the journal on the main thread from now on');
          this.applier = inThreadApplier(this.store, this.dataDir);
          return;
        }
        // Logged once per failing streak: retried every tick, and the pings
        // stay durable in the journal meanwhile.
        if (!this.failing) this.logger.error(`writing journaled pings failed; retrying: ${(err as Error).message}`);
        this.failing = true;
      })
      .finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** Stop ticking, let a running apply finish, end the worker. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
    await this.applier.close();
  }
}
