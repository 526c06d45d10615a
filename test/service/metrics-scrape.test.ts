// How a /metrics scrape reads the checks: chunk by chunk, over every project.
// Projects that share a name add up under that name; scrapes that overlap both
// answer in full; a pass over more checks than one chunk counts every check
// once.
import { describe, expect, it } from 'vitest';
import { uniqueKeyOf } from '../../daemon/domain/ids.js';
import { ManualClock } from '../../daemon/shared/clock.js';
import { api } from '../helpers/http.js';
import { startInProcess } from '../helpers/in-process.js';
import { plantChecks } from '../helpers/store.js';
import { parseMetrics, series } from './support.js';

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);

async function scrape(url: string): Promise<Map<string, number>> {
  const r = await api(url, '/metrics');
  expect(r.status).toBe(200);
  return parseMetrics(r.text);
}

describe('a /metrics scrape', () => {
  it('adds up projects that share a name instead of keeping only the last one', async () => {
    const d = await startInProcess({ clock: new ManualClock(T0) });
    const url = d.url;
    for (const [suffix, tags] of [['/fail', 'prod'], ['', 'prod db']] as const) {
      const p = await d.createProject({ name: 'twins' });
      const r = await api(url, '/api/v3/checks/', { key: p.apiKey, body: { name: 'job', tags, timeout: 3600 } });
      expect(r.status).toBe(201);
      const uuid = (r.json as { ping_url: string }).ping_url.split('/').pop()!;
      expect((await api(url, `/ping/${uuid}${suffix}`)).status).toBe(200);
    }
    const m = await scrape(url);
    expect(m.get(series('hc_checks_total', { project: 'twins' }))).toBe(2);
    expect(m.get(series('hc_checks_down_total', { project: 'twins' }))).toBe(1);
    expect(m.get(series('checkd_checks', { project: 'twins', status: 'down' }))).toBe(1);
    expect(m.get(series('checkd_checks', { project: 'twins', status: 'up' }))).toBe(1);
    // "prod" has a down check in one of the two projects; "db" only an up one.
    expect(m.get(series('hc_tag_up', { project: 'twins', tag: 'prod' }))).toBe(0);
    expect(m.get(series('hc_tag_up', { project: 'twins', tag: 'db' }))).toBe(1);
  });

  it('escapes names in the per-check series as the text format wants, under one HELP and TYPE each', async () => {
    const d = await startInProcess({ clock: new ManualClock(T0) });
    const p = await d.createProject({ name: 'ops "eu"' });
    const name = 'backup \\ "db"\nnightly';
    const r = await api(d.url, '/api/v3/checks/', { key: p.apiKey, body: { name, tags: 'a\\b', timeout: 3600 } });
    expect(r.status).toBe(201);
    const uuid = (r.json as { ping_url: string }).ping_url.split('/').pop()!;
    expect((await api(d.url, `/ping/${uuid}/start`)).status).toBe(200);
    const text = (await api(d.url, '/metrics')).text;
    const labels = `project="ops \\"eu\\"",name="backup \\\\ \\"db\\"\\nnightly",tags="a\\\\b",unique_key="${uniqueKeyOf(uuid)}"`;
    expect(text).toContain(`\nhc_check_up{${labels}} 1\n`);
    expect(text).toContain(`\nhc_check_started{${labels}} 1\n`);
    for (const family of ['hc_check_up', 'hc_check_started']) {
      expect(text.split('\n').filter((l) => l === `# TYPE ${family} gauge`)).toHaveLength(1);
      expect(text.split('\n').filter((l) => l.startsWith(`# HELP ${family} `))).toHaveLength(1);
    }
    expect(parseMetrics(text).size).toBeGreaterThan(0);
  });

  it('counts every check once over several chunks, and overlapping scrapes both answer in full', async () => {
    const d = await startInProcess({ clock: new ManualClock(T0) });
    const store = d.daemon.store;
    const { project } = await store.createProject({ name: 'big', checkLimit: 10_000, pingLogLimit: 10 }, T0);
    const N = 4_500; // more than two chunks of 2,000
    await plantChecks(store, project.id, N, {
      createdAt: T0,
      shape: (c, i) => {
        if (i % 3 === 0) c.status = 'down';
      },
    });
    const [a, b] = await Promise.all([scrape(d.url), scrape(d.url)]);
    for (const m of [a, b]) {
      expect(m.get(series('hc_checks_total', { project: 'big' }))).toBe(N);
      expect(m.get(series('hc_checks_down_total', { project: 'big' }))).toBe(N / 3);
      expect(m.get(series('checkd_checks', { project: 'big', status: 'new' }))).toBe((2 * N) / 3);
      expect([...m.keys()].filter((k) => k.startsWith('hc_check_up{'))).toHaveLength(N);
    }
  });
});
