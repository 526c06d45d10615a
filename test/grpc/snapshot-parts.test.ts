// A Watch snapshot held back by flow control, at the stream level: a real
// store and the daemon's WatchHub, with a stand-in for the gRPC call so that
// the test decides when the client "reads" (write() returning false, then
// 'drain'). While the parts wait, events of the log wait behind them; a client
// that goes away mid-snapshot stops the walk. watch.test.ts covers the same
// over a real gRPC connection, where the timing cannot be held.
import { EventEmitter } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { WatchHub } from '../../daemon/grpc/watch.js';
import type { WatchEventMsg } from '../../proto/messages.js';
import { ManualClock } from '../../daemon/shared/clock.js';
import { openTempStore, plantChecks } from '../helpers/store.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** Records what the stream writes; `accept` says whether gRPC would take more. */
class FakeCall extends EventEmitter {
  readonly written: WatchEventMsg[] = [];
  accept = true;
  ended = false;
  write(msg: WatchEventMsg | Buffer): boolean {
    // Live events arrive pre-encoded; only their presence matters here.
    this.written.push(Buffer.isBuffer(msg) ? ({ type: 'encoded event' } as WatchEventMsg) : msg);
    return this.accept;
  }
  sendMetadata(): void {}
  end(): void {
    this.ended = true;
  }
}

const settle = () => new Promise((r) => setTimeout(r, 20));

async function setup(n: number) {
  const { store } = openTempStore('checkd-parts-');
  const { project } = await store.createProject({ name: 'p', checkLimit: 10_000, pingLogLimit: 10 }, T0);
  const checks = await plantChecks(store, project.id, n, { createdAt: T0 });
  const hub = new WatchHub(store, new ManualClock(T0));
  onTestFinished(() => hub.close());
  return { store, project, checks, hub };
}

describe('a Watch snapshot held back by flow control', () => {
  it('sends its parts as the client reads, and the events after its revision only behind the last', async () => {
    const { store, project, checks, hub } = await setup(1_234);
    const call = new FakeCall();
    call.accept = false; // the client reads nothing yet
    const revision = store.revision();
    hub.open(call as never, { project, readOnly: false }, 0);
    await settle();
    expect(call.written.map((m) => m.type)).toEqual(['EVENT_TYPE_SNAPSHOT']);

    // A change while the snapshot waits; the event tail hands it to the hub.
    await store.transact(() => store.saveCheckInTxn({ ...checks[0]!, name: 'renamed' }, T0, 'check.updated'));
    hub.onEvents(store.eventsAfter(revision));
    await settle();
    expect(call.written).toHaveLength(1);

    call.accept = true;
    call.emit('drain');
    await settle();
    const parts = call.written.slice(0, 3);
    expect(parts.map((m) => [m.type, m.checks.length, m.snapshot_continues, m.revision])).toEqual([
      ['EVENT_TYPE_SNAPSHOT', 500, true, revision],
      ['EVENT_TYPE_SNAPSHOT', 500, true, revision],
      ['EVENT_TYPE_SNAPSHOT', 234, false, revision],
    ]);
    expect(parts.flatMap((m) => m.checks.map((c) => c.uuid))).toEqual(checks.map((c) => c.uuid));
    expect(call.written.slice(3).map((m) => m.type)).toEqual(['encoded event']);
  });

  it('keeps live events behind the parts while the walk itself is slow, not only under flow control', async () => {
    const { store, project, checks, hub } = await setup(1_234);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const walk = store.checkChunks.bind(store);
    store.checkChunks = async function* (scope) {
      let n = 0;
      for await (const chunk of walk(scope)) {
        yield chunk;
        if (++n === 2) await held;
      }
    };
    const call = new FakeCall();
    const revision = store.revision();
    hub.open(call as never, { project, readOnly: false }, 0);
    await settle();
    expect(call.written).toHaveLength(1);
    await store.transact(() => store.saveCheckInTxn({ ...checks[0]!, name: 'renamed' }, T0, 'check.updated'));
    hub.onEvents(store.eventsAfter(revision));
    expect(call.written).toHaveLength(1);
    release();
    await settle();
    expect(call.written.map((m) => m.type)).toEqual([...Array(3).fill('EVENT_TYPE_SNAPSHOT'), 'encoded event']);
  });

  it('stops reading when the client goes away mid-snapshot', async () => {
    const { store, project, hub } = await setup(1_234);
    const call = new FakeCall();
    call.accept = false;
    let walks = 0;
    const walk = store.checkChunks.bind(store);
    store.checkChunks = async function* (scope) {
      for await (const chunk of walk(scope)) {
        walks += chunk.length;
        yield chunk;
      }
    };
    hub.open(call as never, { project, readOnly: false }, 0);
    await settle();
    call.emit('cancelled');
    await settle();
    expect(call.written).toHaveLength(1);
    expect(hub.size).toBe(0);
    // The part sent and the one held back were read; nothing after them.
    expect(walks).toBe(1_000);
  });
});
