// The built CLI: `checkd channel create` refuses bad values (exit 2, nothing
// stored), `checkd channel test` sends through the real transports (exit 0, or
// 1 with the error), `checkd channel list` shows the last delivery, the serve
// flags are validated, and gRPC ListChannels serves the same listing.
// Needs `npm run build` first.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCheckdProto } from '../../proto/checkd.js';
import { createProjectCli, runCli, startChild } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { goDown, startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from './support.js';

let dir: string;
let rx: HttpReceiver;
let smtp: SmtpReceiver;
let project: { id: string; api_key: string; api_key_readonly: string };

async function create(kind: string, value: string | null, name?: string) {
  const args = ['channel', 'create', '--project', project.id, '--kind', kind, '--data-dir', dir, '--json'];
  if (value !== null) args.push('--value', value);
  if (name) args.push('--name', name);
  return runCli(args);
}

async function createOk(kind: string, value: string, name?: string): Promise<string> {
  const r = await create(kind, value, name);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id;
}

async function list(): Promise<Array<Record<string, unknown>>> {
  const r = await runCli(['channel', 'list', '--project', project.id, '--data-dir', dir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).channels;
}

setupSuite(async () => {
  dir = tempDir('checkd-notify-cli-');
  rx = await startHttpReceiver();
  smtp = await startSmtpReceiver();
  project = await createProjectCli(dir, 'cli');
});

describe('checkd channel create', () => {
  it('refuses a bad value of every kind: exit 2, a reason, nothing stored', async () => {
    const bad: Array<[string, string | null, RegExp]> = [
      ['webhook', '{"url_down":"https://x.example","method_down":"PATCH"}', /GET, POST or PUT/],
      ['webhook', '{"url_down":"not a url"}', /http\(s\) URL/],
      ['webhook', '{"url_down":', /not valid JSON/],
      ['webhook', null, /http\(s\) URL/],
      ['email', '{"value":"x@y.example","up":false,"down":false}', /at least one/],
      ['email', 'nobody', /email address/],
      ['shell', '{"cmd_down":""}', /at least one/],
      ['shell', '  ', /command/],
      ['slack', 'hooks.slack.com/services/x', /http\(s\) URL/],
      ['discord', 'ftp://discord.example/x', /http\(s\) URL/],
      ['ntfy', 'https://ntfy.sh', /topic/],
      ['ntfy', '{"topic":"t","priority":7}', /0 to 5/],
    ];
    const results = await Promise.all(bad.map(([kind, value]) => create(kind, value)));
    for (const [i, [kind, value, re]] of bad.entries()) {
      const r = results[i]!;
      expect(r.code, `${kind} ${value}: ${JSON.stringify(r)}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr, `${kind} ${value}`).toMatch(re);
    }
    expect(await list()).toEqual([]);
  });
});

describe('checkd channel test', () => {
  it('webhook: sends a test "down" through the real path and records the result', async () => {
    const id = await createOk(
      'webhook',
      JSON.stringify({ url_down: `${rx.url}/cli-test/$STATUS?n=$NAME`, method_down: 'POST', body_down: '{"code":"$CODE"}' }),
      'cli hook',
    );
    const r = await runCli(['channel', 'test', id, '--data-dir', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^test notification \(down\) sent through webhook channel [0-9a-f-]{36} in \d+ ms\n$/);
    expect(rx.on('/cli-test/')).toHaveLength(1);
    expect(rx.on('/cli-test/')[0]!.url).toBe('/cli-test/down?n=TEST');
    expect(JSON.parse(rx.on('/cli-test/')[0]!.body)).toEqual({ code: '00000000-0000-4000-8000-000000000000' });
    const row = (await list()).find((c) => c.id === id)!;
    expect(row).toMatchObject({ name: 'cli hook', kind: 'webhook', last_status: 'ok', last_error: '', pending: 0 });
    expect(row.last_attempt).toMatch(/\+00:00$/);
    expect(row.last_success).toBe(row.last_attempt);
  });

  it('--block-private-addresses (or CHECKD_BLOCK_PRIVATE_ADDRESSES): loopback is refused, by IP and by name', async () => {
    const before = rx.requests.length;
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const url = rx.url.replace('127.0.0.1', host) + '/private';
      const id = await createOk('webhook', url, `private ${host}`);
      const flag = await runCli(['channel', 'test', id, '--data-dir', dir, '--block-private-addresses', '--json']);
      expect(flag.code, host).toBe(1);
      expect(JSON.parse(flag.stdout), host).toMatchObject({ ok: false, error: 'Connections to private IP addresses are not allowed' });
      const env = await runCli(['channel', 'test', id, '--data-dir', dir, '--json'], { env: { CHECKD_BLOCK_PRIVATE_ADDRESSES: 'true' } });
      expect(env.code, host).toBe(1);
      expect((await list()).find((c) => c.id === id)).toMatchObject({ last_status: 'failed', last_error: 'Connections to private IP addresses are not allowed' });
    }
    expect(rx.requests.length).toBe(before);
    // Off by default: the same loopback URL is delivered.
    const id = await createOk('webhook', `${rx.url}/private-allowed`, 'private allowed');
    expect((await runCli(['channel', 'test', id, '--data-dir', dir])).code).toBe(0);
    expect(rx.on('/private-allowed')).toHaveLength(1);
  });

  it('a failure: exit 1 with the error, shown by channel list (human and JSON)', async () => {
    rx.respondWith((req) => (req.url.startsWith('/broken') ? { status: 500 } : undefined));
    const id = await createOk('webhook', `${rx.url}/broken`, 'broken hook');
    const r = await runCli(['channel', 'test', id, '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`checkd: test notification through webhook channel ${id} failed: Received status code 500\n`);
    const j = await runCli(['channel', 'test', id, '--data-dir', dir, '--json']);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ id, kind: 'webhook', ok: false, error: 'Received status code 500' });
    expect((await list()).find((c) => c.id === id)).toMatchObject({ last_status: 'failed', last_error: 'Received status code 500' });
    const human = await runCli(['channel', 'list', '--project', project.id, '--data-dir', dir]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ID +KIND +STATUS +PENDING +LAST ATTEMPT +NAME \/ LAST ERROR$/m);
    expect(human.stdout).toContain(`${id}  webhook  failed          0  `);
    expect(human.stdout).toMatch(/^ +error: Received status code 500$/m);
  });

  it('a connection refused is an error too; an unknown channel is a usage error', async () => {
    const closed = await startHttpReceiver();
    await closed.close(); // a port that refuses connections
    const id = await createOk('slack', `http://127.0.0.1:${closed.port}/services/x`);
    const r = await runCli(['channel', 'test', id, '--data-dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/failed: Connection failed\n$/);
    const unknown = await runCli(['channel', 'test', '00000000-0000-4000-8000-000000000001', '--data-dir', dir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no channel with id/);
  });

  it('email: uses CHECKD_SMTP_URL / CHECKD_SMTP_FROM; without them it says SMTP is not configured', async () => {
    const id = await createOk('email', 'cli@example.com');
    const none = await runCli(['channel', 'test', id, '--data-dir', dir]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/SMTP is not configured/);
    const r = await runCli(['channel', 'test', id, '--data-dir', dir], {
      env: { CHECKD_SMTP_URL: `smtp://alice:s3cret-pw@127.0.0.1:${smtp.port}`, CHECKD_SMTP_FROM: 'alerts@example.org' },
    });
    expect(r.code, r.stderr).toBe(0);
    await smtp.waitFor(1);
    expect(smtp.mails[0]).toMatchObject({ subject: 'DOWN | TEST', to: ['cli@example.com'], from: 'alerts@example.org' });
    expect(smtp.mails[0]!.text).toContain('This is a test notification');
    // --smtp-url wins over the environment; a bad one is a usage error that does not echo the password.
    const bad = await runCli(['channel', 'test', id, '--data-dir', dir, '--smtp-url', 'http://u:hunter2@x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--smtp-url: must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(bad.stderr).not.toContain('hunter2');
  });

  it('shell: refused unless allowed (CHECKD_ALLOW_SHELL=1 or --allow-shell)', async () => {
    const marker = join(dir, 'shell-test-ran');
    const id = await createOk('shell', `echo "$CHECKD_STATUS $CHECKD_NAME $CHECKD_TEST" > ${marker}`);
    const refused = await runCli(['channel', 'test', id, '--data-dir', dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/failed: Shell commands are not enabled\n$/);
    expect(existsSync(marker)).toBe(false);
    const ok = await runCli(['channel', 'test', id, '--data-dir', dir], { env: { CHECKD_ALLOW_SHELL: '1' } });
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('down TEST 1\n');
    const flag = await runCli(['channel', 'test', id, '--data-dir', dir, '--allow-shell']);
    expect(flag.code, flag.stderr).toBe(0);
  });
});

describe('checkd serve notification flags', () => {
  it('are listed in serve --help with their env vars', async () => {
    const r = await runCli(['serve', '--help']);
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const s of ['--smtp-url', 'CHECKD_SMTP_URL', '--smtp-from', 'CHECKD_SMTP_FROM', '--allow-shell', 'CHECKD_ALLOW_SHELL']) {
      expect(text).toContain(s);
    }
  });

  it('a bad SMTP URL or From is a usage error (exit 2) that never repeats the password', async () => {
    const d = tempDir();
    const r = await runCli(['serve', '--data-dir', d, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0'], {
      env: { CHECKD_SMTP_URL: 'imap://bob:pa55word@mail.example' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CHECKD_SMTP_URL \(environment\): must be an smtp:\/\/ or smtps:\/\/ URL/);
    expect(r.stderr).not.toContain('pa55word');
    const from = await runCli(['serve', '--data-dir', d, '--listen', '127.0.0.1:0', '--smtp-url', 'smtp://h.example:25', '--smtp-from', 'not an address']);
    expect(from.code).toBe(2);
    expect(from.stderr).toMatch(/--smtp-from: expected an address/);
    expect(existsSync(join(d, 'data.mdb'))).toBe(false);
  });
});

describe('a running daemon', () => {
  it('delivers, and channel list and gRPC ListChannels show the result', async () => {
    const child = await startChild(['--data-dir', dir, '--listen', '127.0.0.1:0', '--grpc-listen', '127.0.0.1:0']);
    const hook = await createOk('webhook', `${rx.url}/live/$CODE/$STATUS`, 'live');
    const made = await api(child.url, '/api/v3/checks/', { key: project.api_key, body: { name: 'live check', channels: hook } });
    expect(made.status).toBe(201);
    await goDown(child.url, made.json.uuid);
    await rx.waitFor(() => rx.on(`/live/${made.json.uuid}/down`).length === 1);
    let rows: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 50; i++) {
      rows = await list();
      if (rows.find((c) => c.id === hook)?.last_status === 'ok') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows.find((c) => c.id === hook)).toMatchObject({ last_status: 'ok', pending: 0 });

    const { client: Client } = loadCheckdProto();
    const client = new Client(child.grpc, grpc.credentials.createInsecure()) as unknown as grpc.Client & Record<string, (...args: any[]) => unknown>;
    onTestFinished(() => client.close());
    const call = (key: string) =>
      new Promise<{ channels: Array<Record<string, unknown>> }>((resolve, reject) => {
        const md = new grpc.Metadata();
        md.set('x-api-key', key);
        client.ListChannels!({}, md, (err: Error | null, res: { channels: Array<Record<string, unknown>> }) => (err ? reject(err) : resolve(res)));
      });
    const res = await call(project.api_key);
    const live = res.channels.find((c) => c.id === hook)!;
    expect(live).toMatchObject({ name: 'live', kind: 'webhook', last_status: 'ok', last_error: '', pending: 0 });
    expect(live.last_attempt_ms).toBeGreaterThan(0);
    expect(Object.keys(live)).not.toContain('value');
    const broken = res.channels.find((c) => c.name === 'broken hook')!;
    expect(broken).toMatchObject({ last_status: 'failed', last_error: 'Received status code 500' });
    expect(res.channels.map((c) => c.id)).toEqual((await list()).map((c) => c.id));
    const denied = await call(project.api_key_readonly).catch((e: grpc.ServiceError) => e);
    expect((denied as grpc.ServiceError).code).toBe(grpc.status.PERMISSION_DENIED);
  });
});
