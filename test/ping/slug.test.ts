// Slug pings S1–S5 and auto-provisioning with ?create=1 (ping-protocol §1,
// §3.2, §9) over a real HTTP port.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/child.js';
import { api, createCheck, send } from '../helpers/http.js';
import { type DaemonEnv, useDaemon } from '../helpers/in-process.js';
import { tempDir } from '../helpers/temp.js';
import { apiPost, getCheck, listPings } from './support.js';

const env = useDaemon();

async function checksOf(e: DaemonEnv, key = e.p.apiKey): Promise<any[]> {
  return (await api(e.url, '/api/v3/checks/', { key })).json.checks;
}

function expectAccepted(r: { status: number; text: string; headers: Record<string, unknown> }, status = 200, head = false): void {
  expect(r.status).toBe(status);
  expect(r.text).toBe(head ? '' : status === 201 ? 'Created' : 'OK');
  expect(r.headers['access-control-allow-origin']).toBe('*');
  expect(r.headers['ping-body-limit']).toBe('10000');
  expect(String(r.headers['cache-control'])).toContain('no-cache');
}

describe('S1–S5', () => {
  it('S1 success, S2 start, S3 fail, S4 log, S5 exit status, each recorded on the slug check', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { slug: 'backup' });
    const base = `/ping/${env.p.pingKey}/backup`;
    expectAccepted(await send(env.url, base));
    expect((await getCheck(env, c.uuid)).status).toBe('up');
    expectAccepted(await send(env.url, `${base}/start`));
    expect((await getCheck(env, c.uuid)).started).toBe(true);
    expectAccepted(await send(env.url, `${base}/fail`));
    expect((await getCheck(env, c.uuid)).status).toBe('down');
    expectAccepted(await send(env.url, `${base}/log`, { method: 'POST', body: 'note' }));
    expectAccepted(await send(env.url, `${base}/0`));
    expect((await getCheck(env, c.uuid)).status).toBe('up');
    expectAccepted(await send(env.url, `${base}/42`));
    expect((await getCheck(env, c.uuid)).status).toBe('down');
    expectAccepted(await send(env.url, base, { method: 'HEAD' }), 200, true);
    const types = (await listPings(env, c.uuid)).map((p) => p.type).reverse();
    expect(types).toEqual(['success', 'start', 'fail', 'log', 'success', 'fail', 'success']);
  });

  it('exit status above 255 is 400 `invalid url format`; a bad rid is 400 `invalid uuid format`', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { slug: 'exit-check' });
    const base = `/ping/${env.p.pingKey}/exit-check`;
    let r = await send(env.url, `${base}/256`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('invalid url format');
    r = await send(env.url, `${base}?rid=nope`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('invalid uuid format');
    expect((await getCheck(env, c.uuid)).n_pings).toBe(0);
  });

  it('/ping/<key>/start is a success ping to the check whose slug is "start"', async () => {
    const c = await createCheck(env.url, env.p.apiKey, { slug: 'start' });
    expectAccepted(await send(env.url, `/ping/${env.p.pingKey}/start`));
    expect(await getCheck(env, c.uuid)).toMatchObject({ status: 'up', started: false });
  });

  it('an uppercase slug is 400 `invalid url format`; a trailing slash or odd characters match no route', async () => {
    await createCheck(env.url, env.p.apiKey, { slug: 'lower' });
    const r = await send(env.url, `/ping/${env.p.pingKey}/Lower`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('invalid url format');
    for (const path of [`/ping/${env.p.pingKey}/lower/`, `/ping/${env.p.pingKey}/lower/start/`, `/ping/${env.p.pingKey}/lo.wer`, `/ping/${env.p.pingKey}/lower/-1`]) {
      const g = await send(env.url, path);
      expect(g.status, path).toBe(404);
      expect(g.text, path).not.toBe('OK');
    }
  });

  it('unknown slug, unknown or wrong-case ping key, another project: 404 `not found`', async () => {
    await createCheck(env.url, env.p.apiKey, { slug: 'known' });
    const other = await env.d.createProject({ name: 'other' });
    for (const path of [
      `/ping/${env.p.pingKey}/unknown`,
      `/ping/${env.p.pingKey.toUpperCase()}/known`,
      `/ping/nosuchkey/known`,
      `/ping/${other.pingKey}/known`,
    ]) {
      const r = await send(env.url, path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).toBe('not found');
    }
  });

  it('two checks with the same slug: 409 `ambiguous slug`, even with create=1', async () => {
    await createCheck(env.url, env.p.apiKey, { slug: 'twin' });
    await createCheck(env.url, env.p.apiKey, { slug: 'twin' });
    for (const q of ['', '?create=1']) {
      const r = await send(env.url, `/ping/${env.p.pingKey}/twin${q}`);
      expect(r.status).toBe(409);
      expect(r.text).toBe('ambiguous slug');
    }
  });
});

describe('the slug a ping finds', () => {
  it('follows the check: a changed slug answers at once and the old one is 404; deleted, it is 404; created, found', async () => {
    const check = await createCheck(env.url, env.p.apiKey, { slug: 'nightly-backup' });
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup`)).status).toBe(200);

    const renamed = await apiPost(env, `/checks/${check.uuid}`, { slug: 'nightly-backup-v2' });
    expect(renamed.status).toBe(200);
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup`)).status).toBe(404);
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup-v2`)).status).toBe(200);
    // An update that leaves the slug alone keeps it findable.
    expect((await apiPost(env, `/checks/${check.uuid}`, { name: 'renamed only' })).status).toBe(200);
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup-v2`)).status).toBe(200);
    expect((await getCheck(env, check.uuid)).n_pings).toBe(3);

    // Cleared, the check has no slug to be found by; another check can take the old one.
    expect((await apiPost(env, `/checks/${check.uuid}`, { slug: '' })).status).toBe(200);
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup-v2`)).status).toBe(404);
    const other = await createCheck(env.url, env.p.apiKey, { slug: 'nightly-backup-v2' });
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup-v2`)).status).toBe(200);
    expect((await getCheck(env, other.uuid)).n_pings).toBe(1);

    const deleted = await api(env.url, `/api/v3/checks/${other.uuid}`, { method: 'DELETE', key: env.p.apiKey });
    expect(deleted.status).toBe(200);
    expect((await send(env.url, `/ping/${env.p.pingKey}/nightly-backup-v2`)).status).toBe(404);
  });
});

describe('auto-provisioning (?create=1)', () => {
  it('creates the check: 201 Created, name = slug, every integration assigned, one ping recorded', async () => {
    const e = env;
    const project = await e.d.createProject({ name: 'provisioning' });
    const store = e.d.daemon.store;
    const ch1 = await store.createChannel({ projectId: project.id, kind: 'email', name: 'ops', value: 'ops@example.com' }, Date.now());
    const ch2 = await store.createChannel({ projectId: project.id, kind: 'webhook', name: 'hook', value: 'http://x.test/' }, Date.now());
    const r = await send(e.url, `/ping/${project.pingKey}/nightly-job?create=1`);
    expectAccepted(r, 201);
    const [check] = await checksOf(e, project.apiKey);
    expect(check).toMatchObject({
      name: 'nightly-job',
      slug: 'nightly-job',
      status: 'up',
      n_pings: 1,
      timeout: 86400,
      grace: 3600,
      tags: '',
      manual_resume: false,
      methods: '',
    });
    expect(check.channels.split(',').sort()).toEqual([ch1.id, ch2.id].sort());
    // The next ping finds it: 200 OK, no second check.
    expectAccepted(await send(e.url, `/ping/${project.pingKey}/nightly-job?create=1`));
    expect(await checksOf(e, project.apiKey)).toHaveLength(1);
  });

  it('is off by default and needs exactly create=1', async () => {
    const project = await env.d.createProject({ name: 'strict' });
    for (const q of ['', '?create=true', '?create=yes', '?create=0', '?create=']) {
      const r = await send(env.url, `/ping/${project.pingKey}/job${q}`);
      expect(r.status, q).toBe(404);
      expect(r.text).toBe('not found');
    }
    expect(await checksOf(env, project.apiKey)).toEqual([]);
  });

  it('/fail?create=1 creates a down check; /start?create=1 a new, started one', async () => {
    const project = await env.d.createProject({ name: 'signals' });
    expect((await send(env.url, `/ping/${project.pingKey}/f/fail?create=1`)).status).toBe(201);
    expect((await send(env.url, `/ping/${project.pingKey}/s/start?create=1`)).status).toBe(201);
    expect((await send(env.url, `/ping/${project.pingKey}/l/1?create=1`)).status).toBe(201);
    const bySlug = Object.fromEntries((await checksOf(env, project.apiKey)).map((c) => [c.slug, c]));
    expect(bySlug.f).toMatchObject({ status: 'down', n_pings: 1 });
    expect(bySlug.s).toMatchObject({ status: 'new', started: true, n_pings: 1 });
    expect(bySlug.l).toMatchObject({ status: 'down', n_pings: 1 });
  });

  it('the check created stays even when the ping itself is refused (bad rid, exit > 255)', async () => {
    const project = await env.d.createProject({ name: 'quirk' });
    let r = await send(env.url, `/ping/${project.pingKey}/q1?create=1&rid=bad`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('invalid uuid format');
    r = await send(env.url, `/ping/${project.pingKey}/q2/300?create=1`);
    expect(r.status).toBe(400);
    expect(r.text).toBe('invalid url format');
    const checks = await checksOf(env, project.apiKey);
    expect(checks.map((c) => c.slug).sort()).toEqual(['q1', 'q2']);
    expect(checks.every((c) => c.n_pings === 0)).toBe(true);
  });

  it('is refused with 404 once the project holds twice its check limit', async () => {
    const project = await env.d.createProject({ name: 'limited', checkLimit: 2 });
    for (const slug of ['a', 'b', 'c', 'd']) {
      expect((await send(env.url, `/ping/${project.pingKey}/${slug}?create=1`)).status, slug).toBe(201);
    }
    const r = await send(env.url, `/ping/${project.pingKey}/e?create=1`);
    expect(r.status).toBe(404);
    expect(r.text).toBe('not found');
    expect(await checksOf(env, project.apiKey)).toHaveLength(4);
    // Existing slugs still take pings.
    expect((await send(env.url, `/ping/${project.pingKey}/a?create=1`)).status).toBe(200);
  });

  it('a slug longer than the API allows is refused with 400 and creates nothing; 100 characters export and import back', async () => {
    const project = await env.d.createProject({ name: 'long-slugs' });
    // 101 is one over the API's limit; 1937+ reached LMDB's key size, 4093+ its read buffer.
    for (const n of [101, 1937, 1938, 4093, 8000]) {
      const slug = 'a'.repeat(n);
      for (const suffix of ['', '/start', '/fail', '/0']) {
        const created = await send(env.url, `/ping/${project.pingKey}/${slug}${suffix}?create=1`);
        expect(created.status, `${n}${suffix}`).toBe(400);
        expect(created.text).toBe('invalid url format');
        const found = await send(env.url, `/ping/${project.pingKey}/${slug}${suffix}`);
        expect(found.status, `${n}${suffix}`).toBe(404);
        expect(found.text).toBe('not found');
      }
    }
    expect(await checksOf(env, project.apiKey)).toEqual([]);
    const longest = 'b'.repeat(100);
    expectAccepted(await send(env.url, `/ping/${project.pingKey}/${longest}?create=1`), 201);
    expectAccepted(await send(env.url, `/ping/${project.pingKey}/${longest}`));
    const [check] = await checksOf(env, project.apiKey);
    expect(check).toMatchObject({ name: longest, slug: longest, n_pings: 2 });
    // What a ping created, the API would take too: export and import carry it.
    const dir = tempDir();
    const file = join(dir, 'export.json');
    const exported = await runCli(['export', '--data-dir', env.d.dataDir, '--out', file]);
    expect(exported.code, exported.stderr).toBe(0);
    const imported = await runCli(['import', '--data-dir', join(dir, 'copy'), file]);
    expect(imported.code, imported.stderr).toBe(0);
  });

  it('concurrent create=1 pings for one slug create one check', async () => {
    const project = await env.d.createProject({ name: 'race' });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => send(env.url, `/ping/${project.pingKey}/racer?create=1`)),
    );
    const codes = results.map((r) => r.status).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 200)).toHaveLength(19);
    const checks = await checksOf(env, project.apiKey);
    expect(checks).toHaveLength(1);
    expect(checks[0].n_pings).toBe(20);
  });
});
