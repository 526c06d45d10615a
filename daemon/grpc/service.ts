// The checkd.v1.Checkd service: thin handlers over the store, the check
// service and the watch hub. Status codes as gRPC intends them.
import * as grpc from '@grpc/grpc-js';
import { reflectionService, serverServiceDefinition } from './proto.js';
import { SERVICE_NAME } from '../../proto/checkd.js';
import { checkMsg, flipMsg, pingMsg, storageAlarmMsg } from './messages.js';
import type { PageTokens } from './page-token.js';
import { WatchHub } from './watch.js';
import { listChannelDeliveries } from '../notify/listing.js';
import { validateMuteInput } from '../domain/policy-input.js';
import { API_KEY_LENGTH, hasApiKeyLength, UNIQUE_KEY_RE, UUID_RE } from '../domain/ids.js';
import type { HealthImplementation } from 'grpc-health-check';
import { isCommitFailure, StorageAlarmError, StorageWriteError } from '../store/write-failure.js';
import type { AuthResult, ListPosition, Store } from '../store/store.js';
import type { CheckService } from '../service/checks.js';
import type { CheckRecord } from '../domain/types.js';
import type { Clock } from '../shared/clock.js';
import type { StorageReport } from '../domain/storage-alarm.js';
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
  pageTokens: PageTokens;
  /** The storage alarm now (GetProject); none in tests that make the service alone. */
  storage?: () => StorageReport;
}

function apiKeyOf(metadata: grpc.Metadata): string {
  const value = metadata.get('x-api-key')[0];
  return typeof value === 'string' ? value : (value?.toString('utf8') ?? '');
}

function authenticate(store: Store, metadata: grpc.Metadata, access: 'read' | 'write'): AuthResult {
  const key = apiKeyOf(metadata);
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
 * Checks per ListChecks page at most: far below gRPC's 4 MiB message default,
 * and little enough work that a page never holds pings up noticeably.
 */
const MAX_LIST_PAGE = 1000;

/** The position a ListChecks page token holds for this key; null for the first page. */
function parsePageToken(tokens: PageTokens, token: string, apiKey: string): ListPosition | null {
  if (token === '') return null;
  const pos = tokens.open(token, apiKey);
  if (pos && UUID_RE.test(pos.uuid)) return pos;
  throw new RpcError(grpc.status.INVALID_ARGUMENT, 'page_token is not one ListChecks gave out');
}

/** Pings and flips per ListPings / ListFlips page: the default, and at most. */
const DEFAULT_HISTORY_PAGE = 50;
const MAX_HISTORY_PAGE = 1000;

function historyPageSize(requested: number): number {
  return requested > 0 ? Math.min(requested, MAX_HISTORY_PAGE) : DEFAULT_HISTORY_PAGE;
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
          // The storage alarm, or a write the disk refused: retryable, as in HTTP's 503.
          if (err instanceof StorageAlarmError) return callback({ code: grpc.status.UNAVAILABLE, details: err.refusal });
          if (err instanceof StorageWriteError || isCommitFailure(err)) {
            logger.error({ err }, 'grpc write refused, storage unavailable');
            return callback({ code: grpc.status.UNAVAILABLE, details: 'storage unavailable: the server cannot store data right now, try again later' });
          }
          logger.error({ err }, 'grpc call failed');
          callback({ code: grpc.status.INTERNAL, details: 'internal error' });
        },
      );
  };
}

export function addCheckdService(server: grpc.Server, health: HealthImplementation, deps: GrpcDeps): void {
  const { store, checks, clock, logger, hub, pageTokens } = deps;
  const downSince = (c: CheckRecord) => store.downSince(c) ?? 0;

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
        storage_alarm: deps.storage ? storageAlarmMsg(deps.storage()) : null,
      };
    }),
    ListChecks: unary(logger, (req: { page_size: number; page_token: string }, md) => {
      const auth = authenticate(store, md, 'read');
      const apiKey = apiKeyOf(md);
      const after = parsePageToken(pageTokens, req.page_token, apiKey);
      const size = req.page_size > 0 ? Math.min(req.page_size, MAX_LIST_PAGE) : MAX_LIST_PAGE;
      const revision = store.revision();
      const now = clock.now();
      const page = store.checksPage(auth.project.id, after, size);
      return {
        revision,
        checks: page.checks.map((c) => checkMsg(c, now, auth.readOnly, downSince(c))),
        next_page_token: page.next ? pageTokens.seal(page.next, apiKey) : '',
      };
    }),
    GetCheck: unary(logger, (req: { id: string; limit: number }, md) => {
      const auth = authenticate(store, md, 'read');
      const check = findCheck(store, auth, req.id);
      const limit = Math.min(req.limit > 0 ? req.limit : DEFAULT_DETAIL_LIMIT, MAX_DETAIL_LIMIT);
      return {
        check: checkMsg(check, clock.now(), auth.readOnly, downSince(check)),
        pings: store.listPings(check.uuid, Math.min(limit, auth.project.pingLogLimit)).map(pingMsg),
        flips: store.listFlips(check.uuid, { limit }).map((f) => flipMsg(f, f.rev)),
      };
    }),
    ListPings: unary(logger, (req: { id: string; before_n: number; page_size: number }, md) => {
      const auth = authenticate(store, md, 'read');
      const check = findCheck(store, auth, req.id);
      const size = historyPageSize(req.page_size);
      const before = req.before_n > 0 ? req.before_n : Infinity;
      // One more than asked for says whether older pings remain.
      // The ping log may briefly hold a few more than its limit (it is swept in steps): not shown, as GetCheck does not.
      const oldestKept = check.nPings - auth.project.pingLogLimit;
      const pings = [...store.earlierPings(check, before, size + 1)].filter((p) => p.n > oldestKept);
      return { pings: pings.slice(0, size).map(pingMsg), more: pings.length > size };
    }),
    ListFlips: unary(logger, (req: { id: string; before_revision: number; page_size: number }, md) => {
      const auth = authenticate(store, md, 'read');
      const check = findCheck(store, auth, req.id);
      const size = historyPageSize(req.page_size);
      const beforeRev = req.before_revision > 0 ? req.before_revision : undefined;
      const flips = store.listFlips(check.uuid, { beforeRev, limit: size + 1 });
      return { flips: flips.slice(0, size).map((f) => flipMsg(f, f.rev)), more: flips.length > size };
    }),
    GetPingBody: unary(logger, (req: { id: string; n: number; max_bytes: number }, md) => {
      const auth = authenticate(store, md, 'read');
      const check = findCheck(store, auth, req.id);
      const ping = req.n > 0 ? store.getPing(check.uuid, req.n) : undefined;
      if (!ping) throw new RpcError(grpc.status.NOT_FOUND, `no ping ${req.n} of check ${req.id} in the ping log`);
      const body = ping.body ?? new Uint8Array(0);
      const cut = req.max_bytes > 0 && body.length > req.max_bytes;
      return { ping: pingMsg(ping), body: Buffer.from(cut ? body.subarray(0, req.max_bytes) : body), truncated: cut };
    }),
    PauseCheck: unary(logger, async (req: { id: string }, md) => {
      const auth = authenticate(store, md, 'write');
      const check = findCheck(store, auth, req.id);
      const result = await checks.pause(check.uuid);
      if (result.kind === 'missing') throw new RpcError(grpc.status.NOT_FOUND, `no check ${req.id}`);
      return checkMsg(result.check, clock.now(), false, downSince(result.check));
    }),
    ResumeCheck: unary(logger, async (req: { id: string }, md) => {
      const auth = authenticate(store, md, 'write');
      const check = findCheck(store, auth, req.id);
      const result = await checks.resume(check.uuid);
      if (result.kind === 'missing') throw new RpcError(grpc.status.NOT_FOUND, `no check ${req.id}`);
      if (result.kind === 'not-paused') throw new RpcError(grpc.status.FAILED_PRECONDITION, 'check is not paused');
      return checkMsg(result.check, clock.now(), false, downSince(result.check));
    }),
    MuteCheck: unary(logger, async (req: { id: string; seconds: number; until_ms: number }, md) => {
      const auth = authenticate(store, md, 'write');
      const check = findCheck(store, auth, req.id);
      const body = req.seconds > 0 ? { seconds: req.seconds } : req.until_ms > 0 ? { until: new Date(req.until_ms).toISOString() } : {};
      const input = validateMuteInput(body, clock.now());
      if (!input.ok) throw new RpcError(grpc.status.INVALID_ARGUMENT, input.error.replace(/^json validation error: /, ''));
      const result = await checks.mute(check.uuid, input.until);
      if (result.kind === 'missing') throw new RpcError(grpc.status.NOT_FOUND, `no check ${req.id}`);
      return checkMsg(result.check, clock.now(), false);
    }),
    UnmuteCheck: unary(logger, async (req: { id: string }, md) => {
      const auth = authenticate(store, md, 'write');
      const check = findCheck(store, auth, req.id);
      const result = await checks.unmute(check.uuid);
      if (result.kind === 'missing') throw new RpcError(grpc.status.NOT_FOUND, `no check ${req.id}`);
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

  reflectionService().addToServer(server);
  health.setStatus(SERVICE_NAME, 'SERVING');
}
