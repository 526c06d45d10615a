// HTTP answer for a write the store could not commit (full disk, I/O error),
// or refused because the storage alarm is on: 503 with a JSON body and
// Retry-After, the reason in the log. The client is
// not told paths or free space; the operator finds them in the log line.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.js';
import { describeWriteFailure, isCommitFailure, StorageAlarmError, StorageWriteError, underlyingCommitError } from '../store/write-failure.js';

export function isStorageFailure(err: unknown): boolean {
  return isCommitFailure(err) || err instanceof StorageWriteError;
}

export async function replyStorageUnavailable(
  err: unknown,
  store: Store,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (err instanceof StorageAlarmError) {
    // The alarm was logged once when it went on; each refusal is expected meanwhile.
    req.log.debug({ method: req.method }, `write refused: ${err.reason}`);
    return unavailable(reply, err.refusal);
  }
  const cause = err instanceof StorageWriteError ? undefined : await underlyingCommitError(err);
  const reason = err instanceof StorageWriteError ? err.reason : describeWriteFailure(store.dataDir, cause);
  req.log.error(
    { method: req.method, code: (cause as NodeJS.ErrnoException | undefined)?.code, cause: cause?.message },
    `write refused, storage unavailable: ${reason}`,
  );
  return unavailable(reply, 'storage unavailable: the server cannot store data right now, try again later');
}

function unavailable(reply: FastifyReply, error: string): FastifyReply {
  return reply.code(503).header('Retry-After', '30').header('Cache-Control', 'no-store').type('application/json; charset=utf-8').send({ error });
}
