// The cursor and the scroll position over the visible rows.
import type { Row } from './row.js';

/**
 * The cursor follows a check, not a line: when a status change moves the
 * selected check, the cursor moves with it. `index` is where it was last seen,
 * used when the check leaves the view (deleted or filtered out).
 */
export interface Selection {
  id: string | null;
  index: number;
}

export function resolveIndex(visible: readonly Row[], sel: Selection): number {
  if (visible.length === 0) return -1;
  if (sel.id !== null) {
    // Most updates leave the check where it was: look there before scanning.
    if (visible[sel.index]?.id === sel.id) return sel.index;
    const i = visible.findIndex((r) => r.id === sel.id);
    if (i >= 0) return i;
  }
  return Math.min(Math.max(sel.index, 0), visible.length - 1);
}

export function moveSelection(visible: readonly Row[], sel: Selection, delta: number): Selection {
  if (visible.length === 0) return { id: null, index: 0 };
  const from = resolveIndex(visible, sel);
  const index = Math.min(Math.max(from + delta, 0), visible.length - 1);
  return { id: visible[index]!.id, index };
}

export function selectIndex(visible: readonly Row[], index: number): Selection {
  if (visible.length === 0) return { id: null, index: 0 };
  const i = Math.min(Math.max(index, 0), visible.length - 1);
  return { id: visible[i]!.id, index: i };
}

/** First visible line: scroll only as far as needed to keep `index` on screen. */
export function scrollTop(prevTop: number, index: number, height: number, total: number): number {
  if (height <= 0 || total <= height) return 0;
  let top = Math.min(Math.max(prevTop, 0), total - height);
  if (index < top) top = index;
  else if (index >= top + height) top = index - height + 1;
  return Math.max(0, top);
}
