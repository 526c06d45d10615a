// The Watch subscribers of bench/watch.ts, in their own process so that
// decoding their streams does not share an event loop with the HTTP load
// generator (which would slow both and inflate the latencies measured here).
//
//   node --import tsx bench/watch-clients.ts <grpc-address> <api-key> <count>
//
// Talks to its parent over IPC:
//   → { type: 'ready', revision }            every watcher has its snapshot
//   ← { type: 'mark' }                       start counting afresh from the latest revision
//   → { type: 'marked', revision }
//   ← { type: 'report', timeoutMs }          wait until every watcher has the latest revision
//   → { type: 'report', ...WatchReport }
// Each watcher has its own connection, as separate TUI clients would. One
// ended with RESOURCE_EXHAUSTED resumes from its last revision, as a client should.
import * as grpc from '@grpc/grpc-js';
import { loadCheckdProto } from '../proto/checkd.js';
import type { WatchEventMsg } from '../proto/messages.js';

export interface WatchReport {
  watchers: number;
  markRevision: number;
  targetRevision: number;
  caughtUp: number;
  /** Events received after the mark, per watcher: min and max. */
  minEvents: number;
  maxEvents: number;
  /** Watchers that received exactly target - mark events, in strictly increasing revisions. */
  complete: number;
  outOfOrder: number;
  resumes: number;
  errors: string[];
  /**
   * Milliseconds from the ping's date (event at_ms) to receipt, over every
   * PING_RECEIVED after the mark, as [ms, count] pairs (1 ms buckets).
   */
  latencies: Array<[number, number]>;
  /** Wall time from mark to the last event received, and this process's CPU time over it. */
  elapsedMs: number;
  cpuMs: number;
}

const [address, apiKey, countArg] = process.argv.slice(2);
if (!address || !apiKey || !countArg || !process.send) {
  process.stderr.write('usage (as a child with IPC): watch-clients.ts <grpc-address> <api-key> <count>\n');
  process.exit(2);
}
const COUNT = Number(countArg);
const send = (msg: object) => process.send!(msg);

type Client = grpc.Client & {
  Watch(req: { since_revision: number }, md: grpc.Metadata): grpc.ClientReadableStream<WatchEventMsg>;
  GetProject(req: object, md: grpc.Metadata, cb: grpc.requestCallback<{ revision: number }>): void;
};

const { client: Ctor } = loadCheckdProto();
const md = new grpc.Metadata();
md.set('x-api-key', apiKey);

/** Latency histogram, 1 ms buckets (the event times have 1 ms resolution). */
const HIST_MAX = 60_000;
const hist = new Uint32Array(HIST_MAX + 1);
let counting = false;
let markRevision = 0;
let markAt = 0;
let lastReceiptAt = 0;
let markCpu = process.cpuUsage();
let resumes = 0;
const errors: string[] = [];

class Sub {
  client: Client;
  lastRevision = 0;
  hasSnapshot = false;
  events = 0;
  outOfOrder = 0;
  private call: grpc.ClientReadableStream<WatchEventMsg> | null = null;

  constructor() {
    this.client = new Ctor(address!, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    }) as unknown as Client;
    this.open(0);
  }

  private open(since: number): void {
    const call = this.client.Watch({ since_revision: since }, md);
    this.call = call;
    call.on('data', (e: WatchEventMsg) => {
      const now = Date.now();
      if (e.type === 'EVENT_TYPE_SNAPSHOT') {
        // A big project's snapshot comes in parts: it is whole with the last one.
        if (!e.snapshot_continues) this.hasSnapshot = true;
        this.lastRevision = e.revision;
        return;
      }
      if (e.type !== 'EVENT_TYPE_HEARTBEAT') {
        if (e.revision <= this.lastRevision) this.outOfOrder++;
        if (counting && e.revision > markRevision) {
          this.events++;
          lastReceiptAt = now;
          if (e.type === 'EVENT_TYPE_PING_RECEIVED') hist[Math.min(Math.max(now - e.at_ms, 0), HIST_MAX)]!++;
        }
      }
      this.lastRevision = Math.max(this.lastRevision, e.revision);
    });
    call.on('error', (err: grpc.ServiceError) => {
      if (err.code === grpc.status.CANCELLED && stopping) return;
      if (err.code === grpc.status.RESOURCE_EXHAUSTED) {
        resumes++;
        this.open(this.lastRevision);
        return;
      }
      errors.push(`${grpc.status[err.code]}: ${err.details}`);
    });
  }

  close(): void {
    this.call?.cancel();
    this.client.close();
  }
}

let stopping = false;
const subs = Array.from({ length: COUNT }, () => new Sub());

function latestRevision(): Promise<number> {
  return new Promise((resolve, reject) =>
    subs[0]!.client.GetProject({}, md, (err, res) => (err ? reject(err) : resolve(Number(res!.revision)))),
  );
}

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** The latest revision once no new one has appeared for 500 ms (requests still in flight land first). */
async function settledRevision(): Promise<number> {
  let last = await latestRevision();
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await latestRevision();
    if (now === last) return now;
    last = now;
  }
}

async function report(timeoutMs: number): Promise<WatchReport> {
  const target = await settledRevision();
  await until(() => subs.every((s) => s.lastRevision >= target), timeoutMs);
  counting = false;
  const cpu = process.cpuUsage(markCpu);
  const latencies: Array<[number, number]> = [];
  for (let ms = 0; ms <= HIST_MAX; ms++) if (hist[ms]! > 0) latencies.push([ms, hist[ms]!]);
  const expected = target - markRevision;
  const counts = subs.map((s) => s.events);
  return {
    watchers: subs.length,
    markRevision,
    targetRevision: target,
    caughtUp: subs.filter((s) => s.lastRevision >= target).length,
    minEvents: Math.min(...counts),
    maxEvents: Math.max(...counts),
    complete: subs.filter((s) => s.events === expected && s.outOfOrder === 0).length,
    outOfOrder: subs.reduce((a, s) => a + s.outOfOrder, 0),
    resumes,
    errors: [...new Set(errors)],
    latencies,
    elapsedMs: lastReceiptAt - markAt,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

process.on('message', (msg: { type: string; timeoutMs?: number }) => {
  if (msg.type === 'mark') {
    void settledRevision().then((revision) => {
      hist.fill(0);
      for (const s of subs) s.events = 0;
      lastReceiptAt = 0;
      resumes = 0;
      markRevision = revision;
      markAt = Date.now();
      markCpu = process.cpuUsage();
      counting = true;
      send({ type: 'marked', revision });
    });
  } else if (msg.type === 'report') {
    void report(msg.timeoutMs ?? 30_000).then((r) => send({ type: 'report', ...r }));
  } else if (msg.type === 'stop') {
    stopping = true;
    for (const s of subs) s.close();
    process.disconnect();
  }
});
process.on('disconnect', () => {
  stopping = true;
  for (const s of subs) s.close();
  setTimeout(() => process.exit(0), 200).unref();
});

void until(() => subs.every((s) => s.hasSnapshot), 30_000).then((ok) => {
  if (!ok) {
    send({ type: 'failed', error: `only ${subs.filter((s) => s.hasSnapshot).length}/${COUNT} watchers got a snapshot; ${errors.join('; ')}` });
    return;
  }
  send({ type: 'ready', revision: Math.min(...subs.map((s) => s.lastRevision)) });
});
