// A binary min-heap of (deadline, id) with lazy deletion: superseded entries
// stay in the heap and are skipped when they surface, which keeps re-arming a
// check O(log n) without an index into the heap.

export interface HeapEntry {
  at: number;
  id: string;
}

export class DeadlineHeap {
  private readonly heap: HeapEntry[] = [];
  /** The live deadline of each id; heap entries that disagree are stale. */
  private readonly live = new Map<string, number>();

  get size(): number {
    return this.live.size;
  }

  set(id: string, at: number | null): void {
    if (at === null) {
      this.live.delete(id);
      return;
    }
    if (this.live.get(id) === at) return;
    this.live.set(id, at);
    this.push({ at, id });
    // Stale entries pile up when deadlines move often; rebuild when they dominate.
    if (this.heap.length > 2 * this.live.size + 1024) this.rebuild();
  }

  deadlineOf(id: string): number | undefined {
    return this.live.get(id);
  }

  /** The earliest live deadline, or null. */
  peek(): number | null {
    this.dropStale();
    return this.heap.length === 0 ? null : this.heap[0]!.at;
  }

  /** Remove and return the ids whose deadline is <= now, at most `limit`. */
  popDue(now: number, limit: number): string[] {
    const out: string[] = [];
    while (out.length < limit) {
      this.dropStale();
      const top = this.heap[0];
      if (!top || top.at > now) break;
      this.pop();
      this.live.delete(top.id);
      out.push(top.id);
    }
    return out;
  }

  private dropStale(): void {
    while (this.heap.length > 0) {
      const top = this.heap[0]!;
      if (this.live.get(top.id) === top.at) return;
      this.pop();
    }
  }

  private rebuild(): void {
    this.heap.length = 0;
    for (const [id, at] of this.live) this.push({ at, id });
  }

  private push(e: HeapEntry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= e.at) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = e;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      const cur = smallest === i ? last : h[smallest]!;
      let best = cur.at;
      if (l < h.length && h[l]!.at < best) {
        smallest = l;
        best = h[l]!.at;
      }
      if (r < h.length && h[r]!.at < best) smallest = r;
      if (smallest === i) break;
      h[i] = h[smallest]!;
      i = smallest;
    }
    h[i] = last;
  }
}
