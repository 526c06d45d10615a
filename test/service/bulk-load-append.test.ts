// putInOrder (store/bulk-load.ts) on a real LMDB: keys that sort last go in
// with MDB_APPEND, and a key LMDB refuses to append (the tree has later keys,
// or JavaScript's string order is not the bytes' order) still goes in. An
// import must never lose an index entry to that refusal, which lmdb-js only
// reports through the put's result.
import { describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../daemon/store/db.js';
import { putInOrder } from '../../daemon/store/bulk-load.js';
import { tempDir } from '../helpers/temp.js';

describe('putInOrder', () => {
  it('writes every key, whether it sorts last or not', async () => {
    const db = openDb(tempDir('checkd-append-'));
    try {
      const index = db.checksByName!;
      await db.root.transaction(() => {
        putInOrder(index, ['p', 'b', '1'], '1');
        putInOrder(index, ['p', 'c', '2'], '2');
        // Sorts before what is there: refused as an append, put as usual.
        putInOrder(index, ['p', 'a', '3'], '3');
        // JavaScript puts the emoji (a surrogate pair, 0xD83D...) before U+FF01;
        // LMDB compares UTF-8 bytes (F0... after EF...), so an append in
        // JavaScript's order is refused for the second of them.
        putInOrder(index, ['q', '\u{1F600}', '4'], '4');
        putInOrder(index, ['q', '\uFF01', '5'], '5');
      });
      expect([...index.getRange()].map(({ value }) => value)).toEqual(['3', '1', '2', '5', '4']);
      // In a later transaction, after the keys already there.
      await db.root.transaction(() => {
        putInOrder(index, ['r', 'a', '6'], '6');
        putInOrder(index, ['a', 'a', '7'], '7');
      });
      expect(index.getKeysCount()).toBe(7);
      expect(index.get(['a', 'a', '7'])).toBe('7');
    } finally {
      await closeDb(db);
    }
  });
});
