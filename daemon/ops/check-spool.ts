// The text of each check of a large import between reading the file and
// writing the checks, in spool files, one per pair of leading hex digits of
// the check's uuid. Each file's texts then become the checks' records, in
// uuid order, written back over them (spool-records.ts): the store writes the
// records in that order. Reading each check back from the export file instead
// took one read per check, in an order unrelated to the file's.
//
// The files are unlinked as soon as they are open: nothing is left behind,
// whatever ends the import. They go to the system's temporary directory
// (TMPDIR), which needs about as much room as the export file's checks.
import { closeSync, ftruncateSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpsError } from './errors.js';

/** One spool file per value of a uuid's first two hex digits. */
const SPOOLS = 256;
/** Bytes gathered per spool file before they are written. */
const SPOOL_BUFFER = 64 * 1024;
/** Each entry: the check's number, the byte length of its text, the text (UTF-8). */
export const HEADER = 8;

/** Which spool file a uuid goes to: its first two hex digits (any other value goes to the first). */
function spoolOf(uuid: unknown): number {
  const n = typeof uuid === 'string' ? Number.parseInt(uuid.slice(0, 2), 16) : 0;
  return Number.isInteger(n) && n >= 0 && n < SPOOLS ? n : 0;
}

/** The spool files once every text is written: descriptor and size of each, by its pair of leading digits. */
export interface SpoolFiles {
  fds: readonly number[];
  sizes: readonly number[];
}

/** Read a whole spool file of `size` bytes into a new buffer. */
export function readSpoolFile(fd: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  for (let got = 0; got < size; ) {
    const read = readSync(fd, bytes, got, size - got, got);
    if (read === 0) throw new OpsError("the import's spool was cut short");
    got += read;
  }
  return bytes;
}

/** Replace the content of a spool file with the first `length` bytes of `bytes`. */
export function rewriteSpoolFile(fd: number, bytes: Uint8Array, length: number): void {
  try {
    ftruncateSync(fd, length);
    for (let put = 0; put < length; ) put += writeSync(fd, bytes, put, length - put, put);
  } catch (err) {
    throw new OpsError(`cannot write the import's spool: ${(err as Error).message}`);
  }
}

/**
 * Where each entry of a spool file starts. An entry is the check's number,
 * the byte length of what it holds, and that (`extra` bytes more after the
 * header for the entries of records, which add the uuid).
 */
export function spoolEntries(bytes: Buffer, size: number, extra = 0): number[] {
  const starts: number[] = [];
  for (let at = 0; at < size; at += HEADER + extra + bytes.readUInt32LE(at + 4)) starts.push(at);
  return starts;
}

/** The check number of the entry at `at`. */
export const entryNumber = (bytes: Buffer, at: number): number => bytes.readUInt32LE(at);

/** The text (UTF-8) of the entry at `at`. */
export const entryText = (bytes: Buffer, at: number): string => bytes.toString('utf8', at + HEADER, at + HEADER + bytes.readUInt32LE(at + 4));

export class CheckSpool {
  private readonly fds: number[] = [];
  private readonly buffers: Buffer[] = [];
  private readonly filled = new Int32Array(SPOOLS);
  private readonly sizes = new Float64Array(SPOOLS);

  constructor(private readonly dir = tmpdir()) {
    let spoolDir: string;
    try {
      spoolDir = mkdtempSync(join(dir, 'checkd-import-'));
    } catch (err) {
      throw new OpsError(`cannot make the import's spool in ${dir}: ${(err as Error).message}`);
    }
    try {
      for (let i = 0; i < SPOOLS; i++) {
        const path = join(spoolDir, String(i));
        this.fds.push(openSync(path, 'w+', 0o600));
        unlinkSync(path);
        this.buffers.push(Buffer.allocUnsafe(SPOOL_BUFFER));
      }
    } catch (err) {
      this.close();
      throw new OpsError(`cannot make the import's spool in ${dir}: ${(err as Error).message}`);
    } finally {
      rmSync(spoolDir, { recursive: true, force: true });
    }
  }

  /** The text (UTF-8) of check number `n`, whose uuid says which spool file it goes to. */
  add(n: number, uuid: unknown, text: Uint8Array): void {
    const s = spoolOf(uuid);
    const length = text.length;
    if (this.filled[s]! + HEADER + length > this.buffers[s]!.length) this.flush(s);
    // A check larger than the buffer (a long description) gets a buffer of its own size.
    if (HEADER + length > this.buffers[s]!.length) this.buffers[s] = Buffer.allocUnsafe(HEADER + length);
    const buf = this.buffers[s]!;
    const at = this.filled[s]!;
    buf.writeUInt32LE(n, at);
    buf.writeUInt32LE(length, at + 4);
    buf.set(text, at + HEADER);
    this.filled[s] = at + HEADER + length;
  }

  private flush(s: number): void {
    const length = this.filled[s]!;
    if (length === 0) return;
    try {
      writeSync(this.fds[s]!, this.buffers[s]!, 0, length, this.sizes[s]!);
    } catch (err) {
      throw new OpsError(`cannot write the import's spool in ${this.dir}: ${(err as Error).message}`);
    }
    this.sizes[s]! += length;
    this.filled[s] = 0;
    if (this.buffers[s]!.length > SPOOL_BUFFER) this.buffers[s] = Buffer.allocUnsafe(SPOOL_BUFFER);
  }

  /** Write what is still buffered: each file then holds all its texts (and nothing more can be added). */
  seal(): SpoolFiles {
    for (let s = 0; s < SPOOLS; s++) this.flush(s);
    this.buffers.length = 0;
    return { fds: this.fds, sizes: Array.from(this.sizes) };
  }

  close(): void {
    for (const fd of this.fds) closeSync(fd);
    this.fds.length = 0;
  }
}
