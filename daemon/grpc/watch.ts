// Watch streams. Each stream keeps a cursor (the last revision sent) and pulls
// from the durable event log, so its buffer is bounded by gRPC's own flow
// control: a watcher that stops reading just stops being written to, and never
// slows pings or other watchers. Live watchers share the batch the event tail
// already decoded. A watcher that falls too far behind is ended with
// RESOURCE_EXHAUSTED and resumes from its last revision.
import * as grpc from '@grpc/grpc-js';
import { eventMsg, heartbeatMsg, snapshotMsg, type WatchEventMsg } from './messages.js';
import { oldestRetainedRevision, readEventsAfter, type StoredEvent } from '../store/events.js';
import type { Store, AuthResult } from '../store/store.js';
import type { Clock } from '../clock.js';

/** Events a stream may lag behind the log before it is ended. */
export const WATCH_LAG_LIMIT = 50_000;
export const HEARTBEAT_MS = 15_000;
const PULL_BATCH = 500;

type WatchCall = grpc.ServerWritableStream<{ since_revision: number }, WatchEventMsg>;

class WatchStream {
  /** gRPC pushed back: nothing more is written until 'drain'. */
  blocked = false;
  closed = false;

  constructor(
    private readonly call: WatchCall,
    private readonly auth: AuthResult,
    /** Last revision handed to gRPC for this client (sent, or skipped as another project's). */
    public cursor: number,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly onClose: (s: WatchStream) => void,
  ) {
    call.on('drain', () => {
      this.blocked = false;
      this.pull();
    });
    const close = () => this.close();
    call.on('cancelled', close);
    call.on('close', close);
    call.on('error', close);
  }

  /** Live events from the tail, in revision order. */
  offer(events: StoredEvent[]): void {
    if (this.closed || events.length === 0) return;
    if (this.blocked) return this.checkLag(events[events.length - 1]!.rev);
    if (events[0]!.rev > this.cursor + 1) return this.pull();
    this.writeEvents(events);
  }

  /** Catch up from the log until there is nothing more or gRPC pushes back. */
  pull(): void {
    while (!this.closed && !this.blocked) {
      const batch = readEventsAfter(this.store.db, this.cursor, PULL_BATCH);
      if (batch.length === 0) return;
      this.writeEvents(batch);
    }
  }

  private writeEvents(events: StoredEvent[]): void {
    const now = this.clock.now();
    for (const e of events) {
      if (this.closed) return;
      if (e.rev <= this.cursor) continue;
      this.cursor = e.rev;
      if (e.projectId !== this.auth.project.id) continue;
      const msg = eventMsg(e, now, this.auth.readOnly);
      if (msg && !this.call.write(msg)) this.blocked = true;
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
    if (!this.blocked) this.send(heartbeatMsg(this.cursor, this.clock.now()));
  }

  fail(code: grpc.status, details: string): void {
    if (this.closed) return;
    this.closed = true;
    this.call.emit('error', { code, details, metadata: new grpc.Metadata() } as unknown as grpc.ServiceError);
    this.onClose(this);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.call.end();
    this.onClose(this);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}

export class WatchHub {
  private readonly streams = new Set<WatchStream>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
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
    for (const s of this.streams) s.offer(events);
  };

  open(call: WatchCall, auth: AuthResult, since: number): void {
    const stream = new WatchStream(call, auth, since, this.store, this.clock, (s) => this.streams.delete(s));
    if (since === 0) {
      // Revision and checks are read in one synchronous turn: one LMDB snapshot.
      const revision = this.store.revision();
      const checks = this.store.listChecks(auth.project.id);
      stream.cursor = revision;
      stream.send(snapshotMsg(checks, revision, this.clock.now(), auth.readOnly));
    } else {
      const latest = this.store.revision();
      if (since > latest) {
        stream.fail(grpc.status.INVALID_ARGUMENT, `revision ${since} is in the future (latest ${latest})`);
        return;
      }
      const oldest = oldestRetainedRevision(this.store.db);
      if (since < latest && (oldest === null || since + 1 < oldest)) {
        stream.fail(grpc.status.OUT_OF_RANGE, `revision ${since} is no longer retained; take a new snapshot`);
        return;
      }
      stream.pull();
      if (stream.closed) return;
    }
    this.streams.add(stream);
  }

  close(): void {
    clearInterval(this.timer);
    for (const s of [...this.streams]) s.end();
  }
}
