// Follows the event log from a revision and hands new events to subscribers.
// The store tells it of every commit of this process (Store.listenToCommits),
// and it drains as soon as that commit is durable; writes by other processes
// (admin commands) are picked up by a short poll. The events this process
// commits are handed over in memory and delivered from there: under load,
// reading back and decoding every ping's event (it holds the whole check) cost
// the thread that answers pings several percent of its time.
import type { StoredEvent } from './events.js';
import type { Store } from './store.js';
import type { Logger } from '../shared/log.js';

export type EventSubscriber = (events: StoredEvent[]) => void;

export class EventTail {
  private cursor: number;
  private readonly subscribers = new Set<EventSubscriber>();
  private timer: NodeJS.Timeout | null = null;
  private scheduled = false;
  private stopped = false;
  /** Events this process committed and the tail has not delivered yet, by revision. */
  private readonly committed = new Map<number, StoredEvent>();
  private readonly stopListening: () => void;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly pollMs = 250,
  ) {
    this.cursor = store.revision();
    this.stopListening = store.listenToCommits({
      committed: (events) => {
        if (this.stopped) return;
        for (const e of events) if (e.rev > this.cursor) this.committed.set(e.rev, e);
      },
      durable: () => this.nudge(),
    });
  }

  get revision(): number {
    return this.cursor;
  }

  subscribe(fn: EventSubscriber): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  start(): void {
    this.timer = setInterval(() => this.drain(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    this.stopListening();
    if (this.timer) clearInterval(this.timer);
    this.committed.clear();
  }

  /**
   * Drain on the next tick, coalescing bursts: after each durable commit of
   * this process, and for events written around the store (tests).
   */
  nudge(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  drain(): void {
    if (this.stopped) return;
    for (;;) {
      let batch = this.takeCommitted(1000);
      try {
        // Read from the log only up to the next event held in memory.
        if (batch.length === 0) batch = this.store.eventsAfter(this.cursor, Math.max(1, Math.min(1000, this.nextCommitted() - this.cursor - 1)));
      } catch (err) {
        this.logger.error({ err }, 'reading the event log failed');
        return;
      }
      if (batch.length === 0) return;
      this.cursor = batch[batch.length - 1]!.rev;
      this.forgetCommittedUpTo(this.cursor);
      for (const fn of this.subscribers) {
        try {
          fn(batch);
        } catch (err) {
          this.logger.error({ err }, 'event subscriber failed');
        }
      }
      if (batch.length < 1000 && this.committed.size === 0) return;
    }
  }

  /**
   * The events just after the cursor that are known in memory, in order, up to
   * `limit`. Empty when the next one is not (another process wrote it, or it
   * was committed before the tail heard of it): the log has it.
   */
  private takeCommitted(limit: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let rev = this.cursor + 1; out.length < limit; rev++) {
      const e = this.committed.get(rev);
      if (e === undefined) break;
      out.push(e);
    }
    return out;
  }

  /** The lowest revision held in memory (Infinity when none). */
  private nextCommitted(): number {
    let lowest = Infinity;
    for (const rev of this.committed.keys()) if (rev < lowest) lowest = rev;
    return lowest;
  }

  private forgetCommittedUpTo(rev: number): void {
    for (const key of this.committed.keys()) if (key <= rev) this.committed.delete(key);
  }
}
