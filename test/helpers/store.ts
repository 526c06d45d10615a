// Helpers for tests that work on a Store directly: undo lists run after each
// test, and many checks planted straight into storage (the API would take
// seconds to make thousands, and cannot choose their fields freely).
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import { newCheck } from '../../daemon/domain/check-input.js';
import type { CheckRecord } from '../../daemon/domain/types.js';
import { Store } from '../../daemon/store/store.js';
import { tempDir } from './daemon.js';

export type Cleanups = Array<() => Promise<unknown> | void>;

/** A list of undo steps, run newest first after each test of the calling file. */
export function useCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return cleanups;
}

/** A Store on a fresh temp data dir, closed and removed after the test by `cleanups`. */
export function openTempStore(cleanups: Cleanups, prefix: string): { dir: { path: string }; store: Store } {
  const dir = tempDir(prefix);
  cleanups.push(() => dir.cleanup());
  const store = Store.open(dir.path);
  cleanups.push(() => store.close());
  return { dir, store };
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
