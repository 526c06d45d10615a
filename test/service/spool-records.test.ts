// The import's second pass over its spool: each spool file's texts become
// records in the store's encoding, in uuid order, on the built worker thread
// (as `checkd import` runs it) or on this one (as the sources run it).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CheckSpool } from '../../daemon/ops/check-spool.js';
import { makeRecords, readRecordFile, type RecordFields } from '../../daemon/ops/spool-records.js';
import { CHECK_FIELDS, toJson } from '../../daemon/ops/export-fields.js';
import { OpsError } from '../../daemon/ops/errors.js';
import { newCheck } from '../../daemon/domain/check-input.js';
import { closeDb, openDb } from '../../daemon/store/db.js';
import { encoderOf, type Db } from '../../daemon/store/schema.js';
import type { EncodedCheck } from '../../daemon/store/store.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { decodeCheck } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const BUILT_WORKER = pathToFileURL(join(REPO_ROOT, 'dist/daemon/ops/record-worker.js'));
const NOT_BUILT = pathToFileURL(join(REPO_ROOT, 'dist/daemon/ops/no-such-worker.js'));

let open: Array<{ spool: CheckSpool; db: Db }> = [];
afterEach(async () => {
  for (const { spool, db } of open) {
    spool.close();
    await closeDb(db);
  }
  open = [];
});

/** A spool of `count` checks' texts (check n in project n % 2), with a data dir to encode for. */
function spooled(count: number, text = (raw: Record<string, unknown>) => JSON.stringify(raw)) {
  const dataDir = tempDir('checkd-records-db-');
  const db = openDb(dataDir);
  const spool = new CheckSpool(tempDir('checkd-records-spool-'));
  open.push({ spool, db });
  const raws = Array.from({ length: count }, (_, n) =>
    toJson({ ...newCheck({ uuid: randomUUID(), badgeKey: randomUUID(), projectId: '', createdAt: T0 + n }), name: `job ${n}` }, CHECK_FIELDS),
  );
  raws.forEach((raw, n) => spool.add(n, raw.uuid, Buffer.from(text(raw))));
  const fields: RecordFields = {
    projects: ['p0', 'p1'],
    projectOf: Float64Array.from(raws, (_, n) => n % 2),
    createdAt: Float64Array.from(raws, (_, n) => T0 + 1000 * n),
  };
  const encoder = encoderOf(db.checks);
  return { db, raws, fields, files: spool.seal(), encoding: { dataDir, encode: (c: unknown) => encoder.encode(c) } };
}

async function allRecords(s: ReturnType<typeof spooled>, script: URL): Promise<EncodedCheck[]> {
  const making = makeRecords(s.encoding, s.files, s.fields, script);
  const out: EncodedCheck[] = [];
  try {
    for await (const { file, size } of making.ready) out.push(...readRecordFile(s.files.fds[file]!, size));
  } finally {
    await making.stop();
  }
  return out;
}

describe('the records made from the spool', () => {
  for (const [where, script] of [
    ['on the worker thread', BUILT_WORKER],
    ['on this thread', NOT_BUILT],
  ] as const) {
    it(`${where}: every check once, in uuid order, with its project and the createdAt given`, async () => {
      const s = spooled(600);
      const records = await allRecords(s, script);
      expect(records.map((r) => r.uuid)).toEqual(s.raws.map((r) => r.uuid as string).sort());
      for (const { n, uuid, record } of records) {
        expect(uuid).toBe(s.raws[n]!.uuid);
        expect(decodeCheck(s.db, record)).toMatchObject({ uuid, name: `job ${n}`, projectId: `p${n % 2}`, createdAt: T0 + 1000 * n });
      }
    });
  }

  it('says why the worker could not make them', async () => {
    const s = spooled(40, (raw) => (raw.name === 'job 7' ? '{"uuid": ' : JSON.stringify(raw)));
    const err = await allRecords(s, BUILT_WORKER).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(OpsError);
    expect((err as Error).message).toMatch(/^cannot make the imported checks' records: .*JSON/);
  });

  it('stops the worker when the import ends before taking them', async () => {
    const s = spooled(2000);
    const making = makeRecords(s.encoding, s.files, s.fields, BUILT_WORKER);
    await making.stop();
    // Nothing more comes once stopped: the worker's end is reported, not waited for.
    await expect(
      (async () => {
        for await (const _ of making.ready) void _;
      })(),
    ).rejects.toThrow(OpsError);
  });
});
