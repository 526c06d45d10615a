import { describe, expect, it } from 'vitest';
import { compareRows, RowTable, type TableRow } from '../../tui/row-table.js';
import type { Counts, Label } from '../../tui/labels.js';
import { prng } from '../helpers/random.js';

interface TestRow extends TableRow {
  label: Label;
  check: { tags: string[] };
}

const LABELS: Label[] = ['down', 'grace', 'running', 'new', 'up', 'paused'];

function row(id: string, name: string, rank: number, tags: string[] = [], due = Infinity): TestRow {
  return { id, rank, sortKey: `${name}\u0000${id}`, label: LABELS[rank]!, check: { tags }, due };
}

const labelOf = (r: TestRow) => r.label;
const tableOf = (rows: TestRow[]) => RowTable.of(rows, labelOf);

/** What every derived view must equal: the same computed from scratch. */
function expectConsistent(table: RowTable<TestRow>): void {
  const all = [...table.values()];
  expect(table.size).toBe(all.length);
  expect(table.sorted().map((r) => r.id)).toEqual([...all].sort(compareRows).map((r) => r.id));
  const counts: Counts = { down: 0, grace: 0, running: 0, new: 0, up: 0, paused: 0, total: all.length };
  for (const r of all) counts[r.label]++;
  expect(table.counts()).toEqual(counts);
  expect(table.tags()).toEqual([...new Set(all.flatMap((r) => r.check.tags))].sort());
  for (const at of [0, 2000, 50_000, Infinity]) {
    const due: string[] = [];
    table.forEachDue(at, (r) => due.push(r.id));
    expect(due.sort()).toEqual(all.filter((r) => r.due <= at).map((r) => r.id).sort());
  }
}

describe('RowTable', () => {
  it('keeps order, counts and tags equal to a recount through random edits of every size', () => {
    const rand = prng(7);
    const pick = (n: number) => Math.floor(rand() * n);
    const due = () => (pick(3) === 0 ? Infinity : 1000 + pick(100_000));
    let table = tableOf(Array.from({ length: 3000 }, (_, i) => row(`id${i}`, `job ${pick(500)}`, pick(6), pick(4) === 0 ? [`t${pick(5)}`] : [], due())));
    expectConsistent(table);
    let nextId = 3000;
    // Batches from one row (a ping) to more than a quarter of the table (sorted afresh).
    for (const batch of [1, 1, 2, 5, 30, 31, 33, 200, 900, 1, 1]) {
      const draft = table.draft();
      for (let j = 0; j < batch; j++) {
        const ids = [...table.values()].map((r) => r.id);
        const op = pick(10);
        if (op === 0) draft.delete(ids[pick(ids.length)]!);
        else if (op === 1) draft.set(row(`id${nextId++}`, `job ${pick(500)}`, pick(6), [`t${pick(8)}`], due()));
        else {
          // Half the time the earliest row, so that the earliest due leaves the table often.
          const id = op < 6 ? ids[pick(ids.length)]! : [...table.values()].reduce((a, b) => (b.due < a.due ? b : a)).id;
          draft.set(row(id, `job ${pick(500)}`, pick(6), draft.get(id)?.check.tags ?? [], due()));
        }
      }
      table = draft.commit();
      expectConsistent(table);
      // A filter applied every step (derived through the edit), and now and then another.
      const worse = (r: TestRow) => r.rank < 2;
      expect(table.view('worse', worse)).toEqual(table.sorted().filter(worse));
      if (batch === 31) expect(table.view('tagged', (r) => r.check.tags.length > 0)).toEqual(table.sorted().filter((r) => r.check.tags.length > 0));
    }
  });

  it('keeps another order (reversed, by due) through edits, and a filtered view in it, equal to sorting afresh', () => {
    const rand = prng(11);
    const pick = (n: number) => Math.floor(rand() * n);
    // Latest due first, then by name: strict, as every order the table is given must be.
    const byDue = (a: TestRow, b: TestRow) => (a.due === b.due ? 0 : a.due > b.due ? -1 : 1) || (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0);
    let table = tableOf(Array.from({ length: 2000 }, (_, i) => row(`id${i}`, `job ${pick(300)}`, pick(6), [], 1000 + pick(50_000)))).sortedBy(byDue);
    expect(table.order).toBe(byDue);
    expect(table.sortedBy(byDue)).toBe(table);
    const worse = (r: TestRow) => r.rank < 3;
    for (const batch of [1, 3, 40, 700, 1]) {
      table.view('worse', worse);
      const draft = table.draft();
      const ids = [...table.values()].map((r) => r.id);
      for (let j = 0; j < batch; j++) {
        const id = ids[pick(ids.length)]!;
        draft.set(row(id, `job ${pick(300)}`, pick(6), [], 1000 + pick(50_000)));
      }
      table = draft.commit();
      const all = [...table.values()];
      expect(table.sorted().map((r) => r.id)).toEqual([...all].sort(byDue).map((r) => r.id));
      expect(table.view('worse', worse)).toEqual(table.sorted().filter(worse));
    }
    // Back to the default order.
    const back = table.sortedBy(compareRows);
    expect(back.sorted().map((r) => r.id)).toEqual([...table.values()].sort(compareRows).map((r) => r.id));
  });

  it('derives a filtered view from the older one only under the same key', () => {
    const table = tableOf([row('a', 'alpha', 0), row('b', 'beta', 4), row('c', 'gamma', 0)]);
    const down = (r: TestRow) => r.rank === 0;
    expect(table.view('down', down).map((r) => r.id)).toEqual(['a', 'c']);
    const draft = table.draft();
    draft.set(row('b', 'beta', 0));
    draft.set(row('a', 'alpha', 4));
    const next = draft.commit();
    expect(next.view('down', down).map((r) => r.id)).toEqual(['b', 'c']);
    expect(next.view('down', down)).toBe(next.view('down', down));
    // Another key: computed afresh, not merged into the old 'down' rows.
    expect(next.view('up', (r) => r.rank === 4).map((r) => r.id)).toEqual(['a']);
    expect(table.view('down', down).map((r) => r.id)).toEqual(['a', 'c']);
  });

  it('returns the same table when an edit changes nothing', () => {
    const a = row('a', 'alpha', 4);
    const table = tableOf([a, row('b', 'beta', 0)]);
    const draft = table.draft();
    draft.set(a); // the very row it holds
    draft.delete('missing');
    draft.set(row('c', 'gamma', 1));
    draft.delete('c'); // added and removed again
    expect(draft.commit()).toBe(table);
  });

  it('leaves the older table as it was', () => {
    const older = tableOf([row('a', 'alpha', 4), row('b', 'beta', 4)]);
    expect(older.sorted().map((r) => r.id)).toEqual(['a', 'b']);
    const draft = older.draft();
    draft.set(row('b', 'beta', 0));
    draft.delete('a');
    const newer = draft.commit();
    expect(newer.sorted().map((r) => r.id)).toEqual(['b']);
    expect(older.sorted().map((r) => r.id)).toEqual(['a', 'b']);
    expect(older.get('b')!.rank).toBe(4);
    expect(older.counts().up).toBe(2);
    expect(newer.counts()).toMatchObject({ up: 0, down: 1, total: 1 });
  });

  it('derives two tables from one (a reducer run twice on the same state)', () => {
    const base = tableOf([row('a', 'alpha', 4), row('b', 'beta', 4), row('c', 'gamma', 4)]);
    base.sorted();
    const one = base.draft();
    one.set(row('c', 'gamma', 0));
    const two = base.draft();
    two.set(row('a', 'alpha', 5));
    const [x, y] = [one.commit(), two.commit()];
    expect(y.sorted().map((r) => r.id)).toEqual(['b', 'c', 'a']);
    expect(x.sorted().map((r) => r.id)).toEqual(['c', 'a', 'b']);
  });

  it('sorts correctly after a long run of edits that nobody sorted in between', () => {
    let table = tableOf(Array.from({ length: 50 }, (_, i) => row(`id${i}`, `job ${i}`, 4)));
    table.sorted();
    // More edits than the chain of older tables it may keep.
    for (let i = 0; i < 20; i++) {
      const draft = table.draft();
      draft.set(row(`id${i}`, `job ${i}`, i % 2 === 0 ? 0 : 5));
      table = draft.commit();
    }
    expectConsistent(table);
    expect(table.sorted()[0]!.id).toBe('id0');
    expect(table.sorted().at(-1)!.id).toBe('id9');
  });

  it('shares the tag list while edits leave tags alone, and recounts when they change them', () => {
    const table = tableOf([row('a', 'alpha', 4, ['db', 'prod']), row('b', 'beta', 4, ['prod'])]);
    const tags = table.tags();
    const ping = table.draft();
    ping.set(row('a', 'alpha', 1, ['db', 'prod']));
    const pinged = ping.commit();
    expect(pinged.tags()).toBe(tags);
    const retag = pinged.draft();
    retag.set(row('a', 'alpha', 1, ['prod']));
    const retagged = retag.commit();
    expect(retagged.tags()).toEqual(['prod']);
    const gone = retagged.draft();
    gone.delete('b');
    gone.delete('a');
    expect(gone.commit().tags()).toEqual([]);
  });

  it('finds the rows due, through edits that add, move and remove the earliest', () => {
    const dueAt = (table: RowTable<TestRow>, at: number) => {
      const ids: string[] = [];
      table.forEachDue(at, (r) => ids.push(r.id));
      return ids.sort();
    };
    const table = tableOf([row('a', 'alpha', 4, [], 5000), row('b', 'beta', 4, [], 9000), row('c', 'gamma', 5)]);
    expect(dueAt(table, 4999)).toEqual([]);
    expect(dueAt(table, 5000)).toEqual(['a']);
    const sooner = table.draft();
    sooner.set(row('c', 'gamma', 4, [], 3000));
    expect(dueAt(sooner.commit(), 5000)).toEqual(['a', 'c']);
    const later = table.draft();
    later.set(row('a', 'alpha', 1, [], 12_000)); // the earliest moves past the others
    expect(dueAt(later.commit(), 9000)).toEqual(['b']);
    const gone = table.draft();
    gone.delete('a');
    gone.delete('b');
    expect(dueAt(gone.commit(), Infinity)).toEqual(['c']);
    expect(dueAt(table, 9000)).toEqual(['a', 'b']);
  });

  it('stays consistent while it grows from empty by small edits (its buckets spread out on the way)', () => {
    let table = tableOf([]);
    for (let i = 0; i < 12_000; i += 40) {
      const draft = table.draft();
      for (let j = i; j < i + 40; j++) draft.set(row(`id${j}`, `job ${(j * 7919) % 12_000}`, j % 6, j % 9 === 0 ? ['x'] : [], j % 5 === 0 ? 1000 + j : Infinity));
      table.sorted();
      table.view('down', (r) => r.rank === 0);
      table = draft.commit();
    }
    expectConsistent(table);
    expect(table.size).toBe(12_000);
    expect(Array.from({ length: 12_000 }, (_, j) => table.get(`id${j}`)?.id)).toEqual(Array.from({ length: 12_000 }, (_, j) => `id${j}`));
    expect(table.view('down', (r) => r.rank === 0)).toEqual(table.sorted().filter((r) => r.rank === 0));
  });

  it('counts a row given twice once, the last one winning', () => {
    const table = tableOf([row('a', 'alpha', 4), row('a', 'alpha', 0)]);
    expect(table.size).toBe(1);
    expect(table.get('a')!.rank).toBe(0);
    expect(table.counts()).toMatchObject({ down: 1, up: 0, total: 1 });
  });
});
