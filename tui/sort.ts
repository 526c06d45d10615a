// The orders the table can be sorted in, each with its natural direction
// (what an operator looks for first) and the reverse of it. Every order ends
// with the name and id, so that it is strict and rows never swap places by
// themselves.
import { compareRows } from './row-table.js';
import type { Row } from './row.js';

export type SortKey = 'status' | 'name' | 'last' | 'deadline' | 'duration';

export interface Sort {
  key: SortKey;
  /** The natural direction turned around. */
  reversed: boolean;
}

export const DEFAULT_SORT: Sort = { key: 'status', reversed: false };

/** The order `o` cycles through. */
export const SORT_KEYS: readonly SortKey[] = ['status', 'name', 'last', 'deadline', 'duration'];

/**
 * What the header calls each order. Natural directions: status worst first,
 * name A to Z, last ping latest first, deadline soonest first (checks that
 * cannot go down by themselves last), last run longest first.
 */
export const SORT_NAMES: Record<SortKey, string> = {
  status: 'status',
  name: 'name',
  last: 'last ping',
  deadline: 'deadline',
  duration: 'last run',
};

const byName = (a: Row, b: Row) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0);

/** The primary comparison of each key, in its natural direction; ties are left to the name. */
const PRIMARY: Record<SortKey, ((a: Row, b: Row) => number) | null> = {
  status: (a, b) => a.rank - b.rank,
  name: null,
  last: (a, b) => b.lastAt - a.lastAt,
  // Checks that cannot go down by themselves (Infinity) come after all the others.
  deadline: (a, b) => (a.deadline === b.deadline ? 0 : a.deadline < b.deadline ? -1 : 1),
  duration: (a, b) => b.duration - a.duration,
};

const cache = new Map<string, (a: Row, b: Row) => number>();

/** The row order for `sort`: one function per order, so a table knows when its order is unchanged. */
export function orderOf(sort: Sort): (a: Row, b: Row) => number {
  const id = `${sort.key}:${sort.reversed}`;
  let order = cache.get(id);
  if (!order) {
    const primary = PRIMARY[sort.key];
    if (sort.key === 'status' && !sort.reversed) order = compareRows;
    else if (!primary) order = sort.reversed ? (a, b) => byName(b, a) : byName;
    else if (sort.reversed) order = (a, b) => primary(b, a) || byName(a, b);
    else order = (a, b) => primary(a, b) || byName(a, b);
    cache.set(id, order);
  }
  return order;
}

/** "sort: name ▲": the order and its direction, ▼ natural, ▲ reversed. */
export function sortLabel(sort: Sort): string {
  return `sort: ${SORT_NAMES[sort.key]} ${sort.reversed ? '▲' : '▼'}`;
}
