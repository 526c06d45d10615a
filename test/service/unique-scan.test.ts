// An upsert whose `unique` fields have no index (tags, timeout, grace) scans the
// project before its transaction instead of inside it, where at 100,000 checks
// it held LMDB's write lock, and every ping, for a second. The scan is trusted
// only if no check of the project was created, changed or deleted meanwhile
// (the project's edit counter); the matched check is read again inside.
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import type { PingFacts } from '../../daemon/service/pings.js';
import { PingService } from '../../daemon/service/pings.js';
import { CheckService } from '../../daemon/service/checks.js';
import type { Store } from '../../daemon/store/store.js';
import { openTempStore, plantChecks } from '../helpers/store.js';

const T0 = Date.UTC(2026, 10, 23, 10, 0, 0);
const facts: PingFacts = { method: 'GET', scheme: 'http', remoteAddr: '127.0.0.1', ua: 't', body: Buffer.alloc(0), rid: null };

async function setup(tags: string[]) {
  const { store } = openTempStore('checkd-unique-');
  const clock = new ManualClock(T0);
  const { project } = await store.createProject({ name: 'u', checkLimit: 100, pingLogLimit: 100 }, T0);
  const planted = await plantChecks(store, project.id, tags.length, { createdAt: T0, shape: (c, i) => (c.tags = tags[i]!) });
  return { store, clock, project, planted, checks: new CheckService(store, clock), pings: new PingService(store, clock) };
}

/** Run `during` once the scan has read its first chunk, before the create's transaction. */
function interposeInScan(store: Store, during: () => Promise<unknown>): void {
  const original = store.checkChunks.bind(store);
  vi.spyOn(store, 'checkChunks').mockImplementation(async function* (opts) {
    const chunks = original(opts);
    const first = await chunks.next();
    await during();
    if (!first.done) yield first.value;
    yield* chunks;
  });
}

describe('upsert by a field without an index', () => {
  it('finds the oldest match with the scan before the transaction, and reads nothing inside it', async () => {
    const { store, project, planted, checks } = await setup(['b', 'a', 'c', 'a']);
    const inside = vi.spyOn(store, 'listChecks');
    const r = await checks.create(project, { tags: 'a', timeout: 120, unique: ['tags'] }, 3);
    expect(r.kind).toBe('updated');
    expect(r.kind === 'updated' && r.check.uuid).toBe(planted[1]!.uuid);
    expect(store.getCheck(planted[1]!.uuid)!.timeout).toBe(120);
    expect(inside).not.toHaveBeenCalled();
    // No match: a new check.
    const none = await checks.create(project, { tags: 'z', unique: ['tags'] }, 3);
    expect(none.kind).toBe('created');
    expect(store.countChecks(project.id)).toBe(5);
  });

  it('a check changed during the scan sends the match back inside the transaction: the oldest match wins', async () => {
    const { store, project, planted, checks } = await setup(['x', 'a']);
    // The scan reads the first chunk with the first check still tagged x...
    interposeInScan(store, () => checks.update(planted[0]!.uuid, { tags: 'a' }, 3));
    const inside = vi.spyOn(store, 'listChecks');
    const r = await checks.create(project, { tags: 'a', grace: 300, unique: ['tags'] }, 3);
    // ...but by the transaction it matches too, and it is the older.
    expect(r.kind === 'updated' && r.check.uuid).toBe(planted[0]!.uuid);
    expect(store.getCheck(planted[0]!.uuid)!.grace).toBe(300);
    expect(store.getCheck(planted[1]!.uuid)!.grace).toBe(planted[1]!.grace);
    expect(inside).toHaveBeenCalledTimes(1);
  });

  it('a check deleted or created during the scan does the same', async () => {
    for (const change of ['delete', 'create'] as const) {
      const { store, project, planted, checks } = await setup(['a', 'b']);
      interposeInScan(store, () =>
        change === 'delete' ? checks.delete(planted[0]!.uuid) : checks.create(project, { tags: 'b' }, 3),
      );
      const inside = vi.spyOn(store, 'listChecks');
      const r = await checks.create(project, { tags: 'a', unique: ['tags'] }, 3);
      expect(r.kind).toBe(change === 'delete' ? 'created' : 'updated');
      expect(inside).toHaveBeenCalledTimes(1);
    }
  });

  it('pings recorded during the scan are kept: the match is read again in the transaction', async () => {
    const { store, clock, project, planted, checks, pings } = await setup(['a']);
    const uuid = planted[0]!.uuid;
    interposeInScan(store, async () => {
      clock.advance(5000);
      await pings.record(uuid, 'success', null, facts);
      await pings.record(uuid, 'log', null, facts);
    });
    const inside = vi.spyOn(store, 'listChecks');
    const r = await checks.create(project, { tags: 'a', desc: 'upserted', unique: ['tags'] }, 3);
    expect(inside).not.toHaveBeenCalled();
    expect(r.kind === 'updated' && r.check).toMatchObject({ uuid, desc: 'upserted', nPings: 2, status: 'up', lastPing: T0 + 5000 });
    expect(store.getCheck(uuid)).toMatchObject({ desc: 'upserted', nPings: 2, status: 'up' });
  });

  it('the edit counter moves with creates, changes and deletes, not with pings, pauses or resumes', async () => {
    const { store, project, planted, checks, pings } = await setup(['a']);
    const uuid = planted[0]!.uuid;
    const at = () => store.checkEdits(project.id);
    const start = at()!;
    await pings.record(uuid, 'success', null, facts);
    await checks.pause(uuid);
    await checks.resume(uuid);
    expect(at()).toBe(start);
    await checks.update(uuid, { name: 'renamed' }, 3);
    expect(at()).toBe(start + 1);
    await checks.create(project, { name: 'new' }, 3);
    expect(at()).toBe(start + 2);
    await checks.delete(uuid);
    expect(at()).toBe(start + 3);
  });
});
