// The maintenance windows of a project open at an instant, which check
// representations are told of (in_maintenance, alert-policies §4.2): read
// once per request, not once per check of a list.
import { isWindowOpen } from '../domain/maintenance.js';
import type { MaintenanceWindow } from '../domain/types.js';
import type { Store } from '../store/store.js';

export function openWindowsOf(store: Store, projectId: string, now: number): MaintenanceWindow[] {
  return store.listWindows(projectId).filter((w) => isWindowOpen(w, now));
}
