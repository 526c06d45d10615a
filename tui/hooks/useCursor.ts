// The cursor over the visible rows and the scroll position that keeps it on
// screen. The cursor follows a check (selection.ts), also before the first
// key is pressed and after its check left the view (deleted, filtered out):
// then it takes the one under it.
import { useEffect, useRef, useState } from 'react';
import type { Row } from '../row.js';
import { moveSelection, resolveIndex, scrollTop, selectIndex, type Selection } from '../selection.js';

export interface Cursor {
  /** Index into the visible rows, -1 when there are none. */
  index: number;
  /** The first visible row on screen. */
  top: number;
  selected: Row | null;
  /** Moves by `delta` rows (clamped) and returns where the cursor lands. */
  moveBy(delta: number): Selection;
  moveTo(index: number): void;
}

export function useCursor(visible: readonly Row[], height: number): Cursor {
  const [selection, setSelection] = useState<Selection>({ id: null, index: 0 });
  const topRef = useRef(0);
  const index = resolveIndex(visible, selection);
  const top = scrollTop(topRef.current, index, height, visible.length);
  topRef.current = top;
  const selected = index >= 0 ? visible[index]! : null;
  useEffect(() => {
    // Only over the selection this render saw: a key handled since (in a layout effect) wins.
    if (selected && selected.id !== selection.id) setSelection((s) => (s === selection ? { id: selected.id, index } : s));
  }, [selected, selection, index]);
  return {
    index,
    top,
    selected,
    moveBy(delta) {
      const next = moveSelection(visible, selection, delta);
      setSelection(next);
      return next;
    },
    moveTo(i) {
      setSelection(selectIndex(visible, i));
    },
  };
}
