// HTTP answer for a write the store could not commit (full disk, I/O error):
// 503 with a JSON body and Retry-After, the reason in the log. The client is
// not told paths or free space; the operator finds them in the log line.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.js';
import { describeWriteFailure, isCommitFailure, StorageWriteError, underlyingCommitError } from '../store/write-failure.js';

export function isStorageFailure(err: unknown): boolean {
  return isCommitFailure(err) || err instanceof StorageWriteError;
}

export async function replyStorageUnavailable(
  err: unknown,
  store: Store,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const cause = err instanceof StorageWriteError ? undefined : await underlyingCommitError(err);
  const reason = err instanceof StorageWriteError ? err.reason : describeWriteFailure(store.dataDir, cause);
  req.log.error(
    { method: req.method, code: (cause as NodeJS.ErrnoException | undefined)?.code, cause: cause?.message },
    `write refused, storage unavailable: ${reason}`,
  );
  return reply
    .code(503)
    .header('Retry-After', '30')
    .header('Cache-Control', 'no-store')
    .type('application/json; charset=utf-8')
    .send({ error: 'storage unavailable: the server cannot store data right now, try again later' });
}
