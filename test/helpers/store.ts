// A Store opened straight on a data dir, and checks planted straight into
// storage (the API would take seconds to make thousands, and cannot choose
// their fields freely).
import { randomUUID } from 'node:crypto';
import { newCheck } from '../../daemon/domain/check-input.js';
import type { CheckRecord } from '../../daemon/domain/types.js';
import { Store } from '../../daemon/store/store.js';
import { onCleanup } from './cleanup.js';
import { tempDir } from './temp.js';
import { tempDir as legacyTempDir } from './daemon.js';
import { afterEach } from 'vitest';

/** Store.open, closed at cleanup (closing it earlier as well is fine). */
export function openStore(path: string, opts?: { readOnly?: boolean }): Store {
  const store = Store.open(path, opts);
  onCleanup(() => store.close());
  return store;
}

/** A Store on a fresh temp data dir; both go at cleanup. */
export function openTempStore(prefix?: string): { dir: string; store: Store };
/** @deprecated the undo-list form, until every directory has moved to onCleanup. */
export function openTempStore(cleanups: Cleanups, prefix: string): { dir: { path: string }; store: Store };
export function openTempStore(a?: string | Cleanups, b?: string): { dir: string; store: Store } | { dir: { path: string }; store: Store } {
  if (Array.isArray(a)) {
    const dir = legacyTempDir(b);
    a.push(() => dir.cleanup());
    const store = Store.open(dir.path);
    a.push(() => store.close());
    return { dir, store };
  }
  const dir = tempDir(a);
  return { dir, store: openStore(dir) };
}

export type Cleanups = Array<() => Promise<unknown> | void>;

/** @deprecated A list of undo steps, run newest first after each test of the calling file. */
export function useCleanups(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  return cleanups;
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
