// Persistence of the notifier: its cursor in the event log, the outbox of
// delivery jobs and each channel's last delivery result, in two named LMDB
// databases of their own. The cursor only moves in the transaction that writes
// the jobs for the flips it passes, so a flip is never lost; a job leaves the
// outbox in the transaction that records its success, so a delivered
// notification is not sent again after a restart. Its transactions touch no
// check or ping log, so they do not move the ping journal first
// (Store.transactAside): deliveries go on when the disk has little room.
import type { Database } from 'lmdb';
import type { Store } from './store.js';
import { environmentOf, noteDatabases } from './environment.js';
import type { CheckRecord, FlipRecord, LastPingInfo } from '../domain/types.js';
import type { StoredEvent } from './events.js';
import type { PolicyFacts } from '../notify/policy-text.js';
import type { StorageReport } from '../domain/storage-alarm.js';

export interface DeliveryJob {
  channelId: string;
  /** Revision of the flip event: with the channel id, the job's key. */
  flipRev: number;
  projectId: string;
  checkUuid: string;
  event: 'down' | 'up';
  flip: FlipRecord;
  /** The check as it was after the flip. */
  check: CheckRecord;
  lastPing: LastPingInfo | null;
  downtimeMs: number | null;
  /** What the alert policies add: a release, a reminder (alert-policies §3–§6). */
  policy?: PolicyFacts;
  /** A job of the storage alarm (notify/storage-alarm.ts): `check` is made up, and never looked up. */
  storage?: StorageReport;
  enqueuedAt: number;
  attempts: number;
  nextAttemptAt: number;
  lastError: string;
}

export type JobKey = [string, number];

/** `ok`: last attempt delivered; `retrying`: failed, will try again; `failed`: given up. */
export type DeliveryState = 'ok' | 'retrying' | 'failed';

export interface ChannelDeliveryStatus {
  state: DeliveryState;
  /** "" after a success. */
  error: string;
  at: number;
  durationMs: number;
  lastSuccessAt: number | null;
  checkUuid: string | null;
  /** The event of that delivery, or "test" for `checkd channel test`. */
  event: 'down' | 'up' | 'test';
}

interface NotifyDbs {
  outbox: Database<DeliveryJob, JobKey>;
  /** 'cursor' → revision; 'channel:<id>' → ChannelDeliveryStatus. */
  state: Database<unknown, string>;
  /**
   * False when opened read-only on a data dir where no daemon ever ran the
   * notifier: LMDB cannot create the two databases then, and there is nothing in them.
   */
  exist: boolean;
}

const opened = new WeakMap<object, NotifyDbs>();

function dbs(store: Store): NotifyDbs {
  const { root } = environmentOf(store);
  let d = opened.get(root);
  if (!d) {
    const outbox = root.openDB<DeliveryJob, JobKey>({ name: 'notify_outbox' });
    const state = root.openDB<unknown, string>({ name: 'notify_state' });
    d = { outbox, state, exist: outbox !== undefined && state !== undefined };
    opened.set(root, d);
    noteDatabases(root, [outbox, state]);
  }
  return d;
}

export function jobKey(job: Pick<DeliveryJob, 'channelId' | 'flipRev'>): JobKey {
  return [job.channelId, job.flipRev];
}

export class NotifyStore {
  private readonly d: NotifyDbs;

  constructor(private readonly store: Store) {
    this.d = dbs(store);
  }

  /** The durable cursor: every notifiable flip at or below it has its jobs in the outbox. */
  cursor(): number | undefined {
    return this.d.state.get('cursor') as number | undefined;
  }

  /**
   * On the very first start, the cursor begins at the current revision: the
   * history of a data dir made before notifications existed is not replayed.
   */
  async initCursor(): Promise<number> {
    const existing = this.cursor();
    if (existing !== undefined) return existing;
    return this.store.transactAside(() => {
      const raced = this.d.state.get('cursor') as number | undefined;
      if (raced !== undefined) return raced;
      const rev = this.store.revision();
      this.d.state.put('cursor', rev);
      return rev;
    });
  }

  /**
   * One transaction: the jobs `select` makes for each event (reads inside it
   * see this transaction), then the cursor moves to the last event's revision.
   */
  async advance(events: StoredEvent[], select: (ev: StoredEvent) => DeliveryJob[]): Promise<number> {
    if (events.length === 0) return 0;
    const last = events[events.length - 1]!.rev;
    return this.store.transactAside(() => {
      const cursor = (this.d.state.get('cursor') as number | undefined) ?? 0;
      let n = 0;
      for (const ev of events) {
        if (ev.rev <= cursor) continue; // already handled (never expected: one notifier per data dir)
        for (const job of select(ev)) {
          const key = jobKey(job);
          if (this.d.outbox.get(key) !== undefined) continue;
          this.d.outbox.put(key, job);
          n++;
        }
      }
      if (last > cursor) this.d.state.put('cursor', last);
      return n;
    });
  }

  /** Move the cursor over events that make no jobs (lazily, off the hot path). */
  async saveCursor(rev: number): Promise<void> {
    if ((this.cursor() ?? 0) >= rev) return;
    await this.store.transactAside(() => {
      if (((this.d.state.get('cursor') as number | undefined) ?? 0) < rev) this.d.state.put('cursor', rev);
    });
  }

  getJob(key: JobKey): DeliveryJob | undefined {
    return this.d.outbox.get(key);
  }

  /** The oldest job of each channel (the outbox is ordered by channel, then flip). */
  heads(): DeliveryJob[] {
    const out: DeliveryJob[] = [];
    let start: JobKey | undefined;
    for (;;) {
      let found: DeliveryJob | undefined;
      for (const { value } of this.d.outbox.getRange({ ...(start ? { start } : {}), limit: 1 })) found = value;
      if (!found) return out;
      out.push(found);
      // Skip to the next channel: past every [channelId, rev] key.
      start = [found.channelId, Number.MAX_SAFE_INTEGER + 1];
    }
  }

  pendingCount(channelId: string): number {
    if (!this.d.exist) return 0;
    return this.d.outbox.getKeysCount({ start: [channelId, 0], end: [channelId, Number.MAX_SAFE_INTEGER + 1] });
  }

  totalPending(): number {
    return this.d.outbox.getKeysCount();
  }

  channelStatus(channelId: string): ChannelDeliveryStatus | undefined {
    if (!this.d.exist) return undefined;
    return this.d.state.get(`channel:${channelId}`) as ChannelDeliveryStatus | undefined;
  }

  private putStatus(channelId: string, status: Omit<ChannelDeliveryStatus, 'lastSuccessAt'>): void {
    const prev = this.d.state.get(`channel:${channelId}`) as ChannelDeliveryStatus | undefined;
    this.d.state.put(`channel:${channelId}`, {
      ...status,
      lastSuccessAt: status.state === 'ok' ? status.at : (prev?.lastSuccessAt ?? null),
    });
  }

  /** Delivered: the job leaves the outbox in the same transaction that records it. */
  async succeed(job: DeliveryJob, at: number, durationMs: number): Promise<void> {
    await this.store.transactAside(() => {
      this.d.outbox.remove(jobKey(job));
      this.putStatus(job.channelId, { state: 'ok', error: '', at, durationMs, checkUuid: job.checkUuid, event: job.event });
    });
  }

  /** Failed, to be tried again at `nextAttemptAt`. */
  async retryLater(job: DeliveryJob, at: number, durationMs: number, error: string, nextAttemptAt: number): Promise<void> {
    await this.store.transactAside(() => {
      const key = jobKey(job);
      const current = this.d.outbox.get(key);
      if (current) this.d.outbox.put(key, { ...current, attempts: current.attempts + 1, nextAttemptAt, lastError: error });
      this.putStatus(job.channelId, { state: 'retrying', error, at, durationMs, checkUuid: job.checkUuid, event: job.event });
    });
  }

  /** Given up (permanent error, or retried for too long): recorded, and dropped from the outbox. */
  async giveUp(job: DeliveryJob, at: number, durationMs: number, error: string): Promise<void> {
    await this.store.transactAside(() => {
      this.d.outbox.remove(jobKey(job));
      this.putStatus(job.channelId, { state: 'failed', error, at, durationMs, checkUuid: job.checkUuid, event: job.event });
    });
  }

  /** Drop a job whose channel or check no longer exists (nothing is recorded). */
  async drop(job: DeliveryJob): Promise<void> {
    await this.store.transactAside(() => this.d.outbox.remove(jobKey(job)));
  }

  /** The result of `checkd channel test`. */
  async recordTest(channelId: string, at: number, durationMs: number, error: string | null): Promise<void> {
    await this.store.transactAside(() => {
      this.putStatus(channelId, {
        state: error === null ? 'ok' : 'failed',
        error: error ?? '',
        at,
        durationMs,
        checkUuid: null,
        event: 'test',
      });
    });
  }
}
