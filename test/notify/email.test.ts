// E-mail channels against a real SMTP server (smtp-server) on 127.0.0.1:
// subject and body of down and up messages, SMTP authentication, the
// up/down switches, and no password in any log line or error.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { NotifyConfig } from '../../daemon/config/notify.js';
import { listChannelDeliveries } from '../../daemon/notify/listing.js';
import { setupSuite } from '../helpers/cleanup.js';
import { createCheck, ping } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { waitFor } from '../helpers/wait.js';
import { goDown, makeChannel, startSmtpReceiver, type SmtpReceiver } from './support.js';

let smtp: SmtpReceiver;
const logLines: string[] = [];

/** A daemon that logs at debug into logLines, with one project. */
async function start(notify: Partial<NotifyConfig>): Promise<{ d: InProcessDaemon; p: TestProject }> {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const d = await startInProcess({
    notify: { retryBaseMs: 50, retryMaxDelayMs: 100, timeoutMs: 5000, ...notify },
    log: { level: 'debug', to: sink },
  });
  return { d, p: await d.createProject({ name: 'Mail & co' }) };
}

let env: { d: InProcessDaemon; p: TestProject };

setupSuite(async () => {
  smtp = await startSmtpReceiver();
  env = await start({ smtp: { url: `smtp://alice:s3cret-pw@127.0.0.1:${smtp.port}`, from: 'checkd <alerts@example.org>' } });
});

describe('email channel', () => {
  it('sends "DOWN | name" and "UP | name" with the details in the body', async () => {
    const { d, p } = env;
    const ch = await makeChannel(d, p, 'email', 'ops@example.com');
    const name = 'Foo & Bar "db" ✓';
    const check = await createCheck(d.url, p.apiKey, { name, tags: 'prod nightly', desc: 'Backs up the database', timeout: 3600, channels: ch.id });
    await goDown(d.url, check.uuid, 'pg_dump: error: connection refused');
    await smtp.waitFor(1);
    const down = smtp.mails[0]!;
    expect(down.subject).toBe(`DOWN | ${name}`);
    expect(down.to).toEqual(['ops@example.com']);
    expect(down.from).toBe('alerts@example.org');
    expect(down.auth).toEqual({ user: 'alice', pass: 's3cret-pw' });
    expect(down.text).toContain(`"${name}" has gone down.`);
    expect(down.text).toContain('Received a failure signal.');
    expect(down.text).toContain('Description: Backs up the database');
    expect(down.text).toContain('Project: Mail & co');
    expect(down.text).toContain('Tags: prod nightly');
    expect(down.text).toContain('Period: 1 hour');
    expect(down.text).toContain('Total Pings: 2');
    expect(down.text).toMatch(/Last Ping: Failure, \d{4}-\d\d-\d\dT[\d:]+\+00:00 \(0 seconds before the status change\), from 127\.0\.0\.1/);
    expect(down.text).toContain(`Check UUID: ${check.uuid}`);
    expect(down.text).toContain('Last ping body:\npg_dump: error: connection refused');
    expect(down.raw).toMatch(/Content-Type: text\/html/i);

    await ping(d.url, check.uuid);
    await smtp.waitFor(2);
    const up = smtp.mails[1]!;
    expect(up.subject).toBe(`UP | ${name}`);
    expect(up.text).toContain(`"${name}" is up again.`);
    expect(up.text).toMatch(/The downtime lasted \d+ seconds?\./);
  });

  it('the up/down switches of the JSON form; an unnamed check is named by its UUID', async () => {
    const { d, p } = env;
    const ch = await makeChannel(d, p, 'email', JSON.stringify({ value: 'down-only@example.com', up: false }));
    const check = await createCheck(d.url, p.apiKey, { channels: ch.id });
    const before = smtp.mails.length;
    await goDown(d.url, check.uuid);
    await ping(d.url, check.uuid);
    await smtp.waitFor(before + 1);
    await d.daemon.notifier.idle();
    const mine = smtp.mails.filter((m) => m.to.includes('down-only@example.com'));
    expect(mine.map((m) => m.subject)).toEqual([`DOWN | ${check.uuid}`]);
  });

  it('logs each delivery at info with check, channel and kind, and never the SMTP password', async () => {
    const { d, p } = env;
    const ch = await makeChannel(d, p, 'email', 'logs@example.com');
    const check = await createCheck(d.url, p.apiKey, { name: 'logged', channels: ch.id });
    await goDown(d.url, check.uuid);
    await waitFor(() => logLines.some((l) => l.includes(ch.id) && l.includes('"result":"delivered"')));
    const line = JSON.parse(logLines.find((l) => l.includes(ch.id) && l.includes('"result":"delivered"'))!);
    expect(line).toMatchObject({ level: 30, check: check.uuid, channel: ch.id, kind: 'email', event: 'down', result: 'delivered' });
    expect(logLines.join('\n')).not.toContain('s3cret-pw');
  });
});

describe('email failures', () => {
  it('a wrong password is reported without the password; no SMTP configured is reported too', async () => {
    const bad = await start({ smtp: { url: `smtp://alice:wr0ng-pass-word@127.0.0.1:${smtp.port}`, from: 'a@example.org' } });
    const none = await start({ smtp: null });
    const chBad = await makeChannel(bad.d, bad.p, 'email', 'x@example.com');
    const chNone = await makeChannel(none.d, none.p, 'email', 'y@example.com');
    await goDown(bad.d.url, (await createCheck(bad.d.url, bad.p.apiKey, { name: 'a', channels: chBad.id })).uuid);
    await goDown(none.d.url, (await createCheck(none.d.url, none.p.apiKey, { name: 'b', channels: chNone.id })).uuid);
    await waitFor(() => listChannelDeliveries(bad.d.daemon.store, bad.p.id)[0]!.state === 'failed', { timeout: 5000 });
    await waitFor(() => listChannelDeliveries(none.d.daemon.store, none.p.id)[0]!.state === 'failed', { timeout: 5000 });
    const badRow = listChannelDeliveries(bad.d.daemon.store, bad.p.id)[0]!;
    expect(badRow.error).toMatch(/^SMTP authentication failed/);
    expect(badRow.error).not.toContain('wr0ng-pass-word');
    expect(listChannelDeliveries(none.d.daemon.store, none.p.id)[0]!.error).toBe('SMTP is not configured (start checkd serve with --smtp-url)');
    expect(logLines.join('\n')).not.toContain('wr0ng-pass-word');
  });
});
