// The ping journal (daemon/store/journal.ts) on a real LMDB: a ping is durable
// in the ping log and readable at once, reaches its check's record when the
// journal is applied, and no other write can read or clobber a stale check
// meanwhile.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { PingService, type PingFacts } from '../../daemon/service/pings.js';
import { closeDb, openDb } from '../../daemon/store/db.js';
import { SCHEMA_VERSION, type Db, type StoredPing } from '../../daemon/store/schema.js';
import type { PingRecord } from '../../daemon/domain/types.js';
import { appliedRevision, applyJournalSync, prepareJournalApply, writePreparedApply } from '../../daemon/store/journal.js';
import { createProjectCli, runCli, startChild } from '../helpers/child.js';
import { api } from '../helpers/http.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { openStore, plantCheck, storedPingNumbers } from '../helpers/store.js';
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

/** The journaled pings' keys as the environment's reader sees them now: those past the revision the checks are current with. */
function journaled(db: Db) {
  db.root.resetReadTxn();
  return [...db.pings!.getKeys({ start: [appliedRevision(db) + 1] })];
}

/** A check's stored pings, oldest first. */
function storedPings(db: Db, uuid: string): StoredPing[] {
  return [...db.pings!.getRange()].filter(({ key }) => key[1] === uuid).map(({ value }) => value).sort((a, b) => a.n - b.n);
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
    const pending = (store as unknown as { pending: { latestCheck(u: string, j: () => boolean): { nPings: number } | undefined } }).pending;
    // The newest ping this process holds in memory, visible or not.
    const held = () => pending.latestCheck(uuid, () => true)?.nPings;
    expect(held()).toBe(2);
    // What lmdb-js does when the disk is full: the callback runs, the commit is refused.
    const root = environmentOf(store).root as unknown as { transaction: (fn: () => unknown) => Promise<unknown> };
    const real = root.transaction.bind(root);
    root.transaction = async (fn) => {
      fn();
      throw Object.assign(new Error('No space left on device'), { code: 'ENOSPC' });
    };
    for (let i = 0; i < 20; i++) await expect(pings.record(uuid, 'success', null, facts('x'.repeat(90_000)))).rejects.toThrow(/No space/);
    expect(held()).toBe(2);
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

    // Pings 2 and 3 are journaled: in the ping log, not in the check's record yet...
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(1);
    expect(journaled(environmentOf(store)).map((k) => [k[1], k[2]])).toEqual([[uuid, 2], [uuid, 3]]);
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
    expect(journaled(environmentOf(store))).toEqual([]);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(3);
    expect(storedPingNumbers(environmentOf(store), uuid)).toEqual([1, 2, 3]);
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
    expect(journaled(environmentOf(store))).toHaveLength(2);
    // What the journal worker does, in its own handle (the worker opens the data dir itself).
    const other = openDb(dir);
    onTestFinished(() => closeDb(other));
    expect(applyJournalSync(other)).toBe(store.revision());
    // A copy of the data dir made right after holds the applied B-trees.
    const copy = tempDir('checkd-journal-copy-');
    execFileSync('cp', [join(dir, 'data.mdb'), join(copy, 'data.mdb')]);
    const copied = openStore(copy, { readOnly: true });
    expect(journaled(environmentOf(copied))).toEqual([]);
    expect(environmentOf(copied).checks.get(uuid)).toEqual(before.check);
    expect(storedPingNumbers(environmentOf(copied), uuid)).toEqual([1, 2, 3]);
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
    expect(journaled(environmentOf(store))).toEqual([]);
    // The next ping starts from the renamed check.
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts());
    expect(store.getCheck(uuid)).toMatchObject({ name: 'renamed', nPings: 4 });
  });

  it('an apply keeps exactly the newest ping_log_limit pings, applied or journaled', async () => {
    const { store, clock, pings, uuid } = await setup(5);
    const record = async (from: number, to: number) => {
      for (let i = from; i <= to; i++) {
        clock.advance(1000);
        await pings.record(uuid, 'success', null, facts(`#${i}`));
      }
    };
    await record(1, 194);
    await store.applyJournal();
    expect(storedPingNumbers(environmentOf(store), uuid)).toEqual([190, 191, 192, 193, 194]);
    await record(195, 205);
    // Until the next apply, the log holds more than the window; no reader sees past it.
    expect(store.listPings(uuid, 5).map((p) => p.n)).toEqual([205, 204, 203, 202, 201]);
    await store.applyJournal();
    expect(storedPingNumbers(environmentOf(store), uuid)).toEqual([201, 202, 203, 204, 205]);
    expect(journaled(environmentOf(store))).toEqual([]);
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
      expect(journaled(environmentOf(store))).toHaveLength(9);
      const rev = store.revision();
      if (prepared) expect(applyJournalSync(environmentOf(store))).toBe(rev);
      else await store.applyJournal();
      store.forgetPendingUpTo(rev);
      runs.push({
        check: { ...environmentOf(store).checks.get(uuid)!, uuid: '', badgeKey: '', projectId: '' },
        log: storedPings(environmentOf(store), uuid).map((p) => [p.n, p.kind, p.duration, Buffer.from(p.body!).toString()]),
        journal: journaled(environmentOf(store)).length,
      });
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[1]!.log.map((p) => p[0])).toEqual([8, 9, 10, 11, 12]);
    expect(runs[1]!.check.nPings).toBe(12);
    expect(runs[1]!.journal).toBe(0);
  });

  it('an apply sweeps a bounded stretch of the ping log; the next applies go on where it stopped', async () => {
    const { store, uuid } = await setup(100);
    // A ping log far over its limit of 100: 12,000 pings stored as an import stores them.
    await store.transact(() => {
      const check = { ...store.getCheck(uuid)!, nPings: 12_000 };
      for (let n = 1; n <= 12_000; n++) store.insertImportedPingInTxn(check, { n, date: T0, kind: 'log', scheme: 'http', remoteAddr: null, method: 'GET', ua: '', rid: null, exitStatus: null, duration: null, body: null });
      environmentOf(store).checks.put(uuid, check);
    });
    const db = environmentOf(store);
    const counts: number[] = [];
    for (let i = 0; i < 4; i++) {
      applyJournalSync(db);
      db.root.resetReadTxn();
      counts.push(storedPingNumbers(db, uuid).length);
    }
    // 5,000 keys looked at per apply: the window is reached on the third.
    expect(counts).toEqual([7000, 2000, 100, 100]);
    expect(store.listPings(uuid, 100).map((p) => p.n)).toEqual(Array.from({ length: 100 }, (_, i) => 12_000 - i));
  });

  it('a prepared apply overtaken by another writer is not written as prepared: the journal is applied afresh, nothing clobbered', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    for (let i = 1; i <= 3; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'success', null, facts(`#${i}`));
    }
    const prepared = prepareJournalApply(environmentOf(store))!;
    expect(prepared.checks.map(([u]) => u)).toEqual([uuid]);
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
    expect(journaled(environmentOf(store))).toEqual([]);
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
    const appliedUpTo = prepared.upTo;
    clock.advance(1000);
    await pings.record(uuid, 'log', null, facts('#4'));
    expect(writePreparedApply(environmentOf(store), prepared)).toBe(appliedUpTo);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(3);
    expect(journaled(environmentOf(store)).map((k) => k[0])).toEqual([store.revision()]);
    // Reads are unchanged throughout: the fourth ping is still served from the journal.
    store.forgetPendingUpTo(appliedUpTo);
    expect(store.getCheck(uuid)!.nPings).toBe(4);
    expect(store.listPings(uuid, 10).map((p) => p.n)).toEqual([4, 3, 2, 1]);
    expect(prepareJournalApply(environmentOf(store))!.upTo).toBe(store.revision());
  });

  it('the ping log cap holds while pings wait in the journal and after they are applied', async () => {
    const { store, clock, pings, uuid } = await setup(5);
    for (let i = 1; i <= 12; i++) {
      clock.advance(1000);
      await pings.record(uuid, 'log', null, facts(`#${i}`));
    }
    expect(store.listPings(uuid, 5).map((p) => p.n)).toEqual([12, 11, 10, 9, 8]);
    await store.applyJournal();
    expect(storedPingNumbers(environmentOf(store), uuid)).toEqual([8, 9, 10, 11, 12]);
  });

  it('another Store on the same data dir (an admin command, a backup copy) sees journaled pings', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts());
    clock.advance(1000);
    await pings.record(uuid, 'log', null, facts('output'));
    expect(journaled(environmentOf(store))).toHaveLength(1);
    const reader = openStore(dir, { readOnly: true });
    expect(reader.getCheck(uuid)).toMatchObject({ nPings: 2, status: 'up' });
    expect(Buffer.from(reader.getPing(uuid, 2)!.body!).toString()).toBe('output');
  });

  it('a data dir from before the ping log (schema version 6) reads as holding no pings read-only, and is upgraded with its pings and journal', async () => {
    const { dir, store, uuid } = await setup();
    // Make it look like version 6 wrote it: pings under [check, n] in `pings`,
    // a journaled ping under [revision, check] in `journal`, no ping log.
    const db = environmentOf(store);
    const records = { sharedStructuresKey: Symbol.for('structures') };
    const oldPings = db.root.openDB<PingRecord, [string, number]>({ name: 'pings', ...records });
    const oldJournal = db.root.openDB<{ ping: PingRecord; replay: true }, [number, string]>({ name: 'journal', useVersions: true, ...records });
    const made = (n: number, kind: PingRecord['kind']): PingRecord => ({ n, date: T0 + n * 1000, kind, scheme: 'http', remoteAddr: null, method: 'POST', ua: '', rid: null, exitStatus: null, duration: null, body: Buffer.from(`#${n}`) });
    const rev = store.revision() + 1;
    await db.root.transaction(() => {
      oldPings.put([uuid, 1], made(1, 'success'));
      oldPings.put([uuid, 2], made(2, 'start'));
      db.checks.put(uuid, { ...db.checks.get(uuid)!, nPings: 2, status: 'up', lastPing: T0 + 1000, lastStart: T0 + 2000, everStarted: true });
      oldJournal.put([rev, uuid], { ping: made(3, 'success'), replay: true }, 1);
      db.meta.put('rev', rev);
      db.meta.remove('appliedRev');
      db.meta.put('schemaVersion', 6);
    });
    await db.pings!.drop();
    await store.close({ applyJournal: false });

    const reader = openStore(dir, { readOnly: true });
    expect(environmentOf(reader).pings).toBeUndefined();
    expect(reader.getCheck(uuid)?.nPings).toBe(2);
    expect(reader.listPings(uuid, 10)).toEqual([]);
    await reader.close();
    const exported = await runCli(['export', '--data-dir', dir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout).projects[0].checks.map((c: { uuid: string }) => c.uuid)).toEqual([uuid]);

    // Opened for writing, it is upgraded: every ping is in the ping log, the journaled one still journaled.
    const writer = openStore(dir);
    expect(writer.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(journaled(environmentOf(writer))).toEqual([[rev, uuid, 3]]);
    expect(writer.getCheck(uuid)).toMatchObject({ nPings: 3, lastPing: T0 + 3000, lastDuration: 1000 });
    const listed = () => writer.listPings(uuid, 10).map((p) => [p.n, p.kind, Buffer.from(p.body!).toString()]);
    expect(listed()).toEqual([[3, 'success', '#3'], [2, 'start', '#2'], [1, 'success', '#1']]);
    await writer.applyJournal();
    expect(environmentOf(writer).checks.get(uuid)).toMatchObject({ nPings: 3, lastPingRev: rev });
    expect(listed()).toEqual([[3, 'success', '#3'], [2, 'start', '#2'], [1, 'success', '#1']]);
    // The next ping links to the journaled one, and the old databases are gone.
    expect(await new PingService(writer, new ManualClock(T0 + 4000)).record(uuid, 'log', null, facts('#4'))).toBe('ok');
    expect(writer.listPings(uuid, 10).map((p) => p.n)).toEqual([4, 3, 2, 1]);
    expect(environmentOf(writer).root.openDB({ name: 'pings' }).getKeysCount()).toBe(0);
    expect(environmentOf(writer).root.openDB({ name: 'journal' }).getKeysCount()).toBe(0);
  });

  it('the ping\'s event does not hold the check: it is worked out again from the stored record and the pings', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts('one')); // new → up, written directly
    clock.advance(1000);
    await pings.record(uuid, 'fail', null, facts('two')); // up → down: a flip, written directly
    clock.advance(1000);
    await pings.record(uuid, 'fail', null, facts('three')); // journaled
    const db = environmentOf(store);
    // The flip pings' events do not hold it either: each flip event after them does.
    const pingAndFlipEvents = [...db.events.getRange({})].map((e) => e.value).filter((e) => e.type === 'ping.received' || e.type === 'flip');
    expect(pingAndFlipEvents.map((e) => [e.type, e.check?.nPings])).toEqual([
      ['ping.received', undefined],
      ['flip', 1],
      ['ping.received', undefined],
      ['flip', 2],
      ['ping.received', undefined],
    ]);
    const [key] = journaled(db);
    expect(key![2]).toBe(3);
    // Linked to the ping before it, which its flip wrote at its own revision.
    const stored = db.pings!.get(key!)!;
    expect(stored).toMatchObject({ n: 3, kind: 'fail' });
    expect(db.pings!.get([stored.prev!, uuid, 2])).toMatchObject({ n: 2 });
    expect(db.events.get(key![0])).toMatchObject({ type: 'ping.received', ping: { n: 3 } });
    expect(db.events.get(key![0])!.check).toBeUndefined();
    const after = store.getCheck(uuid)!;
    expect(after).toMatchObject({ nPings: 3, lastPing: T0 + 2000, status: 'down', lastPingRev: key![0] });
    // The log's readers get the check with the event.
    expect(store.eventsAfter(key![0] - 1, 1)[0]!.check).toEqual(after);
    // A new handle (a restarted daemon) works the same check out again.
    const again = openStore(dir);
    expect(again.getCheck(uuid)).toEqual(after);
    await again.close({ applyJournal: false });
    await store.applyJournal();
    expect(db.checks.get(uuid)).toEqual(after);
    expect(Buffer.from(store.getPing(uuid, 3)!.body!).toString()).toBe('three');
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
    expect(journaled(db)).toHaveLength(steps.length);
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

  it("keeps the events of pings still in the journal when old events are pruned, and drops them once applied", async () => {
    const { store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts('one'));
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts('two')); // journaled
    const journaledRev = journaled(environmentOf(store))[0]![0];
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
    expect(journaled(environmentOf(store))).toEqual([]);
    expect(storedPingNumbers(environmentOf(store), uuid)).toEqual([]);
    expect(await pings.record(uuid, 'success', null, facts())).toBe('missing');
  });
});

describe('the ping log sweep', () => {
  it("keeps each project's own limit, follows a lowered one, and drops the pings of a check that is gone", async () => {
    const { store, clock, pings, uuid } = await setup(3);
    const { project: other } = await store.createProject({ name: 'k', checkLimit: 100, pingLogLimit: 5 }, T0);
    const wide = (await plantCheck(store, other.id, { createdAt: T0 })).uuid;
    for (let i = 1; i <= 8; i++) {
      clock.advance(1000);
      for (const u of [uuid, wide]) await pings.record(u, 'success', null, facts(`#${i}`));
    }
    const db = environmentOf(store);
    await store.applyJournal();
    expect(storedPingNumbers(db, uuid)).toEqual([6, 7, 8]);
    expect(storedPingNumbers(db, wide)).toEqual([4, 5, 6, 7, 8]);
    // A lowered limit: readers stop at it at once, the next sweep drops the rest.
    await store.updateProject(other.id, { pingLogLimit: 2 }, clock.now());
    expect(store.listPings(wide, 2).map((p) => p.n)).toEqual([8, 7]);
    await store.applyJournal();
    expect(storedPingNumbers(db, wide)).toEqual([7, 8]);
    // A ping whose check is gone, which no walk from a check reaches.
    const gone = '00000000-0000-4000-8000-000000000000';
    await store.transact(() => store.insertImportedPingInTxn({ ...store.getCheck(uuid)!, uuid: gone }, { ...store.getPing(uuid, 8)!, n: 1 }));
    expect(storedPingNumbers(db, gone)).toEqual([1]);
    await store.applyJournal();
    expect(storedPingNumbers(db, gone)).toEqual([]);
    expect(storedPingNumbers(db, uuid)).toEqual([6, 7, 8]);
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
    expect(journaled(environmentOf(store))).toEqual([]);
    expect(environmentOf(store).checks.get(uuid)).toMatchObject({ nPings: 20, status: 'up' });
    const logged = storedPings(environmentOf(store), uuid);
    expect(logged.map((p) => Buffer.from(p.body!).toString())).toEqual(Array.from({ length: 20 }, (_, i) => `#${i + 1}`));
    expect(d.stderr()).not.toMatch(/journal/);
  }, 30_000);
});

describe('the built daemon on a full disk', () => {
  it('its journal worker survives a failed apply, says why, and writes the journal once there is room', async () => {
    const dir = tempDir('checkd-journal-');
    const key = (await createProjectCli(dir, 'f', ['--check-limit', '200'])).api_key;
    // At info, to see the recovery line.
    const d = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'], { env: { CHECKD_LOG_LEVEL: 'info' } });
    // An apply rewrites the record of every check pinged since the one before:
    // with many, it needs more pages than a full file has free.
    const uuids: string[] = [];
    for (let i = 0; i < 100; i++) uuids.push((await api(d.url, '/api/v3/checks/', { key, body: { name: `f${i}`, desc: 'x'.repeat(1000) } })).json.uuid as string);
    const pingAll = async () => {
      for (const uuid of uuids) {
        const r = await fetch(`${d.url}/ping/${uuid}`, { method: 'POST' });
        await r.text();
        expect(r.status).toBe(200);
      }
    };
    await pingAll(); // new → up: written with the checks
    const pid = String(d.proc.pid);
    const limit = (bytes: string) => execFileSync('prlimit', ['--pid', pid, `--fsize=${bytes}:unlimited`]);
    const failed = /writing journaled pings failed; retrying: writing to the data dir \S+ failed: /;
    let rounds = 1;
    // Journal pings, then refuse writes to the upper half of the file before
    // the worker's next apply (about once a second): the pages it writes are
    // the free ones and the file's end, so one of them lies there. At the
    // file's size the apply could fit in the free pages alone. If it applied
    // them first, try again.
    for (let attempt = 0; attempt < 5 && !failed.test(d.stderr()); attempt++) {
      await pingAll();
      rounds++;
      limit(String(Math.floor(statSync(join(dir, 'data.mdb')).size / 2)));
      for (let t = 0; t < 50 && !failed.test(d.stderr()); t++) await new Promise((r) => setTimeout(r, 100));
      if (!failed.test(d.stderr())) limit('unlimited');
    }
    expect(d.stderr()).toMatch(failed);
    limit('unlimited');
    for (let t = 0; t < 150 && !d.stderr().includes('journaled pings are being written again'); t++) await new Promise((r) => setTimeout(r, 100));
    expect(d.stderr()).toContain('journaled pings are being written again');
    // The worker did it: it never gave up its thread.
    expect(d.stderr()).not.toContain('the journal worker is gone');
    expect((await d.stop('SIGKILL')).code).toBeNull();
    const store = openStore(dir, { readOnly: true });
    expect(journaled(environmentOf(store))).toEqual([]);
    expect(uuids.map((uuid) => environmentOf(store).checks.get(uuid)!.nPings)).toEqual(uuids.map(() => rounds));
  }, 90_000);
});

describe('JournalWriter', () => {
  it('applies on the main thread from then on when its worker cannot run (here: cannot open the data dir)', async () => {
    const { dir, store, clock, pings, uuid } = await setup();
    await pings.record(uuid, 'success', null, facts());
    clock.advance(1000);
    await pings.record(uuid, 'success', null, facts('journaled'));
    expect(journaled(environmentOf(store))).toHaveLength(1);
    // A data dir below a regular file: the worker's open fails with ENOTDIR.
    const unusable = join(dir, 'data.mdb', 'data');
    const lines: string[] = [];
    const out = new PassThrough();
    out.on('data', (b: Buffer) => lines.push(b.toString()));
    const script = pathToFileURL(join(REPO_ROOT, 'dist/daemon/store/journal-worker.js'));
    const writer = new JournalWriter(store, unusable, createLogger('info', out), { everyMs: 50, script });
    onTestFinished(() => writer.stop());
    for (let i = 0; i < 100 && journaled(environmentOf(store)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(journaled(environmentOf(store))).toEqual([]);
    expect(environmentOf(store).checks.get(uuid)!.nPings).toBe(2);
    expect(Buffer.from(store.getPing(uuid, 2)!.body!).toString()).toBe('journaled');
    expect(lines.join('')).toContain('applying the journal on the main thread from now on');
  });
});
