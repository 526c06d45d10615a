// project update/delete, key list, channel update/delete and --init, with the
// built CLI, and a running daemon that sees each change at once.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProjectCli, PORT0, runCli, runCliJson, startChild, type ChildDaemon } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';

let tmp: string;
setupSuite(() => {
  tmp = tempDir();
});
let n = 0;
const freshDir = () => join(tmp, `d${++n}`);

describe('with a running daemon', () => {
  let dir: string;
  let daemon: ChildDaemon;
  setupSuite(async () => {
    dir = freshDir();
    daemon = await startChild(['--data-dir', dir, ...PORT0]);
  });

  it('project update changes limits and name; the API sees the new limit at once', async () => {
    const p = await createProjectCli(dir, 'before', ['--check-limit', '1']);
    await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'one' } });
    expect((await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'two' } })).status).toBe(403);
    const updated = await runCliJson(['project', 'update', p.id, '--name', 'after', '--check-limit', '5', '--ping-log-limit', '50', '--data-dir', dir]);
    expect(updated).toEqual({ id: p.id, name: 'after', check_limit: 5, ping_log_limit: 50, n_checks: 1 });
    expect((await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'two' } })).status).toBe(201);
    const listed = (await runCliJson(['project', 'list', '--data-dir', dir])).projects.find((x: any) => x.id === p.id);
    expect(listed).toEqual({ ...updated, n_checks: 2 });
  });

  it('project update below the checks in use warns and keeps them', async () => {
    const p = await createProjectCli(dir, 'p');
    await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'a' } });
    await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'b' } });
    const r = await runCli(['project', 'update', p.id, '--check-limit', '1', '--data-dir', dir, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('has 2 checks, more than its new limit');
    expect((await api(daemon.url, '/api/v3/checks/', { key: p.api_key })).json.checks).toHaveLength(2);
  });

  it('project delete needs --yes; then its keys stop working and its checks are gone', async () => {
    const p = await createProjectCli(dir, 'doomed');
    const check = (await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'x' } })).json;
    const refused = await runCli(['project', 'delete', p.id, '--data-dir', dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('add --yes');
    expect(await runCliJson(['project', 'delete', p.id, '--yes', '--data-dir', dir])).toEqual({ deleted: true });
    expect((await api(daemon.url, '/api/v3/checks/', { key: p.api_key })).status).toBe(401);
    expect((await fetch(`${daemon.url}/ping/${check.uuid}`)).status).toBe(404);
    const projects = (await runCliJson(['project', 'list', '--data-dir', dir])).projects;
    expect(projects.some((x: any) => x.id === p.id)).toBe(false);
    expect((await runCli(['project', 'delete', p.id, '--yes', '--data-dir', dir])).code).toBe(2);
  });

  it('key list shows each key by its first 8 characters, never whole', async () => {
    const p = await createProjectCli(dir, 'keys');
    const extra = await runCliJson(['key', 'create', '--project', p.id, '--read-only', '--data-dir', dir]);
    const r = await runCli(['key', 'list', '--project', p.id, '--data-dir', dir, '--json']);
    expect(r.code).toBe(0);
    const { keys } = JSON.parse(r.stdout);
    expect(keys).toEqual([
      { prefix: p.api_key.slice(0, 8), read_only: false, created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/) },
      { prefix: p.api_key_readonly.slice(0, 8), read_only: true, created: expect.any(String) },
      { prefix: extra.api_key.slice(0, 8), read_only: true, created: expect.any(String) },
    ]);
    for (const k of [p.api_key, p.api_key_readonly, extra.api_key]) expect(r.stdout).not.toContain(k.slice(8));
    const human = await runCli(['key', 'list', '--project', p.id, '--data-dir', dir]);
    expect(human.stdout).toContain(p.api_key.slice(0, 8));
    expect(human.stdout).toContain(`data dir ${dir}`);
  });

  it('channel update checks the value as create does; channel delete takes it off every check', async () => {
    const p = await createProjectCli(dir, 'chan');
    const ch = await runCliJson(['channel', 'create', '--project', p.id, '--kind', 'webhook', '--name', 'hook', '--value', 'http://127.0.0.1:9/x', '--data-dir', dir]);
    const bad = await runCli(['channel', 'update', ch.id, '--value', 'not a url', '--data-dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be an http(s) URL');
    expect(await runCliJson(['channel', 'update', ch.id, '--name', 'renamed', '--data-dir', dir])).toEqual({ id: ch.id, name: 'renamed', kind: 'webhook' });
    const channels = (await api(daemon.url, '/api/v3/channels/', { key: p.api_key })).json.channels;
    expect(channels).toEqual([{ id: ch.id, name: 'renamed', kind: 'webhook' }]);

    const check = (await api(daemon.url, '/api/v3/checks/', { key: p.api_key, body: { name: 'c', channels: '*' } })).json;
    expect(check.channels).toBe(ch.id);
    expect(await runCliJson(['channel', 'delete', ch.id, '--data-dir', dir])).toEqual({ deleted: true });
    expect((await api(daemon.url, `/api/v3/checks/${check.uuid}`, { key: p.api_key })).json.channels).toBe('');
    expect((await api(daemon.url, '/api/v3/channels/', { key: p.api_key })).json.channels).toEqual([]);
    const again = await runCli(['channel', 'delete', ch.id, '--data-dir', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no channel with id "${ch.id}"`);
  });

  it('nothing to change is a usage error', async () => {
    const p = await createProjectCli(dir, 'idle');
    expect((await runCli(['project', 'update', p.id, '--data-dir', dir])).stderr).toContain('nothing to change');
    expect((await runCli(['project', 'update', p.id, '--check-limit', '-1', '--data-dir', dir])).code).toBe(2);
  });
});

describe('a data dir with no checkd data', () => {
  it('commands about what exists refuse with the contract message and create nothing', async () => {
    const parent = freshDir();
    mkdirSync(parent);
    const missing = join(parent, 'data');
    for (const args of [
      ['key', 'list', '--project', 'x'],
      ['project', 'update', 'x', '--name', 'y'],
      ['project', 'delete', 'x', '--yes'],
      ['channel', 'update', 'x', '--name', 'y'],
      ['channel', 'delete', 'x'],
      ['key', 'create', '--project', 'x'],
    ]) {
      const r = await runCli([...args, '--data-dir', missing]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(`no checkd data in ${missing}; start \`checkd serve\` there first or pass --init`);
      expect(existsSync(missing)).toBe(false);
    }
  });

  it('--init creates it and says so; project create does so by itself', async () => {
    const a = freshDir();
    const r = await runCli(['project', 'list', '--init', '--data-dir', a, '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`checkd: no checkd data in ${a}: created it`);
    expect(existsSync(join(a, 'data.mdb'))).toBe(true);
    const b = freshDir();
    const created = await runCli(['project', 'create', '--name', 'p', '--data-dir', b, '--json']);
    expect(created.code).toBe(0);
    expect(created.stderr).toContain(`checkd: no checkd data in ${b}: created it`);
    const again = await runCli(['project', 'create', '--name', 'q', '--data-dir', b, '--json']);
    expect(again.stderr).toBe('');
  });
});
