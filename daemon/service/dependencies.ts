// Check dependencies (alert-policies §5) inside write transactions: a
// depends_on must name another check of the same project without closing a
// loop, and deleting a check clears the depends_on of those that named it.
import { makesDependencyCycle } from '../domain/status.js';
import type { CheckRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';

/** Inside a transaction: why `check`'s depends_on (just set on it) cannot be, or null when it can. */
export function dependencyError(store: Store, check: CheckRecord): string | null {
  const target = check.dependsOn;
  if (target === undefined) return null;
  const lookup = (uuid: string) => store.getCheck(uuid);
  if (target === check.uuid || makesDependencyCycle(check.uuid, target, lookup)) return 'dependency cycle';
  const parent = lookup(target);
  if (!parent || parent.projectId !== check.projectId) return 'json validation error: depends_on is not a check of this project';
  return null;
}

/** Inside a transaction: the checks of `deleted`'s project that depended on it depend on nothing now. */
export function clearDependentsInTxn(store: Store, deleted: CheckRecord, now: number): void {
  for (const check of store.checksWith(deleted.projectId, 'dependsOn', deleted.uuid)) {
    const next: CheckRecord = { ...check };
    delete next.dependsOn;
    store.saveCheckInTxn(next, now, 'check.updated');
  }
}
