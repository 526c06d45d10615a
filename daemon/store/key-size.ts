// LMDB keeps a key within one page: lmdb-js refuses a longer one (1978 bytes
// with the default 4 KiB pages) and throws, on a lookup as on a write. Keys
// that come from outside (a slug in a URL, a ping key, an id on the command
// line) are measured here first. A key that cannot be stored was never stored,
// so a lookup by it finds nothing; a write of one is refused before it starts.

/** lmdb-js's bound on a key for the page size checkd opens with (its default). */
export const MAX_KEY_BYTES = 1978;

/**
 * Whether `key` (a string, or a compound of strings and numbers) fits in an
 * LMDB key. lmdb-js encodes a string as its UTF-8 bytes after a type or
 * separator byte and a number in at most 9 bytes: the estimate errs long.
 */
export function keyFits(key: string | readonly (string | number)[]): boolean {
  const parts = typeof key === 'string' ? [key] : key;
  let bytes = 0;
  for (const part of parts) {
    // Every UTF-16 unit takes at least one byte: a long string is refused before it is measured.
    if (typeof part === 'string' && part.length > MAX_KEY_BYTES) return false;
    bytes += 1 + (typeof part === 'string' ? Buffer.byteLength(part, 'utf8') : 9);
  }
  return bytes <= MAX_KEY_BYTES;
}

/** Thrown before a write whose key LMDB could not hold: a value that escaped validation. */
export class KeyTooLongError extends Error {
  constructor(what: string) {
    super(`${what} is too long to be stored as an LMDB key (at most ${MAX_KEY_BYTES} bytes)`);
  }
}
