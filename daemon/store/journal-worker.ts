// Worker thread that writes the ping journal into the checks (journal.ts), so
// that decoding, encoding and B-tree work of the write-behind stay off the
// thread that answers pings. It opens the same environment; LMDB's write lock
// orders its transactions with the main thread's and other processes'. Being
// free to block, it applies in a synchronous transaction: each write goes
// straight to LMDB instead of through lmdb-js's queue, which costs less CPU
// per ping than queued writes.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDb, openDb } from './db.js';
import { applyJournalSync } from './journal.js';
import { commitFailureReason, installCommitFailureGuard } from './write-failure.js';

/** Move the journal (its oldest `maxBytes` of pings when given), or end. */
export type JournalWorkerRequest = { apply: true; maxBytes?: number } | 'close';

export interface JournalWorkerReply {
  /** The revision the checks are current with. */
  rev?: number;
  /** Why the journal could not be applied (describeWriteFailure's sentence). */
  error?: string;
}

const { dataDir } = workerData as { dataDir: string };
// A failed commit leaves lmdb-js promises unhandled here as on the main thread
// (write-failure.ts); unguarded, a full disk would end this thread.
installCommitFailureGuard(() => dataDir);
const db = openDb(dataDir);

parentPort!.on('message', (msg: JournalWorkerRequest) => {
  if (msg === 'close') {
    void closeDb(db).finally(() => parentPort!.close());
    return;
  }
  Promise.resolve()
    .then(() => applyJournalSync(db, msg.maxBytes))
    .then(
      (rev) => parentPort!.postMessage({ rev } satisfies JournalWorkerReply),
      async (err: unknown) => parentPort!.postMessage({ error: await commitFailureReason(dataDir, err) } satisfies JournalWorkerReply),
    );
});
