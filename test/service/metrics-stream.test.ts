// How a /metrics answer is streamed: each per-check family comes whole, in
// uuid order, under one HELP and TYPE, as the text written in one piece used to
// be; a scraper that stops reading holds the passes up instead of making the
// daemon buffer the answer; one that goes away ends them; a store read that
// fails part-way cuts the answer and is logged. The daemon answers the next
// scrape in full each time.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { uniqueKeyOf } from '../../daemon/domain/ids.js';
import { displayStatus, isStarted } from '../../daemon/domain/status.js';
import type { CheckRecord, StoredStatus } from '../../daemon/domain/types.js';
import { ManualClock } from '../../daemon/shared/clock.js';
import type { Store } from '../../daemon/store/store.js';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { api, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon } from '../helpers/in-process.js';
import { plantChecks } from '../helpers/store.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics, series } from './support.js';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
/** Checks a walk reads at a time (Store.checkChunks' default). */
const CHUNK = 2000;

/** The per-check families as the one-piece text had them: name, HELP, the sample of a check. */
const FAMILIES = [
  {
    name: 'hc_check_up',
    help: 'For every check, 1 if it is up (or new, grace, paused), 0 if down',
    sample: (c: CheckRecord) => (displayStatus(c, T0, 3) === 'down' ? 0 : 1),
  },
  {
    name: 'hc_check_started',
    help: 'For every check, 1 if a run has started and not finished',
    sample: (c: CheckRecord) => (isStarted(c) ? 1 : 0),
  },
];

/** A label value in the text format: backslash, newline and double quote escaped. */
const labelValue = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** A family's whole text for `checks` (with their project names), in uuid order. */
function familyText(family: (typeof FAMILIES)[number], checks: Array<{ check: CheckRecord; project: string }>): string {
  const lines = [...checks]
    .sort((a, b) => (a.check.uuid < b.check.uuid ? -1 : 1))
    .map(({ check: c, project }) => {
      const labels = `project="${labelValue(project)}",name="${labelValue(c.name)}",tags="${labelValue(c.tags)}",unique_key="${uniqueKeyOf(c.uuid)}"`;
      return `${family.name}{${labels}} ${family.sample(c)}\n`;
    });
  return `# HELP ${family.name} ${family.help}\n# TYPE ${family.name} gauge\n${lines.join('')}`;
}

/** How many lines of `text` start with `prefix`. */
const linesStarting = (text: string, prefix: string) => text.split('\n').filter((l) => l.startsWith(prefix)).length;

/** The chunks the daemon's walks over the checks read, and the walks begun and ended. */
interface Walks {
  chunks: number;
  begun: number;
  ended: number;
}

/** Counts what Store.checkChunks hands out until the test ends. */
function watchWalks(store: Store): Walks {
  const walks: Walks = { chunks: 0, begun: 0, ended: 0 };
  const original = store.checkChunks.bind(store);
  const spy = vi.spyOn(store, 'checkChunks').mockImplementation(async function* (opts) {
    walks.begun++;
    try {
      for await (const chunk of original(opts)) {
        walks.chunks++;
        yield chunk;
      }
    } finally {
      walks.ended++;
    }
  });
  onCleanup(() => spy.mockRestore());
  return walks;
}

/** The chunk count once it stayed the same for `quietMs` (a stalled walk). */
function stalled(walks: Walks, quietMs = 500): Promise<number> {
  let last = -1;
  let since = Date.now();
  return waitFor(
    () => {
      if (walks.chunks !== last) [last, since] = [walks.chunks, Date.now()];
      return last > 0 && Date.now() - since >= quietMs ? last : undefined;
    },
    { what: () => `the walks to stall (${walks.chunks} chunks read)` },
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET /metrics with its body left unread: a scraper that stops reading after the headers. */
function unreadScrape(url: string): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: '/metrics', agent: false }, (res) => {
      res.pause();
      resolve({ req, res });
    });
    req.on('error', reject);
    req.end();
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of res) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** A log sink: the daemon's log lines, parsed. */
function logSink(): { lines: Array<{ level: number; msg: string; err?: { message: string } }>; to: Writable } {
  const lines: Array<{ level: number; msg: string; err?: { message: string } }> = [];
  const to = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { lines, to };
}

/** A /metrics answer in full: every check once in each per-check family, and the project's total. */
function expectWhole(text: string, project: string, n: number): void {
  for (const family of FAMILIES) expect(linesStarting(text, `${family.name}{`), family.name).toBe(n);
  expect(parseMetrics(text).get(series('hc_checks_total', { project }))).toBe(n);
}

describe('the per-check families of a scrape over several chunks', () => {
  it('come whole, in uuid order, under one HELP and TYPE each, as the one-piece text had them', async () => {
    const d = await startInProcess({ clock: new ManualClock(T0) });
    const store = d.daemon.store;
    const planted: Array<{ check: CheckRecord; project: string }> = [];
    // Two projects (checks of both interleave in uuid order), names that need escaping.
    for (const [name, n] of [['ops "eu"', 3_000], ['web\\main', 1_700]] as const) {
      const { project } = await store.createProject({ name, checkLimit: 10_000, pingLogLimit: 10 }, T0);
      const checks = await plantChecks(store, project.id, n, {
        createdAt: T0,
        shape: (c, i) => {
          c.name = i % 10 === 0 ? `job "${i}"\nnightly \\ db` : `job ${i}`;
          c.tags = ['', 'prod', 'prod db'][i % 3]!;
          c.status = (['new', 'up', 'down', 'paused'] as StoredStatus[])[i % 4]!;
          c.grace = 3600;
          if (i % 5 === 0) c.lastStart = T0 - 1000;
        },
      });
      planted.push(...checks.map((check) => ({ check, project: name })));
    }
    expect(planted.length).toBeGreaterThan(2 * CHUNK);
    const r = await api(d.url, '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const family of FAMILIES) {
      expect(r.text).toContain(familyText(family, planted));
      expect(linesStarting(r.text, `${family.name}{`), family.name).toBe(planted.length);
      expect(linesStarting(r.text, `# HELP ${family.name} `)).toBe(1);
      expect(linesStarting(r.text, `# TYPE ${family.name} `)).toBe(1);
    }
    // The registry's families come too, each declared once, and the whole parses.
    const m = parseMetrics(r.text);
    expect(m.get(series('hc_checks_total', { project: 'ops \\"eu\\"' }))).toBe(3_000);
    expect(m.get(series('checkd_checks', { project: 'web\\\\main', status: 'down' }))).toBe(425);
    const types = r.text.split('\n').filter((l) => l.startsWith('# TYPE '));
    expect(new Set(types).size).toBe(types.length);
  });
});

describe('a scraper over a real port that reads slowly or goes away', () => {
  // Lines of ~4 KB (a long name and one long tag: names are indexed, so at most
  // ~2 KB): the answer (~80 MB) is far more than the sockets between scraper
  // and daemon hold, so a daemon that did not wait for the scraper would run
  // its passes to the end.
  const N = 5 * CHUNK;
  const [longName, longTag] = ['n'.repeat(1800), 't'.repeat(2200)];
  let d: InProcessDaemon;
  let log: ReturnType<typeof logSink>;
  let pingable: string;

  setupSuite(async () => {
    log = logSink();
    d = await startInProcess({ clock: new ManualClock(T0), log: { level: 'warn', to: log.to } });
    const { project } = await d.daemon.store.createProject({ name: 'big', checkLimit: N, pingLogLimit: 10 }, T0);
    const checks = await plantChecks(d.daemon.store, project.id, N, {
      createdAt: T0,
      shape: (c, i) => Object.assign(c, { name: `${longName} ${i}`, tags: longTag }),
    });
    pingable = checks[0]!.uuid;
  }, 60_000);

  it('holds the passes up while the scraper reads nothing, and gives it the whole answer when it reads on', async () => {
    const walks = watchWalks(d.daemon.store);
    const { res } = await unreadScrape(d.url);
    // Not even the first pass, over every check, ran to its end.
    const read = await stalled(walks);
    expect(read).toBeLessThan(N / CHUNK);
    expect(walks).toMatchObject({ begun: 1, ended: 0 });
    // Pings go on meanwhile.
    await ping(d.url, pingable);
    expectWhole(await readAll(res), 'big', N);
    expect(walks).toEqual({ chunks: (2 * N) / CHUNK, begun: 2, ended: 2 });
  }, 60_000);

  it('ends the passes when the scraper goes away part-way, logs no error, and answers the next scrape in full', async () => {
    const walks = watchWalks(d.daemon.store);
    const { req } = await unreadScrape(d.url);
    expect(await stalled(walks)).toBeLessThan(N / CHUNK);
    expect(walks).toMatchObject({ begun: 1, ended: 0 });
    req.destroy();
    // The walk ends part-way, and no other begins.
    await waitFor(() => walks.ended === 1, { what: 'the walk to end' });
    await sleep(300);
    expect(walks.chunks).toBeLessThan(N / CHUNK);
    expect(walks).toMatchObject({ begun: 1, ended: 1 });
    expect(log.lines.filter((l) => l.level >= 50)).toEqual([]);
    const next = await api(d.url, '/metrics');
    expect(next.status).toBe(200);
    expectWhole(next.text, 'big', N);
  }, 60_000);
});

describe('a store read that fails part-way through a scrape', () => {
  it('cuts the answer, is logged, and the next scrape answers in full', async () => {
    const log = logSink();
    const d = await startInProcess({ clock: new ManualClock(T0), log: { level: 'error', to: log.to } });
    const store = d.daemon.store;
    const { project } = await store.createProject({ name: 'p', checkLimit: 10_000, pingLogLimit: 10 }, T0);
    const N = 2 * CHUNK + 500;
    await plantChecks(store, project.id, N, { createdAt: T0 });
    const original = store.checkChunks.bind(store);
    const failing = vi.spyOn(store, 'checkChunks').mockImplementation(async function* (opts) {
      const chunks = original(opts);
      const first = await chunks.next();
      if (!first.done) yield first.value;
      await chunks.return(undefined);
      throw new Error('store read failed (test)');
    });
    await expect(api(d.url, '/metrics')).rejects.toThrow();
    const logged = await waitFor(() => log.lines.find((l) => l.msg.startsWith('metrics scrape failed')), { what: 'the log line' });
    expect(logged.level).toBe(50);
    expect(logged.err?.message).toBe('store read failed (test)');
    failing.mockRestore();
    const next = await api(d.url, '/metrics');
    expect(next.status).toBe(200);
    expectWhole(next.text, 'p', N);
  });
});
