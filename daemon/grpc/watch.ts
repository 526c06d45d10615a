// Watch streams. Each stream keeps a cursor (the last revision sent) and pulls
// from the durable event log, so its buffer is bounded by gRPC's own flow
// control: a watcher that stops reading just stops being written to. Live
// watchers share the batch the event tail already decoded, and each event is
// encoded once for all of them (per key kind): with many watchers the cost per
// watcher is then mostly gRPC's own framing. A watcher a little behind reads
// from that shared window of recent events, one further behind from the log.
// A watcher that falls too far behind is ended with RESOURCE_EXHAUSTED and
// resumes from its last revision.
import * as grpc from '@grpc/grpc-js';
import { eventMsg, heartbeatMsg, snapshotMsg } from './messages.js';
import type { WatchEventMsg } from '../../proto/messages.js';
import { encodeWatchEvent } from './proto.js';
import { batchWrites } from './batched-writes.js';
import type { StoredEvent } from '../store/events.js';
import type { Store, AuthResult } from '../store/store.js';
import type { CheckRecord } from '../domain/types.js';
import type { Clock } from '../shared/clock.js';
import type { StorageReport } from '../domain/storage-alarm.js';

/** Events a stream may lag behind the log before it is ended. */
export const WATCH_LAG_LIMIT = 50_000;
export const HEARTBEAT_MS = 15_000;
const PULL_BATCH = 500;
/** Recent events kept decoded, with their encodings, for all streams. */
const RECENT_EVENTS = 5_000;

// Buffers are events already encoded by the hub (see serverServiceDefinition).
type WatchCall = grpc.ServerWritableStream<{ since_revision: number }, WatchEventMsg | Buffer>;

interface Recent {
  event: StoredEvent;
  /** Encodings for read-write and read-only keys; null: not an event watchers see. */
  rw?: Buffer | null;
  ro?: Buffer | null;
}

/** What the streams share: the recent events and their encodings. */
interface EventSource {
  read(after: number, limit: number): StoredEvent[];
  encoded(e: StoredEvent, readOnly: boolean): Buffer | null;
}

/**
 * Checks per snapshot part: ~90 KB on the wire and a few milliseconds to read
 * and encode, so that opening a watch on 100,000 checks neither holds up pings
 * for seconds nor makes one message beyond gRPC's 4 MiB default limit.
 */
const SNAPSHOT_PART = 500;

class WatchStream {
  /** gRPC pushed back: nothing more is written until 'drain'. */
  blocked = false;
  closed = false;
  /** Sending the snapshot: events wait (the cursor is its revision) until it is whole. */
  snapshotting = false;
  /** Resolves the wait of a snapshot held back by flow control. */
  private drained: (() => void) | null = null;

  constructor(
    private readonly call: WatchCall,
    private readonly auth: AuthResult,
    /** Last revision handed to gRPC for this client (sent, or skipped as another project's). */
    public cursor: number,
    private readonly source: EventSource,
    private readonly clock: Clock,
    private readonly onClose: (s: WatchStream) => void,
    private readonly storage: () => StorageReport | undefined,
  ) {
    call.on('drain', () => {
      this.blocked = false;
      this.drained?.();
      this.pull();
    });
    const close = () => this.close();
    call.on('cancelled', close);
    call.on('close', close);
    call.on('error', close);
  }

  /** Live events from the tail, in revision order. */
  offer(events: StoredEvent[]): void {
    if (this.closed || this.snapshotting || events.length === 0) return;
    if (this.blocked) return this.checkLag(events[events.length - 1]!.rev);
    if (events[0]!.rev > this.cursor + 1) return this.pull();
    this.writeEvents(events);
  }

  /** Catch up from the log until there is nothing more or gRPC pushes back. */
  pull(): void {
    while (!this.closed && !this.blocked && !this.snapshotting) {
      const batch = this.source.read(this.cursor, PULL_BATCH);
      if (batch.length === 0) return;
      this.writeEvents(batch);
    }
  }

  private writeEvents(events: StoredEvent[]): void {
    for (const e of events) {
      if (this.closed) return;
      if (e.rev <= this.cursor) continue;
      this.cursor = e.rev;
      if (e.projectId !== this.auth.project.id) continue;
      const bytes = this.source.encoded(e, this.auth.readOnly);
      if (bytes && !this.call.write(bytes)) this.blocked = true;
    }
  }

  private checkLag(latest: number): void {
    if (latest - this.cursor > WATCH_LAG_LIMIT) {
      this.fail(grpc.status.RESOURCE_EXHAUSTED, `watcher too slow; resume from revision ${this.cursor}`);
    }
  }

  send(msg: WatchEventMsg): void {
    if (!this.closed && !this.call.write(msg)) this.blocked = true;
  }

  heartbeat(): void {
    if (!this.blocked && !this.snapshotting) this.send(heartbeatMsg(this.cursor, this.clock.now(), this.storage()));
  }

  /**
   * Send the project's checks as a snapshot at `revision`, in parts of
   * SNAPSHOT_PART read a chunk at a time, then the events after `revision`.
   * A check changed while the parts go out may be sent as it is after an
   * event still to come; the event then repeats that state, so the client
   * ends where the log does.
   */
  async sendSnapshot(store: Store, revision: number): Promise<void> {
    this.cursor = revision;
    this.snapshotting = true;
    let held: CheckRecord[] = [];
    const sendPart = async (checks: CheckRecord[], continues: boolean) => {
      this.send(snapshotMsg(checks, revision, this.clock.now(), this.auth.readOnly, (c) => store.downSince(c) ?? 0, continues));
      if (this.blocked && !this.closed) await new Promise<void>((r) => (this.drained = r));
      this.drained = null;
    };
    for await (const chunk of store.checkChunks({ projectId: this.auth.project.id, size: SNAPSHOT_PART })) {
      // One part is held back, so that the last one can say it is the last.
      if (held.length > 0) await sendPart(held, true);
      if (this.closed) return;
      held = chunk;
    }
    if (this.closed) return;
    await sendPart(held, false);
    this.snapshotting = false;
    this.pull();
  }

  fail(code: grpc.status, details: string): void {
    if (this.closed) return;
    this.closed = true;
    this.drained?.();
    this.call.emit('error', { code, details, metadata: new grpc.Metadata() } as unknown as grpc.ServiceError);
    this.onClose(this);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.drained?.();
    this.onClose(this);
  }
}

export class WatchHub implements EventSource {
  private readonly streams = new Set<WatchStream>();
  private readonly timer: NodeJS.Timeout;
  /** The last RECENT_EVENTS revisions the tail delivered, consecutive, oldest first. */
  private readonly recent = new Map<number, Recent>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The storage alarm now, which heartbeats carry (none in tests that make a hub alone). */
    private readonly storage: () => StorageReport | undefined = () => undefined,
  ) {
    this.timer = setInterval(() => {
      for (const s of this.streams) s.heartbeat();
    }, HEARTBEAT_MS);
    this.timer.unref();
  }

  get size(): number {
    return this.streams.size;
  }

  /** Open streams currently held back by flow control (their clients are not reading). */
  get lagging(): number {
    let n = 0;
    for (const s of this.streams) if (s.blocked) n++;
    return n;
  }

  /** Event-log subscriber. */
  readonly onEvents = (events: StoredEvent[]): void => {
    if (this.streams.size === 0) {
      // Nobody to share with: keep no memory for it.
      this.recent.clear();
      return;
    }
    for (const e of events) this.recent.set(e.rev, { event: e });
    for (let n = this.recent.size - RECENT_EVENTS; n > 0; n--) this.recent.delete(this.recent.keys().next().value!);
    for (const s of this.streams) s.offer(events);
  };

  /** Events with revision > `after`, from the shared window when it has them, else from the log. */
  read(after: number, limit: number): StoredEvent[] {
    if (!this.recent.has(after + 1)) return this.store.eventsAfter(after, limit);
    const out: StoredEvent[] = [];
    for (let rev = after + 1; out.length < limit; rev++) {
      const r = this.recent.get(rev);
      if (!r) break;
      out.push(r.event);
    }
    return out;
  }

  /** The event's wire bytes for this kind of key, encoded once while the event is recent. */
  encoded(e: StoredEvent, readOnly: boolean): Buffer | null {
    const slot = this.recent.get(e.rev);
    const cached = slot && (readOnly ? slot.ro : slot.rw);
    if (cached !== undefined) return cached;
    const msg = eventMsg(e, this.clock.now(), readOnly, (c) => this.store.downSince(c) ?? 0);
    const bytes = msg ? encodeWatchEvent(msg) : null;
    if (slot) {
      if (readOnly) slot.ro = bytes;
      else slot.rw = bytes;
    }
    return bytes;
  }

  open(call: WatchCall, auth: AuthResult, since: number): void {
    batchWrites(call);
    const stream = new WatchStream(call, auth, since, this, this.clock, (s) => this.streams.delete(s), this.storage);
    // Headers go out at once, so a resuming client with nothing to catch up on
    // still learns the stream is open without waiting for a heartbeat.
    call.sendMetadata(new grpc.Metadata());
    if (since === 0) {
      // The revision is read before the checks: every change the parts may
      // miss comes after it, so the events that follow bring it.
      stream.sendSnapshot(this.store, this.store.revision()).catch((err: unknown) => {
        stream.fail(grpc.status.UNAVAILABLE, `reading the snapshot failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    } else {
      const latest = this.store.revision();
      if (since > latest) {
        stream.fail(grpc.status.INVALID_ARGUMENT, `revision ${since} is in the future (latest ${latest})`);
        return;
      }
      const oldest = this.store.oldestRetainedRevision();
      if (since < latest && (oldest === null || since + 1 < oldest)) {
        stream.fail(grpc.status.OUT_OF_RANGE, `revision ${since} is no longer retained; take a new snapshot`);
        return;
      }
      stream.pull();
      if (stream.closed) return;
    }
    this.streams.add(stream);
  }

  /**
   * The daemon is stopping: every stream ends UNAVAILABLE, which a client
   * retries (resuming from its last revision), where OK would read as a
   * normal end of the stream.
   */
  close(): void {
    clearInterval(this.timer);
    for (const s of [...this.streams]) s.fail(grpc.status.UNAVAILABLE, 'checkd is shutting down; reconnect and resume');
  }
}
