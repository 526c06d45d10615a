// `checkd import` leaves room beside each check's record (store/bulk-load.ts
// RECORD_ROOM): a first ping on every imported check, which makes each record
// a few bytes larger, must not split the checks' pages in two.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../daemon/cli/admin.js';
import { newUuid } from '../../daemon/domain/ids.js';
import { closeDb, openDb } from '../../daemon/store/db.js';
import { importData, writeExport } from '../../daemon/ops/transfer.js';
import { openStore, plantChecks } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';

const CHECKS = 4000;

/** Leaf pages of the checks' B-tree in a closed data dir. */
async function checkLeafPages(dir: string): Promise<number> {
  const db = openDb(dir, { readOnly: true });
  try {
    return (db.checks.getStats() as { treeLeafPageCount: number }).treeLeafPageCount;
  } finally {
    await closeDb(db);
  }
}

describe('checkd import', () => {
  it("leaves room on the checks' pages for what a first ping adds to each", async () => {
    const source = tempDir('checkd-room-src-');
    const now = Date.now();
    const projectId = newUuid();
    const store = openStore(source);
    await store.transact(() =>
      store.insertProjectInTxn({ id: projectId, name: 'p', checkLimit: CHECKS, pingLogLimit: 100, pingKey: 'pk' + 'x'.repeat(20), badgeKey: newUuid(), createdAt: now }, now),
    );
    await plantChecks(store, projectId, CHECKS, {
      createdAt: now,
      shape: (c, i) => {
        c.name = `job ${i}`;
        c.slug = `job-${i}`;
      },
    });
    const file = join(tempDir('checkd-room-file-'), 'export.json');
    let text = '';
    writeExport(store, (part) => (text += part), now);
    writeFileSync(file, text);
    await store.close();

    const target = tempDir('checkd-room-dst-');
    await importData(target, file, { replace: false }, makeOutput(true, () => {}));
    const imported = await checkLeafPages(target);

    const loaded = openStore(target);
    const checks = loaded.listChecks(projectId);
    expect(checks).toHaveLength(CHECKS);
    expect(checks.map((c) => c.name).sort()).toEqual(Array.from({ length: CHECKS }, (_, i) => `job ${i}`).sort());
    // What a first ping does to a new check's record: status, times, the count and where its ping is.
    await loaded.transact(() => {
      for (const [i, c] of checks.entries()) {
        loaded.putCheckStatusInTxn({ ...c, status: 'up', lastPing: now + i, alertAfter: now + i + 86_400_000, nPings: 1, lastPingRev: 1_000_000 + i });
      }
    });
    expect(loaded.getCheck(checks[0]!.uuid)?.lastPingRev).toBe(1_000_000);
    await loaded.close();

    const pinged = await checkLeafPages(target);
    // Without the room every page splits in two (about twice as many).
    expect(pinged).toBeLessThanOrEqual(Math.ceil(imported * 1.1));
  });
});
