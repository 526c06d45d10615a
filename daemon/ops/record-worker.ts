// Worker thread of `checkd import` that makes the checks' records from the
// spool's texts (spool-records.ts), one spool file after another, while the
// main thread writes the indexes. It opens the same environment for the
// store's encoding of a check, whose shared structures live in the database.
import { parentPort, workerData } from 'node:worker_threads';
import { closeDb, openDb } from '../store/db.js';
import { encoderOf } from '../store/schema.js';
import { recordSpoolFile, type RecordWorkerData, type RecordWorkerReply } from './spool-records.js';

const { dataDir, files, fields } = workerData as RecordWorkerData;
const post = (reply: RecordWorkerReply) => parentPort!.postMessage(reply);
const db = openDb(dataDir);
try {
  const encoder = encoderOf(db.checks);
  const encode = (check: unknown) => encoder.encode(check);
  for (let file = 0; file < files.fds.length; file++) {
    const size = files.sizes[file]!;
    if (size > 0) post({ file, size: recordSpoolFile(files.fds[file]!, size, fields, encode) });
  }
  post({ done: true });
} catch (err) {
  post({ error: (err as Error).message });
} finally {
  await closeDb(db);
}
