// The event tail takes the events this process commits from memory
// (Store.listenToCommits) instead of reading them back, is woken by the store
// once they are durable, and still reads from the log whatever it was not
// handed: events of another writer in between, in revision order. Also the
// ping path's duration shortcut: a check that never started a run skips the
// look back, and one stored before the shortcut existed still has its runs
// timed.
import { PassThrough } from 'node:stream';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import type { CheckRecord } from '../../daemon/domain/types.js';
import { EventTail } from '../../daemon/store/event-tail.js';
import { createLogger } from '../../daemon/shared/log.js';
import { PingService, type PingFacts } from '../../daemon/service/pings.js';
import type { StoredEvent } from '../../daemon/store/events.js';
import type { Store } from '../../daemon/store/store.js';
import { openStore, openTempStore, plantCheck } from '../helpers/store.js';
import { environmentOf } from '../../daemon/store/environment.js';

const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const facts: PingFacts = { method: 'GET', scheme: 'http', remoteAddr: '127.0.0.1', ua: 't', body: Buffer.alloc(0), rid: null };

async function setup(shape?: (c: CheckRecord) => void) {
  const { dir, store } = openTempStore('checkd-handoff-');
  const clock = new ManualClock(T0);
  const { project } = await store.createProject({ name: 'h', checkLimit: 100, pingLogLimit: 100 }, T0);
  const check = await plantCheck(store, project.id, { createdAt: T0, shape });
  return { dir, store, clock, project, uuid: check.uuid, pings: new PingService(store, clock) };
}

function tailOf(store: Store): { tail: EventTail; seen: StoredEvent[] } {
  const tail = new EventTail(store, createLogger('error', new PassThrough()));
  onTestFinished(() => tail.stop());
  const seen: StoredEvent[] = [];
  tail.subscribe((events) => seen.push(...events));
  return { tail, seen };
}

describe('the event tail and this process’s commits', () => {
  it('delivers its own events from memory and another writer’s from the log, in revision order, once each', async () => {
    const { dir, store, clock, project, uuid, pings } = await setup();
    const { tail, seen } = tailOf(store);
    const from = tail.revision;

    expect(await pings.record(uuid, 'success', null, facts)).toBe('ok'); // flips new → up
    // Another writer on the same data dir (as an admin command would be): not handed over.
    const other = openStore(dir);
    await other.createChannel({ projectId: project.id, kind: 'webhook', name: 'w', value: 'http://127.0.0.1:9/' }, T0);
    clock.advance(1000);
    expect(await pings.record(uuid, 'success', null, facts)).toBe('ok'); // journaled
    tail.drain();
    tail.drain();

    const logged = store.eventsAfter(from, 100);
    expect(seen.map((e) => [e.rev, e.type])).toEqual(logged.map((e) => [e.rev, e.type]));
    expect(seen.map((e) => e.type)).toEqual(['ping.received', 'flip', 'channel.changed', 'ping.received']);
    const withoutCheck = ({ check: _, ...rest }: StoredEvent) => rest;
    expect(seen.map(withoutCheck)).toEqual(logged.map(withoutCheck));
    // The flip carries the check as it flipped; the log's ping events carry it as it is now.
    expect(seen[1]!.check).toEqual(logged[1]!.check);
    expect(seen[0]!.check).toEqual(seen[1]!.check);
    expect(logged[0]!.check).toEqual(store.getCheck(uuid));
    // The last ping's event is the one this process made, not a decoded copy:
    // it shares its check with the pending ping that reads are served from.
    expect(seen[3]!.check).toBe(store.getCheck(uuid));
    expect(seen[2]!.check).toBeUndefined();
  });

  it('an event the log already delivered is not delivered again from memory', async () => {
    const { store, uuid, pings } = await setup();
    const { tail, seen } = tailOf(store);
    const recording = pings.record(uuid, 'start', null, facts);
    // A poll that runs before the ping's commit is handed over would read it from the log.
    await environmentOf(store).root.committed;
    tail.drain();
    await recording;
    tail.drain();
    expect(seen.map((e) => e.rev)).toEqual(store.eventsAfter(0, 100).slice(-seen.length).map((e) => e.rev));
    expect(new Set(seen.map((e) => e.rev)).size).toBe(seen.length);
  });

  it('a durable commit of this process wakes it: no drain call or poll needed', async () => {
    const { store, uuid, pings } = await setup();
    const { tail, seen } = tailOf(store); // never started: no poll
    expect(await pings.record(uuid, 'start', null, facts)).toBe('ok');
    await new Promise((r) => setImmediate(r));
    expect(seen.map((e) => e.type)).toEqual(['ping.received']);
    expect(tail.revision).toBe(store.revision());
  });

  it('a stopped tail keeps nothing it is handed', async () => {
    const { store, uuid, pings } = await setup();
    const { tail, seen } = tailOf(store);
    tail.stop();
    expect(await pings.record(uuid, 'start', null, facts)).toBe('ok');
    tail.drain();
    expect(seen).toEqual([]);
  });
});

describe('run durations and checks that never started', () => {
  it('a new check starts with no run seen; its first start marks it for good', async () => {
    const { store, clock, uuid, pings } = await setup();
    expect(store.getCheck(uuid)!.everStarted).toBe(false);
    await pings.record(uuid, 'success', null, facts);
    expect(store.getCheck(uuid)!.everStarted).toBe(false);
    expect(store.listPings(uuid, 1)[0]!.duration).toBeNull();
    await pings.record(uuid, 'start', null, facts);
    clock.advance(2500);
    await pings.record(uuid, 'success', null, facts);
    await pings.record(uuid, 'fail', null, facts);
    expect(store.getCheck(uuid)!.everStarted).toBe(true);
    expect(store.listPings(uuid, 3).map((p) => [p.kind, p.duration])).toEqual([
      ['fail', null],
      ['success', 2.5],
      ['start', null],
    ]);
  });

  it('a check stored before the field existed still has its runs timed, across an applied journal', async () => {
    const { store, clock, uuid, pings } = await setup((c) => delete c.everStarted);
    expect(store.getCheck(uuid)!.everStarted).toBeUndefined();
    await pings.record(uuid, 'success', null, facts);
    await pings.record(uuid, 'start', null, facts);
    // The start is then read from the ping log, not from the pending pings.
    await store.applyJournal();
    clock.advance(61_000);
    await pings.record(uuid, 'success', null, facts);
    expect(store.listPings(uuid, 1)[0]!.duration).toBe(61);
    expect(store.getCheck(uuid)!.lastDuration).toBe(61_000);
  });
});
