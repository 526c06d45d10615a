// The gRPC side of checktop: one channel to the daemon, the API key on every
// call, promise-shaped unary calls with deadlines, and the Watch stream.
import * as grpc from '@grpc/grpc-js';
import { loadCheckdProto } from '../proto/checkd.js';
import type { CheckDetailMsg, CheckMsg, ListFlipsResponseMsg, ListPingsResponseMsg, PingBodyMsg, ProjectMsg, WatchEventMsg } from './wire.js';

/**
 * Keepalive pings find a dead link (an SSH tunnel that dropped, a laptop that
 * slept) within ~30 s even when no event is due; the daemon accepts pings every
 * 10 s. A local subchannel pool and a short reconnect backoff leave the retry
 * pace to WatchClient instead of grpc-js's own (up to two minutes) backoff.
 */
export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.keepalive_time_ms': 20_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.use_local_subchannel_pool': 1,
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 5000,
};

/** Deadline of a unary call made from the UI (details, pause, resume). */
export const CALL_TIMEOUT_MS = 5000;

type UnaryMethod = 'GetProject' | 'ListChecks' | 'GetCheck' | 'ListPings' | 'ListFlips' | 'GetPingBody' | 'PauseCheck' | 'ResumeCheck';

type RawClient = grpc.Client & {
  [m in UnaryMethod]: (
    req: object,
    md: grpc.Metadata,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res: unknown) => void,
  ) => grpc.ClientUnaryCall;
} & {
  Watch(req: { since_revision: number }, md: grpc.Metadata): grpc.ClientReadableStream<WatchEventMsg>;
};

export class CheckdRpc {
  private readonly client: RawClient;

  constructor(
    readonly address: string,
    private readonly apiKey: string,
  ) {
    const { client: Ctor } = loadCheckdProto();
    this.client = new Ctor(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS) as unknown as RawClient;
  }

  private metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    md.set('x-api-key', this.apiKey);
    return md;
  }

  private unary<T>(method: UnaryMethod, req: object, timeoutMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.client[method](req, this.metadata(), { deadline: Date.now() + timeoutMs }, (err, res) =>
        err ? reject(err) : resolve(res as T),
      );
    });
  }

  getProject(timeoutMs = CALL_TIMEOUT_MS): Promise<ProjectMsg> {
    return this.unary('GetProject', {}, timeoutMs);
  }

  getCheck(id: string, limit: number, timeoutMs = CALL_TIMEOUT_MS): Promise<CheckDetailMsg> {
    return this.unary('GetCheck', { id, limit }, timeoutMs);
  }

  /** Pings numbered below `beforeN` (0: the newest), newest first. */
  listPings(id: string, beforeN: number, pageSize: number, timeoutMs = CALL_TIMEOUT_MS): Promise<ListPingsResponseMsg> {
    return this.unary('ListPings', { id, before_n: beforeN, page_size: pageSize }, timeoutMs);
  }

  /** Flips recorded before `beforeRevision` (0: the newest), newest first. */
  listFlips(id: string, beforeRevision: number, pageSize: number, timeoutMs = CALL_TIMEOUT_MS): Promise<ListFlipsResponseMsg> {
    return this.unary('ListFlips', { id, before_revision: beforeRevision, page_size: pageSize }, timeoutMs);
  }

  getPingBody(id: string, n: number, maxBytes: number, timeoutMs = CALL_TIMEOUT_MS): Promise<PingBodyMsg> {
    return this.unary('GetPingBody', { id, n, max_bytes: maxBytes }, timeoutMs);
  }

  pauseCheck(id: string, timeoutMs = CALL_TIMEOUT_MS): Promise<CheckMsg> {
    return this.unary('PauseCheck', { id }, timeoutMs);
  }

  resumeCheck(id: string, timeoutMs = CALL_TIMEOUT_MS): Promise<CheckMsg> {
    return this.unary('ResumeCheck', { id }, timeoutMs);
  }

  /** No deadline: a Watch lives as long as the link does. */
  watch(sinceRevision: number): grpc.ClientReadableStream<WatchEventMsg> {
    return this.client.Watch({ since_revision: sinceRevision }, this.metadata());
  }

  close(): void {
    this.client.close();
  }
}

export function grpcCode(err: unknown): grpc.status | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : null;
}

/** "UNAVAILABLE: No connection established", short enough for a header line. */
export function describeGrpcError(err: unknown): string {
  const code = grpcCode(err);
  const details = (err as { details?: string } | null)?.details ?? (err instanceof Error ? err.message : String(err));
  // grpc-js appends an empty "Resolution note:" to some connection errors.
  const first = details.split('\n')[0]!.replace(/\s*Resolution note:\s*$/, '').trim();
  if (code === null) return first;
  const name = grpc.status[code] ?? `code ${code}`;
  return first ? `${name}: ${first}` : name;
}

export { grpc };
