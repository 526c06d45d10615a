// What schema version 3 keeps about checks, on a real LMDB: the slug index
// (slug pings find their check without reading every check of the project)
// and the per-project check counts (the check limit without counting). Both
// follow creations, slug changes and deletions; a data dir written before them
// is read by a scan when opened read-only and converted when opened for writing.
import { describe, expect, it } from 'vitest';
import { newUuid } from '../../daemon/domain/ids.js';
import { SCHEMA_VERSION } from '../../daemon/store/schema.js';
import type { Store } from '../../daemon/store/store.js';
import { runCli } from '../helpers/child.js';
import { openStore, plantCheck } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { environmentOf } from '../../daemon/store/environment.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

async function setup() {
  const dir = tempDir('checkd-slug-');
  const store = openStore(dir);
  const { project } = await store.createProject({ name: 's', checkLimit: 100, pingLogLimit: 100 }, T0);
  const add = (slug: string, projectId = project.id) => plantCheck(store, projectId, { createdAt: T0, shape: (c) => (c.slug = slug) });
  return { dir, store, project, add };
}

const uuidsOf = (checks: Array<{ uuid: string }>) => checks.map((c) => c.uuid).sort();

/** Open the data dir (read-only, or for writing, which converts it), look at it with `fn`, close it. */
async function reopened(path: string, opts: { readOnly?: boolean }, fn: (store: Store) => Promise<void> | void): Promise<void> {
  const store = openStore(path, opts);
  await fn(store);
  await store.close();
}
const indexKeys = (store: Store) => [...environmentOf(store).checksBySlug!.getKeys()];

describe('the check indexes of schema versions 3 and 4', () => {
  it('holds one key per check with a slug, follows slug changes, and loses the key with the check', async () => {
    const { store, project, add } = await setup();
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

  it('holds every check by name, unnamed ones too, and follows renames and deletions', async () => {
    const { store, project, add } = await setup();
    const named = async (name: string) => {
      const c = await add('');
      const renamed = { ...c, name };
      await store.transact(() => store.saveCheckInTxn(renamed, T0, 'check.updated'));
      return renamed;
    };
    const a = await named('nightly backup');
    const b = await named('nightly backup');
    const c = await add(''); // no name
    expect(uuidsOf(store.checksWith(project.id, 'name', 'nightly backup'))).toEqual(uuidsOf([a, b]));
    expect(uuidsOf(store.checksWith(project.id, 'name', ''))).toEqual([c.uuid]);
    expect(store.checksWith(project.id, 'name', 'nightly')).toEqual([]);
    const nameKeys = () => [...environmentOf(store).checksByName!.getKeys()].map((k) => k[1]).sort();
    expect(nameKeys()).toEqual(['', 'nightly backup', 'nightly backup']);

    await store.transact(() => store.saveCheckInTxn({ ...b, name: 'weekly' }, T0, 'check.updated'));
    expect(uuidsOf(store.checksWith(project.id, 'name', 'nightly backup'))).toEqual([a.uuid]);
    expect(uuidsOf(store.checksWith(project.id, 'name', 'weekly'))).toEqual([b.uuid]);
    // Deleting with a stale copy (the old name) still removes the key of the stored name.
    await store.transact(() => store.deleteCheckInTxn(b, T0));
    expect(store.checksWith(project.id, 'name', 'weekly')).toEqual([]);
    expect(nameKeys()).toEqual(['', 'nightly backup']);
  });

  it('counts the checks of each project, and a second delete of the same check counts nothing', async () => {
    const { store, project, add } = await setup();
    const { project: other } = await store.createProject({ name: 'other', checkLimit: 100, pingLogLimit: 100 }, T0);
    const a = await add('a');
    await add('');
    await add('c', other.id);
    expect(store.countChecks(project.id)).toBe(2);
    expect(store.countChecks(other.id)).toBe(1);
    await store.transact(() => store.deleteCheckInTxn(a, T0));
    await store.transact(() => store.deleteCheckInTxn(a, T0));
    expect(store.countChecks(project.id)).toBe(1);
    expect(store.countChecks(other.id)).toBe(1);
    expect(store.countChecks(newUuid())).toBe(0);
  });

  it('a data dir from before them (schema version 2) is scanned when opened read-only and converted when opened for writing', async () => {
    const { dir, store, project, add } = await setup();
    const a = await add('nightly');
    const b = await add('hourly');
    await add('');
    // Make it look like version 2 wrote it: no slug index, no counts, version 2.
    await environmentOf(store).checksBySlug!.drop();
    await environmentOf(store).checkCounts!.drop();
    await environmentOf(store).meta.put('schemaVersion', 2);
    await store.close();

    await reopened(dir, { readOnly: true }, async (reader) => {
      expect(environmentOf(reader).checksBySlug).toBeUndefined();
      expect(environmentOf(reader).checkCounts).toBeUndefined();
      expect(uuidsOf(reader.checksBySlug(project.id, 'nightly'))).toEqual([a.uuid]);
      expect(reader.countChecks(project.id)).toBe(3);
    });
    const exported = await runCli(['export', '--data-dir', dir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).projects[0].checks).toHaveLength(3);

    await reopened(dir, {}, async (writer) => {
      expect(writer.schemaVersion()).toBe(SCHEMA_VERSION);
      expect(indexKeys(writer).map((k) => k[1]).sort()).toEqual(['hourly', 'nightly']);
      expect(uuidsOf(writer.checksBySlug(project.id, 'hourly'))).toEqual([b.uuid]);
      expect(environmentOf(writer).checkCounts!.get(project.id)).toBe(3);
      expect(writer.countChecks(project.id)).toBe(3);
    });
  });

  it('a version-3 data dir is read by a scan for names read-only, and gets its name index when opened for writing', async () => {
    const { dir, store, project, add } = await setup();
    const a = await add('s1');
    await store.transact(() => store.saveCheckInTxn({ ...a, name: 'db dump' }, T0, 'check.updated'));
    const b = await add('');
    await environmentOf(store).checksByName!.drop();
    await environmentOf(store).meta.put('schemaVersion', 3);
    await store.close();

    await reopened(dir, { readOnly: true }, async (reader) => {
      expect(environmentOf(reader).checksByName).toBeUndefined();
      expect(uuidsOf(reader.checksWith(project.id, 'name', 'db dump'))).toEqual([a.uuid]);
    });
    await reopened(dir, {}, async (writer) => {
      expect(writer.schemaVersion()).toBe(SCHEMA_VERSION);
      expect([...environmentOf(writer).checksByName!.getKeys()].map((k) => k[1]).sort()).toEqual(['', 'db dump']);
      expect(uuidsOf(writer.checksWith(project.id, 'name', ''))).toEqual([b.uuid]);
      // The slug index and the counts of version 3 are left as they were.
      expect(indexKeys(writer).map((k) => k[1])).toEqual(['s1']);
      expect(writer.countChecks(project.id)).toBe(2);
    });
  });

  it('a version-4 data dir has no edit counters read-only, and gets them, starting at none, when opened for writing', async () => {
    const { dir, store, project, add } = await setup();
    const a = await add('s1');
    await environmentOf(store).checkEdits!.drop();
    await environmentOf(store).meta.put('schemaVersion', 4);
    await store.close();

    await reopened(dir, { readOnly: true }, async (reader) => {
      expect(environmentOf(reader).checkEdits).toBeUndefined();
      expect(reader.checkEdits(project.id)).toBeNull();
    });
    await reopened(dir, {}, async (writer) => {
      expect(writer.schemaVersion()).toBe(SCHEMA_VERSION);
      expect(writer.checkEdits(project.id)).toBe(0);
      await writer.transact(() => writer.saveCheckInTxn({ ...writer.getCheck(a.uuid)!, tags: 'x' }, T0, 'check.updated'));
      expect(writer.checkEdits(project.id)).toBe(1);
      // Nothing else of version 4 was rebuilt.
      expect(indexKeys(writer).map((k) => k[1])).toEqual(['s1']);
      expect(writer.countChecks(project.id)).toBe(1);
    });
  });

  it('the depends_on index follows a dependency set, moved and cleared, and a version-5 data dir gets it', async () => {
    const { dir, store, project, add } = await setup();
    const parent = await add('parent');
    const other = await add('other');
    const child = await add('child');
    const dependents = (s: Store, uuid: string) => uuidsOf(s.checksWith(project.id, 'dependsOn', uuid));
    await store.transact(() => store.saveCheckInTxn({ ...child, dependsOn: parent.uuid }, T0, 'check.updated'));
    expect(dependents(store, parent.uuid)).toEqual([child.uuid]);
    await store.transact(() => store.saveCheckInTxn({ ...store.getCheck(child.uuid)!, dependsOn: other.uuid }, T0, 'check.updated'));
    expect(dependents(store, parent.uuid)).toEqual([]);
    expect(dependents(store, other.uuid)).toEqual([child.uuid]);
    // Checks without a dependency are not in it.
    expect([...environmentOf(store).checksByDependsOn!.getKeys()]).toHaveLength(1);

    await environmentOf(store).checksByDependsOn!.drop();
    await environmentOf(store).meta.put('schemaVersion', 5);
    await store.close();
    await reopened(dir, { readOnly: true }, (reader) => {
      expect(environmentOf(reader).checksByDependsOn).toBeUndefined();
      expect(dependents(reader, other.uuid)).toEqual([child.uuid]);
    });
    await reopened(dir, {}, async (writer) => {
      expect(writer.schemaVersion()).toBe(SCHEMA_VERSION);
      expect([...environmentOf(writer).checksByDependsOn!.getKeys()].map((k) => k[1])).toEqual([other.uuid]);
      await writer.transact(() => writer.saveCheckInTxn({ ...writer.getCheck(child.uuid)!, dependsOn: undefined }, T0, 'check.updated'));
      expect(dependents(writer, other.uuid)).toEqual([]);
      // Nothing else of version 5 was rebuilt.
      expect(indexKeys(writer).map((k) => k[1]).sort()).toEqual(['child', 'other', 'parent']);
    });
  });

  it('converting a data dir that already has them (version set back) counts each check once', async () => {
    const { dir, store, project, add } = await setup();
    await add('one');
    await add('two');
    await environmentOf(store).meta.put('schemaVersion', 2);
    await store.close();
    await reopened(dir, {}, async (again) => {
      expect(again.countChecks(project.id)).toBe(2);
      expect(indexKeys(again)).toHaveLength(2);
    });
  });
});
