// How tag badges count a project's checks, on a real LMDB: chunk by chunk
// (Store.checkChunks, which /metrics walks too) with the event loop free in
// between, one pass shared by the requests that arrive while it waits to
// start, and never an answer older than the request. Over HTTP, a project of
// more than two chunks gives every badge and the badge map in full.
import { describe, expect, it } from 'vitest';
import { BadgeTallies } from '../../daemon/api/badge-tallies.js';
import { aggregateBadgeStatus, type BadgeTally } from '../../daemon/domain/badges.js';
import { displayStatus } from '../../daemon/domain/status.js';
import type { Store } from '../../daemon/store/store.js';
import type { CheckRecord, StoredStatus } from '../../daemon/domain/types.js';
import { ManualClock } from '../../daemon/shared/clock.js';
import { api } from '../helpers/http.js';
import { startInProcess } from '../helpers/in-process.js';
import { openTempStore, plantChecks } from '../helpers/store.js';
import { badgeMap, local } from './support.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A store on a temp data dir, and a way to add projects to it. */
async function storeWithProjects() {
  const { store } = openTempStore('checkd-tallies-');
  const project = async (name: string) => (await store.createProject({ name, checkLimit: 10_000, pingLogLimit: 10 }, T0)).project;
  return { store, project };
}

/** `n` checks in one transaction; the i-th gets tags and status from `shape(i)`. */
const addChecks = (store: Store, projectId: string, n: number, shape: (i: number) => { tags: string; status: StoredStatus }) =>
  plantChecks(store, projectId, n, { createdAt: T0, shape: (c, i) => Object.assign(c, shape(i)) });

const shape = (i: number) => ({
  tags: ['db', 'web db', 'web', ''][i % 4]!,
  status: (['up', 'down', 'new', 'paused', 'up'] as const)[i % 5]!,
});

describe('Store.checkChunks', () => {
  it("walks one project's checks in creation order, each once, in chunks of at most the size", async () => {
    const { store, project } = await storeWithProjects();
    const a = await project('a');
    const b = await project('b');
    const mine = await addChecks(store, a.id, 11, shape);
    await addChecks(store, b.id, 4, shape);
    const chunks: CheckRecord[][] = [];
    for await (const chunk of store.checkChunks({ projectId: a.id, size: 3 })) chunks.push(chunk);
    expect(chunks.map((c) => c.length)).toEqual([3, 3, 3, 2]);
    expect(chunks.flat().map((c) => c.uuid)).toEqual(mine.map((c) => c.uuid));
  });

  it('walks every project in uuid order, and an exact multiple of the size ends cleanly', async () => {
    const { store, project } = await storeWithProjects();
    const all = [...(await addChecks(store, (await project('a')).id, 5, shape)), ...(await addChecks(store, (await project('b')).id, 4, shape))];
    const chunks: CheckRecord[][] = [];
    for await (const chunk of store.checkChunks({ size: 3 })) chunks.push(chunk);
    expect(chunks.map((c) => c.length)).toEqual([3, 3, 3]);
    expect(chunks.flat().map((c) => c.uuid)).toEqual(all.map((c) => c.uuid).sort());
  });

  it('lets queued work run between two chunks, not only after the walk', async () => {
    const { store, project } = await storeWithProjects();
    const p = await project('a');
    await addChecks(store, p.id, 6, shape);
    const seen: string[] = [];
    setImmediate(() => seen.push('other work'));
    for await (const chunk of store.checkChunks({ projectId: p.id, size: 2 })) seen.push(`chunk of ${chunk.length}`);
    expect(seen).toEqual(['chunk of 2', 'other work', 'chunk of 2', 'chunk of 2']);
  });
});

describe('BadgeTallies', () => {
  it('counts a project of several chunks like aggregating every check at once', async () => {
    const { store, project } = await storeWithProjects();
    const p = await project('a');
    await addChecks(store, (await project('other')).id, 7, () => ({ tags: 'db', status: 'down' }));
    const checks = await addChecks(store, p.id, 23, shape);
    const tallies = await new BadgeTallies(store, new ManualClock(T0), 4).of(p.id);
    const expected = (tag: string) => {
      const statuses = checks.filter((c) => tag === '*' || c.tags.split(' ').includes(tag)).map((c) => displayStatus(c, T0, 3));
      const { total, grace, down } = aggregateBadgeStatus(statuses, 3);
      return { total, grace, down };
    };
    expect([...tallies.keys()].sort()).toEqual(['*', 'db', 'web']);
    for (const tag of ['*', 'db', 'web']) expect(tallies.get(tag)).toEqual(expected(tag));
  });

  it('shares one pass among the requests that arrive while another pass runs', async () => {
    const { store, project } = await storeWithProjects();
    const p = await project('a');
    await addChecks(store, p.id, 10, shape);
    let passes = 0;
    const walk = store.checkChunks.bind(store);
    store.checkChunks = (scope) => {
      passes += 1;
      return walk(scope);
    };
    const tallies = new BadgeTallies(store, new ManualClock(T0), 3);
    const [first, ...later] = await Promise.all([tallies.of(p.id), tallies.of(p.id), tallies.of(p.id), tallies.of(p.id)]);
    // The first starts a pass; the other three came after it began and share the next one.
    expect(passes).toBe(2);
    expect(new Set(later).size).toBe(1);
    expect(later[0]).not.toBe(first);
    expect(later[0]!.get('*')!.total).toBe(10);
    // Nothing running any more: the next request starts a pass of its own at once.
    await tallies.of(p.id);
    expect(passes).toBe(3);
  });

  it('never answers with a pass that began before the request', async () => {
    const { store, project } = await storeWithProjects();
    const p = await project('a');
    const [first] = await addChecks(store, p.id, 12, () => ({ tags: 'web', status: 'up' }));
    // Hold the first pass after its first chunk (which holds `first`), as a
    // long pass over a big project would be held by the reads still to do.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const walk = store.checkChunks.bind(store);
    let passes = 0;
    store.checkChunks = async function* (scope) {
      const pass = ++passes;
      let chunks = 0;
      for await (const chunk of walk(scope)) {
        yield chunk;
        if (pass === 1 && ++chunks === 1) await held;
      }
    };
    const tallies = new BadgeTallies(store, new ManualClock(T0), 5);
    const early = tallies.of(p.id);
    await new Promise((r) => setImmediate(r));
    // `first` goes down after the running pass has read it.
    await store.transact(() => store.saveCheckInTxn({ ...first!, status: 'down' }, T0, 'status.changed'));
    const late = tallies.of(p.id);
    release();
    expect((await early).get('web')).toEqual<BadgeTally>({ total: 12, grace: 0, down: 0 });
    expect((await late).get('web')).toEqual<BadgeTally>({ total: 12, grace: 0, down: 1 });
  });
});

describe('tag badges over HTTP, more than two chunks of checks', () => {
  it('count every check in every badge and list every tag, for overlapping requests too', async () => {
    const d = await startInProcess({ clock: new ManualClock(T0) });
    const store = d.daemon.store;
    const p = await d.createProject({ checkLimit: 10_000 });
    const N = 4_500; // the server reads 2,000 at a time
    await addChecks(store, p.id, N, shape);
    const badges = await badgeMap(d.url, p.apiKey);
    expect(Object.keys(badges).sort()).toEqual(['*', 'db', 'web']);
    const fetchBadge = (publicUrl: string | undefined) => api(local(d, publicUrl!), '');
    const [all, all2, db, web] = await Promise.all([
      fetchBadge(badges['*']!.json3),
      fetchBadge(badges['*']!.json),
      fetchBadge(badges['db']!.json3),
      fetchBadge(badges['web']!.json),
    ]);
    // shape(i): tags cycle db / web db / web / none, statuses up / down / new / paused / up.
    const count = (pred: (i: number) => boolean) => Array.from({ length: N }, (_, i) => i).filter(pred).length;
    const down = (i: number) => i % 5 === 1;
    const hasDb = (i: number) => i % 4 === 0 || i % 4 === 1;
    const hasWeb = (i: number) => i % 4 === 1 || i % 4 === 2;
    expect(all.json).toEqual({ status: 'down', total: N, grace: 0, down: count(down) });
    expect(all2.json).toEqual(all.json);
    expect(db.json).toEqual({ status: 'down', total: count(hasDb), grace: 0, down: count((i) => hasDb(i) && down(i)) });
    expect(web.json).toEqual({ status: 'down', total: count(hasWeb), grace: 0, down: count((i) => hasWeb(i) && down(i)) });
  });
});
