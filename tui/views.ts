// What the table shows of the rows: sorted worst first, filtered by text, tag
// and status, counted per label; and the filter values `t` and `s` cycle through.
import { labelOf, LABELS, type Counts, type Label } from './labels.js';
import type { Row } from './row.js';
import type { RowTable } from './row-table.js';

/** Worst first (see rankOf), then by name: stable under updates that change nothing visible. */
export function sortRows(rows: RowTable<Row>): readonly Row[] {
  return rows.sorted();
}

export type StatusFilter = 'all' | 'problems' | Label;

/** The order `s` cycles through. "problems" is down + grace: what needs a human now. */
export const STATUS_FILTERS: readonly StatusFilter[] = ['all', 'problems', ...LABELS];

export interface Filter {
  /** Case-insensitive substring of name, slug or a tag; every word must match. */
  text: string;
  /** An exact tag, or null for any. */
  tag: string | null;
  status: StatusFilter;
}

export const NO_FILTER: Filter = { text: '', tag: null, status: 'all' };

export function isFiltered(f: Filter): boolean {
  return f.text.trim() !== '' || f.tag !== null || f.status !== 'all';
}

function statusMatches(row: Row, status: StatusFilter): boolean {
  if (status === 'all') return true;
  if (status === 'problems') return row.rank <= 1;
  return labelOf(row) === status;
}

/** The words of a filter's text, each of which a row must contain. */
function wordsOf(f: Filter): string[] {
  return f.text.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Does `row` pass filter `f` (whose words are `words`)? */
function matcher(f: Filter, words = wordsOf(f)): (row: Row) => boolean {
  return (r) =>
    statusMatches(r, f.status) && (f.tag === null || r.check.tags.includes(f.tag)) && words.every((w) => r.haystack.includes(w));
}

/** The rows of `sorted` that pass `f`, in its order, computed from scratch. */
export function filterRows(sorted: readonly Row[], f: Filter): readonly Row[] {
  return isFiltered(f) ? sorted.filter(matcher(f)) : sorted;
}

/** What the table shows: the rows that pass `f`, worst first; kept up to date through edits (RowTable.view). */
export function visibleRows(rows: RowTable<Row>, f: Filter): readonly Row[] {
  if (!isFiltered(f)) return rows.sorted();
  const words = wordsOf(f);
  return rows.view(JSON.stringify([words, f.tag, f.status]), matcher(f, words));
}

/** Checks per label; the labels partition the checks, so they add up to the total. */
export function countRows(rows: RowTable<Row>): Counts {
  return rows.counts();
}

export function allTags(rows: RowTable<Row>): string[] {
  return rows.tags();
}

/** The next (or previous) element after `current`, wrapping; the first one when `current` is absent. */
export function cycle<T>(list: readonly T[], current: T, dir: 1 | -1 = 1): T {
  const i = list.indexOf(current);
  const n = list.length;
  if (i < 0) return list[dir === 1 ? 0 : n - 1]!;
  return list[(i + dir + n) % n]!;
}

/** Tag filter values in cycling order: null (any tag) first. */
export function tagCycle(tags: string[], current: string | null, dir: 1 | -1 = 1): string | null {
  return cycle<string | null>([null, ...tags], current, dir);
}
