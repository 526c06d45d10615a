// Maintenance windows (alert-policies §4.2): create, list, remove, for the
// API and the admin CLI. Each change is one transaction with its event, which
// the monitor follows.
import { newUuid } from '../domain/ids.js';
import type { WindowFields } from '../domain/policy-input.js';
import type { MaintenanceWindow } from '../domain/types.js';
import type { Clock } from '../shared/clock.js';
import type { Store } from '../store/store.js';
import { OPEN_GATE, type WriteGate } from '../store/storage-watch.js';

export class MaintenanceService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Refuses a new window while the storage alarm is on (removing one is let through). */
    private readonly gate: WriteGate = OPEN_GATE,
  ) {}

  list(projectId: string): MaintenanceWindow[] {
    return this.store.listWindows(projectId);
  }

  async create(projectId: string, fields: WindowFields): Promise<MaintenanceWindow> {
    const now = this.clock.now();
    const window: MaintenanceWindow = { id: newUuid(), projectId, createdAt: now, ...fields };
    await this.gate.admit(0, () => this.store.transact(() => {
      // Listed in creation order: keep it strictly increasing, as for channels.
      const last = this.store.listWindows(projectId).at(-1);
      if (last && last.createdAt >= window.createdAt) window.createdAt = last.createdAt + 1;
      this.store.putWindowInTxn(window, now);
    }));
    return window;
  }

  /** Remove a window; null when there is none with that id. */
  async remove(id: string): Promise<MaintenanceWindow | null> {
    const now = this.clock.now();
    return this.store.transact(() => {
      const window = this.store.getWindow(id);
      if (!window) return null;
      this.store.putWindowInTxn(window, now, true);
      return window;
    });
  }
}
