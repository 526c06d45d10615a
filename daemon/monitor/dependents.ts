// Checks whose down notification waits for a check they depend on
// (alert-policies §5), by that check: when it leaves down (comes up, is
// paused or deleted), the monitor looks at them again.
import type { CheckRecord } from '../domain/types.js';

export class HeldByParent {
  private readonly children = new Map<string, Set<string>>();
  private readonly parentOf = new Map<string, string>();

  /** Follow a check's hold (from start-up and from every event that carries it). */
  note(check: CheckRecord): void {
    const parent = check.hold?.parent;
    const before = this.parentOf.get(check.uuid);
    if (before === parent) return;
    if (before !== undefined) this.drop(check.uuid, before);
    if (parent === undefined) return;
    this.parentOf.set(check.uuid, parent);
    let set = this.children.get(parent);
    if (!set) this.children.set(parent, (set = new Set()));
    set.add(check.uuid);
  }

  forget(uuid: string): void {
    const parent = this.parentOf.get(uuid);
    if (parent !== undefined) this.drop(uuid, parent);
  }

  /** The checks held for `parent`, which may be released now that it is not down. */
  heldFor(parent: string): ReadonlySet<string> | undefined {
    return this.children.get(parent);
  }

  private drop(uuid: string, parent: string): void {
    this.parentOf.delete(uuid);
    const set = this.children.get(parent);
    set?.delete(uuid);
    if (set?.size === 0) this.children.delete(parent);
  }
}
