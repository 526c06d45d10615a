// When maintenance windows are open (alert-policies §4.2), and which checks
// they cover. Pure: instants in, instants out. A recurring window opens at
// each fire time of its schedule (status-machine §5.4 semantics, DST
// included) and stays open for its duration; openings that overlap make one
// longer window.
import { nextFireAfter } from './schedule/index.js';
import { tagList } from './ids.js';
import { isoSeconds } from './format.js';
import type { CheckRecord, MaintenanceWindow } from './types.js';

const SECOND = 1000;
/** Overlapping openings followed when looking for the end of a recurring window. */
const MAX_CHAINED_OPENINGS = 10_000;

/** The fire time of a recurring window strictly after `after`, or null. */
function fireAfter(w: MaintenanceWindow, after: number): number | null {
  return nextFireAfter(w.scheduleKind!, w.schedule!, w.tz!, after);
}

/** The opening that covers `now` (fire ≤ now < fire + duration), or null. */
function openingAt(w: MaintenanceWindow, now: number): number | null {
  const fire = fireAfter(w, now - w.duration! * SECOND);
  return fire !== null && fire <= now ? fire : null;
}

/** Whether the window is open at `now`. */
export function isWindowOpen(w: MaintenanceWindow, now: number): boolean {
  if (w.schedule === undefined) return w.start! <= now && now < w.end!;
  return openingAt(w, now) !== null;
}

/** When the window that is open at `now` closes, following openings that overlap it; null when closed. */
export function windowCloses(w: MaintenanceWindow, now: number): number | null {
  if (w.schedule === undefined) return isWindowOpen(w, now) ? w.end! : null;
  const opened = openingAt(w, now);
  if (opened === null) return null;
  let closes = opened + w.duration! * SECOND;
  for (let fire = fireAfter(w, opened), n = 0; fire !== null && fire < closes && n < MAX_CHAINED_OPENINGS; n++) {
    closes = Math.max(closes, fire + w.duration! * SECOND);
    fire = fireAfter(w, fire);
  }
  return closes;
}

/** The first instant after `now` at which the window opens or closes; null for never. */
export function nextWindowChange(w: MaintenanceWindow, now: number): number | null {
  const closes = windowCloses(w, now);
  if (closes !== null) return closes;
  if (w.schedule === undefined) return now < w.start! ? w.start! : null;
  return fireAfter(w, now);
}

/** Whether the window covers the check: it lists none of its tags (every check), or one of the check's. */
export function windowCovers(w: MaintenanceWindow, check: Pick<CheckRecord, 'tags'>): boolean {
  const wanted = tagList(w.tags);
  if (wanted.length === 0) return true;
  const tags = tagList(check.tags);
  return wanted.some((t) => tags.includes(t));
}

/** Whether one of `windows` (a project's) is open at `now` and covers the check. */
export function inMaintenance(check: Pick<CheckRecord, 'tags'>, windows: readonly MaintenanceWindow[], now: number): boolean {
  return windows.some((w) => windowCovers(w, check) && isWindowOpen(w, now));
}

/** A window as the API and the admin CLI show it (alert-policies §4.2). */
export function windowToJson(w: MaintenanceWindow): Record<string, unknown> {
  const doc: Record<string, unknown> = { id: w.id, name: w.name, tags: w.tags };
  if (w.schedule === undefined) {
    doc.start = isoSeconds(w.start!);
    doc.end = isoSeconds(w.end!);
  } else {
    doc.schedule = w.schedule;
    doc.tz = w.tz;
    doc.duration = w.duration;
  }
  return doc;
}
