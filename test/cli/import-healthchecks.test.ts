// `checkd import --from-healthchecks` end to end with the built CLI: a project
// of a second checkd (which speaks the same v3 API) with checks of every kind
// and state, pings, flips and channels is moved into a fresh data dir; a daemon
// on it answers the same checks, pings, flips and channels, and accepts pings
// at the old UUID and slug URLs; a second run skips everything. Then recorded
// Healthchecks answers (a local stub), and every refusal: nothing written.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createProjectCli, PORT0, runCli, startChild, type ChildDaemon, type CreatedProject } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, createCheck, freePort, ping } from '../helpers/http.js';
import { openStore } from '../helpers/store.js';
import { tempDir } from '../helpers/temp.js';
import { recording, startStub } from './healthchecks-stub.js';

const BASE = 'https://checks.example';
const SUMMARY_KEYS = ['channels_created', 'checks_created', 'checks_skipped', 'flips', 'pings', 'project'];

let tmp: string;
let sourceDir: string;
let targetDir: string;
let source: ChildDaemon;
let target: ChildDaemon;
let p: CreatedProject;
const uuids: Record<string, string> = {};

/** `checkd import --from-healthchecks URL ...` with --json; the result and the parsed document (if any). */
async function importHc(url: string, args: string[]): Promise<{ code: number | null; doc: any; stderr: string; stdout: string }> {
  const r = await runCli(['import', '--from-healthchecks', url, ...args, '--json']);
  let doc: any;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    doc = undefined;
  }
  return { ...r, doc };
}

/** A POST ping to `target` (what follows /ping/) that must be accepted. */
async function post(url: string, target: string, body?: string): Promise<void> {
  await ping(url, target, { method: 'POST', body });
}

/** Everything the API shows of the project: the list, each check, its pings, bodies and flips, the channels. */
async function snapshot(url: string, key: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  out.list = (await api(url, '/api/v3/checks/', { key })).json;
  out.channels = (await api(url, '/api/v3/channels/', { key })).json;
  for (const [name, uuid] of Object.entries(uuids)) {
    out[`${name} check`] = (await api(url, `/api/v3/checks/${uuid}`, { key })).json;
    const pings = (await api(url, `/api/v3/checks/${uuid}/pings/`, { key })).json;
    out[`${name} pings`] = pings;
    out[`${name} flips`] = (await api(url, `/api/v3/checks/${uuid}/flips/`, { key })).json;
    for (const ping of pings.pings) {
      if (ping.body_url) out[`${name} body ${ping.n}`] = (await api(url, `/api/v3/checks/${uuid}/pings/${ping.n}/body`, { key })).text;
    }
  }
  return out;
}

setupSuite(async () => {
  tmp = tempDir('checkd-hc-import-');
  sourceDir = join(tmp, 'source');
  targetDir = join(tmp, 'target');
  p = await createProjectCli(sourceDir, 'old', ['--check-limit', '50']);
  const channel = async (kind: string, name: string, value: string) => {
    const r = await runCli(['channel', 'create', '--project', p.id, '--kind', kind, '--name', name, '--value', value, '--data-dir', sourceDir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout).id as string;
  };
  const hook = await channel('webhook', 'hook', 'https://example.com/hook');
  const ops = await channel('email', 'ops', 'ops@example.com');
  source = await startChild(['--data-dir', sourceDir, ...PORT0, '--base-url', BASE, '--api-rate-limit', '0']);
  const mk = async (name: string, body: Record<string, unknown>): Promise<string> => {
    const { uuid } = await createCheck(source.url, p.api_key, { name, ...body });
    uuids[name] = uuid;
    return uuid;
  };
  const at = (target: string, body?: string) => post(source.url, target, body);
  const backups = await mk('backups', { slug: 'backups', tags: 'prod db', desc: 'nightly dump', timeout: 3600, grace: 300, channels: hook });
  const report = await mk('report', {
    slug: 'report',
    schedule: '0 3 * * *',
    tz: 'Europe/Riga',
    grace: 3600,
    channels: '*',
    start_kw: 'begin',
    success_kw: 'OK',
    failure_kw: 'ERROR',
    filter_http_body: true,
    filter_default_fail: true,
  });
  const weekly = await mk('weekly', {
    schedule: 'Mon *-*-* 06:00:00',
    tz: 'UTC',
    manual_resume: true,
    methods: 'POST',
    filter_subject: true,
    filter_body: true,
    success_kw: 'done',
  });
  const paused = await mk('paused', { tags: 'idle', timeout: 86400, grace: 3600 });
  const broken = await mk('broken', { timeout: 3600, grace: 60, channels: ops });
  await mk('fresh', { tags: 'idle', desc: 'never pinged' });
  const running = await mk('running', { timeout: 86400, grace: 7200 });

  // A timed run with bodies, and a log entry.
  const rid = '7c2f3b1a-9d8e-4f6a-b5c4-3d2e1f0a9b8c';
  await at(`${backups}/start?rid=${rid}`);
  await sleep(60); // a run long enough to show a duration
  await at(`${backups}?rid=${rid}`, 'backup ok\n');
  await at(`${backups}/log`, 'rotated 3 files');
  // Keyword filters: up, down (a flip each way), up.
  await at(report, 'OK all good');
  await at(report, 'ERROR disk full');
  await at(report, 'begin run');
  await at(report, 'OK again');
  await at(weekly, 'done');
  await at(paused);
  expect((await api(source.url, `/api/v3/checks/${uuids.paused}/pause`, { method: 'POST', key: p.api_key })).status).toBe(200);
  await at(broken);
  await at(`${broken}/fail`, 'exit 3: no space left');
  await at(running);
  await at(`${running}/start?rid=0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d`);
}, 60_000);

// Each test runs the CLI several times: more than the default timeout on a busy machine.
describe('from a second checkd', { timeout: 60_000 }, () => {
  let before: Record<string, unknown>;
  let imported: Awaited<ReturnType<typeof importHc>>;

  it('moves the project into a new data dir, which it creates', async () => {
    before = await snapshot(source.url, p.api_key);
    imported = await importHc(source.url, ['--api-key', p.api_key, '--name', 'moved', '--ping-key', p.ping_key, '--ping-bodies', '--data-dir', targetDir]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(Object.keys(imported.doc).sort()).toEqual(SUMMARY_KEYS);
    const flips = Object.keys(uuids).reduce((n, name) => n + (before[`${name} flips`] as unknown[]).length, 0);
    const pings = Object.keys(uuids).reduce((n, name) => n + (before[`${name} pings`] as { pings: unknown[] }).pings.length, 0);
    expect(flips).toBeGreaterThanOrEqual(7);
    expect(imported.doc).toMatchObject({ checks_created: 7, checks_skipped: 0, channels_created: 2, flips, pings });
    expect(imported.stderr).toContain(`checkd: no checkd data in ${targetDir}: created it`);
    // --json: the new project's keys and what is left to configure go to stderr.
    expect(imported.stderr).toMatch(/api key \(read-write\): hcw_\S{28}/);
    expect(imported.stderr).toContain('channels to configure');
    expect(imported.stderr).toContain('checkd channel update');
  });

  // A daemon on the imported data dir, for the rest of the block.
  describe('with a daemon on it', () => {
    setupSuite(async () => {
      target = await startChild(['--data-dir', targetDir, ...PORT0, '--base-url', BASE, '--api-rate-limit', '0']);
    }, 60_000);

    it('a daemon on it answers the same checks, pings, bodies, flips and channels', async () => {
      const key = /api key \(read-write\): (\S+)/.exec(imported.stderr)![1]!;
      const after = await snapshot(target.url, key);
      expect(after).toEqual(before);
      // Not just equal to something empty.
      expect((after.list as { checks: Array<{ status: string }> }).checks.map((c) => c.status)).toEqual(['up', 'up', 'up', 'paused', 'down', 'new', 'up']);
      expect(after['running check']).toMatchObject({ started: true });
      expect(after['backups body 2']).toBe('backup ok\n');
    });

    it('pings are accepted at the old UUID and slug URLs', async () => {
      const key = /api key \(read-write\): (\S+)/.exec(imported.stderr)![1]!;
      for (const uuid of Object.values(uuids)) {
        const n = (await api(target.url, `/api/v3/checks/${uuid}`, { key })).json.n_pings;
        await post(target.url, uuid, 'done OK');
        expect((await api(target.url, `/api/v3/checks/${uuid}`, { key })).json.n_pings, uuid).toBe(n + 1);
        // Numbered on from the imported log.
        expect((await api(target.url, `/api/v3/checks/${uuid}/pings/`, { key })).json.pings[0].n).toBe(n + 1);
      }
      // --ping-key kept the slug URLs.
      const n = (await api(target.url, `/api/v3/checks/${uuids.backups}`, { key })).json.n_pings;
      await post(target.url, `${p.ping_key}/backups`);
      expect((await api(target.url, `/api/v3/checks/${uuids.backups}`, { key })).json.n_pings).toBe(n + 1);
    });

    it('channels come without their values: disabled, and said so by channel list', async () => {
      const r = await runCli(['channel', 'list', '--project', imported.doc.project, '--data-dir', targetDir, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const channels = JSON.parse(r.stdout).channels;
      expect(channels.map((c: { name: string; kind: string; last_status: string }) => [c.name, c.kind, c.last_status])).toEqual([
        ['hook', 'webhook', 'disabled'],
        ['ops', 'email', 'disabled'],
      ]);
      expect(channels[0].last_error).toContain(`checkd channel update ${channels[0].id} --value`);
      const test = await runCli(['channel', 'test', channels[0].id, '--data-dir', targetDir]);
      expect(test.code).toBe(2);
      expect(test.stderr).toContain('has no value yet');
    });

    it('a second run skips everything and writes nothing', async () => {
      const again = await importHc(source.url, ['--api-key', p.api_key, '--name', 'moved', '--ping-key', p.ping_key, '--data-dir', targetDir]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.doc).toEqual({ project: imported.doc.project, checks_created: 0, checks_skipped: 7, channels_created: 0, flips: 0, pings: 0 });
      expect(again.stderr).not.toContain('created it');
      expect(again.stderr).not.toContain('api key');
      const list = await runCli(['project', 'list', '--data-dir', targetDir, '--json']);
      expect(JSON.parse(list.stdout).projects).toMatchObject([{ id: imported.doc.project, name: 'moved', n_checks: 7 }]);
    });

    it('checkd export and import carry the disabled channels as they are', async () => {
      const file = join(tmp, 'moved-export.json');
      const exported = await runCli(['export', '--data-dir', targetDir, '--out', file]);
      expect(exported.code, exported.stderr).toBe(0);
      const copy = join(tmp, 'copy');
      const r = await runCli(['import', file, '--data-dir', copy, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ projects: 1, checks: 7, channels: 2 });
      const listed = await runCli(['channel', 'list', '--project', imported.doc.project, '--data-dir', copy, '--json']);
      expect(JSON.parse(listed.stdout).channels.map((c: { last_status: string }) => c.last_status)).toEqual(['disabled', 'disabled']);
    });

    it('the readable output says what was done', async () => {
      const r = await runCli(['import', '--from-healthchecks', source.url, '--api-key', p.api_key, '--project', imported.doc.project, '--data-dir', targetDir]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`into project ${imported.doc.project} "moved": 0 check(s) created, 7 skipped (already here), 0 channel(s) created, 0 flip(s), 0 ping(s)`);
      expect(r.stdout).toContain('channels to configure');
    });
  });
});

describe('from recorded Healthchecks answers', { timeout: 60_000 }, () => {
  it('imports the project, leaves out the kinds checkd cannot deliver to, and is idempotent', async () => {
    const rec = recording();
    const stub = await startStub(rec);
    const dir = join(tmp, 'recorded');
    const first = await runCli(['import', '--from-healthchecks', `${stub.url}/`, '--api-key', rec.api_key, '--name', 'hc', '--ping-bodies', '--data-dir', dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('4 check(s) created, 0 skipped (already here), 2 channel(s) created, 5 flip(s), 8 ping(s)');
    expect(first.stdout).toMatch(/channels not imported \(checkd cannot deliver to their kind.*\):\n {2}746a083e-f542-4554-be1a-707ce16d3acc {2}sms +"My Phone"/);
    expect(first.stdout).toContain('api key (read-write): hcw_');
    // Slugs without --ping-key: the new ping key is named, and how to keep the old URLs.
    expect(first.stdout).toContain('to keep the old ones, run again with --ping-key');

    const store = openStore(dir, { readOnly: true });
    const [project] = store.listProjects();
    expect(project).toMatchObject({ name: 'hc', checkLimit: 20, pingLogLimit: 100 });
    const checks = store.listChecks(project!.id);
    expect(checks.map((c) => c.uuid)).toEqual([
      '31365bce-8da9-4729-8ff3-aaa71d56b712',
      '803f680d-e89b-492b-82ef-2be7b774a92d',
      'c0ffee00-1234-4abc-8def-0123456789ab',
      'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    ]);
    const [a, b, c, d] = checks;
    // The sms channel is left out; a channel id the list does not know is dropped.
    expect(a).toMatchObject({ name: 'Filesystem Backup', status: 'up', nPings: 4, badgeKey: 'ea7d5d1d-9b1f-4a8f-b0a8-5bf1ea7a2fa9', channels: ['4ec5a071-2d08-4baa-898a-eb4eb3cd6941'] });
    expect(b).toMatchObject({ kind: 'cron', schedule: '15 5 * * *', status: 'down', badgeKey: '0b9f5c7e-3f0e-4b8e-9b36-6f3e4a0c2d11' });
    expect(c).toMatchObject({ kind: 'oncalendar', status: 'paused', manualResume: true, methods: 'POST', tz: 'Europe/Riga' });
    expect(d).toMatchObject({ status: 'up', channels: [], lastStartRid: '0c8d2a1e-5b7f-4e3d-9a6c-2b1f0e9d8c7a' });
    expect(store.listPings(a!.uuid, 100).map((x) => [x.n, x.kind])).toEqual([
      [4, 'success'],
      [3, 'start'],
      [2, 'fail'],
      [1, 'success'],
    ]);
    expect(Buffer.from(store.getPing(a!.uuid, 2)!.body!).toString()).toBe('rsync: connection unexpectedly closed\nexit 12\n');
    expect(store.listFlips(a!.uuid).map((f) => [f.newStatus, f.processed])).toEqual([
      ['up', true],
      ['down', true],
      ['up', true],
    ]);
    expect(store.listChannels(project!.id).map((x) => [x.id, x.kind, x.name, x.value])).toEqual([
      ['4ec5a071-2d08-4baa-898a-eb4eb3cd6941', 'email', 'My Work Email', ''],
      ['b7e2a3c4-1d5f-4e6a-9b8c-7d6e5f4a3b2c', 'webhook', '', ''],
    ]);
    // Closed before the next runs write to the data dir.
    await store.close();

    const again = await importHc(stub.url, ['--api-key', rec.api_key, '--name', 'hc', '--data-dir', dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.doc).toMatchObject({ checks_created: 0, checks_skipped: 4, channels_created: 0, flips: 0, pings: 0 });

    // The same checks into another project: their UUIDs are taken, nothing is written.
    const other = await importHc(stub.url, ['--api-key', rec.api_key, '--name', 'other', '--data-dir', dir]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('refusing to import, nothing written');
    expect(other.stderr).toContain('check 31365bce-8da9-4729-8ff3-aaa71d56b712 ("Filesystem Backup") already exists in project');
    const list = await runCli(['project', 'list', '--data-dir', dir, '--json']);
    expect(JSON.parse(list.stdout).projects.map((x: { name: string }) => x.name)).toEqual(['hc']);
  });

  it('waits out a 429 as Retry-After asks, then imports', async () => {
    const rec = recording();
    const stub = await startStub(rec, { rateLimited: 1, retryAfter: '1' });
    const dir = join(tmp, 'rate-limited');
    const r = await importHc(stub.url, ['--api-key', rec.api_key, '--name', 'hc', '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/rate-limited by http:\/\/127\.0\.0\.1:\d+ \(429\): waiting 1 s/);
    expect(r.doc).toMatchObject({ checks_created: 4 });
  });

  it('data checkd cannot take: exit 1, listed, nothing written', async () => {
    const rec = recording();
    (rec.responses['/api/v3/checks/'] as { checks: Array<Record<string, unknown>> }).checks[1]!.schedule = 'every tuesday';
    const stub = await startStub(rec);
    const dir = join(tmp, 'bad-data');
    const r = await importHc(stub.url, ['--api-key', rec.api_key, '--name', 'hc', '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('the source has data checkd cannot take, nothing imported');
    expect(r.stderr).toContain('check 803f680d-e89b-492b-82ef-2be7b774a92d ("Database Backup"): schedule is not a valid cron or OnCalendar expression');
    expect(existsSync(dir)).toBe(false);
  });
});

describe('refusals write nothing', { timeout: 60_000 }, () => {
  const nowhere = () => join(tmp, `never-${Math.random().toString(36).slice(2)}`);

  it('a bad URL: exit 2', async () => {
    for (const url of ['not a url', 'ftp://checks.example', 'https://checks.example/?page=2']) {
      const dir = nowhere();
      const r = await importHc(url, ['--api-key', p.api_key, '--name', 'x', '--data-dir', dir]);
      expect(r.code, url).toBe(2);
      expect(r.stderr).toContain('--from-healthchecks');
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('a server that cannot be reached: exit 1', async () => {
    const dir = nowhere();
    const r = await importHc(`http://127.0.0.1:${await freePort()}`, ['--api-key', p.api_key, '--name', 'x', '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot read http:\/\/127\.0\.0\.1:\d+\/api\/v3\/checks\/: ECONNREFUSED/);
    expect(existsSync(dir)).toBe(false);
  });

  it('a wrong key (401) and a read-only key: exit 2, saying which key is needed', async () => {
    const dir = nowhere();
    const wrong = await importHc(source.url, ['--api-key', 'hcw_' + 'x'.repeat(28), '--name', 'x', '--data-dir', dir]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('refused the API key (401): give a read-write API key of the project');
    const readOnly = await importHc(source.url, ['--api-key', p.api_key_readonly, '--name', 'x', '--data-dir', dir]);
    expect(readOnly.code).toBe(2);
    expect(readOnly.stderr).toContain("that is a read-only API key: the import keeps each check's UUID");
    expect(existsSync(dir)).toBe(false);
  });

  it('a check limit too small: exit 2 before anything is written, saying how to raise it', async () => {
    const dir = join(tmp, 'small');
    const small = await createProjectCli(dir, 'small', ['--check-limit', '3']);
    const r = await importHc(source.url, ['--api-key', p.api_key, '--project', small.id, '--ping-key', p.ping_key, '--data-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`project ${small.id} allows 3 checks and has 0; the 7 new ones need a check limit of 7`);
    expect(r.stderr).toContain(`checkd project update ${small.id} --check-limit 7`);
    const list = JSON.parse((await runCli(['project', 'list', '--data-dir', dir, '--json'])).stdout).projects;
    expect(list).toMatchObject([{ id: small.id, n_checks: 0 }]);
    const channels = JSON.parse((await runCli(['channel', 'list', '--project', small.id, '--data-dir', dir, '--json'])).stdout).channels;
    expect(channels).toEqual([]);
    // Nor the ping key.
    const store = openStore(dir, { readOnly: true });
    expect(store.getProject(small.id)!.pingKey).toBe(small.ping_key);
  });

  it('a project that is not there, before reading anything', async () => {
    const dir = join(tmp, 'small');
    const r = await importHc(source.url, ['--api-key', p.api_key, '--project', '00000000-0000-4000-8000-000000000000', '--data-dir', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no project with id "00000000-0000-4000-8000-000000000000"');
    const empty = nowhere();
    expect((await importHc(source.url, ['--api-key', p.api_key, '--project', 'x', '--data-dir', empty])).code).toBe(2);
    expect(existsSync(empty)).toBe(false);
  });

  it('FILE and --from-healthchecks: exactly one; their options go with them', async () => {
    const dir = nowhere();
    const cases: string[][] = [
      ['import'],
      ['import', 'export.json', '--from-healthchecks', source.url, '--api-key', p.api_key, '--name', 'x'],
      ['import', 'export.json', '--api-key', p.api_key],
      ['import', 'export.json', '--name', 'x'],
      ['import', '--from-healthchecks', source.url, '--api-key', p.api_key],
      ['import', '--from-healthchecks', source.url, '--api-key', p.api_key, '--name', 'x', '--project', p.id],
      ['import', '--from-healthchecks', source.url, '--name', 'x'],
      ['import', '--from-healthchecks', source.url, '--api-key', p.api_key, '--name', 'x', '--replace'],
      ['import', '--from-healthchecks', source.url, '--api-key', p.api_key, '--name', 'x', '--ping-key', 'no spaces'],
      ['import', '--from-healthchecks', source.url, '--api-key', p.api_key, '--name', '  '],
    ];
    for (const args of cases) {
      const r = await runCli([...args, '--data-dir', dir]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(/^checkd: /);
    }
    expect(existsSync(dir)).toBe(false);
  });
});
