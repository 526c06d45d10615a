// Shared pieces of the gRPC acceptance suite: a typed client for checkd.v1
// built from the same proto file the daemon serves, promise wrappers for the
// unary calls, and a Watch recorder that tests can wait on. Clients and
// watchers close at cleanup (helpers/cleanup.ts). Not a test file.
import * as grpc from '@grpc/grpc-js';
import { loadCheckdProto } from '../../proto/checkd.js';
import type {
  CheckDetailMsg as WireCheckDetail,
  CheckMsg,
  FlipMsg,
  ListFlipsResponseMsg,
  ListPingsResponseMsg,
  PingBodyMsg,
  PingMsg,
  ProjectMsg,
  WatchEventMsg,
} from '../../proto/messages.js';
import { onCleanup } from '../helpers/cleanup.js';
import type { Store } from '../../daemon/store/store.js';
import { environmentOf } from '../../daemon/store/environment.js';

export type { CheckMsg, FlipMsg, PingMsg, ProjectMsg, WatchEventMsg };

/** GetCheck as the tests read it: the check is always set. */
export type CheckDetailMsg = Omit<WireCheckDetail, 'check'> & { check: CheckMsg };

type Unary<Req, Res> = (req: Req, md: grpc.Metadata, cb: grpc.requestCallback<Res>) => grpc.ClientUnaryCall;

export interface CheckdClient extends grpc.Client {
  GetProject: Unary<object, ProjectMsg>;
  ListChecks: Unary<{ page_size?: number; page_token?: string }, { checks: CheckMsg[]; revision: number; next_page_token: string }>;
  GetCheck: Unary<{ id: string; limit?: number }, CheckDetailMsg>;
  ListPings: Unary<{ id: string; before_n?: number; page_size?: number }, ListPingsResponseMsg>;
  ListFlips: Unary<{ id: string; before_revision?: number; page_size?: number }, ListFlipsResponseMsg>;
  GetPingBody: Unary<{ id: string; n: number; max_bytes?: number }, PingBodyMsg>;
  PauseCheck: Unary<{ id: string }, CheckMsg>;
  ResumeCheck: Unary<{ id: string }, CheckMsg>;
  Watch(req: { since_revision?: number }, md: grpc.Metadata): grpc.ClientReadableStream<WatchEventMsg>;
}

/**
 * A client on its own connection: grpc-js shares connections between clients
 * with equal options, and tests about flow control need one per watcher.
 * Closed at cleanup.
 */
export function connect(address: string): CheckdClient {
  const { client } = loadCheckdProto();
  const c = new client(address, grpc.credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  }) as unknown as CheckdClient;
  onCleanup(() => c.close());
  return c;
}

export function keyMetadata(key: string | null): grpc.Metadata {
  const md = new grpc.Metadata();
  if (key !== null) md.set('x-api-key', key);
  return md;
}

type UnaryName = 'GetProject' | 'ListChecks' | 'GetCheck' | 'ListPings' | 'ListFlips' | 'GetPingBody' | 'PauseCheck' | 'ResumeCheck';
type ReqOf<M extends UnaryName> = Parameters<CheckdClient[M]>[0];
type ResOf<M extends UnaryName> = CheckdClient[M] extends Unary<never, infer R> ? R : never;

/** One unary call as a promise. */
export function rpc<M extends UnaryName>(client: CheckdClient, method: M, req: ReqOf<M>, key: string | null): Promise<ResOf<M>> {
  return new Promise((resolve, reject) => {
    const fn = client[method] as unknown as Unary<ReqOf<M>, ResOf<M>>;
    fn.call(client, req, keyMetadata(key), (err, res) => (err ? reject(err) : resolve(res as ResOf<M>)));
  });
}

/** The status a unary call fails with (throws when it succeeds). */
export async function rpcError<M extends UnaryName>(
  client: CheckdClient,
  method: M,
  req: ReqOf<M>,
  key: string | null,
): Promise<grpc.ServiceError> {
  try {
    await rpc(client, method, req, key);
  } catch (err) {
    return err as grpc.ServiceError;
  }
  throw new Error(`${method} succeeded where a failure was expected`);
}

/**
 * Records one Watch stream, cancelled at cleanup. `paused` starts it without
 * consuming: gRPC flow control then stops the server once the client's
 * buffers are full.
 */
export class Watcher {
  readonly events: WatchEventMsg[] = [];
  error: grpc.ServiceError | null = null;
  ended = false;
  readonly call: grpc.ClientReadableStream<WatchEventMsg>;
  private readonly waiters = new Set<() => void>();

  constructor(client: CheckdClient, key: string | null, since = 0, opts: { paused?: boolean } = {}) {
    this.call = client.Watch({ since_revision: since }, keyMetadata(key));
    this.call.on('data', (e: WatchEventMsg) => {
      this.events.push(e);
      this.wake();
    });
    this.call.on('error', (err: grpc.ServiceError) => {
      this.error = err;
      this.ended = true;
      this.wake();
    });
    this.call.on('end', () => {
      this.ended = true;
      this.wake();
    });
    if (opts.paused) this.call.pause();
    onCleanup(() => this.cancel());
  }

  /** Events other than the snapshot and heartbeats. */
  get changes(): WatchEventMsg[] {
    return this.events.filter((e) => e.type !== 'EVENT_TYPE_SNAPSHOT' && e.type !== 'EVENT_TYPE_HEARTBEAT');
  }

  get lastRevision(): number {
    return this.events.at(-1)?.revision ?? 0;
  }

  resume(): void {
    this.call.resume();
  }

  /** Resolves once `done()` holds; rejects if the stream ends first or after `timeoutMs`. */
  until(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (done()) {
          finish();
          resolve();
        } else if (this.ended) {
          finish();
          reject(new Error(`watch ended (${this.error?.code ?? 'OK'} ${this.error?.details ?? ''}) before ${what}; got ${this.summary()}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out waiting for ${what}; got ${this.summary()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  untilRevision(revision: number): Promise<void> {
    return this.until(() => this.lastRevision >= revision, `revision ${revision}`);
  }

  untilChanges(n: number): Promise<void> {
    return this.until(() => this.changes.length >= n, `${n} change events`);
  }

  /** The status the stream ends with (a ServiceError; rejects if it ends OK or never). */
  ending(timeoutMs = 30_000): Promise<grpc.ServiceError> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!this.ended) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        if (this.error) resolve(this.error);
        else reject(new Error(`watch ended OK; got ${this.summary()}`));
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`watch did not end; got ${this.summary()}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  cancel(): void {
    if (!this.ended) this.call.cancel();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private summary(): string {
    const tail = this.events.slice(-5).map((e) => `${e.revision}:${e.type.replace('EVENT_TYPE_', '')}`);
    return `${this.events.length} events [... ${tail.join(', ')}]`;
  }
}

/** Wire names of the event types, short. */
export function types(events: WatchEventMsg[]): string[] {
  return events.map((e) => e.type.replace('EVENT_TYPE_', ''));
}

export function revisions(events: WatchEventMsg[]): number[] {
  return events.map((e) => e.revision);
}

/** Consecutive integers from `first`, `n` of them. */
export function range(first: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => first + i);
}

/** Revisions of the project's check events in the durable log, after `after`. */
export function logRevisions(store: Store, projectId: string, after = 0): number[] {
  const out: number[] = [];
  for (const { value } of environmentOf(store).events.getRange({ start: after + 1 })) {
    if (value.projectId === projectId && value.checkUuid !== null) out.push(value.rev);
  }
  return out;
}
