// Follows the event log from a revision and hands new events to subscribers.
// Writes made by this process nudge it at once; writes by other processes
// (admin commands) are picked up by a short poll.
import { readEventsAfter, type StoredEvent } from './store/events.js';
import type { Store } from './store/store.js';
import type { Logger } from './log.js';

export type EventSubscriber = (events: StoredEvent[]) => void;

export class EventTail {
  private cursor: number;
  private readonly subscribers = new Set<EventSubscriber>();
  private timer: NodeJS.Timeout | null = null;
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly pollMs = 250,
  ) {
    this.cursor = store.revision();
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
    if (this.timer) clearInterval(this.timer);
  }

  /** Called after a local commit: drain on the next tick, coalescing bursts. */
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
      let batch: StoredEvent[];
      try {
        batch = readEventsAfter(this.store.db, this.cursor, 1000);
      } catch (err) {
        this.logger.error({ err }, 'reading the event log failed');
        return;
      }
      if (batch.length === 0) return;
      this.cursor = batch[batch.length - 1]!.rev;
      for (const fn of this.subscribers) {
        try {
          fn(batch);
        } catch (err) {
          this.logger.error({ err }, 'event subscriber failed');
        }
      }
      if (batch.length < 1000) return;
    }
  }
}
