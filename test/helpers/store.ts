// A Store opened straight on a data dir, and checks planted straight into
// storage (the API would take seconds to make thousands, and cannot choose
// their fields freely).
import { randomUUID } from 'node:crypto';
import { newCheck } from '../../daemon/domain/check-input.js';
import type { CheckRecord } from '../../daemon/domain/types.js';
import { Store } from '../../daemon/store/store.js';
import type { Db } from '../../daemon/store/schema.js';
import { onCleanup } from './cleanup.js';
import { tempDir } from './temp.js';

/** Store.open, closed at cleanup (closing it earlier as well is fine). */
export function openStore(path: string, opts?: { readOnly?: boolean; mapSize?: number }): Store {
  const store = Store.open(path, opts);
  onCleanup(() => store.close());
  return store;
}

/** A Store on a fresh temp data dir; both go at cleanup. */
export function openTempStore(prefix?: string): { dir: string; store: Store } {
  const dir = tempDir(prefix);
  return { dir, store: openStore(dir) };
}

/**
 * `n` new checks of a project in one transaction, created at `createdAt`,
 * `createdAt + 1`, ... (their creation order); `shape` sets fields of the i-th
 * before it is stored.
 */
export async function plantChecks(
  store: Store,
  projectId: string,
  n: number,
  opts: { createdAt: number; shape?: (check: CheckRecord, i: number) => void },
): Promise<CheckRecord[]> {
  const made: CheckRecord[] = [];
  await store.transact(() => {
    for (let i = 0; i < n; i++) {
      const c = newCheck({ uuid: randomUUID(), badgeKey: randomUUID(), projectId, createdAt: opts.createdAt + i });
      opts.shape?.(c, i);
      store.insertCheckInTxn(c, opts.createdAt);
      made.push(c);
    }
  });
  return made;
}

/** One new check of a project, planted like plantChecks does. */
export async function plantCheck(
  store: Store,
  projectId: string,
  opts: { createdAt: number; shape?: (check: CheckRecord) => void },
): Promise<CheckRecord> {
  return (await plantChecks(store, projectId, 1, opts))[0]!;
}

/** A check's record in the store's encoding (encoderOf), decoded as the store reads it. */
export function decodeCheck(db: Db, bytes: Uint8Array): CheckRecord {
  // lmdb-js has the decoder; its typings do not say so.
  return (db.checks as unknown as { decoder: { decode(b: Uint8Array): CheckRecord } }).decoder.decode(bytes);
}

/** The numbers of the pings of a check that the ping log holds now, in order. */
export function storedPingNumbers(db: Db, uuid: string): number[] {
  return [...(db.pings?.getKeys() ?? [])].filter((key) => key[1] === uuid).map((key) => key[2]).sort((a, b) => a - b);
}
