// key-size.ts against a real LMDB environment: every key it lets through is
// stored and read back, and the keys LMDB refuses are the ones it stops.
import { describe, expect, it } from 'vitest';
import { open, type RootDatabase } from 'lmdb';
import { keyFits, MAX_KEY_BYTES } from '../../daemon/store/key-size.js';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/temp.js';

let root: RootDatabase;

setupSuite(() => {
  root = open({ path: tempDir('checkd-key-size-'), noSubdir: false });
  onCleanup(() => root.close());
});

/** Whether LMDB takes `key` for a put (and a get). */
function lmdbTakes(key: string | Array<string | number>): boolean {
  try {
    root.putSync(key, 1);
    expect(root.get(key)).toBe(1);
    return true;
  } catch {
    return false;
  }
}

describe('keyFits', () => {
  it('whatever it lets through LMDB stores, up to a few bytes below the bound', () => {
    const uuid = '7c9e6679-7425-40de-944c-e07dc224f1e5';
    for (const char of ['a', 'é', '€', '😀']) {
      let fitted = 0;
      // Lengths around the bound for this character's UTF-8 size.
      const near = Math.floor(MAX_KEY_BYTES / Buffer.byteLength(char));
      for (let n = near - 40; n <= near + 5; n++) {
        const slug = char.repeat(n);
        for (const key of [slug, [uuid, slug, uuid], [uuid, slug, '\uffff'], [uuid, 12345.5, slug]]) {
          if (!keyFits(key)) continue;
          expect(lmdbTakes(key), `${char} x ${n} in ${Array.isArray(key) ? key.length : 1}`).toBe(true);
          fitted = Math.max(fitted, Buffer.byteLength(slug));
        }
      }
      // Not too cautious: a plain string key is let through within 8 bytes of what LMDB takes.
      expect(fitted, char).toBeGreaterThanOrEqual(MAX_KEY_BYTES - 8);
    }
  });

  it('what it stops, LMDB refuses (or is far beyond the bound)', () => {
    expect(lmdbTakes('a'.repeat(MAX_KEY_BYTES + 1))).toBe(false);
    expect(keyFits('a'.repeat(MAX_KEY_BYTES + 1))).toBe(false);
    expect(keyFits('é'.repeat(MAX_KEY_BYTES))).toBe(false);
    expect(keyFits('a'.repeat(1_000_000))).toBe(false);
    expect(keyFits(['a'.repeat(1000), 'b'.repeat(1000)])).toBe(false);
    expect(keyFits('a'.repeat(MAX_KEY_BYTES - 1))).toBe(true);
  });
});
