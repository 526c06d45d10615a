// The ping journal (daemon/store/journal.ts) on a real LMDB: a ping is durable
// as a journal entry and readable at once, reaches the check and ping-log
// B-trees when the journal is applied, and no other write can read or clobber
// a stale check meanwhile.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { PingService, type PingFacts } from '../../daemon/service/pings.js';
import { closeDb, openDb } from '../../daemon/store/db.js';
import { SCHEMA_VERSION } from '../../daemon/store/schema.js';
import { applyJournalSync, prepareJournalApply, writePreparedApply } from '../../daemon/store/journal.js';
import { createProjectCli, runCli, startChild } from '../helpers/child.js';
import { api } from '../helpers/http.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { openStore, plantCheck } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { JournalWriter } from '../../daemon/store/journal-writer.js';
import { createLogger } from '../../daemon/shared/log.js';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { environmentOf } from '../../daemon/store/environment.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const facts = (body = ''): PingFacts => ({
  method: 'POST',
  scheme: 'http',
  remoteAddr: '127.0.0.1',
  ua: 'test',
  body: Buffer.from(body),
  rid: null,
});

/** A check pinged twice: the first ping written directly (new → up), the second journaled. */
async function oneJournaledPing() {
  const { dir, store, clock, pings, uuid } = await setup();
  await pings.record(uuid, 'success', null, facts('one'));
  clock.advance(1000);
  await pings.record(uuid, 'success', null, facts('two'));
  const db = environmentOf(store);
  const [entry] = [...db.journal!.getRange()];
  return { dir, store, uuid, db, entry };
}

async function setup(pingLogLimit = 100) {
  const dir = tempDir('checkd-journal-');
  const store = openStore(dir);
  const clock = new ManualClock(T0);
  const { project } = await store.createProject({ name: 'j', checkLimit: 100, pingLogLimit }, T0);
  const check = await plantCheck(store, project.id, { createdAt: T0 });
  return { dir, store, clock, pings: new PingService(store, clock), uuid: check.uuid };
}

describe('the ping journal', () => {
  it('a committed ping whose flush callback never comes (its batch failed) is answered once a later commit fails', async () => {
    const { store, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts('first')); // new → up, with its flip
    const root = environmentOf(store).root as unknown as { flushed: unknown; transaction: (fn: () => unknown) => Promise<unknown> };
    const realFlushed = root.flushed;
    const realTransaction = root.transaction;
    // What lmdb-js does when the batch after a commit fails: that commit's flush waiters are never called.
    const restore = () => {
      root.flushed = realFlushed;
      root.transaction = realTransaction;
    };
    onTestFinished(restore);
    root.flushed = { then: () => new Promise(() => {}) };
    let answered = false;
    const waiting = pings.record(uuid, 'success', null, facts('second')).then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    root.transaction = async (fn) => {
      fn();
      throw Object.assign(new Error('No space left on device'), { code: 'ENOSPC' });
    };
    await expect(pings.record(uuid, 'success', null, facts('third'))).rejects.toThrow(/No space/);
    await waiting;
    expect(answered).toBe(true);
    restore();
    expect(store.listPings(uuid, 10).map((p) => Buffer.from(p.body ?? []).toString())).toEqual(['second', 'first']);
  });

  it('a ping whose commit fails (a full disk) leaves nothing in memory: its body does not pile up', async () => {
    const { store, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts('kept')); // new → up: written directly, with its flip
    await pings.record(uuid, 'success', null, facts('journaled'));
    const pending = (store as unknown as { pending: { size: number; visiblePings(u: string, j: () => boolean): unknown[] } }).pending;
    const held = () => pending.visiblePings(uuid, () => true).length;
    expect(held()).toBe(1);
    // What lmdb-js does when the disk is full: the callback runs, the commit is refused.
    const root = environmentOf(store).root as unknown as { transaction: (fn: () => unknown) => Promise<unknown> };
    const real = root.transaction.bind(root);
    root.transaction = async (fn) => {
      fn();
      throw Object.assign(new Error('No space left on device'), { code: 'ENOSPC' });
    };
    for (let i = 0; i < 20; i++) await expect(pings.record(uuid, 'success', null, facts('x'.repeat(90_000)))).rejects.toThrow(/No space/);
    expect(held()).toBe(1);
    root.transaction = real;
    // The next ping goes through, numbered after the stored one.
    await pings.record(uuid, 'success', null, facts('after'));
    expect(store.listPings(uuid, 10).map((p) => [p.n, Buffer.from(p.body ?? []).toString()])).toEqual([
      [3, 'after'],
      [2, 'journaled'],
      [1, 'kept'],
    ]);
  });

  it('a ping is read back at once, reaches the B-trees when the journal is applied, and reads stay the same', async () => {
    const { store, clock, pings, uuid } = await setup();
    // The first ping flips new → up: written directly, with its flip.
    expect(await pings.record(uuid, 'success', null, facts('one'))).toBe('ok');
    clock.advance(1000);
    expect(await pings.record(uuid, 'start', null, facts('two'))).toBe('ok');
    clock.advance(1000);
    expect(await pings.record(uuid, 'success', null, facts('three'))).toBe('ok');

    // Pings 2 and 3 are journaled: not in the B-trees yet...
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(1);
    expect(environmentOf(store).pings.get([uuid, 3])).toBeUndefined();
    expect([...environmentOf(store).journal!.getKeys()].map((k) => k[1])).toEqual([uuid, uuid]);
    // ...but every read already has them, the duration included.
    const read = () => ({
      check: store.getCheck(uuid),
      list: store.listPings(uuid, 10).map((p) => [p.n, p.kind, Buffer.from(p.body ?? []).toString(), p.duration]),
      second: Buffer.from(store.getPing(uuid, 2)!.body!).toString(),
    });
    const before = read();
    expect(before.check).toMatchObject({ nPings: 3, status: 'up', lastPing: T0 + 2000, lastDuration: 1000 });
    expect(before.list).toEqual([
      [3, 'success', 'three', 1],
      [2, 'start', 'two', null],
      [1, 'success', 'one', null],
    ]);
    expect(before.second).toBe('two');

    await store.applyJournal();
    expect([...environmentOf(store).journal!.getKeys()]).toEqual([]);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(3);
    expect([...environmentOf(store).pings.getKeys({ start: [uuid, 0], end: [uuid, Infinity] })].map((k) => k[1])).toEqual([1, 2, 3]);
    expect(read()).toEqual(before);
    expect(store.listFlips(uuid).map((f) => f.newStatus)).toEqual(['up']);
  });

  it("the worker's synchronous apply, from another handle on the environment, writes the same B-trees into the data file", async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    for (const action of ['success', 'start', 'success'] as const) {
      expect(await pings.record(uuid, action, null, facts(action))).toBe('ok');
      clock.advance(1000);
    }
    const before = { check: store.getCheck(uuid), list: store.listPings(uuid, 10) };
    expect([...environmentOf(store).journal!.getKeys()]).toHaveLength(2);
    // What the journal worker does, in its own handle (the worker opens the data dir itself).
    const other = openDb(dir);
    onTestFinished(() => closeDb(other));
    expect(applyJournalSync(other)).toBe(store.revision());
    // A copy of the data dir made right after holds the applied B-trees.
    const copy = tempDir('checkd-journal-copy-');
    execFileSync('cp', [join(dir, 'data.mdb'), join(copy, 'data.mdb')]);
    const copied = openStore(copy, { readOnly: true });
    expect([...environmentOf(copied).journal!.getKeys()]).toEqual([]);
    expect(environmentOf(copied).checks.get(uuid)).toEqual(before.check);
    expect([...environmentOf(copied).pings.getKeys({ start: [uuid, 0], end: [uuid, Infinity] })].map((k) => k[1])).toEqual([1, 2, 3]);
    // And the store that journaled them reads the same as before, although its
    // read snapshot was taken before that commit.
    store.forgetPendingUpTo(store.revision());
    expect({ check: store.getCheck(uuid), list: store.listPings(uuid, 10) }).toEqual(before);
  });

  it('any other write applies the journal first: it reads the current check and cannot clobber a ping', async () => {
    const { store, clock, pings, uuid } = await setup();
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'success', null, facts());
    }
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(1);
    // A rename, written the way the API writes it: read, change, save.
    await store.transact(() => {
      const current = store.getCheck(uuid)!;
      store.saveCheckInTxn({ ...current, name: 'renamed' }, clock.now(), 'check.updated');
    });
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ name: 'renamed', nPings: 3, lastPing: T0 + 3000 });
    expect([...environmentOf(store).journal!.getKeys()]).toEqual([]);
    // The next ping starts from the renamed check.
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts());
    expect(store.getCheck(uuid)).toMatchObject({ name: 'renamed', nPings: 4 });
  });

  it('a queued apply that another writer overtakes is skipped: it cannot clobber what that writer changed', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'success', null, facts(`#${i + 1}`));
    }
    expect(environmentOf(store).journal!.getKeysCount()).toBe(2);
    const other = openStore(dir);
    // The journal is read and the writes are queued; before they run, another
    // writer applies the journal itself and renames the check.
    const applying = store.applyJournalQueued();
    environmentOf(other).root.transactionSync(() => {
      other.applyJournalInTxn();
      environmentOf(other).checks.put(uuid, { ...other.getCheck(uuid)!, name: 'renamed elsewhere' });
    });
    await applying;
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ name: 'renamed elsewhere', nPings: 3 });
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    expect(store.listPings(uuid, 10).map((p) => Buffer.from(p.body!).toString())).toEqual(['#3', '#2', '#1']);
  });

  it('a queued apply keeps exactly the newest ping_log_limit pings when its pings cross a 100th one', async () => {
    // Worked out from reads made before its writes run: the sweep at the
    // 100th ping once missed a ping put earlier in the same apply.
    const { store, clock, pings, uuid } = await setup(5);
    const record = async (from: number, to: number) => {
      for (let i = from; i <= to; i++) {
        clock.advance(1000);
        await pings.record(uuid, 'success', null, facts(`#${i}`));
      }
    };
    await record(1, 194);
    await store.applyJournalQueued();
    await record(195, 205);
    await store.applyJournalQueued();
    const logged = [...environmentOf(store).pings.getKeys({ start: [uuid, 0], end: [uuid, Infinity] })];
    expect(logged.map((key) => key[1])).toEqual([201, 202, 203, 204, 205]);
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ nPings: 205 });
  });

  it("the worker's prepared apply writes the same B-trees as the in-transaction apply, cap included, and skips a deleted check", async () => {
    // Two data dirs with the same pings: one applied inside a transaction, one prepared first.
    const runs = [];
    for (const prepared of [false, true]) {
      const { store, clock, pings, uuid } = await setup(5);
      // Three pings reach the ping log first, then 9 wait in the journal: more than the cap of 5.
      for (let i = 1; i <= 12; i++) {
        clock.advance(1000);
        await pings.record(uuid, i % 4 === 0 ? 'start' : 'success', null, facts(`#${i}`));
        if (i === 3) await store.applyJournal();
      }
      expect(environmentOf(store).journal!.getKeysCount()).toBe(9);
      const rev = store.revision();
      if (prepared) expect(applyJournalSync(environmentOf(store))).toBe(rev);
      else await store.applyJournal();
      store.forgetPendingUpTo(rev);
      runs.push({
        check: { ...environmentOf(store).checks.get(uuid)!, uuid: '', badgeKey: '', projectId: '' },
        log: [...environmentOf(store).pings.getRange({ start: [uuid, 0], end: [uuid, Infinity] })].map(({ key, value }) => [key[1], value.kind, value.duration, Buffer.from(value.body!).toString()]),
        journal: environmentOf(store).journal!.getKeysCount(),
      });
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[1]!.log.map((p) => p[0])).toEqual([8, 9, 10, 11, 12]);
    expect(runs[1]!.check.nPings).toBe(12);
    expect(runs[1]!.journal).toBe(0);
  });

  it('a prepared apply drops at most 1,000 old pings of a check at a time; the next apply goes on', async () => {
    const { store, pings, uuid, clock } = await setup(100);
    // A ping log far over its limit of 100: 1,500 pings stored directly.
    await store.transact(() => {
      for (let n = 1; n <= 1500; n++) environmentOf(store).pings.put([uuid, n], { n, date: T0, kind: 'log', scheme: 'http', remoteAddr: null, method: 'GET', ua: '', rid: null, exitStatus: null, duration: null, body: null });
      environmentOf(store).checks.put(uuid, { ...environmentOf(store).checks.get(uuid)!, nPings: 1500 });
    });
    const logKeys = () => [...environmentOf(store).pings.getKeys({ start: [uuid, 0], end: [uuid, Infinity] })].map((k) => k[1]);
    clock.advance(1000);
    await pings.record(uuid, 'log', null, facts('#1501'));
    applyJournalSync(environmentOf(store));
    expect(logKeys()).toEqual(Array.from({ length: 501 }, (_, i) => 1001 + i));
    clock.advance(1000);
    await pings.record(uuid, 'log', null, facts('#1502'));
    applyJournalSync(environmentOf(store));
    expect(logKeys()).toEqual(Array.from({ length: 100 }, (_, i) => 1403 + i));
  });

  it('a prepared apply overtaken by another writer is not written as prepared: the journal is applied afresh, nothing clobbered', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'success', null, facts(`#${i}`));
    }
    const prepared = prepareJournalApply(environmentOf(store))!;
    expect(prepared.entries).toHaveLength(2);
    // Between the preparation and its write, another writer applies the journal and renames the check...
    const other = openStore(dir);
    environmentOf(other).root.transactionSync(() => {
      other.applyJournalInTxn();
      environmentOf(other).checks.put(uuid, { ...other.getCheck(uuid)!, name: 'renamed elsewhere' });
    });
    // ...and a ping is journaled after that.
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts('#4'));
    expect(writePreparedApply(environmentOf(store), prepared)).toBe(store.revision());
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ name: 'renamed elsewhere', nPings: 4 });
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    store.forgetPendingUpTo(store.revision());
    expect(store.listPings(uuid, 10).map((p) => Buffer.from(p.body!).toString())).toEqual(['#4', '#3', '#2', '#1']);
  });

  it('a prepared apply leaves the pings journaled after it was read for the next apply', async () => {
    const { store, clock, pings, uuid } = await setup();
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'success', null, facts(`#${i}`));
    }
    const prepared = prepareJournalApply(environmentOf(store))!;
    const appliedUpTo = prepared.newest[0];
    clock.advance(1000);
    await pings.record(uuid, 'log', null, facts('#4'));
    expect(writePreparedApply(environmentOf(store), prepared)).toBe(appliedUpTo);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(3);
    expect([...environmentOf(store).journal!.getKeys()].map((k) => k[0])).toEqual([store.revision()]);
    // Reads are unchanged throughout: the fourth ping is still served from the journal.
    store.forgetPendingUpTo(appliedUpTo);
    expect(store.getCheck(uuid)!.nPings).toBe(4);
    expect(store.listPings(uuid, 10).map((p) => p.n)).toEqual([4, 3, 2, 1]);
    expect(prepareJournalApply(environmentOf(store))!.entries).toHaveLength(1);
  });

  it('the ping log cap holds while pings wait in the journal and after they are applied', async () => {
    const { store, clock, pings, uuid } = await setup(5);
    for (let i = 1; i <= 12; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'log', null, facts(`#${i}`));
    }
    expect(store.listPings(uuid, 5).map((p) => p.n)).toEqual([12, 11, 10, 9, 8]);
    await store.applyJournal();
    expect([...environmentOf(store).pings.getKeys({ start: [uuid, 0], end: [uuid, Infinity] })].map((k) => k[1])).toEqual([8, 9, 10, 11, 12]);
  });

  it('another Store on the same data dir (an admin command, a backup copy) sees journaled pings', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts());
    clock.advance(1000);
    await pings.record(uuid, 'log', null, facts('output'));
    expect(environmentOf(store).journal!.getKeysCount()).toBe(1);
    const reader = openStore(dir, { readOnly: true });
    expect(reader.getCheck(uuid)).toMatchObject({ nPings: 2, status: 'up' });
    expect(Buffer.from(reader.getPing(uuid, 2)!.body!).toString()).toBe('output');
  });

  it('a data dir from before the journal (schema version 1) opens read-only, for backup and export', async () => {
    const { dir, store, uuid } = await setup();
    // Make it look like version 1 wrote it: no journal database, version 1.
    await environmentOf(store).journal!.drop();
    await environmentOf(store).meta.put('schemaVersion', 1);
    await store.close();
    const reader = openStore(dir, { readOnly: true });
    expect(environmentOf(reader).journal).toBeUndefined();
    expect(reader.getCheck(uuid)?.nPings).toBe(0);
    expect(reader.listPings(uuid, 10)).toEqual([]);
    await reader.close();
    const exported = await runCli(['export', '--data-dir', dir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).projects[0].checks.map((c: { uuid: string }) => c.uuid)).toEqual([uuid]);
    // Opened for writing, it is upgraded: the journal appears, the version is current.
    const writer = openStore(dir);
    expect(environmentOf(writer).journal).toBeDefined();
    expect(writer.schemaVersion()).toBe(SCHEMA_VERSION);
  });

  it('neither the entry nor the event holds the check: it is worked out again from the stored record and the pings', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts('one')); // new → up, written directly
    clock.advance(1000);
    await pings.record(uuid, 'fail', null, facts('two')); // up → down: a flip, written directly
    clock.advance(1000);
    await pings.record(uuid, 'fail', null, facts('three')); // journaled
    const db = environmentOf(store);
    const [entry] = [...db.journal!.getRange()];
    expect(entry!.value).toEqual({ ping: expect.objectContaining({ n: 3 }), replay: true });
    expect(db.events.get(entry!.key[0])).toMatchObject({ type: 'ping.received', ping: { n: 3 } });
    expect(db.events.get(entry!.key[0])!.check).toBeUndefined();
    const after = store.getCheck(uuid)!;
    expect(after).toMatchObject({ nPings: 3, lastPing: T0 + 2000, status: 'down' });
    // The log's readers get the check with the event.
    expect(store.eventsAfter(entry!.key[0] - 1, 1)[0]!.check).toEqual(after);
    // A new handle (a restarted daemon) works the same check out again.
    const again = openStore(dir);
    expect(again.getCheck(uuid)).toEqual(after);
    await again.close({ applyJournal: false });
    await store.applyJournal();
    expect(db.checks.get(uuid)).toEqual(after);
    expect(Buffer.from(db.pings.get([uuid, 3])!.body!).toString()).toBe('three');
  });

  it('a run of journaled pings of every kind is worked out again exactly as the ping path made it', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts()); // new → up, written directly
    const steps: Array<[Parameters<PingService['record']>[1], number | null, string | null]> = [
      ['start', null, 'run-1'],
      ['success', null, 'run-1'],
      ['log', null, null],
      ['start', null, null],
      ['start', null, 'run-2'],
      ['success', null, 'other'],
      ['success', 0, 'run-2'],
      ['success', null, null],
    ];
    for (const [action, exitStatus, rid] of steps) {
      clock.advance(1234);
      await pings.record(uuid, action, exitStatus, { ...facts('x'), rid });
    }
    const db = environmentOf(store);
    expect(db.journal!.getKeysCount()).toBe(steps.length);
    const made = store.getCheck(uuid)!;
    expect(made).toMatchObject({ nPings: steps.length + 1, status: 'up', everStarted: true });
    const again = openStore(dir);
    expect(again.getCheck(uuid)).toEqual(made);
    expect(again.listPings(uuid, 20).map((p) => p.duration)).toEqual(store.listPings(uuid, 20).map((p) => p.duration));
    await again.close({ applyJournal: false });
    // The worker's prepared apply, from the stored record.
    const other = openDb(dir);
    applyJournalSync(other);
    await closeDb(other);
    db.root.resetReadTxn();
    expect(db.checks.get(uuid)).toEqual(made);
  });

  it("an entry of the version before (the check in the ping's event) is read and applied with that check", async () => {
    const { dir, store, uuid, db, entry } = await oneJournaledPing();
    const event = db.events.get(entry!.key[0])!;
    // That version's shapes, with a check no replay would make, to tell where it came from.
    const check = { ...store.getCheck(uuid)!, desc: 'from the event' };
    await db.root.transaction(() => {
      db.journal!.put(entry!.key, { ping: entry!.value.ping }, 1);
      db.events.put(entry!.key[0], { ...event, check });
    });
    await store.close({ applyJournal: false });
    const reopened = openStore(dir);
    expect(reopened.getCheck(uuid)).toEqual(check);
    await reopened.applyJournal();
    expect(environmentOf(reopened).checks.get(uuid)).toEqual(check);
  });

  it('an entry an older version left with its check in it is read and applied with that check', async () => {
    const { dir, store, uuid, db, entry } = await oneJournaledPing();
    const check = store.getCheck(uuid)!;
    // The old shape, and its event gone: only the entry can say what the check became.
    await db.root.transaction(() => {
      db.journal!.put(entry!.key, { check, ping: entry!.value.ping }, 1);
      db.events.remove(entry!.key[0]);
    });
    await store.close({ applyJournal: false });
    const reopened = openStore(dir);
    expect(reopened.getCheck(uuid)).toMatchObject({ nPings: 2, lastPing: T0 + 1000 });
    await reopened.applyJournal();
    expect(environmentOf(reopened).checks.get(uuid)).toEqual(check);
    expect(environmentOf(reopened).journal!.getKeysCount()).toBe(0);
  });

  it("keeps the events of pings still in the journal when old events are pruned, and drops them once applied", async () => {
    const { store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts('one'));
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts('two')); // journaled
    const journaledRev = [...environmentOf(store).journal!.getKeys()][0]![0];
    const muchLater = clock.now() + 30 * 24 * 3600 * 1000; // every event past its age limit
    await store.pruneEvents(muchLater);
    expect(store.oldestRetainedRevision()).toBe(journaledRev);
    expect(store.getCheck(uuid)).toMatchObject({ nPings: 2 });
    await store.applyJournal();
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ nPings: 2, lastPing: T0 + 1000 });
    for (let n = -1; n !== 0; ) n = await store.pruneEvents(muchLater);
    expect(store.oldestRetainedRevision()).toBeNull();
  });

  it('a deleted check takes its journaled pings with it', async () => {
    const { store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts());
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts());
    await store.transact(() => store.deleteCheckInTxn(store.getCheck(uuid)!, clock.now()));
    expect(store.getCheck(uuid)).toBeUndefined();
    expect(store.listPings(uuid, 10)).toEqual([]);
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    expect(await pings.record(uuid, 'success', null, facts())).toBe('missing');
  });
});

describe('the built daemon', () => {
  it('applies the journal in its worker thread about once a second, while it runs', async () => {
    const dir = tempDir('checkd-journal-');
    const key = (await createProjectCli(dir, 'w')).api_key;
    const d = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0']);
    const uuid = (await api(d.url, '/api/v3/checks/', { key, body: { name: 'w' } })).json.uuid as string;
    for (let i = 1; i <= 20; i++) expect((await fetch(`${d.url}/ping/${uuid}`, { method: 'POST', body: `#${i}` })).status).toBe(200);
    // Killed, not stopped: only what the worker applied while running is in the B-trees.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await d.stop('SIGKILL')).code).toBeNull();
    const store = openStore(dir, { readOnly: true });
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ nPings: 20, status: 'up' });
    const logged = [...environmentOf(store).pings.getRange({ start: [uuid, 0], end: [uuid, Infinity] })];
    expect(logged.map(({ value }) => Buffer.from(value.body!).toString())).toEqual(Array.from({ length: 20 }, (_, i) => `#${i + 1}`));
    expect(d.stderr()).not.toMatch(/journal/);
  }, 30_000);
});

describe('the built daemon on a full disk', () => {
  it('its journal worker survives a failed apply, says why, and writes the journal once there is room', async () => {
    const dir = tempDir('checkd-journal-');
    const key = (await createProjectCli(dir, 'f', ['--ping-log-limit', '100000'])).api_key;
    // At info, to see the recovery line.
    const d = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'], { env: { CHECKD_LOG_LEVEL: 'info' } });
    const uuid = (await api(d.url, '/api/v3/checks/', { key, body: { name: 'f' } })).json.uuid as string;
    const pid = String(d.proc.pid);
    const limit = (bytes: string) => execFileSync('prlimit', ['--pid', pid, `--fsize=${bytes}:unlimited`]);
    const failed = /writing journaled pings failed; retrying: writing to the data dir \S+ failed: /;
    let acked = 0;
    // Journal pings, then leave no room before the worker's next apply (about
    // once a second); if it applied them first, try again.
    for (let attempt = 0; attempt < 5 && !failed.test(d.stderr()); attempt++) {
      for (let i = 0; i < 5; i++) {
        const r = await fetch(`${d.url}/ping/${uuid}`, { method: 'POST', body: 'x'.repeat(8000) });
        await r.text();
        expect(r.status).toBe(200);
        acked++;
      }
      limit(String(statSync(join(dir, 'data.mdb')).size));
      for (let t = 0; t < 30 && !failed.test(d.stderr()); t++) await new Promise((r) => setTimeout(r, 100));
      if (!failed.test(d.stderr())) limit('unlimited');
    }
    expect(d.stderr()).toMatch(failed);
    limit('unlimited');
    for (let t = 0; t < 50 && !d.stderr().includes('journaled pings are being written again'); t++) await new Promise((r) => setTimeout(r, 100));
    expect(d.stderr()).toContain('journaled pings are being written again');
    // The worker did it: it never gave up its thread.
    expect(d.stderr()).not.toContain('the journal worker is gone');
    expect((await d.stop('SIGKILL')).code).toBeNull();
    const store = openStore(dir, { readOnly: true });
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(acked);
  }, 30_000);
});

describe('JournalWriter', () => {
  it('applies on the main thread from then on when its worker cannot run (here: cannot open the data dir)', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts());
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts('journaled'));
    expect(environmentOf(store).journal!.getKeysCount()).toBe(1);
    // A data dir below a regular file: the worker's open fails with ENOTDIR.
    const unusable = join(dir, 'data.mdb', 'data');
    const lines: string[] = [];
    const out = new PassThrough();
    out.on('data', (b: Buffer) => lines.push(b.toString()));
    const script = pathToFileURL(join(REPO_ROOT, 'dist/daemon/store/journal-worker.js'));
    const writer = new JournalWriter(store, unusable, createLogger('info', out), { everyMs: 50, script });
    onTestFinished(() => writer.stop());
    for (let i = 0; i < 100 && environmentOf(store).journal!.getKeysCount() > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(environmentOf(store).journal!.getKeysCount()).toBe(0);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(2);
    expect(Buffer.from(environmentOf(store).pings.get([uuid, 2])!.body!).toString()).toBe('journaled');
    expect(lines.join('')).toContain('applying the journal on the main thread from now on');
  });
});
