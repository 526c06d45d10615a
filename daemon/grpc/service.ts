// The checkd.v1.Checkd service: thin handlers over the store, the check
// service and the watch hub. Status codes as gRPC intends them.
import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { serverServiceDefinition } from './proto.js';
import { loadCheckdProto, SERVICE_NAME } from '../../proto/checkd.js';
import { checkMsg, flipMsg, pingMsg } from './messages.js';
import { WatchHub } from './watch.js';
import { listChannelDeliveries } from '../notify/listing.js';
import { API_KEY_LENGTH, hasApiKeyLength, UNIQUE_KEY_RE, UUID_RE } from '../domain/ids.js';
import type { HealthImplementation } from 'grpc-health-check';
import type { AuthResult, ListPosition, Store } from '../store/store.js';
import type { CheckService } from '../service/checks.js';
import type { CheckRecord } from '../domain/types.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';

const DEFAULT_DETAIL_LIMIT = 50;
const MAX_DETAIL_LIMIT = 1000;

class RpcError extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
  }
}

export interface GrpcDeps {
  store: Store;
  checks: CheckService;
  clock: Clock;
  logger: Logger;
  hub: WatchHub;
}

function authenticate(store: Store, metadata: grpc.Metadata, access: 'read' | 'write'): AuthResult {
  const value = metadata.get('x-api-key')[0];
  const key = typeof value === 'string' ? value : (value?.toString('utf8') ?? '');
  if (key === '') throw new RpcError(grpc.status.UNAUTHENTICATED, 'missing api key (x-api-key metadata)');
  // Said apart from a missing one: an operator who did give a key learns it is the key's form.
  if (!hasApiKeyLength(key)) {
    throw new RpcError(grpc.status.UNAUTHENTICATED, `wrong api key (checkd keys are ${API_KEY_LENGTH} characters)`);
  }
  const auth = store.authenticate(key);
  if (!auth) throw new RpcError(grpc.status.UNAUTHENTICATED, 'wrong api key');
  if (access === 'write' && auth.readOnly) {
    throw new RpcError(grpc.status.PERMISSION_DENIED, 'read-only key: pause and resume need a read-write key');
  }
  return auth;
}

function findCheck(store: Store, auth: AuthResult, id: string): CheckRecord {
  if (UUID_RE.test(id)) {
    const check = store.getCheck(id);
    // Another project's check is reported as missing: its existence is not the caller's business.
    if (!check || check.projectId !== auth.project.id) throw new RpcError(grpc.status.NOT_FOUND, `no check ${id}`);
    return check;
  }
  if (UNIQUE_KEY_RE.test(id)) {
    const check = store.checkByUniqueKey(auth.project.id, id);
    if (!check) throw new RpcError(grpc.status.NOT_FOUND, `no check ${id}`);
    return check;
  }
  throw new RpcError(grpc.status.INVALID_ARGUMENT, 'id must be a check UUID or unique_key');
}

/**
 * Checks per ListChecks page at most: ~180 KB on the wire, far below gRPC's
 * 4 MiB default, and a few milliseconds of work (a whole project of 100,000
 * checks was an 18 MB message that held pings up for a second).
 */
const MAX_LIST_PAGE = 1000;

/** A ListChecks page token: the position in creation order, opaque to clients. */
function pageToken(pos: ListPosition): string {
  return Buffer.from(JSON.stringify([pos.createdAt, pos.uuid])).toString('base64url');
}

function parsePageToken(token: string): ListPosition | null {
  if (token === '') return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && Number.isFinite(v[0]) && typeof v[1] === 'string' && UUID_RE.test(v[1])) {
      return { createdAt: v[0] as number, uuid: v[1] };
    }
  } catch {
    // answered below
  }
  throw new RpcError(grpc.status.INVALID_ARGUMENT, 'page_token is not one ListChecks gave out');
}

/** Wraps a unary handler: errors become statuses, never crashes. */
function unary<Req, Res>(logger: Logger, fn: (req: Req, metadata: grpc.Metadata) => Promise<Res> | Res) {
  return (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
    Promise.resolve()
      .then(() => fn(call.request, call.metadata))
      .then(
        (res) => callback(null, res),
        (err: unknown) => {
          if (err instanceof RpcError) return callback({ code: err.code, details: err.message });
          logger.error({ err }, 'grpc call failed');
          callback({ code: grpc.status.INTERNAL, details: 'internal error' });
        },
      );
  };
}

export function addCheckdService(server: grpc.Server, health: HealthImplementation, deps: GrpcDeps): void {
  const { store, checks, clock, logger, hub } = deps;
  const proto = loadCheckdProto();

  server.addService(serverServiceDefinition(), {
    GetProject: unary(logger, (_req: object, md) => {
      const auth = authenticate(store, md, 'read');
      return {
        id: auth.project.id,
        name: auth.project.name,
        read_only: auth.readOnly,
        revision: store.revision(),
        log_id: store.currentLogId(),
        check_limit: auth.project.checkLimit,
        n_checks: store.countChecks(auth.project.id),
      };
    }),
    ListChecks: unary(logger, (req: { page_size: number; page_token: string }, md) => {
      const auth = authenticate(store, md, 'read');
      const after = parsePageToken(req.page_token);
      const size = req.page_size > 0 ? Math.min(req.page_size, MAX_LIST_PAGE) : MAX_LIST_PAGE;
      const revision = store.revision();
      const now = clock.now();
      const page = store.checksPage(auth.project.id, after, size);
      return {
        revision,
        checks: page.checks.map((c) => checkMsg(c, now, auth.readOnly)),
        next_page_token: page.next ? pageToken(page.next) : '',
      };
    }),
    GetCheck: unary(logger, (req: { id: string; limit: number }, md) => {
      const auth = authenticate(store, md, 'read');
      const check = findCheck(store, auth, req.id);
      const limit = Math.min(req.limit > 0 ? req.limit : DEFAULT_DETAIL_LIMIT, MAX_DETAIL_LIMIT);
      return {
        check: checkMsg(check, clock.now(), auth.readOnly),
        pings: store.listPings(check.uuid, Math.min(limit, auth.project.pingLogLimit)).map(pingMsg),
        flips: store
          .listFlips(check.uuid)
          .slice(0, limit)
          .map((f) => flipMsg(f, f.rev)),
      };
    }),
    PauseCheck: unary(logger, async (req: { id: string }, md) => {
      const auth = authenticate(store, md, 'write');
      const check = findCheck(store, auth, req.id);
      const result = await checks.pause(check.uuid);
      if (result.kind === 'missing') throw new RpcError(grpc.status.NOT_FOUND, `no check ${req.id}`);
      return checkMsg(result.check, clock.now(), false);
    }),
    ResumeCheck: unary(logger, async (req: { id: string }, md) => {
      const auth = authenticate(store, md, 'write');
      const check = findCheck(store, auth, req.id);
      const result = await checks.resume(check.uuid);
      if (result.kind === 'missing') throw new RpcError(grpc.status.NOT_FOUND, `no check ${req.id}`);
      if (result.kind === 'not-paused') throw new RpcError(grpc.status.FAILED_PRECONDITION, 'check is not paused');
      return checkMsg(result.check, clock.now(), false);
    }),
    ListChannels: unary(logger, (_req: object, md) => {
      const auth = authenticate(store, md, 'read');
      if (auth.readOnly) throw new RpcError(grpc.status.PERMISSION_DENIED, 'read-only key: ListChannels needs a read-write key');
      return {
        channels: listChannelDeliveries(store, auth.project.id).map((c) => ({
          id: c.id,
          name: c.name,
          kind: c.kind,
          last_status: c.state,
          last_error: c.error,
          last_attempt_ms: c.lastAttemptAt ?? 0,
          last_success_ms: c.lastSuccessAt ?? 0,
          last_duration_ms: c.lastDurationMs ?? 0,
          pending: c.pending,
          created_ms: c.createdAt,
        })),
      };
    }),
    Watch: (call: grpc.ServerWritableStream<{ since_revision: number }, never>) => {
      let auth: AuthResult;
      try {
        auth = authenticate(store, call.metadata, 'read');
      } catch (err) {
        const e = err as RpcError;
        call.emit('error', { code: e.code, details: e.message });
        return;
      }
      hub.open(call as never, auth, Number(call.request.since_revision) || 0);
    },
  });

  new ReflectionService(proto.definition).addToServer(server);
  health.setStatus(SERVICE_NAME, 'SERVING');
}
