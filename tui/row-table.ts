// checktop's rows, as an immutable table that is cheap to change a little.
//
// A project can hold 100,000 checks while pings change a handful of them per
// batch of Watch events, and checktop often shares a machine with the daemon
// it watches: copying every row and sorting them again per batch is too dear
// (docs/performance.md, `npm run bench:checktop`). Here the rows live in
// buckets: an edit copies only the buckets it touches, and the table derives
// its sorted order, label counts and tag list from the previous table's by
// applying what changed (the rows removed and the rows added), instead of
// starting over.
import { emptyCounts, type Counts, type Label } from './labels.js';

/** What the table needs of a row: its identity, its order and what it is counted and found by. */
export interface TableRow {
  id: string;
  rank: number;
  /** Unique per row (it ends with the id), so rows have one strict order. */
  sortKey: string;
  check: { tags: readonly string[] };
  /** When this row must be looked at again (its status may change then); Infinity: never by itself. */
  due: number;
}

/**
 * Rows per bucket a new table aims at: an edit copies each bucket it touches,
 * so a batch of 1,000 changed rows copies ~1,000 small buckets, not the table.
 */
const ROWS_PER_BUCKET = 32;
const MIN_BUCKETS = 64;
const MAX_BUCKETS = 1 << 14;

/** Above this share of the table changed in one edit, sorting from scratch is as cheap as merging. */
const RESORT_SHARE = 0.25;

/**
 * How many tables may wait, unsorted, on an older one before the chain is cut
 * (several edits applied before a frame reads the order): each link keeps the
 * older table's buckets alive.
 */
const MAX_CHAIN = 8;

/** A strict order of rows: no two distinct rows compare equal. */
export type RowOrder<R extends TableRow> = (a: R, b: R) => number;

/** The default order: worst first (rank), then by name; strict since every sortKey is distinct. */
export function compareRows(a: TableRow, b: TableRow): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  return a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0;
}

/** The bucket of `id` among `buckets` (a power of two). */
function bucketOf(id: string, buckets: number): number {
  // FNV-1a over the id's characters: ids are uuids or hex digests, so any
  // mixing hash spreads them evenly.
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) & (buckets - 1);
}

/** Buckets for a table of `size` rows; the tables derived from it keep that number. */
function bucketsFor(size: number): number {
  let n = MIN_BUCKETS;
  while (n < MAX_BUCKETS && n * ROWS_PER_BUCKET < size) n *= 2;
  return n;
}

/** How one edit changed the table: the rows that left it and the rows that came in. */
interface Change<R extends TableRow> {
  from: RowTable<R>;
  order: RowOrder<R>;
  removed: R[];
  added: R[];
}

/** A filtered view of a table's order: the rows a filter named `key` keeps. */
interface View<R extends TableRow> {
  key: string;
  rows: readonly R[];
}

/** What a table needs to derive its view from the older table's: that view and the edit between them. */
interface ViewChange<R extends TableRow> {
  view: View<R>;
  order: RowOrder<R>;
  removed: R[];
  added: R[];
}

export class RowTable<R extends TableRow> {
  private sortedCache: R[] | null = null;
  private tagsCache: string[] | null = null;
  private viewCache: View<R> | null = null;
  /** The older table's view and the edit since, until this table's view is computed. */
  private viewChange: ViewChange<R> | null = null;

  private constructor(
    private readonly buckets: ReadonlyArray<ReadonlyMap<string, R>>,
    readonly size: number,
    private readonly labelOf: (row: R) => Label,
    private readonly labelCounts: Readonly<Counts>,
    /** Tag → how many rows carry it. */
    private readonly tagCounts: ReadonlyMap<string, number>,
    /** How this table came from an older one, until its order is computed. */
    private change: Change<R> | null,
    /** Tables between this one and the nearest one whose order is computed. */
    private readonly chain: number,
    /** The earliest `due` in each bucket, so that a tick visits only buckets with a row due. */
    private readonly bucketDue: Float64Array,
    /** The order of sorted() and view(). */
    readonly order: RowOrder<R>,
  ) {}

  /** A table of `rows` (the last of two with one id wins), counted by `labelOf`, sorted by `order`. */
  static of<R extends TableRow>(rows: Iterable<R>, labelOf: (row: R) => Label, order: RowOrder<R> = compareRows): RowTable<R> {
    const all = [...rows];
    const n = bucketsFor(all.length);
    const buckets = Array.from({ length: n }, () => new Map<string, R>());
    for (const row of all) buckets[bucketOf(row.id, n)]!.set(row.id, row);
    const counts = emptyCounts();
    const tags = new Map<string, number>();
    let size = 0;
    for (const bucket of buckets) {
      for (const row of bucket.values()) count(counts, tags, row, labelOf, +1);
      size += bucket.size;
    }
    const due = new Float64Array(n);
    for (let b = 0; b < n; b++) due[b] = earliestDue(buckets[b]!);
    return new RowTable(buckets, size, labelOf, counts, tags, null, 0, due, order);
  }

  /** The same rows in another order. */
  sortedBy(order: RowOrder<R>): RowTable<R> {
    return order === this.order ? this : RowTable.of(this.values(), this.labelOf, order);
  }

  get(id: string): R | undefined {
    return this.buckets[bucketOf(id, this.buckets.length)]!.get(id);
  }

  has(id: string): boolean {
    return this.buckets[bucketOf(id, this.buckets.length)]!.has(id);
  }

  /** Every row, in no particular order. */
  values(): IterableIterator<R> {
    const all: R[] = [];
    this.forEach((row) => all.push(row));
    return all.values();
  }

  /** Call `fn` for every row: the cheap way to visit 100,000 of them (a generator costs far more per row). */
  forEach(fn: (row: R) => void): void {
    for (const bucket of this.buckets) for (const row of bucket.values()) fn(row);
  }

  /** Rows per label and in all; the labels partition the rows. */
  counts(): Readonly<Counts> {
    return this.labelCounts;
  }

  /** Every tag some row carries, sorted. */
  tags(): string[] {
    return (this.tagsCache ??= [...this.tagCounts.keys()].sort());
  }

  /**
   * Call `fn` for every row due at `at` (due <= at). The one-second tick
   * uses it instead of visiting all of 100,000 rows (slow, their memory being
   * scattered) to find the few whose status changes: only the buckets
   * holding such a row are looked into.
   */
  forEachDue(at: number, fn: (row: R) => void): void {
    for (let b = 0; b < this.buckets.length; b++) {
      if (this.bucketDue[b]! > at) continue;
      for (const row of this.buckets[b]!.values()) if (row.due <= at) fn(row);
    }
  }

  /** All rows in the table's order; computed once per table, from the older table's order when there is one. */
  sorted(): readonly R[] {
    if (this.sortedCache) return this.sortedCache;
    const change = this.change;
    this.change = null; // from here on the older table may be collected
    this.sortedCache = (change && derivedOrder(change, this.size)) || [...this.values()].sort(this.order);
    return this.sortedCache;
  }

  /**
   * The rows of sorted() that `match` keeps, `key` naming the filter (the
   * same key, the same predicate). Derived from the older table's view under
   * the same key by the edit between them when there is one: on a big
   * project, applying a filter from scratch per batch is too dear.
   */
  view(key: string, match: (row: R) => boolean): readonly R[] {
    if (this.viewCache?.key === key) return this.viewCache.rows;
    const change = this.viewChange;
    this.viewChange = null;
    const rows =
      (change?.view.key === key &&
        change.order === this.order &&
        mergeChange(change.view.rows, change.removed.filter(match), change.added.filter(match), this.order)) ||
      this.sorted().filter(match);
    this.viewCache = { key, rows };
    return rows;
  }

  /** A copy-on-write draft of this table: change it, then `commit` it into a new table. */
  draft(): TableDraft<R> {
    return new TableDraft(this.buckets, (edit) => this.derive(edit));
  }

  private derive({ buckets, touched, removed, added }: Edit<R>): RowTable<R> {
    if (removed.length === 0 && added.length === 0) return this;
    const size = this.size - removed.length + added.length;
    // A table that grew by events alone (a project filling up after its
    // snapshot) is spread over more buckets once they hold four times their
    // share: from scratch, once in a while.
    if (size > buckets.length * ROWS_PER_BUCKET * 4 && buckets.length < MAX_BUCKETS) {
      return RowTable.of(
        buckets.flatMap((bucket) => [...bucket.values()]),
        this.labelOf,
        this.order,
      );
    }
    const due = this.bucketDue.slice();
    for (const b of touched) due[b] = earliestDue(buckets[b]!);
    const counts = { ...this.labelCounts };
    // Pings never change tags: then the tag counts (and their sorted list) are shared.
    const tags = tagsChanged(removed, added) ? new Map(this.tagCounts) : null;
    for (const row of removed) count(counts, tags, row, this.labelOf, -1);
    for (const row of added) count(counts, tags, row, this.labelOf, +1);
    // Keep the way back to an order that is (or will be) computed, but never a long chain of them.
    const chain = this.sortedCache ? 0 : this.chain + 1;
    const change = chain <= MAX_CHAIN ? { from: this, order: this.order, removed, added } : null;
    const table = new RowTable(
      buckets,
      size,
      this.labelOf,
      counts,
      tags ?? this.tagCounts,
      change,
      change ? chain : 0,
      due,
      this.order,
    );
    if (!tags) table.tagsCache = this.tagsCache;
    if (this.viewCache) table.viewChange = { view: this.viewCache, order: this.order, removed, added };
    return table;
  }
}

/** What a draft changed: the buckets after it, which of them it touched, the rows that left and came in. */
interface Edit<R extends TableRow> {
  buckets: ReadonlyArray<ReadonlyMap<string, R>>;
  touched: Iterable<number>;
  removed: R[];
  added: R[];
}

type Derive<R extends TableRow> = (edit: Edit<R>) => RowTable<R>;

/** Rows set or deleted against one table; its buckets are copied on their first change. */
export class TableDraft<R extends TableRow> {
  private readonly copied = new Set<number>();
  private readonly buckets: Array<ReadonlyMap<string, R>>;
  /** id → the row it had in the table (undefined: none). */
  private readonly original = new Map<string, R | undefined>();

  constructor(
    base: ReadonlyArray<ReadonlyMap<string, R>>,
    private readonly derive: Derive<R>,
  ) {
    this.buckets = [...base];
  }

  get(id: string): R | undefined {
    return this.buckets[bucketOf(id, this.buckets.length)]!.get(id);
  }

  set(row: R): void {
    this.remember(row.id);
    this.writable(row.id).set(row.id, row);
  }

  delete(id: string): void {
    if (!this.get(id)) return;
    this.remember(id);
    this.writable(id).delete(id);
  }

  /** The table with these changes; the table itself when nothing changed. */
  commit(): RowTable<R> {
    const removed: R[] = [];
    const added: R[] = [];
    for (const [id, before] of this.original) {
      const after = this.get(id);
      if (before === after) continue;
      if (before) removed.push(before);
      if (after) added.push(after);
    }
    return this.derive({ buckets: this.buckets, touched: this.copied, removed, added });
  }

  private remember(id: string): void {
    if (!this.original.has(id)) this.original.set(id, this.get(id));
  }

  private writable(id: string): Map<string, R> {
    const b = bucketOf(id, this.buckets.length);
    if (!this.copied.has(b)) {
      this.buckets[b] = new Map(this.buckets[b]!);
      this.copied.add(b);
    }
    return this.buckets[b] as Map<string, R>;
  }
}

function earliestDue(bucket: ReadonlyMap<string, TableRow>): number {
  let due = Infinity;
  for (const row of bucket.values()) if (row.due < due) due = row.due;
  return due;
}

function count<R extends TableRow>(
  counts: Counts,
  tags: Map<string, number> | null,
  row: R,
  labelOf: (row: R) => Label,
  by: 1 | -1,
): void {
  counts[labelOf(row)] += by;
  counts.total += by;
  if (!tags) return;
  for (const tag of new Set(row.check.tags)) {
    const n = (tags.get(tag) ?? 0) + by;
    if (n === 0) tags.delete(tag);
    else tags.set(tag, n);
  }
}

/** Do the rows that left and came in carry different tags (pings never change them)? */
function tagsChanged<R extends TableRow>(removed: readonly R[], added: readonly R[]): boolean {
  if (removed.length !== added.length) return true;
  const key = (r: R) => `${r.id}\u0000${r.check.tags.join('\u0000')}`;
  const before = new Set(removed.map(key));
  return added.some((r) => !before.has(key(r)));
}

/** The order of the table `change` led to, or null when sorting from scratch is as cheap. */
function derivedOrder<R extends TableRow>(change: Change<R>, size: number): R[] | null {
  const { from, order, removed, added } = change;
  if (removed.length + added.length > size * RESORT_SHARE) return null;
  return mergeChange(from.sorted(), removed, added, order);
}

/**
 * The order after an edit, from the order before it. Each removed row sits
 * exactly where compareRows puts it in the old order, and each added row goes
 * where a binary search puts it: one copy of the old order skipping the
 * removed and taking in the added, with only O(k log n) comparisons of rows.
 * Null if the old order lacks a removed row (a bug elsewhere: sort afresh).
 */
function mergeChange<R extends TableRow>(
  old: readonly R[],
  removed: readonly R[],
  unsortedAdded: readonly R[],
  order: RowOrder<R>,
): R[] | null {
  const skip: number[] = [];
  for (const row of removed) {
    const i = lowerBound(old, row, order);
    if (old[i] !== row) return null;
    skip.push(i);
  }
  skip.sort((x, y) => x - y);
  // A sorted copy: the edit's own list is shared with the view's derivation.
  const added = [...unsortedAdded].sort(order);
  // Where each added row goes, in the old order's positions.
  const put = added.map((row) => lowerBound(old, row, order));
  const out: R[] = [];
  let o = 0;
  let s = 0;
  for (let a = 0; a <= added.length; a++) {
    const end = a < added.length ? put[a]! : old.length;
    // Copy old[o, end) but the removed rows: plain loops, no row comparisons.
    while (o < end) {
      const stop = s < skip.length && skip[s]! < end ? skip[s]! : end;
      for (; o < stop; o++) out.push(old[o]!);
      if (o === skip[s]) {
        o++;
        s++;
      }
    }
    if (a < added.length) out.push(added[a]!);
  }
  return out;
}

/** The first index of `sorted` whose row does not come before `row`. */
function lowerBound<R extends TableRow>(sorted: readonly R[], row: R, order: RowOrder<R>): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(sorted[mid]!, row) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
