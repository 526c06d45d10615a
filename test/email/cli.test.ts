// E-mail pings with the built CLI: the serve settings (flags, env vars,
// validation, the ready line, a taken port), and end to end: a cron-style
// message from MAILTO with a failure keyword turns a check down, and a local
// webhook receiver gets the down notification.
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createProjectCli, PORT0, runCli, startChild } from '../helpers/child.js';
import { setupSuite } from '../helpers/cleanup.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/temp.js';
import { tree } from '../cli/support.js';
import { startHttpReceiver, type HttpReceiver } from '../notify/support.js';
import { cronMessage, refusalOf, sendRaw } from './support.js';

let data = '';
setupSuite(() => {
  data = tempDir('checkd-email-cli-');
});
let n = 0;
const fresh = () => join(data, `d${n++}`);

describe('settings', () => {
  it('off by default: the ready line has no smtp= part', async () => {
    const daemon = await startChild(['--data-dir', fresh(), ...PORT0]);
    expect(daemon.stdoutLines).toEqual([expect.stringMatching(/^checkd ready http=\S+ grpc=\S+$/)]);
    expect(daemon.smtp).toBeUndefined();
  });

  it('--smtp-listen: the ready line ends in smtp=HOST:PORT with the port bound, which speaks SMTP', async () => {
    const daemon = await startChild(['--data-dir', fresh(), ...PORT0, '--smtp-listen', '127.0.0.1:0']);
    expect(daemon.stdoutLines).toEqual([expect.stringMatching(/^checkd ready http=127\.0\.0\.1:\d+ grpc=127\.0\.0\.1:\d+ smtp=127\.0\.0\.1:\d+$/)]);
    expect(daemon.smtp).not.toBe('127.0.0.1:0');
    // The domain is the base URL's host by default (http://localhost:8000): other domains are refused.
    const refused = await refusalOf(sendRaw(daemon.smtp!, 'a@b', ['00000000-0000-4000-8000-000000000001@example.org'], cronMessage({ to: 'x', body: 'x' })));
    expect(refused.response).toBe('550 5.1.1 Recipient rejected');
    const accepted = await sendRaw(daemon.smtp!, 'a@b', ['00000000-0000-4000-8000-000000000001@localhost'], cronMessage({ to: 'x', body: 'x' }));
    expect(accepted.response).toBe('250 OK');
  });

  it('CHECKD_SMTP_LISTEN and CHECKD_PING_EMAIL_DOMAIN; the flags win over them', async () => {
    let daemon = await startChild(['--data-dir', fresh(), ...PORT0], { env: { CHECKD_SMTP_LISTEN: '127.0.0.1:0', CHECKD_PING_EMAIL_DOMAIN: 'Env.Example' } });
    expect(daemon.smtp).toMatch(/^127\.0\.0\.1:\d+$/);
    const to = '00000000-0000-4000-8000-000000000001@env.example';
    expect((await sendRaw(daemon.smtp!, 'a@b', [to], cronMessage({ to, body: 'x' }))).response).toBe('250 OK');
    await daemon.stop();
    daemon = await startChild(['--data-dir', fresh(), ...PORT0, '--smtp-listen', '127.0.0.1:0', '--ping-email-domain', 'flag.example'], {
      env: { CHECKD_SMTP_LISTEN: 'bad', CHECKD_PING_EMAIL_DOMAIN: 'env.example' },
    });
    const refused = await refusalOf(sendRaw(daemon.smtp!, 'a@b', [to], cronMessage({ to, body: 'x' })));
    expect(refused.response).toBe('550 5.1.1 Recipient rejected');
  });

  const bad: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['smtp-listen without a port', ['--smtp-listen', 'localhost'], {}, /--smtp-listen: expected HOST:PORT/],
    ['smtp-listen port 70000', ['--smtp-listen', '127.0.0.1:70000'], {}, /--smtp-listen/],
    ['smtp-listen on a host name that does not resolve', ['--smtp-listen', 'no-such-host.invalid:2525'], {}, /--smtp-listen: cannot resolve/],
    ['CHECKD_SMTP_LISTEN bad', [], { CHECKD_SMTP_LISTEN: '127.0.0.1' }, /CHECKD_SMTP_LISTEN \(environment\)/],
    ['ping-email-domain with a space', ['--ping-email-domain', 'my domain'], {}, /--ping-email-domain: expected a domain/],
    ['ping-email-domain with an @', ['--ping-email-domain', 'a@b.example'], {}, /--ping-email-domain/],
    ['CHECKD_PING_EMAIL_DOMAIN bad', [], { CHECKD_PING_EMAIL_DOMAIN: '-x-.example' }, /CHECKD_PING_EMAIL_DOMAIN \(environment\)/],
    ['smtp-message-limit below 1000', ['--smtp-message-limit', '999'], {}, /--smtp-message-limit: expected a whole number of bytes >= 1000/],
    ['smtp-message-limit not a number', ['--smtp-message-limit', '5MB'], {}, /--smtp-message-limit/],
  ];
  for (const [name, flags, env, message] of bad) {
    it(`refused: ${name} (exit 2, nothing written)`, async () => {
      const parent = fresh();
      mkdirSync(parent);
      const r = await runCli(['serve', '--data-dir', join(parent, 'data'), ...PORT0, ...flags], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
      expect(tree(parent)).toEqual([]);
    });
  }

  it('an SMTP port in use: exit 1, said so, nothing written', async () => {
    const blocker: Server = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    onTestFinished(() => new Promise<void>((r) => blocker.close(() => r())));
    const port = (blocker.address() as { port: number }).port;
    const dir = fresh();
    const r = await runCli(['serve', '--data-dir', dir, ...PORT0, '--smtp-listen', `127.0.0.1:${port}`]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`checkd: cannot listen for SMTP on 127.0.0.1:${port}: address already in use`);
    expect(r.stdout).not.toMatch(/checkd ready/);
    expect(existsSync(dir)).toBe(false);
  });

  it('serve --help lists the three settings with their env vars', async () => {
    const r = await runCli(['serve', '--help']);
    expect(r.stdout).toMatch(/--smtp-listen <host:port>[\s\S]*CHECKD_SMTP_LISTEN/);
    expect(r.stdout).toMatch(/--ping-email-domain <domain>[\s\S]*CHECKD_PING_EMAIL_DOMAIN, default host of\s+--base-url/);
    expect(r.stdout).toMatch(/--smtp-message-limit <bytes>[\s\S]*CHECKD_SMTP_MESSAGE_LIMIT, default 5000000/);
  });
});

describe('end to end', () => {
  let rx: HttpReceiver;
  setupSuite(async () => {
    rx = await startHttpReceiver();
  });

  it("cron's MAILTO with a failure keyword: the check goes down and the webhook gets the down notification", async () => {
    const dir = fresh();
    const project = await createProjectCli(dir, 'cron jobs');
    const hook = await runCli([
      'channel',
      'create',
      '--project',
      project.id,
      '--kind',
      'webhook',
      '--value',
      JSON.stringify({ url_down: `${rx.url}/down/$NAME/$STATUS`, url_up: `${rx.url}/up/$NAME/$STATUS` }),
      '--data-dir',
      dir,
      '--json',
    ]);
    expect(hook.code, hook.stderr).toBe(0);
    const daemon = await startChild(['--data-dir', dir, ...PORT0, '--smtp-listen', '127.0.0.1:0', '--base-url', 'https://checkd.example.org'], {
      env: { CHECKD_NOTIFY_RETRY_BASE_MS: '100' },
    });
    const created = await api(daemon.url, '/api/v3/checks/', {
      key: project.api_key,
      body: { name: 'backup', slug: 'backup', channels: '*', filter_body: true, success_kw: 'backup complete', failure_kw: 'ERROR, FAILED' },
    });
    expect(created.status, created.text).toBe(201);
    const uuid = created.json.ping_url.split('/').pop();

    // crontab: MAILTO=<ping-key>+backup@checkd.example.org; cron mails the job's output.
    const to = `${project.ping_key}+backup@checkd.example.org`;
    const ok = cronMessage({ to, body: 'rsync: 120 files\nbackup complete' });
    expect((await sendRaw(daemon.smtp!, 'root@backup-host', [to], ok)).response).toBe('250 OK');
    expect((await api(daemon.url, `/api/v3/checks/${uuid}`, { key: project.api_key })).json.status).toBe('up');

    const failed = cronMessage({ to, body: 'rsync: ERROR: connection refused\nbackup FAILED' });
    expect((await sendRaw(daemon.smtp!, 'root@backup-host', [to], failed)).response).toBe('250 OK');
    const check = (await api(daemon.url, `/api/v3/checks/${uuid}`, { key: project.api_key })).json;
    expect(check.status).toBe('down');
    await rx.waitFor((reqs) => reqs.some((r) => r.url === '/down/backup/down'));
    expect(rx.on('/down/')).toHaveLength(1);

    const list = (await api(daemon.url, `/api/v3/checks/${uuid}/pings/`, { key: project.api_key })).json.pings;
    expect(list.map((p: any) => [p.type, p.scheme, p.ua])).toEqual([
      ['fail', 'email', 'Email from root@backup-host'],
      ['success', 'email', 'Email from root@backup-host'],
    ]);
    const flips = (await api(daemon.url, `/api/v3/checks/${uuid}/flips/`, { key: project.api_key })).json;
    // Newest first: up -> down, after new -> up.
    expect(flips.map((f: any) => f.up)).toEqual([0, 1]);
  });
});
