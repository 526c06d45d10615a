// Prometheus metrics at GET /metrics (prom-client). Check gauges are computed
// at scrape time from the store, so they can never drift from what the API
// shows; counters are fed from the event log.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { displayStatus, isStarted } from '../domain/status.js';
import { tagList, uniqueKeyOf } from '../domain/ids.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { CheckRecord, DisplayStatus } from '../domain/types.js';
import type { StoredEvent } from '../store/events.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../shared/clock.js';
import type { StorageReport } from '../domain/storage-alarm.js';

const STATUSES = ['new', 'up', 'grace', 'down', 'paused'] as const;
/** What a scrape counts for one project. */
interface ProjectTally {
  project: string;
  byStatus: Record<string, number>;
  down: number;
  total: number;
  /** Per tag: 1 while every check with it is up. */
  tags: Map<string, number>;
}

/**
 * The two families with a series per check, written in the text format here
 * instead of as prom-client gauges: prom-client formats a metric's values in
 * one synchronous go, which with 100,000 checks held the event loop (and the
 * pings waiting on it) for over a second per scrape; these lines are made a
 * chunk of checks at a time during the scrape's passes instead.
 */
const PER_CHECK = {
  up: { name: 'hc_check_up', help: 'For every check, 1 if it is up (or new, grace, paused), 0 if down' },
  started: { name: 'hc_check_started', help: 'For every check, 1 if a run has started and not finished' },
};

/** Text-format escaping (as prom-client does it): backslash and newline; in label values also the double quote. */
const escapeText = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const formatLabels = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}="${escapeText(v).replace(/"/g, '\\"')}"`)
    .join(',');

function familyHead(family: { name: string; help: string }): string {
  return `# HELP ${family.name} ${escapeText(family.help)}\n# TYPE ${family.name} gauge\n`;
}

/** Count a check of the project into its tally; its hc_check_up sample. */
function countCheck(acc: ProjectTally, check: CheckRecord, status: DisplayStatus): number {
  const up = status === 'down' ? 0 : 1;
  acc.byStatus[status]! += 1;
  acc.down += 1 - up;
  acc.total += 1;
  for (const t of tagList(check.tags)) acc.tags.set(t, Math.min(acc.tags.get(t) ?? 1, up));
  return up;
}

/**
 * The tallies added up per project name (a copy): the label is the name, so
 * projects sharing one add up instead of overwriting each other.
 */
function tallyByName(tallies: Map<string, ProjectTally>): Map<string, ProjectTally> {
  const byName = new Map<string, ProjectTally>();
  for (const acc of tallies.values()) {
    const into = byName.get(acc.project);
    if (!into) byName.set(acc.project, { ...acc, byStatus: { ...acc.byStatus }, tags: new Map(acc.tags) });
    else {
      for (const st of STATUSES) into.byStatus[st]! += acc.byStatus[st]!;
      into.down += acc.down;
      into.total += acc.total;
      for (const [tag, up] of acc.tags) into.tags.set(tag, Math.min(into.tags.get(tag) ?? 1, up));
    }
  }
  return byName;
}

export class Metrics {
  readonly registry = new Registry();
  readonly pings: Counter<'kind'>;
  readonly notifications: Counter<'kind' | 'result'>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    dataDir: string,
    /** The storage alarm now (store/storage-watch.ts); none in tests that make Metrics alone. */
    storage: () => StorageReport | null = () => null,
  ) {
    const registry = this.registry;
    // checkd_process_resident_memory_bytes, checkd_nodejs_heap_size_used_bytes, ...
    collectDefaultMetrics({ register: registry, prefix: 'checkd_' });
    this.pings = new Counter({
      name: 'checkd_pings_received_total',
      help: 'Pings received since start, by kind',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.notifications = new Counter({
      name: 'checkd_notifications_total',
      help: 'Notification deliveries, by channel kind and result (ok, failed)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    });
    new Gauge({
      name: 'checkd_event_log_revision',
      help: 'Latest revision of the event log',
      registers: [registry],
      collect() {
        this.set(store.revision());
      },
    });
    new Gauge({
      name: 'checkd_lmdb_size_bytes',
      help: 'Size of the LMDB data file',
      registers: [registry],
      collect() {
        try {
          this.set(statSync(join(dataDir, 'data.mdb')).size);
        } catch {
          this.set(0);
        }
      },
    });
    // The storage alarm and what it is decided on (docs/operations.md).
    const storageGauge = (name: string, help: string, value: (r: StorageReport) => number | null) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          const report = storage();
          this.set((report === null ? null : value(report)) ?? 0);
        },
      });
    storageGauge('checkd_storage_alarm', '1 while the storage alarm is on (pings and API writes refused with 503), else 0', (r) => (r.active ? 1 : 0));
    storageGauge('checkd_storage_free_bytes', "Bytes free on the data dir's file system at the last look", (r) => r.freeBytes);
    storageGauge('checkd_storage_reserve_bytes', 'Free bytes kept in reserve (--storage-reserve): below them, the storage alarm', (r) => r.reserveBytes);
    storageGauge('checkd_storage_used_bytes', 'Bytes of data the database holds (its pages in use) at the last look', (r) => r.usedBytes);
    storageGauge('checkd_storage_quota_bytes', 'The storage quota (--storage-quota); 0 when there is none', (r) => r.quotaBytes);
    const byStatus = new Gauge({
      name: 'checkd_checks',
      help: 'Checks by project and display status',
      labelNames: ['project', 'status'],
      registers: [registry],
    });
    // Healthchecks' per-project metrics, with a project label added (the
    // per-check ones, hc_check_up and hc_check_started, are PER_CHECK below).
    const tagUp = new Gauge({
      name: 'hc_tag_up',
      help: 'For every tag, 1 if all checks with the tag are up, 0 if any is down',
      labelNames: ['project', 'tag'],
      registers: [registry],
    });
    const total = new Gauge({
      name: 'hc_checks_total',
      help: 'Number of checks',
      labelNames: ['project'],
      registers: [registry],
    });
    const downTotal = new Gauge({
      name: 'hc_checks_down_total',
      help: 'Number of checks currently down',
      labelNames: ['project'],
      registers: [registry],
    });
    this.checkGauges = { byStatus, tagUp, total, downTotal };
  }

  private readonly checkGauges: Record<'byStatus' | 'tagUp' | 'total' | 'downTotal', Gauge<string>>;

  /**
   * The whole answer, a piece at a time, each made only once the client took
   * the last: a scrape holds a chunk of checks, however many there are and
   * however slowly the client reads.
   * The text format wants a family's lines together, so each per-check family
   * takes a pass of its own: one pass would have to hold one family's lines
   * back, a line per check, while it writes the other's.
   * A check that changes between the two passes (a ping meanwhile) may show
   * its old state in one family and its new one in the other.
   * Each scrape makes its own passes: a shared one would have to hold its text
   * for the slowest of the scrapers.
   */
  private async *scrapeText(): AsyncGenerator<string> {
    const now = this.clock.now();
    const tallies = this.emptyTallies();
    yield* this.perCheckFamily(PER_CHECK.up, tallies, (c, acc) => countCheck(acc, c, displayStatus(c, now, 3)));
    this.setCheckGauges(tallies);
    yield* this.perCheckFamily(PER_CHECK.started, tallies, (c) => (isStarted(c) ? 1 : 0));
    yield await this.registry.metrics();
  }

  /** A tally per project id (two projects may share a name), labelled with the name. */
  private emptyTallies(): Map<string, ProjectTally> {
    const tallies = new Map<string, ProjectTally>();
    for (const p of this.store.listProjects()) {
      tallies.set(p.id, { project: p.name, byStatus: Object.fromEntries(STATUSES.map((s) => [s, 0])), down: 0, total: 0, tags: new Map() });
    }
    return tallies;
  }

  /**
   * One family with a series per check: its HELP and TYPE, then the lines of
   * a chunk of checks per piece; `sample` gives a check's value (and sees
   * every check that gets a line).
   */
  private async *perCheckFamily(
    family: { name: string; help: string },
    tallies: Map<string, ProjectTally>,
    sample: (check: CheckRecord, acc: ProjectTally) => number,
  ): AsyncGenerator<string> {
    yield familyHead(family);
    for await (const chunk of this.store.checkChunks()) {
      const lines: string[] = [];
      for (const c of chunk) {
        const acc = tallies.get(c.projectId);
        if (acc === undefined) continue; // its project is newer than the scrape, or was deleted
        const labels = formatLabels({ project: acc.project, name: c.name, tags: c.tags, unique_key: uniqueKeyOf(c.uuid) });
        lines.push(`${family.name}{${labels}} ${sample(c, acc)}\n`);
      }
      if (lines.length > 0) yield lines.join('');
    }
  }

  /**
   * Reset and set the check gauges in one go, so that a scrape writing out
   * the registry meanwhile never sees them emptied.
   */
  private setCheckGauges(tallies: Map<string, ProjectTally>): void {
    const g = this.checkGauges;
    const byName = tallyByName(tallies);
    for (const gauge of Object.values(g)) gauge.reset();
    for (const [project, acc] of byName) {
      for (const st of STATUSES) g.byStatus.set({ project, status: st }, acc.byStatus[st]!);
      for (const [tag, up] of acc.tags) g.tagUp.set({ project, tag }, up);
      g.total.set({ project }, acc.total);
      g.downTotal.set({ project }, acc.down);
    }
  }

  /** Event-log subscriber. */
  readonly onEvents = (events: StoredEvent[]): void => {
    for (const e of events) if (e.type === 'ping.received' && e.ping) this.pings.inc({ kind: e.ping.kind });
  };

  register(app: FastifyInstance): void {
    app.get('/metrics', async (req, reply) => {
      // Fastify pipes the stream into the response (so a client that reads
      // slowly pauses the passes) and destroys it if the client goes away,
      // which ends the passes at their next piece.
      const body = Readable.from(logFailure(this.scrapeText(), req.log), { objectMode: false });
      return reply.type(this.registry.contentType).send(body);
    });
  }
}

/**
 * The pieces of `text`, with a failure logged on its way through: it cuts the
 * answer part-way (the 200 went out with the first piece), which Fastify logs
 * nothing of with request logging off.
 */
async function* logFailure(text: AsyncGenerator<string>, log: FastifyBaseLogger): AsyncGenerator<string> {
  try {
    yield* text;
  } catch (err) {
    log.error({ err }, 'metrics scrape failed part-way; the answer is cut');
    throw err;
  }
}
