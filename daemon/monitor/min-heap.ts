// A binary min-heap of deadlines keyed by id, each id at most once. The
// monitor holds one deadline per check, a million of them at scale, so the
// heap is kept in typed arrays indexed by a slot per id: no object or boxed
// number per entry, and a deadline that moves is moved in place, leaving
// nothing stale behind (docs/performance.md, "The monitor's heap").

const INITIAL_CAPACITY = 1024;

/** Ids are uuids and window keys; a longer one is kept as it is. */
const scratch = Buffer.allocUnsafe(256);

/**
 * A copy of `id` that holds only its own characters. An id read from a
 * record or a URL is often a slice of the whole decoded text, which V8 keeps
 * alive for as long as the slice is: a million such keys held every check's
 * record text (docs/performance.md, "The monitor's keys").
 */
function ownCopy(id: string): string {
  if (id.length * 3 > scratch.length) return id;
  return scratch.toString('utf8', 0, scratch.write(id, 'utf8'));
}

export class DeadlineHeap {
  /** id → its slot. */
  private readonly slotOf = new Map<string, number>();
  /** slot → id ('' while free). */
  private ids: string[] = [];
  /** slot → deadline. */
  private at = new Float64Array(INITIAL_CAPACITY);
  /** slot → its position in `heap`. */
  private pos = new Int32Array(INITIAL_CAPACITY);
  /** The heap proper: slots, ordered by their deadline. */
  private heap = new Int32Array(INITIAL_CAPACITY);
  private length = 0;
  /** Slots given back by removed ids, taken again before new ones. */
  private readonly free: number[] = [];

  get size(): number {
    return this.length;
  }

  /** Set `id`'s deadline; null removes it. */
  set(id: string, at: number | null): void {
    const slot = this.slotOf.get(id);
    if (at === null) {
      if (slot !== undefined) this.remove(id, slot);
      return;
    }
    if (slot === undefined) {
      this.insert(id, at);
      return;
    }
    const before = this.at[slot]!;
    if (before === at) return;
    this.at[slot] = at;
    if (at < before) this.up(this.pos[slot]!);
    else this.down(this.pos[slot]!);
  }

  deadlineOf(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.at[slot];
  }

  /** The earliest deadline, or null. */
  peek(): number | null {
    return this.length === 0 ? null : this.at[this.heap[0]!]!;
  }

  /** Remove and return the ids whose deadline is <= now, earliest first, at most `limit`. */
  popDue(now: number, limit: number): string[] {
    const out: string[] = [];
    while (out.length < limit && this.length > 0) {
      const slot = this.heap[0]!;
      if (this.at[slot]! > now) break;
      const id = this.ids[slot]!;
      this.remove(id, slot);
      out.push(id);
    }
    return out;
  }

  private insert(given: string, at: number): void {
    const id = ownCopy(given);
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.ids.length;
      this.ids.push(id);
      if (slot >= this.at.length) this.grow();
    } else {
      this.ids[slot] = id;
    }
    this.slotOf.set(id, slot);
    this.at[slot] = at;
    const i = this.length++;
    this.heap[i] = slot;
    this.pos[slot] = i;
    this.up(i);
  }

  private remove(id: string, slot: number): void {
    this.slotOf.delete(id);
    this.ids[slot] = '';
    this.free.push(slot);
    const i = this.pos[slot]!;
    const last = this.heap[--this.length]!;
    if (i === this.length) return;
    this.heap[i] = last;
    this.pos[last] = i;
    // The slot moved into the hole may belong above it or below it.
    this.up(i);
    this.down(this.pos[last]!);
  }

  private grow(): void {
    const capacity = this.at.length * 2;
    const at = new Float64Array(capacity);
    at.set(this.at);
    this.at = at;
    const pos = new Int32Array(capacity);
    pos.set(this.pos);
    this.pos = pos;
    const heap = new Int32Array(capacity);
    heap.set(this.heap);
    this.heap = heap;
  }

  private up(i: number): void {
    const { heap, at, pos } = this;
    const slot = heap[i]!;
    const key = at[slot]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (at[p]! <= key) break;
      heap[i] = p;
      pos[p] = i;
      i = parent;
    }
    heap[i] = slot;
    pos[slot] = i;
  }

  private down(i: number): void {
    const { heap, at, pos } = this;
    const n = this.length;
    const slot = heap[i]!;
    const key = at[slot]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && at[heap[r]!]! < at[heap[l]!]! ? r : l;
      const c = heap[child]!;
      if (at[c]! >= key) break;
      heap[i] = c;
      pos[c] = i;
      i = child;
    }
    heap[i] = slot;
    pos[slot] = i;
  }
}
