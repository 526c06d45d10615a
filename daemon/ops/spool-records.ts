// The import's spool, second pass: each spool file's texts become the checks'
// records, in the store's encoding and in uuid order, written back over the
// texts. A worker thread does it for one spool file after another while the
// import's main thread sorts and writes the indexes (record-worker.ts), so
// that parsing and encoding the checks overlaps that work instead of following
// it; the main thread then only puts the records as they are.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { compareStrings } from '../store/key-order.js';
import type { CheckEncoding, EncodedCheck } from '../store/store.js';
import { checkFromJson } from './export-fields.js';
import { HEADER, entryNumber, entryText, readSpoolFile, rewriteSpoolFile, spoolEntries, type SpoolFiles } from './check-spool.js';
import { OpsError } from './errors.js';

/** A record entry: the header of check-spool.ts, then the check's uuid (ASCII), then the record. */
const UUID_BYTES = 36;

/** What making the records needs besides the texts: the fields the file's checks take from elsewhere. */
export interface RecordFields {
  /** The project ids, by their place in the file. */
  projects: readonly string[];
  /** Each check's project: its place in `projects`, by the check's number. */
  projectOf: Float64Array;
  /** Each check's createdAt as the store writes it, by the check's number. */
  createdAt: Float64Array;
}

type EncodeRecord = CheckEncoding['encode'];

/**
 * Turn spool file `fd`, `size` bytes of texts, into the records of its
 * checks in uuid order; returns the file's new size.
 */
export function recordSpoolFile(fd: number, size: number, fields: RecordFields, encode: EncodeRecord): number {
  const texts = readSpoolFile(fd, size);
  const checks = spoolEntries(texts, size).map((at) => {
    const n = entryNumber(texts, at);
    const check = checkFromJson(JSON.parse(entryText(texts, at)) as Record<string, unknown>, fields.projects[fields.projectOf[n]!]!);
    check.createdAt = fields.createdAt[n]!;
    return { n, check };
  });
  checks.sort((a, b) => compareStrings(a.check.uuid, b.check.uuid));
  let out = Buffer.allocUnsafe(size);
  let length = 0;
  for (const { n, check } of checks) {
    const record = encode(check);
    const end = length + HEADER + UUID_BYTES + record.length;
    if (end > out.length) {
      const bigger = Buffer.allocUnsafe(Math.max(end, out.length * 2));
      out.copy(bigger, 0, 0, length);
      out = bigger;
    }
    out.writeUInt32LE(n, length);
    out.writeUInt32LE(record.length, length + 4);
    out.write(check.uuid, length + HEADER, UUID_BYTES, 'latin1');
    out.set(record, length + HEADER + UUID_BYTES);
    length = end;
  }
  rewriteSpoolFile(fd, out, length);
  return length;
}

/** The records of a spool file that recordSpoolFile made, `size` bytes, in uuid order. */
export function readRecordFile(fd: number, size: number): EncodedCheck[] {
  // A buffer of its own: the records are views of it until their transaction is written.
  const bytes = readSpoolFile(fd, size);
  return spoolEntries(bytes, size, UUID_BYTES).map((at) => {
    const start = at + HEADER + UUID_BYTES;
    return { n: entryNumber(bytes, at), uuid: bytes.toString('latin1', at + HEADER, start), record: bytes.subarray(start, start + bytes.readUInt32LE(at + 4)) };
  });
}

/** Thrown on the main thread for a record whose uuid is not that of its check number: the spool is not what was written. */
export function spoolMismatch(uuid: string): OpsError {
  return new OpsError(`the import's spool does not hold what was read (check ${uuid})`);
}

/** What the record worker is given. */
export interface RecordWorkerData {
  dataDir: string;
  files: SpoolFiles;
  fields: RecordFields;
}

/** From the record worker: a spool file holds its records now (`size` bytes), all are made, or why not. */
export type RecordWorkerReply = { file: number; size: number } | { done: true } | { error: string };

/** The spool files as their records are made, in the order of the files. */
export interface RecordMaking {
  ready: AsyncIterable<{ file: number; size: number }>;
  /** Stop making them (the import ends before it took them all). */
  stop(): Promise<void>;
}

/**
 * Start making the records of every spool file, on a worker thread. Where the
 * worker's script is not built (the tests run the sources), they are made on
 * this thread instead, each file when it is asked for.
 */
export function makeRecords(
  encoding: CheckEncoding,
  files: SpoolFiles,
  fields: RecordFields,
  script = new URL('./record-worker.js', import.meta.url),
): RecordMaking {
  if (!existsSync(fileURLToPath(script))) return makeInThread(encoding.encode, files, fields);
  const worker = new Worker(script, { workerData: { dataDir: encoding.dataDir, files, fields } satisfies RecordWorkerData });
  const replies: RecordWorkerReply[] = [];
  let wake: (() => void) | null = null;
  const hear = (reply: RecordWorkerReply) => {
    replies.push(reply);
    wake?.();
  };
  worker.on('message', hear);
  worker.on('error', (err) => hear({ error: err.message }));
  worker.on('exit', () => hear({ error: 'the thread that makes the records ended' }));
  return {
    ready: (async function* () {
      for (;;) {
        if (replies.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const reply = replies.shift()!;
        if ('error' in reply) throw new OpsError(`cannot make the imported checks' records: ${reply.error}`);
        if ('done' in reply) return;
        yield reply;
      }
    })(),
    stop: async () => {
      await worker.terminate();
    },
  };
}

function makeInThread(encode: EncodeRecord, files: SpoolFiles, fields: RecordFields): RecordMaking {
  return {
    ready: (async function* () {
      for (let file = 0; file < files.fds.length; file++) {
        const size = files.sizes[file]!;
        if (size > 0) yield { file, size: recordSpoolFile(files.fds[file]!, size, fields, encode) };
      }
    })(),
    stop: () => Promise.resolve(),
  };
}
