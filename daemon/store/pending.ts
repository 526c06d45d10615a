// Pings that are durable in the journal but not yet written into their
// checks' records (see journal.ts), kept in memory with the check after each,
// so that reads in this process see them at once.
//
// An entry is trusted only while its ping is journaled as the reader sees it
// (`isJournaled`): that one rule covers a ping whose transaction is still in
// flight (not visible yet: readers see the state before it), one whose
// transaction failed (never visible), and one already written into its check
// by any process (the checks are current past it).
import type { CheckRecord } from '../domain/types.js';

/**
 * A journaled ping as reads need it. Not the ping record itself: held until the
 * next apply, it would outlive V8's young generation, and reads need only its
 * number, which is the check's `nPings` after it.
 */
export interface PendingPing {
  rev: number;
  /** The check as it is after this ping. */
  check: CheckRecord;
}

export type IsJournaled = (rev: number, uuid: string, n: number) => boolean;

export class PendingPings {
  /** Per check, oldest first. */
  private readonly byCheck = new Map<string, PendingPing[]>();

  get size(): number {
    return this.byCheck.size;
  }

  add(uuid: string, entry: PendingPing): void {
    const list = this.byCheck.get(uuid);
    if (list) list.push(entry);
    else this.byCheck.set(uuid, [entry]);
  }

  /** Take back an entry whose transaction failed. */
  remove(uuid: string, entry: PendingPing): void {
    const list = this.byCheck.get(uuid);
    const at = list?.indexOf(entry) ?? -1;
    if (at < 0) return;
    list!.splice(at, 1);
    if (list!.length === 0) this.byCheck.delete(uuid);
  }

  /** The check after its newest visible pending ping, or undefined if none is visible. */
  latestCheck(uuid: string, isJournaled: IsJournaled): CheckRecord | undefined {
    const list = this.byCheck.get(uuid);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      if (isJournaled(list[i]!.rev, uuid, list[i]!.check.nPings)) return list[i]!.check;
    }
    return undefined;
  }

  /**
   * Forget entries up to a revision once the checks hold everything up to it
   * (entries above it may still be in flight).
   */
  forgetUpTo(rev: number): void {
    for (const [uuid, list] of this.byCheck) {
      let keep = 0;
      while (keep < list.length && list[keep]!.rev <= rev) keep++;
      if (keep === list.length) this.byCheck.delete(uuid);
      else if (keep > 0) list.splice(0, keep);
    }
  }

  clear(): void {
    this.byCheck.clear();
  }
}
