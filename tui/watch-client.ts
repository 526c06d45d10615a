// A Watch that survives daemon restarts and dropped links. It remembers the
// last revision it received; every reconnect resumes there, so the events that
// happened while it was away (flips included) arrive in order, exactly once.
// When the daemon no longer has that revision (OUT_OF_RANGE), or its log went
// backwards (a new data directory), it takes a fresh snapshot instead.
import { CheckdRpc, describeGrpcError, grpc, grpcCode } from './rpc.js';
import type { ConnectionInfo } from './state.js';
import type { CheckDetailMsg, CheckMsg, ListFlipsResponseMsg, ListPingsResponseMsg, PingBodyMsg, ProjectMsg, WatchEventMsg } from './wire.js';

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/** Doubling from 250 ms, capped at 5 s: a restarted daemon is picked up within seconds. */
export const DEFAULT_BACKOFF: Backoff = { initialMs: 250, maxMs: 5000 };

/**
 * Wait before attempt number `attempt` (1 = the first retry). No jitter: a
 * handful of operators' terminals is no thundering herd, and a predictable
 * pace is easier to read in the header.
 */
export function backoffDelay(attempt: number, b: Backoff = DEFAULT_BACKOFF): number {
  return Math.min(b.maxMs, b.initialMs * 2 ** Math.max(0, attempt - 1));
}

/** With no message at all for this long, a Watch is presumed dead (the daemon sends heartbeats every 15 s). */
export const IDLE_TIMEOUT_MS = 45_000;

export type WatchUpdate =
  | { type: 'connection'; connection: ConnectionInfo }
  | { type: 'project'; project: ProjectMsg }
  | { type: 'event'; event: WatchEventMsg };

export type WatchListener = (update: WatchUpdate) => void;

/** What the app needs from the daemon; WatchClient is the real one, tests pass fakes. */
export interface CheckdBackend {
  /** Starts the Watch on the first subscription; the current connection state is replayed at once. */
  subscribe(listener: WatchListener): () => void;
  getCheck(id: string, limit: number): Promise<CheckDetailMsg>;
  /** Older pings of a check: those numbered below `beforeN`, newest first. */
  listPings(id: string, beforeN: number, pageSize: number): Promise<ListPingsResponseMsg>;
  /** Older flips of a check: those recorded before `beforeRevision`, newest first. */
  listFlips(id: string, beforeRevision: number, pageSize: number): Promise<ListFlipsResponseMsg>;
  /** One ping's stored body, its first `maxBytes` at most. */
  getPingBody(id: string, n: number, maxBytes: number): Promise<PingBodyMsg>;
  pauseCheck(id: string): Promise<CheckMsg>;
  resumeCheck(id: string): Promise<CheckMsg>;
}

export interface WatchClientOptions {
  address: string;
  apiKey: string;
  /** Deadline of the GetProject that opens every attempt. */
  connectTimeoutMs?: number;
  backoff?: Backoff;
  /**
   * With no message at all for this long (the daemon sends heartbeats every
   * 15 s), the stream is presumed dead and replaced.
   */
  idleTimeoutMs?: number;
}

export class WatchClient implements CheckdBackend {
  /** The last revision received: where the next Watch resumes. 0 = take a snapshot. */
  revision = 0;
  projectId: string | null = null;
  /** The event log `revision` counts in (GetProject's log_id). */
  private logId: string | null = null;
  connection: ConnectionInfo = { state: 'connecting', attempt: 0, retryAt: 0, error: null };

  private rpc: CheckdRpc | null = null;
  private stream: grpc.ClientReadableStream<WatchEventMsg> | null = null;
  private readonly listeners = new Set<WatchListener>();
  private started = false;
  private stopped = false;
  private everLive = false;
  private attempt = 0;
  /** Bumped by every attempt: callbacks of a superseded stream or call are ignored. */
  private generation = 0;
  /** The parts of a snapshot received so far on stream `gen` (a newer stream starts afresh). */
  private snapshotParts: { gen: number; checks: CheckMsg[] } | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly connectTimeoutMs: number;
  private readonly backoff: Backoff;
  private readonly idleTimeoutMs: number;

  constructor(private readonly opts: WatchClientOptions) {
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 3000;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.idleTimeoutMs = opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  }

  /** One GetProject with the connect deadline, for the start-up check; rejects with the gRPC error. */
  async probe(): Promise<ProjectMsg> {
    return this.channel().getProject(this.connectTimeoutMs);
  }

  subscribe(listener: WatchListener): () => void {
    this.listeners.add(listener);
    listener({ type: 'connection', connection: this.connection });
    if (!this.started) {
      this.started = true;
      void this.connect();
    }
    return () => this.listeners.delete(listener);
  }

  getCheck(id: string, limit: number): Promise<CheckDetailMsg> {
    return this.channel().getCheck(id, limit);
  }

  listPings(id: string, beforeN: number, pageSize: number): Promise<ListPingsResponseMsg> {
    return this.channel().listPings(id, beforeN, pageSize);
  }

  listFlips(id: string, beforeRevision: number, pageSize: number): Promise<ListFlipsResponseMsg> {
    return this.channel().listFlips(id, beforeRevision, pageSize);
  }

  getPingBody(id: string, n: number, maxBytes: number): Promise<PingBodyMsg> {
    return this.channel().getPingBody(id, n, maxBytes);
  }

  pauseCheck(id: string): Promise<CheckMsg> {
    return this.channel().pauseCheck(id);
  }

  resumeCheck(id: string): Promise<CheckMsg> {
    return this.channel().resumeCheck(id);
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.clearTimers();
    this.stream?.cancel();
    this.stream = null;
    this.rpc?.close();
    this.rpc = null;
    this.listeners.clear();
  }

  private channel(): CheckdRpc {
    return (this.rpc ??= new CheckdRpc(this.opts.address, this.opts.apiKey));
  }

  private emit(update: WatchUpdate): void {
    for (const fn of this.listeners) fn(update);
  }

  private setConnection(connection: ConnectionInfo): void {
    // The link was lost when the first failure after a live stretch came; later failures keep that time.
    if (connection.state === 'reconnecting') connection.since = this.connection.since ?? Date.now();
    this.connection = connection;
    this.emit({ type: 'connection', connection });
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.generation;
    if (this.attempt > 0) {
      // A fresh channel per retry: a channel that saw the daemon die may sit in
      // its own backoff; a new one dials at once.
      this.rpc?.close();
      this.rpc = null;
    }
    const rpc = this.channel();
    let project: ProjectMsg;
    try {
      project = await rpc.getProject(this.connectTimeoutMs);
    } catch (err) {
      if (gen !== this.generation) return;
      const refused = grpcCode(err) === grpc.status.UNAUTHENTICATED;
      // A refused key will not start working by hammering: retry at the slowest pace.
      this.retry(refused ? `API key refused (${describeGrpcError(err)})` : describeGrpcError(err), refused ? this.backoff.maxMs : undefined);
      return;
    }
    if (gen !== this.generation) return;
    // Another project behind the same address, another log (the daemon now runs
    // on another data directory, or a restored backup), or a log that went
    // backwards: our revision means nothing there.
    if (
      (this.projectId !== null && project.id !== this.projectId) ||
      (this.logId !== null && project.log_id !== this.logId) ||
      project.revision < this.revision
    ) {
      this.revision = 0;
    }
    this.projectId = project.id;
    this.logId = project.log_id;
    this.emit({ type: 'project', project });

    const stream = rpc.watch(this.revision);
    this.stream = stream;
    stream.on('data', (ev: WatchEventMsg) => this.onEvent(ev, gen));
    // The status event carries the same code; this only keeps the error from being unhandled.
    stream.on('error', () => {});
    stream.on('status', (status: grpc.StatusObject) => this.onStreamEnd(status, gen));
    this.armIdle(gen);
    this.everLive = true;
    this.setConnection({ state: 'live', attempt: 0, retryAt: 0, error: null });
  }

  private onEvent(ev: WatchEventMsg, gen: number): void {
    if (this.stopped) return;
    if (gen === this.generation) {
      // Data flows: the link is good, so the next failure starts the backoff afresh.
      this.attempt = 0;
      this.armIdle(gen);
    }
    if (ev.type === 'EVENT_TYPE_SNAPSHOT') {
      if (gen !== this.generation) return;
      // A big project's snapshot comes in parts; the app gets it whole, once.
      const parts = this.snapshotParts?.gen === gen ? this.snapshotParts : (this.snapshotParts = { gen, checks: [] });
      for (const c of ev.checks) parts.checks.push(c);
      if (ev.snapshot_continues) return;
      this.snapshotParts = null;
      ev = { ...ev, checks: parts.checks, snapshot_continues: false };
      this.revision = ev.revision;
    } else if (ev.type === 'EVENT_TYPE_HEARTBEAT') {
      this.revision = Math.max(this.revision, ev.revision);
    } else {
      // A superseded stream may still deliver what it had buffered; those
      // events are valid, only a repeat is not.
      if (ev.revision <= this.revision) return;
      this.revision = ev.revision;
    }
    this.emit({ type: 'event', event: ev });
  }

  private onStreamEnd(status: grpc.StatusObject, gen: number): void {
    if (gen !== this.generation || this.stopped) return;
    this.stream = null;
    this.clearTimers();
    const why = status.code === grpc.status.OK ? 'the daemon closed the stream' : describeGrpcError(status);
    switch (status.code) {
      case grpc.status.OUT_OF_RANGE:
      case grpc.status.INVALID_ARGUMENT:
        // The revision left the retained log, or is ahead of a reset log: start over with a snapshot.
        this.revision = 0;
        return this.retry(why, 0);
      case grpc.status.RESOURCE_EXHAUSTED:
        // We were too slow; resume at once from where we are, the daemon kept the rest.
        return this.retry(why, 0);
      default:
        return this.retry(why);
    }
  }

  private retry(error: string, delayMs?: number): void {
    if (this.stopped) return;
    this.clearTimers();
    this.attempt++;
    const wait = delayMs ?? backoffDelay(this.attempt, this.backoff);
    this.setConnection({
      state: this.everLive ? 'reconnecting' : 'connecting',
      attempt: this.attempt,
      retryAt: Date.now() + wait,
      error,
    });
    this.retryTimer = setTimeout(() => void this.connect(), wait);
    this.retryTimer.unref();
  }

  private armIdle(gen: number): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (gen !== this.generation || this.stopped) return;
      // Invalidate first so the CANCELLED status of our own cancel is ignored.
      this.generation++;
      this.stream?.cancel();
      this.stream = null;
      const ms = this.idleTimeoutMs;
      this.retry(`no data for ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`, 0);
    }, this.idleTimeoutMs);
    this.idleTimer.unref();
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.retryTimer = this.idleTimer = null;
  }
}
