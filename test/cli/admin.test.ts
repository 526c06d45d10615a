// Admin commands of contract.md, run from the build: --json documents with
// exactly the listed fields, key formats, human output, bad arguments (exit 2,
// nothing written), and their effect on a RUNNING daemon at once.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../daemon/store/store.js';
import { createProjectCli, PORT0, runCli, runCliJson, startChild, type ChildDaemon } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api, UUID_RE } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { listProjects, PING_KEY_RE, RO_KEY_RE, RW_KEY_RE, tree } from './support.js';
import { environmentOf } from '../../daemon/store/environment.js';

let tmp: string;
setupSuite(() => {
  tmp = tempDir('checkd-cli-admin-');
});
let n = 0;
const fresh = () => join(tmp, `data-${++n}`);

const keys = (o: object) => Object.keys(o).sort();

describe('--json documents', () => {
  it('project create: exactly the contract fields, key formats, defaults 20 / 100', async () => {
    const dir = fresh();
    const doc = await createProjectCli(dir, 'Backups');
    expect(keys(doc)).toEqual(['api_key', 'api_key_readonly', 'check_limit', 'id', 'name', 'ping_key', 'ping_log_limit']);
    expect(doc.id).toMatch(UUID_RE);
    expect(doc.name).toBe('Backups');
    expect(doc.api_key).toHaveLength(32);
    expect(doc.api_key).toMatch(RW_KEY_RE);
    expect(doc.api_key_readonly).toHaveLength(32);
    expect(doc.api_key_readonly).toMatch(RO_KEY_RE);
    expect(doc.ping_key).toMatch(PING_KEY_RE);
    expect(doc.check_limit).toBe(20);
    expect(doc.ping_log_limit).toBe(100);

    const custom = await createProjectCli(dir, 'Custom', ['--check-limit', '5', '--ping-log-limit', '1000']);
    expect(custom).toMatchObject({ check_limit: 5, ping_log_limit: 1000 });
    // Random keys: no two alike.
    const all = [doc.api_key, doc.api_key_readonly, custom.api_key, custom.api_key_readonly];
    expect(new Set(all).size).toBe(4);
    expect(custom.ping_key).not.toBe(doc.ping_key);
  });

  it('project list: {"projects":[...]} with exactly the contract fields, in creation order', async () => {
    const dir = fresh();
    expect(await runCliJson(['project', 'list', '--data-dir', dir])).toEqual({ projects: [] });
    const a = await createProjectCli(dir, 'a');
    const b = await createProjectCli(dir, 'b', ['--check-limit', '3']);
    const doc = await runCliJson(['project', 'list', '--data-dir', dir]);
    expect(keys(doc)).toEqual(['projects']);
    expect(doc.projects).toEqual([
      { id: a.id, name: 'a', check_limit: 20, ping_log_limit: 100, n_checks: 0 },
      { id: b.id, name: 'b', check_limit: 3, ping_log_limit: 100, n_checks: 0 },
    ]);
    for (const p of doc.projects) expect(keys(p)).toEqual(['check_limit', 'id', 'n_checks', 'name', 'ping_log_limit']);
  });

  it('project list and channel list read an older data dir as it is: no upgrade, data.mdb unchanged', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir, 'old');
    await runCliJson(['channel', 'create', '--data-dir', dir, '--project', p.id, '--kind', 'email', '--value', 'ops@example.com']);
    // Make it a schema-version-4 data dir, as an older checkd left it (or a backup of one).
    const store = Store.open(dir);
    await environmentOf(store).checkEdits!.drop();
    await environmentOf(store).meta.put('schemaVersion', 4);
    await store.close();
    const before = readFileSync(join(dir, 'data.mdb'));
    expect((await runCliJson(['project', 'list', '--data-dir', dir])).projects).toMatchObject([{ id: p.id, name: 'old', n_checks: 0 }]);
    expect((await runCliJson(['channel', 'list', '--data-dir', dir, '--project', p.id])).channels).toHaveLength(1);
    expect(readFileSync(join(dir, 'data.mdb')).equals(before)).toBe(true);
  });

  it('key create: {"project","api_key","read_only"}, hcw_ / hcr_ formats', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const rw = await runCliJson(['key', 'create', '--project', p.id, '--data-dir', dir]);
    expect(keys(rw)).toEqual(['api_key', 'project', 'read_only']);
    expect(rw).toMatchObject({ project: p.id, read_only: false });
    expect(rw.api_key).toMatch(RW_KEY_RE);
    const ro = await runCliJson(['key', 'create', '--project', p.id, '--read-only', '--data-dir', dir]);
    expect(keys(ro)).toEqual(['api_key', 'project', 'read_only']);
    expect(ro).toMatchObject({ project: p.id, read_only: true });
    expect(ro.api_key).toMatch(RO_KEY_RE);
  });

  it('key revoke: {"revoked":true}', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    expect(await runCliJson(['key', 'revoke', '--project', p.id, p.api_key, '--data-dir', dir])).toEqual({ revoked: true });
  });

  it('channel create: {"id","name","kind"} for every kind', async () => {
    const dir = fresh();
    const p = await createProjectCli(dir);
    const kinds: Array<[string, string]> = [
      ['email', 'ops@example.com'],
      ['webhook', 'https://example.com/hook'],
      ['shell', 'logger "check $NAME is $STATUS"'],
      ['slack', 'https://hooks.slack.com/services/T0/B0/XX'],
      ['discord', 'https://discord.com/api/webhooks/1/abc'],
      ['ntfy', 'https://ntfy.sh/my-topic'],
    ];
    for (const [kind, value] of kinds) {
      const doc = await runCliJson(['channel', 'create', '--project', p.id, '--kind', kind, '--name', `to ${kind}`, '--value', value, '--data-dir', dir]);
      expect(keys(doc), kind).toEqual(['id', 'kind', 'name']);
      expect(doc).toMatchObject({ name: `to ${kind}`, kind });
      expect(doc.id).toMatch(UUID_RE);
    }
    const unnamed = await runCliJson(['channel', 'create', '--project', p.id, '--kind', 'email', '--value', 'a@b.example', '--data-dir', dir]);
    expect(unnamed).toEqual({ id: unnamed.id, name: '', kind: 'email' });
  });

  it('CHECKD_DATA_DIR is the data dir of the admin commands; --data-dir wins over it', async () => {
    const envDir = fresh();
    const flagDir = fresh();
    const created = await runCli(['project', 'create', '--name', 'via env', '--json'], { env: { CHECKD_DATA_DIR: envDir } });
    expect(created.code, created.stderr).toBe(0);
    expect((await listProjects(envDir)).map((p) => p.name)).toEqual(['via env']);
    await runCliJson(['project', 'create', '--name', 'via flag', '--data-dir', flagDir], { env: { CHECKD_DATA_DIR: envDir } });
    expect((await listProjects(flagDir)).map((p) => p.name)).toEqual(['via flag']);
    expect((await listProjects(envDir)).map((p) => p.name)).toEqual(['via env']);
  });
});

describe('human output (no --json)', () => {
  it('is readable text that carries the same facts', async () => {
    const dir = fresh();
    const created = await runCli(['project', 'create', '--name', 'Human', '--data-dir', dir]);
    expect(created.code).toBe(0);
    expect(() => JSON.parse(created.stdout)).toThrow();
    expect(created.stdout).toMatch(/project [0-9a-f-]{36} "Human" created/);
    const rw = /read-write\): (\S+)/.exec(created.stdout)![1]!;
    const ro = /read-only\):\s+(\S+)/.exec(created.stdout)![1]!;
    expect(rw).toMatch(RW_KEY_RE);
    expect(ro).toMatch(RO_KEY_RE);
    expect(created.stdout).toMatch(/ping key:\s+[a-z0-9]{22}\n/);
    expect(created.stdout).toContain('check limit 20, ping log limit 100');
    const id = /project (\S+) /.exec(created.stdout)![1]!;

    const list = await runCli(['project', 'list', '--data-dir', dir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('Human');
    expect(list.stdout).toMatch(/0\/20/);

    const key = await runCli(['key', 'create', '--project', id, '--read-only', '--data-dir', dir]);
    expect(key.stdout).toMatch(new RegExp(`^read-only key for ${id}: hcr_[A-Za-z0-9_-]{28}\\n$`));
    const channel = await runCli(['channel', 'create', '--project', id, '--kind', 'webhook', '--name', 'hook', '--value', 'https://example.com/h', '--data-dir', dir]);
    expect(channel.stdout).toMatch(/^channel [0-9a-f-]{36} \(webhook, "hook"\) created\n$/);
    const revoke = await runCli(['key', 'revoke', '--project', id, rw, '--data-dir', dir]);
    expect(revoke.stdout).toBe('key revoked\n');

    const empty = await runCli(['project', 'list', '--data-dir', fresh()]);
    expect(empty.stdout).toMatch(/no projects/);
  });
});

describe('bad arguments: exit 2, a message on stderr, nothing written', () => {
  let dir: string;
  let p: any;
  let snapshot: string[];
  let listed: any[];

  setupSuite(async () => {
    dir = fresh();
    p = await createProjectCli(dir, 'existing');
    listed = await listProjects(dir);
  });

  const unknownId = '00000000-0000-4000-8000-000000000000';
  const longId = 'a'.repeat(5000);
  const cases: Array<[string, () => string[], RegExp]> = [
    ['project create without --name', () => ['project', 'create'], /required option '--name/],
    ['project create with an empty name', () => ['project', 'create', '--name', '  '], /--name must not be empty/],
    ['project create with a non-numeric --check-limit', () => ['project', 'create', '--name', 'x', '--check-limit', 'ten'], /--check-limit.*"ten"/],
    ['project create with a negative --check-limit', () => ['project', 'create', '--name', 'x', '--check-limit=-1'], /--check-limit/],
    ['project create with a fractional --ping-log-limit', () => ['project', 'create', '--name', 'x', '--ping-log-limit', '2.5'], /--ping-log-limit/],
    ['project create with --ping-log-limit 0', () => ['project', 'create', '--name', 'x', '--ping-log-limit', '0'], /--ping-log-limit/],
    ['project create with an unknown flag', () => ['project', 'create', '--name', 'x', '--colour', 'red'], /unknown option '--colour'/],
    ['key create without --project', () => ['key', 'create'], /required option '--project/],
    ['key create for an unknown project id', () => ['key', 'create', '--project', unknownId], /no project with id/],
    ['key revoke without the key', () => ['key', 'revoke', '--project', p.id], /missing required argument 'key'/],
    ['key revoke of a key of another length', () => ['key', 'revoke', '--project', p.id, 'hcw_short'], /32 characters/],
    ['key revoke of a key that is not one', () => ['key', 'revoke', '--project', p.id, 'hcw_' + 'x'.repeat(28)], /not a key of project/],
    ['key revoke in an unknown project', () => ['key', 'revoke', '--project', unknownId, p.api_key], /no project with id/],
    ['channel create for an unknown project id', () => ['channel', 'create', '--project', unknownId, '--kind', 'email', '--value', 'a@b.example'], /no project with id/],
    ['channel create without --kind', () => ['channel', 'create', '--project', p.id, '--value', 'a@b.example'], /required option '--kind/],
    ['channel create of an unknown kind', () => ['channel', 'create', '--project', p.id, '--kind', 'pager', '--value', 'x'], /unknown channel kind "pager"/],
    ['channel create with an invalid email', () => ['channel', 'create', '--project', p.id, '--kind', 'email', '--value', 'not-an-address'], /email address/],
    ['channel create with no value', () => ['channel', 'create', '--project', p.id, '--kind', 'webhook'], /http\(s\) URL/],
    ['channel create with a non-http webhook', () => ['channel', 'create', '--project', p.id, '--kind', 'webhook', '--value', 'ftp://x.example'], /http\(s\) URL/],
    ['channel create with a URL without host', () => ['channel', 'create', '--project', p.id, '--kind', 'ntfy', '--value', 'https://'], /http\(s\) URL/],
    ['channel create with an empty shell command', () => ['channel', 'create', '--project', p.id, '--kind', 'shell', '--value', '  '], /command/],
    ['channel create with a comma in the name', () => ['channel', 'create', '--project', p.id, '--kind', 'email', '--name', 'a,b', '--value', 'a@b.example'], /comma/],
    // Ids longer than an LMDB key (1978 bytes) are looked up like any unknown one.
    ['key create for an over-long project id', () => ['key', 'create', '--project', longId], /no project with id/],
    ['channel create for an over-long project id', () => ['channel', 'create', '--project', longId, '--kind', 'email', '--value', 'a@b.example'], /no project with id/],
    ['project update of an over-long id', () => ['project', 'update', longId, '--name', 'x'], /no project with id/],
    ['project delete of an over-long id', () => ['project', 'delete', longId, '--yes'], /no project with id/],
    ['channel update of an over-long id', () => ['channel', 'update', longId, '--name', 'x'], /no channel with id/],
    ['channel delete of an over-long id', () => ['channel', 'delete', longId], /no channel with id/],
    ['key list for an over-long project id', () => ['key', 'list', '--project', longId], /no project with id/],
  ];

  for (const [name, args, message] of cases) {
    it(name, async () => {
      snapshot = tree(dir);
      for (const json of [false, true]) {
        const r = await runCli([...args(), '--data-dir', dir, ...(json ? ['--json'] : [])]);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stdout).toBe('');
      }
      expect(tree(dir)).toEqual(snapshot);
      expect(await listProjects(dir)).toEqual(listed);
    });
  }

  it('after all of them, the project, its keys and its (absent) channels are as they were', async () => {
    expect(await listProjects(dir)).toEqual(listed);
    const d = await startChild(['--data-dir', dir, ...PORT0]);
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'probe' } })).status).toBe(201);
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key_readonly })).status).toBe(200);
    expect((await api(d.url, '/api/v3/channels/', { key: p.api_key })).json.channels).toEqual([]);
    expect((await d.stop()).code).toBe(0);
  });

  it('commands about a project create no data dir where there is none', async () => {
    const parent = join(tmp, `parent-${++n}`);
    mkdirSync(parent);
    const missing = join(parent, 'data');
    for (const args of [
      ['key', 'create', '--project', unknownId],
      ['key', 'revoke', '--project', unknownId, 'hcw_' + 'x'.repeat(28)],
      ['channel', 'create', '--project', unknownId, '--kind', 'email', '--value', 'a@b.example'],
    ]) {
      const r = await runCli([...args, '--data-dir', missing, '--json']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/no project with id/);
    }
    // Listing is a read: it shows no projects and writes nothing either.
    expect(await runCliJson(['project', 'list', '--data-dir', missing])).toEqual({ projects: [] });
    expect(tree(parent)).toEqual([]);
  });

  it('an admin command on a data.mdb that is not LMDB fails cleanly', async () => {
    const bad = fresh();
    mkdirSync(bad);
    writeFileSync(join(bad, 'data.mdb'), 'garbage'.repeat(2000));
    const r = await runCli(['project', 'list', '--data-dir', bad, '--json']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not an LMDB data file/);
    expect(r.stdout).toBe('');
  });
});

describe('against a RUNNING daemon: effects are visible at once, without restart', () => {
  let dir: string;
  let d: ChildDaemon;
  let p: any;

  setupSuite(async () => {
    dir = fresh();
    p = await createProjectCli(dir, 'live');
    d = await startChild(['--data-dir', dir, ...PORT0, '--api-rate-limit', '0']);
  });

  // Runs before setupSuite's cleanup (after hooks run newest first), which finds the daemon gone.
  afterAll(async () => {
    if (d) expect((await d.stop()).code).toBe(0);
  });

  it('project create: the new keys and ping key work immediately', async () => {
    const q = await createProjectCli(dir, 'made while running');
    const created = await api(d.url, '/api/v3/checks/', { key: q.api_key, body: { name: 'fresh', slug: 'fresh' } });
    expect(created.status).toBe(201);
    expect((await api(d.url, '/api/v3/checks/', { key: q.api_key_readonly })).json.checks).toHaveLength(1);
    expect((await api(d.url, `/ping/${q.ping_key}/fresh`)).status).toBe(200);
    expect((await listProjects(dir)).find((x) => x.id === q.id)?.n_checks).toBe(1);
  });

  it('key create --read-only: works on GET, 401 on POST', async () => {
    const ro = await runCliJson(['key', 'create', '--project', p.id, '--read-only', '--data-dir', dir]);
    expect((await api(d.url, '/api/v3/checks/', { key: ro.api_key })).status).toBe(200);
    // As in the reference, listing channels takes a read-write key.
    expect((await api(d.url, '/api/v3/channels/', { key: ro.api_key })).status).toBe(401);
    const post = await api(d.url, '/api/v3/checks/', { key: ro.api_key, body: { name: 'not allowed' } });
    expect(post.status).toBe(401);
    // And the project's own read-only key the same.
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key_readonly, body: { name: 'not allowed' } })).status).toBe(401);
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key })).json.checks.map((c: { name: string }) => c.name)).not.toContain('not allowed');
  });

  it('key create (read-write): works on POST at once', async () => {
    const rw = await runCliJson(['key', 'create', '--project', p.id, '--data-dir', dir]);
    expect((await api(d.url, '/api/v3/checks/', { key: rw.api_key, body: { name: 'by new key' } })).status).toBe(201);
  });

  it('key revoke: the key gets 401 at once, repeatedly, on keep-alive connections too', async () => {
    const k = await runCliJson(['key', 'create', '--project', p.id, '--data-dir', dir]);
    // Warm up: the daemon has served this key (and any read snapshot it holds).
    for (let i = 0; i < 5; i++) expect((await api(d.url, '/api/v3/checks/', { key: k.api_key })).status).toBe(200);
    expect(await runCliJson(['key', 'revoke', '--project', p.id, k.api_key, '--data-dir', dir])).toEqual({ revoked: true });
    for (let i = 0; i < 5; i++) {
      expect((await api(d.url, '/api/v3/checks/', { key: k.api_key })).status).toBe(401);
      expect((await api(d.url, '/api/v3/checks/', { key: k.api_key, body: { name: 'x' } })).status).toBe(401);
    }
  });

  it('revoking a read-only key of the project', async () => {
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key_readonly })).status).toBe(200);
    await runCliJson(['key', 'revoke', '--project', p.id, p.api_key_readonly, '--data-dir', dir]);
    expect((await api(d.url, '/api/v3/checks/', { key: p.api_key_readonly })).status).toBe(401);
  });

  it('channel create: listed by the API at once and usable in a check', async () => {
    const ch = await runCliJson(['channel', 'create', '--project', p.id, '--kind', 'ntfy', '--name', 'phone', '--value', 'https://ntfy.sh/t', '--data-dir', dir]);
    const channels = (await api(d.url, '/api/v3/channels/', { key: p.api_key })).json.channels;
    expect(channels).toContainEqual({ id: ch.id, name: 'phone', kind: 'ntfy' });
    const c = await api(d.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'notified', channels: 'phone' } });
    expect(c.status).toBe(201);
    expect(c.json.channels).toBe(ch.id);
  });

  it('project list counts the checks made through the running daemon', async () => {
    const n = (await api(d.url, '/api/v3/checks/', { key: p.api_key })).json.checks.length;
    expect((await listProjects(dir)).find((x) => x.id === p.id)?.n_checks).toBe(n);
  });

  it('the daemon kept running through all of it', async () => {
    expect(d.proc.exitCode).toBeNull();
    expect((await api(d.url, '/api/v3/status/')).text).toBe('OK');
  });
});
