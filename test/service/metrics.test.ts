// GET /metrics after a known history: checks created, pinged, failed, paused,
// started, one in its grace period; the gauges and counters say exactly that.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uniqueKeyOf } from '../../daemon/domain/ids.js';
import { ManualClock } from '../../daemon/shared/clock.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { waitFor } from '../helpers/wait.js';
import { parseMetrics, series } from './support.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
const clock = new ManualClock(T0);
let d: InProcessDaemon;
let main: TestProject;
const uuids: Record<string, string> = {};

async function create(p: TestProject, body: Record<string, unknown>): Promise<string> {
  const r = await api(d.url, '/api/v3/checks/', { key: p.apiKey, body });
  expect(r.status, r.text).toBe(201);
  return (r.json as { ping_url: string }).ping_url.split('/').pop()!;
}

async function ping(uuid: string, suffix = ''): Promise<void> {
  const r = await api(d.url, `/ping/${uuid}${suffix}`);
  expect(r.status, r.text).toBe(200);
}

async function scrape(): Promise<{ text: string; m: Map<string, number> }> {
  const r = await api(d.url, '/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: r.text, m: parseMetrics(r.text) };
}

setupSuite(async () => {
  d = await startInProcess({ clock });
  main = await d.createProject({ name: 'main' });
  const other = await d.createProject({ name: 'other' });
  // up: pinged; tags "prod db"
  uuids.up = await create(main, { name: 'up', tags: 'prod db', timeout: 3600, grace: 3600 });
  // down: a fail signal; tag "prod"
  uuids.down = await create(main, { name: 'down', tags: 'prod', timeout: 3600, grace: 3600 });
  // new: only a log ping, which changes no status
  uuids.fresh = await create(main, { name: 'fresh', timeout: 3600, grace: 3600 });
  // paused
  uuids.paused = await create(main, { name: 'paused', timeout: 3600, grace: 3600 });
  // grace: pinged, timeout 60 s, then 120 s pass
  uuids.grace = await create(main, { name: 'grace', timeout: 60, grace: 3600 });
  // started: up, then a start signal
  uuids.started = await create(main, { name: 'started', tags: 'db', timeout: 3600, grace: 3600 });
  await create(other, { name: 'elsewhere' });

  await ping(uuids.up!);
  await ping(uuids.down!, '/fail');
  await ping(uuids.fresh!, '/log');
  const pause = await api(d.url, `/api/v3/checks/${uuids.paused}/pause`, { method: 'POST', key: main.apiKey });
  expect(pause.status).toBe(200);
  await ping(uuids.grace!);
  await ping(uuids.started!);
  await ping(uuids.started!, '/start');
  clock.advance(120_000);
});

describe('GET /metrics', () => {
  it('counts checks by project and status', async () => {
    const { m } = await scrape();
    const want: Record<string, number> = { new: 1, up: 2, grace: 1, down: 1, paused: 1 };
    for (const [status, n] of Object.entries(want)) {
      expect(m.get(series('checkd_checks', { project: 'main', status })), status).toBe(n);
    }
    expect(m.get(series('checkd_checks', { project: 'other', status: 'new' }))).toBe(1);
    for (const status of ['up', 'grace', 'down', 'paused']) {
      expect(m.get(series('checkd_checks', { project: 'other', status }))).toBe(0);
    }
  });

  it('counts pings by kind, fed from the event log', async () => {
    // success: up, grace, started; fail: down; log: fresh; start: started
    const want: Record<string, number> = { success: 3, fail: 1, log: 1, start: 1 };
    const m = await waitFor(async () => {
      const { m } = await scrape();
      return m.get(series('checkd_pings_received_total', { kind: 'success' })) === 3 ? m : undefined;
    }, { what: 'the ping counters' });
    for (const [kind, n] of Object.entries(want)) {
      expect(m.get(series('checkd_pings_received_total', { kind })), kind).toBe(n);
    }
    expect(m.get(series('checkd_pings_received_total', { kind: 'ign' }))).toBeUndefined();
  });

  it('shows the event log revision and the LMDB file size', async () => {
    const { m } = await scrape();
    expect(m.get('checkd_event_log_revision')).toBe(d.daemon.store.revision());
    expect(m.get('checkd_event_log_revision')).toBeGreaterThan(10);
    expect(m.get('checkd_lmdb_size_bytes')).toBe(statSync(join(d.dataDir, 'data.mdb')).size);
  });

  it('has the Healthchecks-style per-check and per-tag series', async () => {
    const { m } = await scrape();
    const labels = (name: string, tags: string, uuid: string) => ({ project: 'main', name, tags, unique_key: uniqueKeyOf(uuid) });
    expect(m.get(series('hc_check_up', labels('up', 'prod db', uuids.up!)))).toBe(1);
    expect(m.get(series('hc_check_up', labels('down', 'prod', uuids.down!)))).toBe(0);
    expect(m.get(series('hc_check_up', labels('grace', '', uuids.grace!)))).toBe(1);
    expect(m.get(series('hc_check_up', labels('paused', '', uuids.paused!)))).toBe(1);
    expect(m.get(series('hc_check_started', labels('started', 'db', uuids.started!)))).toBe(1);
    expect(m.get(series('hc_check_started', labels('up', 'prod db', uuids.up!)))).toBe(0);
    expect(m.get(series('hc_tag_up', { project: 'main', tag: 'prod' }))).toBe(0);
    expect(m.get(series('hc_tag_up', { project: 'main', tag: 'db' }))).toBe(1);
    expect(m.get(series('hc_checks_total', { project: 'main' }))).toBe(6);
    expect(m.get(series('hc_checks_total', { project: 'other' }))).toBe(1);
    expect(m.get(series('hc_checks_down_total', { project: 'main' }))).toBe(1);
    expect(m.get(series('hc_checks_down_total', { project: 'other' }))).toBe(0);
  });

  it('follows changes: a resumed check and a new success move the gauges', async () => {
    expect((await api(d.url, `/api/v3/checks/${uuids.paused}/resume`, { method: 'POST', key: main.apiKey })).status).toBe(200);
    await ping(uuids.down!);
    const { m } = await scrape();
    expect(m.get(series('checkd_checks', { project: 'main', status: 'paused' }))).toBe(0);
    expect(m.get(series('checkd_checks', { project: 'main', status: 'down' }))).toBe(0);
    expect(m.get(series('hc_checks_down_total', { project: 'main' }))).toBe(0);
    expect(m.get(series('hc_tag_up', { project: 'main', tag: 'prod' }))).toBe(1);
  });

  it('declares the notification counter and the process metrics', async () => {
    const { text, m } = await scrape();
    expect(text).toContain('# TYPE checkd_notifications_total counter');
    expect(m.get('checkd_process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).not.toContain('checkd_process_process_');
  });
});
