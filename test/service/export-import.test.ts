// `checkd export` / `checkd import`: a round trip into a fresh data dir gives
// an API that answers the same checks, channels and badges with the same keys;
// bad input is refused with exit code 2 and nothing written; existing ids are
// never overwritten without --replace.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../daemon/store/store.js';
import { runCli, runCliJson, startChild, type ChildDaemon } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { CHECKD_BIN } from '../helpers/paths.js';
import { openStore, openTempStore, plantChecks } from '../helpers/store.js';
import { writeExport } from '../../daemon/ops/transfer.js';
import { uniqueKeyOf } from '../../daemon/domain/ids.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

interface Project {
  id: string;
  api_key: string;
  api_key_readonly: string;
  ping_key: string;
}

let tmp: string;
let source: string;
let exportFile: string;
let p: Project;
let q: Project;
let extraKey: string;
let d: ChildDaemon;
const uuids: string[] = [];

function serve(dataDir: string): Promise<ChildDaemon> {
  // Same base URL for both, so that every URL in the answers can be compared.
  return startChild(['--data-dir', dataDir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0', '--base-url', 'https://checkd.example']);
}

/** Everything the API shows of both projects, as each key sees it. */
async function snapshot(url: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, key] of [
    ['p.rw', p.api_key],
    ['p.ro', p.api_key_readonly],
    ['p.extra', extraKey],
    ['q.rw', q.api_key],
  ] as const) {
    for (const path of ['/api/v3/checks/', '/api/v3/channels/', '/api/v3/badges/', '/api/v1/checks/']) {
      const r = await api(url, path, { key });
      out[`${name} ${path}`] = { status: r.status, body: r.json };
    }
  }
  for (const uuid of uuids) {
    const r = await api(url, `/api/v3/checks/${uuid}`, { key: p.api_key });
    out[`check ${uuid}`] = { status: r.status, body: r.json };
  }
  return out;
}

setupSuite(async () => {
  tmp = tempDir('checkd-transfer-');
  source = join(tmp, 'source');
  exportFile = join(tmp, 'export.json');
  p = await runCliJson(['project', 'create', '--name', 'alpha', '--check-limit', '50', '--ping-log-limit', '500', '--data-dir', source]);
  q = await runCliJson(['project', 'create', '--name', 'beta', '--data-dir', source]);
  extraKey = (await runCliJson(['key', 'create', '--project', p.id, '--read-only', '--data-dir', source])).api_key;
  const hook = (await runCliJson(['channel', 'create', '--project', p.id, '--kind', 'webhook', '--name', 'hook', '--value', 'https://example.com/hook', '--data-dir', source])).id;
  await runCliJson(['channel', 'create', '--project', p.id, '--kind', 'email', '--name', 'ops', '--value', 'ops@example.com', '--data-dir', source]);
  d = await serve(source);
  const mk = async (key: string, body: Record<string, unknown>) => {
    const r = await api(d.url, '/api/v3/checks/', { key, body });
    expect(r.status, r.text).toBe(201);
    const uuid = (r.json as { ping_url: string }).ping_url.split('/').pop()!;
    uuids.push(uuid);
    return uuid;
  };
  const simple = await mk(p.api_key, {
    name: 'backups',
    slug: 'backups',
    tags: 'prod db',
    desc: 'nightly dump',
    timeout: 86400,
    grace: 7200,
    channels: hook,
    manual_resume: true,
    methods: 'POST',
    success_kw: 'OK',
    failure_kw: 'ERROR',
    filter_body: true,
  });
  const cron = await mk(p.api_key, { name: 'cron', schedule: '15 3 * * 1-5', tz: 'Europe/Riga', grace: 600, channels: '*' });
  const cal = await mk(p.api_key, { name: 'calendar', schedule: 'Mon..Fri 08:00', tz: 'America/New_York' });
  const paused = await mk(p.api_key, { name: 'paused' });
  await mk(q.api_key, { name: 'beta check', tags: 'b' });
  // Status fields with history: up with a duration, down, paused, a run started.
  await fetch(`${d.url}/ping/${simple}/start`, { method: 'POST' });
  await fetch(`${d.url}/ping/${simple}`, { method: 'POST', body: 'OK done' });
  await fetch(`${d.url}/ping/${cron}/fail`);
  await fetch(`${d.url}/ping/${cal}/start`);
  expect((await api(d.url, `/api/v3/checks/${paused}/pause`, { method: 'POST', key: p.api_key })).status).toBe(200);
  // The export runs while the daemon serves the source.
  const r = await runCli(['export', '--data-dir', source, '--out', exportFile, '--json']);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ out: exportFile, projects: 2, checks: 5 });
}, 60_000);

describe('export', () => {
  it('writes a 0600 JSON document with key digests, never the keys', () => {
    expect(statSync(exportFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(exportFile, 'utf8');
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({ format: 'checkd-export', version: 1 });
    expect(doc.projects.map((x: { name: string }) => x.name)).toEqual(['alpha', 'beta']);
    const alpha = doc.projects[0];
    expect(alpha.api_keys).toHaveLength(3);
    expect(alpha.channels.map((c: { name: string }) => c.name)).toEqual(['hook', 'ops']);
    expect(alpha.checks.map((c: { name: string }) => c.name)).toEqual(['backups', 'cron', 'calendar', 'paused']);
    expect(alpha.checks[0]).toMatchObject({ status: 'up', n_pings: 2, manual_resume: true, methods: 'POST' });
    expect(alpha.checks[0].last_duration).toBeGreaterThanOrEqual(0);
    for (const key of [p.api_key, p.api_key_readonly, extraKey, q.api_key, q.api_key_readonly]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(4));
    }
  });

  it('goes to stdout without --out', async () => {
    const r = await runCli(['export', '--data-dir', source]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).projects).toHaveLength(2);
  });
});

describe('import', () => {
  it('round trip: a fresh data dir answers the same checks, channels and badges with the same keys', async () => {
    const target = join(tmp, 'target');
    const summary = await runCliJson(['import', '--data-dir', target, exportFile]);
    expect(summary).toMatchObject({ projects: 2, checks: 5, channels: 2, api_keys: 5, replaced: [], badge_secret: 'imported' });
    const before = await snapshot(d.url);
    // The comparison is about real answers: lists with the checks, badges, channels.
    expect(before['p.rw /api/v3/checks/']).toMatchObject({ status: 200, body: { checks: { length: 4 } } });
    expect(before['p.ro /api/v3/checks/']).toMatchObject({ status: 200, body: { checks: { length: 4 } } });
    expect(before['p.rw /api/v3/channels/']).toMatchObject({ status: 200, body: { channels: { length: 2 } } });
    expect(Object.keys((before['p.rw /api/v3/badges/'] as { body: { badges: object } }).body.badges)).toEqual(expect.arrayContaining(['prod', 'db']));
    expect(before['q.rw /api/v3/checks/']).toMatchObject({ status: 200, body: { checks: { length: 1 } } });
    const t = await serve(target);
    const after = await snapshot(t.url);
    expect(after).toEqual(before);
    // And the imported checks live on: UUID and slug pings are accepted.
    expect((await fetch(`${t.url}/ping/${uuids[0]}`, { method: 'POST', body: 'OK again' })).status).toBe(200);
    expect((await fetch(`${t.url}/ping/${p.ping_key}/backups`, { method: 'POST', body: 'OK' })).status).toBe(200);
    const check = await api(t.url, `/api/v3/checks/${uuids[0]}`, { key: p.api_key });
    expect((check.json as { n_pings: number }).n_pings).toBe(4);
    // Write access works with the imported read-write key, not with a read-only one.
    expect((await api(t.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'new after import' } })).status).toBe(201);
    expect((await api(t.url, '/api/v3/checks/', { key: extraKey, body: { name: 'nope' } })).status).toBe(401);
  }, 30_000);

  it('refuses ids that exist (exit code 2, nothing written); --replace replaces those projects whole', async () => {
    const target = join(tmp, 'again');
    await runCliJson(['import', '--data-dir', target, exportFile]);
    const rev = async () => {
      const s = openStore(target, { readOnly: true });
      const revision = s.revision();
      await s.close();
      return revision;
    };
    const rev0 = await rev();
    const again = await runCli(['import', '--data-dir', target, exportFile]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('refusing to import, nothing written');
    expect(again.stderr).toContain(`project ${p.id} ("alpha") already exists (--replace replaces it)`);
    expect(await rev()).toBe(rev0);

    // An edited export: one check renamed, one left out. --replace makes the project exactly the file's.
    const doc = JSON.parse(readFileSync(exportFile, 'utf8'));
    doc.projects[0].checks[0].name = 'renamed';
    doc.projects[0].checks.pop();
    doc.projects = [doc.projects[0]];
    const edited = join(tmp, 'edited.json');
    writeFileSync(edited, JSON.stringify(doc));
    const replaced = await runCliJson(['import', '--replace', '--data-dir', target, edited]);
    expect(replaced).toMatchObject({ projects: 1, checks: 3, replaced: [p.id] });
    const t = await serve(target);
    const list = await api(t.url, '/api/v3/checks/', { key: p.api_key });
    expect((list.json as { checks: Array<{ name: string }> }).checks.map((c) => c.name)).toEqual(['renamed', 'cron', 'calendar']);
    // The other project was not touched.
    const beta = await api(t.url, '/api/v3/checks/', { key: q.api_key });
    expect((beta.json as { checks: Array<{ name: string }> }).checks.map((c) => c.name)).toEqual(['beta check']);
    // A removed check is gone with its pings.
    expect((await api(t.url, `/api/v3/checks/${uuids[3]}`, { key: p.api_key })).status).toBe(404);
  }, 30_000);

  it('refuses an id owned by another project even with --replace', async () => {
    const target = join(tmp, 'clash');
    await runCliJson(['import', '--data-dir', target, exportFile]);
    const doc = JSON.parse(readFileSync(exportFile, 'utf8'));
    // beta, under a new id, claiming alpha's first check.
    const beta = doc.projects[1];
    beta.id = '11111111-2222-4333-8444-555555555555';
    beta.ping_key = 'otherpingkeyxxxxxxxxxx';
    beta.badge_key = '11111111-2222-4333-8444-666666666666';
    beta.api_keys = [];
    beta.checks[0].uuid = doc.projects[0].checks[0].uuid;
    doc.projects = [beta];
    const file = join(tmp, 'clash.json');
    writeFileSync(file, JSON.stringify(doc));
    const r = await runCli(['import', '--replace', '--data-dir', target, file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`check ${doc.projects[0].checks[0].uuid} is already used by project ${p.id}`);
  });

  it('validates its input: bad JSON or wrong shapes give exit code 2 and write nothing', async () => {
    const good = JSON.parse(readFileSync(exportFile, 'utf8'));
    const variants: Array<[string, (doc: any) => unknown, RegExp]> = [
      ['not JSON', () => '{"format": "checkd-export", ', /is not valid JSON, nothing imported/],
      ['an array', () => [], /expected a JSON object/],
      ['another format', (x) => ({ ...x, format: 'healthchecks' }), /"format" must be "checkd-export"/],
      ['a newer version', (x) => ({ ...x, version: 2 }), /unsupported export version 2/],
      ['no version', (x) => ({ ...x, version: undefined }), /"version" is missing/],
      ['projects missing', (x) => ({ ...x, projects: undefined }), /projects: missing/],
      ['a string timeout', (x) => ((x.projects[0].checks[0].timeout = '60'), x), /projects\[0\]\.checks\[0\]\.timeout: expected a whole number/],
      ['a missing field', (x) => (delete x.projects[0].checks[1].grace, x), /projects\[0\]\.checks\[1\]\.grace: missing/],
      ['an unknown field', (x) => ((x.projects[0].checks[0].colour = 'red'), x), /projects\[0\]\.checks\[0\]\.colour: unknown field/],
      ['a bad status', (x) => ((x.projects[0].checks[0].status = 'grace'), x), /status: expected one of/],
      ['a bad schedule', (x) => ((x.projects[0].checks[1].schedule = '61 * * * *'), x), /checks\[1\]\.schedule: not a valid schedule/],
      ['a bad time zone', (x) => ((x.projects[0].checks[1].tz = 'Mars/Olympus'), x), /checks\[1\]\.tz: expected a time zone/],
      ['a key in clear', (x) => ((x.projects[0].api_keys[0].sha256 = p.api_key), x), /api_keys\[0\]\.sha256: expected 64 lowercase hex digits/],
      ['a dangling channel', (x) => ((x.projects[1].checks[0].channels = [x.projects[0].channels[0].id]), x), /is not a channel of this project/],
      ['a duplicate uuid', (x) => ((x.projects[1].checks[0].uuid = x.projects[0].checks[0].uuid), x), /duplicate check uuid/],
      ['a bad webhook', (x) => ((x.projects[0].channels[0].value = 'ftp://example.com'), x), /channels\[0\]\.value: not a valid value for a webhook channel/],
    ];
    for (const [what, mutate, message] of variants) {
      const target = join(tmp, `bad-${what.replace(/\W+/g, '-')}`);
      const file = `${target}.json`;
      const doc = mutate(structuredClone(good));
      writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
      const r = await runCli(['import', '--data-dir', target, file]);
      expect(r.code, `${what}: ${r.stderr}`).toBe(2);
      expect(r.stderr, what).toMatch(message);
      expect(existsSync(target), `${what}: data dir created`).toBe(false);
    }
    // Into an existing data dir: untouched.
    const existing = join(tmp, 'existing');
    await runCliJson(['project', 'create', '--name', 'here', '--data-dir', existing]);
    const s0 = Store.open(existing, { readOnly: true });
    const rev0 = s0.revision();
    await s0.close();
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...good, projects: [{ ...good.projects[0], check_limit: -1 }] }));
    const r = await runCli(['import', '--data-dir', existing, bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/check_limit: expected a whole number from 0 to 1000000/);
    const s1 = Store.open(existing, { readOnly: true });
    expect(s1.revision()).toBe(rev0);
    expect(s1.listProjects().map((x) => x.name)).toEqual(['here']);
    await s1.close();
    // A missing file and a missing argument are usage errors too.
    expect((await runCli(['import', '--data-dir', existing, join(tmp, 'nope.json')])).code).toBe(2);
    expect((await runCli(['import', '--data-dir', existing])).code).toBe(2);
  }, 60_000);

  it('writes many checks in parts: each once, in creation order, counted, indexed, with its event; or none of them', async () => {
    // More checks than one transaction of the import's bulk load takes, in two
    // projects; the second project's checks come out of creation order in the file.
    const { store } = openTempStore('checkd-import-parts-');
    const T0 = Date.UTC(2026, 10, 25);
    const a = (await store.createProject({ name: 'many', checkLimit: 30_000, pingLogLimit: 10 }, T0)).project;
    const b = (await store.createProject({ name: 'shuffled', checkLimit: 100, pingLogLimit: 10 }, T0)).project;
    // Some names that JavaScript and LMDB sort differently (see bulk-load-append.test.ts).
    const nameOf = (i: number) => (i % 1000 === 0 ? `\u{1F600} n${i}` : i % 1000 === 1 ? `\uFF01 n${i}` : `n${i}`);
    const many = await plantChecks(store, a.id, 20_345, { createdAt: T0, shape: (c, i) => Object.assign(c, { name: nameOf(i), slug: `s${i % 7}` }) });
    const few = await plantChecks(store, b.id, 50, { createdAt: T0 + 5 });
    const pieces: string[] = [];
    writeExport(store, (t) => pieces.push(t), T0);
    const doc = JSON.parse(pieces.join(''));
    const shuffled = doc.projects.find((x: { id: string }) => x.id === b.id);
    shuffled.checks.reverse();
    const file = join(tmp, 'many.json');
    const text = JSON.stringify(doc);
    writeFileSync(file, text);

    // All or nothing: what is wrong far past the first transaction's worth of
    // checks is found before anything is written, into a data dir that exists.
    const existing = join(tmp, 'many-existing');
    const here = openStore(existing);
    const own = (await here.createProject({ name: 'here', checkLimit: 10, pingLogLimit: 10 }, T0)).project;
    const late = many[20_300]!;
    await plantChecks(here, own.id, 1, { createdAt: T0, shape: (c) => (c.uuid = late.uuid) });
    const rev0 = here.revision();
    await here.close();
    const variants: Array<[string, () => string, RegExp]> = [
      ['a bad check', () => text.replace(`"uuid":"${late.uuid}"`, `"uuid":"${late.uuid}","colour":"red"`), /checks\[20300\]\.colour: unknown field/],
      ['a repeated uuid', () => text.replace(`"uuid":"${many[20_344]!.uuid}"`, `"uuid":"${many[0]!.uuid}"`), /duplicate check uuid/],
      ['a cut-off file', () => text.slice(0, text.indexOf(`"uuid":"${late.uuid}"`)), /is not valid JSON, nothing imported/],
      ['a check the data dir has', () => text, new RegExp(`check ${late.uuid} is already used by project ${own.id}`)],
    ];
    for (const [what, make, message] of variants) {
      const bad = join(tmp, `many-${what.replace(/\W+/g, '-')}.json`);
      writeFileSync(bad, make());
      const r = await runCli(['import', '--data-dir', existing, bad]);
      expect(r.code, `${what}: ${r.stderr}`).toBe(2);
      expect(r.stderr, what).toMatch(message);
      const after = openStore(existing, { readOnly: true });
      expect(after.revision(), what).toBe(rev0);
      expect(after.listProjects().map((x) => x.name), what).toEqual(['here']);
      await after.close();
    }

    const target = join(tmp, 'many');
    expect(await runCliJson(['import', '--data-dir', target, file])).toMatchObject({ projects: 2, checks: 20_395 });
    const s = openStore(target, { readOnly: true });
    expect(s.listChecks(a.id).map((c) => c.uuid)).toEqual(many.map((c) => c.uuid));
    expect(s.listChecks(b.id).map((c) => c.uuid)).toEqual(few.map((c) => c.uuid));
    expect(s.listChecks(a.id)[20_344]).toEqual({ ...many[20_344], everStarted: false });
    expect([s.countChecks(a.id), s.countChecks(b.id)]).toEqual([20_345, 50]);
    expect(s.checksBySlug(a.id, 's3')).toHaveLength(2906);
    expect(s.checksWith(a.id, 'name', 'n20002').map((c) => c.uuid)).toEqual([many[20_002]!.uuid]);
    for (let i = 0; i < 20_345; i += 1000) {
      for (const j of [i, i + 1]) expect(s.checksWith(a.id, 'name', nameOf(j)).map((c) => c.uuid)).toEqual([many[j]!.uuid]);
    }
    expect(s.checkByUniqueKey(a.id, uniqueKeyOf(many[5]!.uuid))?.uuid).toBe(many[5]!.uuid);
    expect(s.checkByBadgeKey(many[777]!.badgeKey)?.uuid).toBe(many[777]!.uuid);
    const created = s.eventsAfter(0, 30_000).filter((e) => e.type === 'check.created');
    expect(created).toHaveLength(20_395);
    expect(new Set(created.map((e) => e.checkUuid)).size).toBe(20_395);
    // Stored without the check, read with it.
    expect(created.every((e) => e.check?.uuid === e.checkUuid)).toBe(true);
    expect(created.find((e) => e.checkUuid === many[20_344]!.uuid)?.check).toEqual(s.getCheck(many[20_344]!.uuid));
  }, 120_000);

  it('into a running daemon: it hears of the imported checks, arms their deadlines and flips the overdue one', async () => {
    const { store: src } = openTempStore('checkd-import-live-src-');
    const now = Date.now();
    const { project, apiKey } = await src.createProject({ name: 'live', checkLimit: 20, pingLogLimit: 10 }, now);
    const [overdue, later] = await plantChecks(src, project.id, 2, {
      createdAt: now,
      shape: (c, i) => {
        c.status = 'up';
        c.timeout = 60;
        c.grace = 60;
        c.lastPing = i === 0 ? now - 3600_000 : now;
        c.alertAfter = c.lastPing + 120_000;
        c.nPings = 1;
      },
    });
    const pieces: string[] = [];
    writeExport(src, (t) => pieces.push(t), now);
    const file = join(tmp, 'live.json');
    writeFileSync(file, pieces.join(''));

    const dir = tempDir();
    const live = await serve(dir);
    try {
      const imported = await runCli(['import', '--data-dir', dir, file]);
      expect(imported.code, imported.stderr).toBe(0);
      const flips = async (uuid: string) => (await api(live.url, `/api/v3/checks/${uuid}/flips/`, { key: apiKey })).json as Array<{ up: number }>;
      await waitFor(async () => (await flips(overdue!.uuid)).some((f) => f.up === 0), { timeout: 10_000, what: "the overdue check's down flip" });
      expect(await flips(later!.uuid)).toEqual([]);
      expect((await api(live.url, `/api/v3/checks/${later!.uuid}`, { key: apiKey })).json).toMatchObject({ status: 'up', name: later!.name });
    } finally {
      await live.stop();
    }
  }, 60_000);

  it('reads standard input with -', async () => {
    const { spawnSync } = await import('node:child_process');
    const target = join(tmp, 'stdin');
    const r = spawnSync(process.execPath, [CHECKD_BIN, 'import', '--data-dir', target, '-', '--json'], {
      input: readFileSync(exportFile),
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ projects: 2, checks: 5 });
  });
});
