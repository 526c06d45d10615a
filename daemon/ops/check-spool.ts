// The text of each check of a large import between reading the file and
// writing the checks, in spool files, one per pair of leading hex digits of
// the check's uuid: they come back a spool file at a time, which the import
// sorts into uuid order, the order the store writes records in. Reading each
// check back from the export file instead took one read per check, in an
// order unrelated to the file's.
//
// The files are unlinked as soon as they are open: nothing is left behind,
// whatever ends the import. They go to the system's temporary directory
// (TMPDIR), which needs about as much room as the export file's checks.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpsError } from './errors.js';

/** One spool file per value of a uuid's first two hex digits. */
const SPOOLS = 256;
/** Bytes gathered per spool file before they are written. */
const SPOOL_BUFFER = 64 * 1024;
/** Each entry: the check's number, the byte length of its text, the text (UTF-8). */
const HEADER = 8;

/** Which spool file a uuid goes to: its first two hex digits (any other value goes to the first). */
function spoolOf(uuid: unknown): number {
  const n = typeof uuid === 'string' ? Number.parseInt(uuid.slice(0, 2), 16) : 0;
  return Number.isInteger(n) && n >= 0 && n < SPOOLS ? n : 0;
}

/** The texts of one spool file, valid until the next file is read. */
export interface SpoolFile {
  /** How many texts it holds, in the order they were added. */
  count: number;
  /** The number of the check whose text is the `i`th. */
  n(i: number): number;
  text(i: number): string;
}

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

  /**
   * The texts added, a spool file at a time, in the order of the uuids'
   * leading digits. The spool is closed at the end.
   */
  *files(): Generator<SpoolFile> {
    for (let s = 0; s < SPOOLS; s++) this.flush(s);
    this.buffers.length = 0;
    // One buffer for every file, and each text made a string only when it is
    // asked for: what outlives V8's young collections stays in the heap until
    // its next full one, and a spool file's texts would be megabytes.
    let bytes = Buffer.allocUnsafe(0);
    for (let s = 0; s < SPOOLS; s++) {
      const size = this.sizes[s]!;
      if (size === 0) continue;
      if (bytes.length < size) bytes = Buffer.allocUnsafe(Math.max(size, bytes.length * 2));
      for (let got = 0; got < size; ) {
        const read = readSync(this.fds[s]!, bytes, got, size - got, got);
        if (read === 0) throw new OpsError(`the import's spool in ${this.dir} was cut short`);
        got += read;
      }
      const starts: number[] = [];
      for (let at = 0; at < size; at += HEADER + bytes.readUInt32LE(at + 4)) starts.push(at);
      const file = bytes;
      yield {
        count: starts.length,
        n: (i) => file.readUInt32LE(starts[i]!),
        text: (i) => file.toString('utf8', starts[i]! + HEADER, starts[i]! + HEADER + file.readUInt32LE(starts[i]! + 4)),
      };
    }
    this.close();
  }

  close(): void {
    for (const fd of this.fds) closeSync(fd);
    this.fds.length = 0;
  }
}
