// The slug index (schema version 3) on a real LMDB: slug pings find their
// check through it instead of reading every check of the project; it follows
// creations, slug changes and deletions, and a data dir written before it is
// read by a scan when opened read-only and indexed when opened for writing.
import { afterEach, describe, expect, it } from 'vitest';
import { newCheck } from '../../daemon/domain/check-input.js';
import { newUuid } from '../../daemon/domain/ids.js';
import { SCHEMA_VERSION } from '../../daemon/store/db.js';
import { Store } from '../../daemon/store/store.js';
import { runCli, tempDir } from '../helpers/daemon.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
  const dir = tempDir('checkd-slug-');
  cleanups.push(() => dir.cleanup());
  const store = Store.open(dir.path);
  const { project } = await store.createProject({ name: 's', checkLimit: 100, pingLogLimit: 100 }, T0);
  const add = async (slug: string, projectId = project.id) => {
    const check = newCheck({ uuid: newUuid(), badgeKey: newUuid(), projectId, createdAt: T0 });
    check.slug = slug;
    await store.transact(() => store.insertCheckInTxn(check, T0));
    return check;
  };
  return { dir, store, project, add };
}

const uuidsOf = (checks: Array<{ uuid: string }>) => checks.map((c) => c.uuid).sort();
const indexKeys = (store: Store) => [...store.db.checksBySlug!.getKeys()];

describe('the slug index', () => {
  it('holds one key per check with a slug, follows slug changes, and loses the key with the check', async () => {
    const { store, project, add } = await setup();
    cleanups.push(() => store.close());
    const { project: other } = await store.createProject({ name: 'other', checkLimit: 100, pingLogLimit: 100 }, T0);
    const a = await add('backup');
    const b = await add('backup');
    const c = await add('');
    const d = await add('backup', other.id);
    expect(uuidsOf(store.checksBySlug(project.id, 'backup'))).toEqual(uuidsOf([a, b]));
    expect(uuidsOf(store.checksBySlug(other.id, 'backup'))).toEqual([d.uuid]);
    // A slug that is a prefix of another matches only itself.
    expect(store.checksBySlug(project.id, 'back')).toEqual([]);
    expect(indexKeys(store)).toHaveLength(3); // the check without a slug is not in it

    await store.transact(() => store.saveCheckInTxn({ ...b, slug: 'restore' }, T0, 'check.updated'));
    expect(uuidsOf(store.checksBySlug(project.id, 'backup'))).toEqual([a.uuid]);
    expect(uuidsOf(store.checksBySlug(project.id, 'restore'))).toEqual([b.uuid]);
    await store.transact(() => store.saveCheckInTxn({ ...c, slug: 'fresh' }, T0, 'check.updated'));
    expect(uuidsOf(store.checksBySlug(project.id, 'fresh'))).toEqual([c.uuid]);
    expect(indexKeys(store)).toHaveLength(4);

    // Deleting with a stale copy (the old slug) still removes the key of the stored slug.
    await store.transact(() => store.deleteCheckInTxn(b, T0));
    await store.transact(() => store.deleteCheckInTxn(a, T0));
    expect(store.checksBySlug(project.id, 'restore')).toEqual([]);
    expect(store.checksBySlug(project.id, 'backup')).toEqual([]);
    expect(indexKeys(store).map((k) => k[1]).sort()).toEqual(['backup', 'fresh']);
  });

  it('a data dir from before it (schema version 2) is scanned when opened read-only and indexed when opened for writing', async () => {
    const { dir, store, project, add } = await setup();
    const a = await add('nightly');
    const b = await add('hourly');
    await add('');
    // Make it look like version 2 wrote it: no slug index, version 2.
    await store.db.checksBySlug!.drop();
    await store.db.meta.put('schemaVersion', 2);
    await store.close();

    const reader = Store.open(dir.path, { readOnly: true });
    try {
      expect(reader.db.checksBySlug).toBeUndefined();
      expect(uuidsOf(reader.checksBySlug(project.id, 'nightly'))).toEqual([a.uuid]);
    } finally {
      await reader.close();
    }
    const exported = await runCli(['export', '--data-dir', dir.path]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).projects[0].checks).toHaveLength(3);

    const writer = Store.open(dir.path);
    try {
      expect(writer.db.meta.get('schemaVersion')).toBe(SCHEMA_VERSION);
      expect(indexKeys(writer).map((k) => k[1]).sort()).toEqual(['hourly', 'nightly']);
      expect(uuidsOf(writer.checksBySlug(project.id, 'hourly'))).toEqual([b.uuid]);
    } finally {
      await writer.close();
    }
  });
});
