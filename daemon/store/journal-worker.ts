// Worker thread that writes the ping journal into the B-trees (journal.ts), so
// that decoding, encoding and B-tree work of the write-behind stay off the
// thread that answers pings. It opens the same environment; LMDB's write lock
// orders its transactions with the main thread's and other processes'.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDb, openDb } from './db.js';
import { applyJournalQueued } from './journal.js';

export interface JournalWorkerReply {
  /** The revision the B-trees are current with, or the failure. */
  rev?: number;
  error?: { message: string; code?: unknown; cause?: { message: string; code?: unknown } };
}

const db = openDb((workerData as { dataDir: string }).dataDir);

parentPort!.on('message', (msg: 'apply' | 'close') => {
  if (msg === 'close') {
    void closeDb(db).finally(() => parentPort!.close());
    return;
  }
  let rev = 0;
  applyJournalQueued(db)
    .then((r) => {
      rev = r;
      return db.root.flushed;
    })
    .then(
      () => parentPort!.postMessage({ rev } satisfies JournalWorkerReply),
      async (err: Error & { code?: unknown; commitError?: PromiseLike<unknown> }) => {
        // A failed commit carries LMDB's reason in commitError (write-failure.ts).
        const cause = await Promise.resolve(err.commitError).then(
          () => undefined,
          (e: Error & { code?: unknown }) => ({ message: String(e?.message ?? e), code: e?.code }),
        );
        parentPort!.postMessage({ error: { message: err.message, code: err.code, cause } } satisfies JournalWorkerReply);
      },
    );
});
