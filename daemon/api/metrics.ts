// Prometheus metrics at GET /metrics (prom-client). Check gauges are computed
// at scrape time from the store, so they can never drift from what the API
// shows; counters are fed from the event log.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { displayStatus, isStarted } from '../domain/status.js';
import { tagList, uniqueKeyOf } from '../domain/ids.js';
import type { FastifyInstance } from 'fastify';
import type { StoredEvent } from '../store/events.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../clock.js';

const STATUSES = ['new', 'up', 'grace', 'down', 'paused'] as const;

export class Metrics {
  readonly registry = new Registry();
  readonly pings: Counter<'kind'>;
  readonly notifications: Counter<'kind' | 'result'>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    dataDir: string,
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
    const self = this;
    const byStatus = new Gauge({
      name: 'checkd_checks',
      help: 'Checks by project and display status',
      labelNames: ['project', 'status'],
      registers: [registry],
      collect() {
        byStatus.reset();
        for (const p of store.listProjects()) {
          const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<string, number>;
          for (const c of store.listChecks(p.id)) counts[displayStatus(c, self.clock.now(), 3)]! += 1;
          for (const s of STATUSES) byStatus.set({ project: p.name, status: s }, counts[s]!);
        }
      },
    });
    // Healthchecks' per-project metrics, with a project label added.
    const checkUp = new Gauge({
      name: 'hc_check_up',
      help: 'For every check, 1 if it is up (or new, grace, paused), 0 if down',
      labelNames: ['project', 'name', 'tags', 'unique_key'],
      registers: [registry],
      // The first hc_* series in the output: computes all of them for this scrape
      // (a collect on a later one would show the previous scrape's values here).
      collect: () => refreshHc(),
    });
    const checkStarted = new Gauge({
      name: 'hc_check_started',
      help: 'For every check, 1 if a run has started and not finished',
      labelNames: ['project', 'name', 'tags', 'unique_key'],
      registers: [registry],
    });
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
    function refreshHc(): void {
      downTotal.reset();
      checkUp.reset();
      checkStarted.reset();
      tagUp.reset();
      total.reset();
      const now = self.clock.now();
      for (const p of store.listProjects()) {
        let down = 0;
        const tags = new Map<string, number>();
        const checks = store.listChecks(p.id);
        for (const c of checks) {
          const up = displayStatus(c, now, 3) === 'down' ? 0 : 1;
          down += 1 - up;
          const labels = { project: p.name, name: c.name, tags: c.tags, unique_key: uniqueKeyOf(c.uuid) };
          checkUp.set(labels, up);
          checkStarted.set(labels, isStarted(c) ? 1 : 0);
          for (const t of tagList(c.tags)) tags.set(t, Math.min(tags.get(t) ?? 1, up));
        }
        for (const [tag, up] of tags) tagUp.set({ project: p.name, tag }, up);
        total.set({ project: p.name }, checks.length);
        downTotal.set({ project: p.name }, down);
      }
    }
  }

  /** Event-log subscriber. */
  readonly onEvents = (events: StoredEvent[]): void => {
    for (const e of events) if (e.type === 'ping.received' && e.ping) this.pings.inc({ kind: e.ping.kind });
  };

  register(app: FastifyInstance): void {
    app.get('/metrics', async (_req, reply) =>
      reply.type(this.registry.contentType).send(await this.registry.metrics()),
    );
  }
}
