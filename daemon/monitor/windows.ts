// The monitor's part of the maintenance windows (alert-policies §4.2): when
// each window opens and closes next (entries of the monitor's one heap, keyed
// `window:<id>`), the events that say it did, and, when one closes, the held
// checks of its project to look at again (their hold may have ended).
import { isWindowOpen, nextWindowChange } from '../domain/maintenance.js';
import type { CheckRecord } from '../domain/types.js';
import type { Store } from '../store/store.js';

const PREFIX = 'window:';

/** A heap entry: an id (a check uuid, or a window key) and when it is due; null for never. */
export type Wake = [string, number | null];

export function isWindowKey(id: string): boolean {
  return id.startsWith(PREFIX);
}

export class WindowTracker {
  /** Window id → whether it was open when last looked at, and its project. */
  private readonly seen = new Map<string, { open: boolean; projectId: string }>();
  /** Checks whose notifications are held → their project. */
  private readonly held = new Map<string, string>();

  constructor(private readonly store: Store) {}

  /** Start-up: every window as it is at `now` (a change while stopped was not seen: no event), and its next change. */
  load(now: number): Wake[] {
    return this.store.allWindows().map((w) => {
      this.seen.set(w.id, { open: isWindowOpen(w, now), projectId: w.projectId });
      return [PREFIX + w.id, nextWindowChange(w, now)];
    });
  }

  /** Follow a check's hold (from start-up and from every event that carries the check). */
  noteCheck(check: CheckRecord): void {
    if (check.hold) this.held.set(check.uuid, check.projectId);
    else this.held.delete(check.uuid);
  }

  forgetCheck(uuid: string): void {
    this.held.delete(uuid);
  }

  /** A window was created, changed or removed: look at it at once. */
  changed(windowId: string): Wake {
    return [PREFIX + windowId, 0];
  }

  /**
   * Inside the monitor's transaction: a window's time came, or it changed.
   * Records it opening or closing, and returns its next change and, when it
   * closed (or went away open), the project's held checks, due now.
   */
  step(key: string, now: number): Wake[] {
    const id = key.slice(PREFIX.length);
    const w = this.store.getWindow(id);
    const before = this.seen.get(id);
    const open = w !== undefined && isWindowOpen(w, now);
    if (w && open !== (before?.open ?? false)) this.store.windowEventInTxn(w, now, open ? 'window.opened' : 'window.closed');
    const out: Wake[] = [];
    const projectId = w?.projectId ?? before?.projectId;
    if (before?.open && !open && projectId !== undefined) {
      for (const [uuid, project] of this.held) if (project === projectId) out.push([uuid, now]);
    }
    if (w) {
      this.seen.set(id, { open, projectId: w.projectId });
      out.push([key, nextWindowChange(w, now)]);
    } else {
      this.seen.delete(id);
      out.push([key, null]);
    }
    return out;
  }
}
