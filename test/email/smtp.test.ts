// E-mail pings (ping-protocol §12) through a real SMTP client over a socket:
// both address forms, the 550 answers at RCPT, unknown checks and ambiguous
// slugs, every classification branch, encoded subjects, multipart messages,
// the size limit, and no 250 while the disk refuses writes.
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { onCleanup, setupSuite } from '../helpers/cleanup.js';
import { api, createCheck } from '../helpers/http.js';
import { startInProcess, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';
import { COMMIT_FAILED_MESSAGE } from '../../daemon/store/write-failure.js';
import { cronMessage, message, refusalOf, sendRaw } from './support.js';

const DOMAIN = 'checkd.test';
const logLines: string[] = [];
let d: InProcessDaemon;
let p: TestProject;
let smtp: string;

setupSuite(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  // The domain is not given: it is the host of the base URL, http://checkd.test.
  d = await startInProcess({ smtpListen: { host: '127.0.0.1', port: 0 }, log: { level: 'info', to: sink } });
  smtp = d.daemon.smtpAddress!;
  p = await d.createProject({ checkLimit: 1000 });
});

async function check(body: Record<string, unknown> = {}): Promise<{ uuid: string; slug: string }> {
  const c = await createCheck(d.url, p.apiKey, { name: `check ${Math.random().toString(36).slice(2)}`, ...body });
  return { uuid: c.ping_url.split('/').pop(), slug: c.slug };
}

async function pings(uuid: string): Promise<any[]> {
  const r = await api(d.url, `/api/v3/checks/${uuid}/pings/`, { key: p.apiKey });
  expect(r.status).toBe(200);
  return r.json.pings;
}

async function status(uuid: string): Promise<string> {
  return (await api(d.url, `/api/v3/checks/${uuid}`, { key: p.apiKey })).json.status;
}

/** Mail `raw` to one check; returns the final answer. */
function mail(to: string, raw: string | Buffer, from = 'cron@backup-host') {
  return sendRaw(smtp, from, [to], raw);
}

describe('addresses', () => {
  it('the ready address is the bound port; <uuid>@domain records one ping with the fields of §12', async () => {
    expect(smtp).toMatch(/^127\.0\.0\.1:\d+$/);
    const { uuid } = await check();
    const raw = cronMessage({ to: `${uuid}@${DOMAIN}`, body: 'backup done' });
    const answer = await mail(`${uuid}@${DOMAIN}`, raw, 'root@backup-host');
    expect(answer.response).toBe('250 OK');
    const [ping, ...rest] = await pings(uuid);
    expect(rest).toEqual([]);
    expect(ping).toMatchObject({
      type: 'success',
      n: 1,
      scheme: 'email',
      method: '',
      ua: 'Email from root@backup-host',
      remote_addr: '127.0.0.1',
      rid: null,
    });
    expect(ping.body_url).toEqual(expect.stringContaining(`/pings/1/body`));
    // The whole message, headers included, is the body.
    const body = await api(d.url, new URL(ping.body_url).pathname, { key: p.apiKey });
    expect(body.text).toBe(raw);
    expect(await status(uuid)).toBe('up');
  });

  it('<ping-key>+<slug>@domain, the domain in any case, and a UUID in capitals', async () => {
    const { uuid, slug } = await check({ name: 'Nightly report', slug: 'nightly-report' });
    expect(slug).toBe('nightly-report');
    expect((await mail(`${p.pingKey}+${slug}@${DOMAIN}`, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect((await mail(`${p.pingKey}+${slug}@CHECKD.Test`, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect((await mail(`${uuid.toUpperCase()}@${DOMAIN}`, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect((await pings(uuid)).map((x) => x.n)).toEqual([3, 2, 1]);
  });

  it('RCPT at another domain: 550 5.1.1 Recipient rejected (nothing is relayed)', async () => {
    const { uuid } = await check();
    const refused = await refusalOf(mail(`${uuid}@example.org`, cronMessage({ to: 'x', body: 'ok' })));
    expect(refused.responseCode).toBe(550);
    expect(refused.response).toBe('550 5.1.1 Recipient rejected');
    const sub = await refusalOf(mail(`${uuid}@mail.${DOMAIN}`, cronMessage({ to: 'x', body: 'ok' })));
    expect(sub.response).toBe('550 5.1.1 Recipient rejected');
    expect(await pings(uuid)).toEqual([]);
  });

  it('RCPT of a mailbox that is neither form: 550 5.1.1 Invalid mailbox', async () => {
    for (const mailbox of ['postmaster', 'not-a-uuid', `${p.pingKey}+`, `+slug`, `${p.pingKey}+Upper-Slug`, `${p.pingKey}+a.b`]) {
      const refused = await refusalOf(mail(`${mailbox}@${DOMAIN}`, cronMessage({ to: 'x', body: 'ok' })));
      expect([mailbox, refused.response]).toEqual([mailbox, '550 5.1.1 Invalid mailbox']);
    }
  });

  it('one refused recipient among accepted ones: the others get their pings', async () => {
    const a = await check();
    const b = await check();
    const answer = await sendRaw(smtp, 'cron@h', [`${a.uuid}@${DOMAIN}`, `${a.uuid}@elsewhere.test`, `${b.uuid}@${DOMAIN}`], cronMessage({ to: 'x', body: 'ok' }));
    expect(answer.response).toBe('250 OK');
    expect(answer.rejected).toEqual([`${a.uuid}@elsewhere.test`]);
    expect(await pings(a.uuid)).toHaveLength(1);
    expect(await pings(b.uuid)).toHaveLength(1);
  });

  it('an unknown check: accepted, logged as "Check not found: <address>", nothing recorded', async () => {
    const address = `00000000-0000-4000-8000-00000000dead@${DOMAIN}`;
    expect((await mail(address, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect(logLines.some((l) => JSON.parse(l).msg === `Check not found: ${address}`)).toBe(true);
    const slugAddress = `${p.pingKey}+no-such-slug@${DOMAIN}`;
    expect((await mail(slugAddress, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect(logLines.some((l) => JSON.parse(l).msg === `Check not found: ${slugAddress}`)).toBe(true);
    const wrongKey = `wrong-ping-key+no-such-slug@${DOMAIN}`;
    expect((await mail(wrongKey, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect(logLines.some((l) => JSON.parse(l).msg === `Check not found: ${wrongKey}`)).toBe(true);
  });

  it('an ambiguous slug: accepted, logged as "Ambiguous slug: <address>", neither check pinged', async () => {
    const a = await check({ slug: 'twin' });
    const b = await check({ slug: 'twin' });
    const address = `${p.pingKey}+twin@${DOMAIN}`;
    expect((await mail(address, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect(logLines.some((l) => JSON.parse(l).msg === `Ambiguous slug: ${address}`)).toBe(true);
    expect(await pings(a.uuid)).toEqual([]);
    expect(await pings(b.uuid)).toEqual([]);
  });
});

describe('classification', () => {
  const KEYWORDS = { success_kw: 'SUCCESS', failure_kw: 'FAILED, ERROR', start_kw: 'STARTING' };

  async function kindOf(checkBody: Record<string, unknown>, raw: (to: string) => string): Promise<string> {
    const { uuid } = await check(checkBody);
    const to = `${uuid}@${DOMAIN}`;
    expect((await mail(to, raw(to))).response).toBe('250 OK');
    const [ping] = await pings(uuid);
    return ping.type;
  }

  it('no subject or body filter: success, whatever the keywords say', async () => {
    const kind = await kindOf({ ...KEYWORDS, filter_default_fail: true }, (to) => cronMessage({ to, subject: 'FAILED', body: 'ERROR' }));
    expect(kind).toBe('success');
  });

  it('filter_http_body does not apply to e-mail', async () => {
    const kind = await kindOf({ ...KEYWORDS, filter_http_body: true, filter_default_fail: true }, (to) => cronMessage({ to, body: 'FAILED' }));
    expect(kind).toBe('success');
  });

  it('subject: failure, success and start keywords, in that order', async () => {
    const f = { ...KEYWORDS, filter_subject: true };
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'backup FAILED after SUCCESS', body: '' }))).toBe('fail');
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'backup SUCCESS, STARTING next', body: '' }))).toBe('success');
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'STARTING backup', body: '' }))).toBe('start');
    // Only the subject is read: the body's keyword does not count.
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'backup', body: 'FAILED' }))).toBe('ign');
  });

  it('the legacy subject / subject_fail fields set up subject filtering', async () => {
    expect(await kindOf({ subject: 'SUCCESS', subject_fail: 'FAILED' }, (to) => cronMessage({ to, subject: 'it FAILED', body: '' }))).toBe('fail');
    expect(await kindOf({ subject: 'SUCCESS', subject_fail: 'FAILED' }, (to) => cronMessage({ to, subject: 'SUCCESS', body: '' }))).toBe('success');
  });

  it('plain-text body: keywords, case-sensitive substrings; the subject is not read', async () => {
    const f = { ...KEYWORDS, filter_body: true };
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'SUCCESS', body: 'rsync: ERROR 23\n' }))).toBe('fail');
    expect(await kindOf(f, (to) => cronMessage({ to, body: 'xxSUCCESSxx' }))).toBe('success');
    expect(await kindOf(f, (to) => cronMessage({ to, body: 'STARTING the job' }))).toBe('start');
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'FAILED', body: 'success in lower case' }))).toBe('ign');
  });

  it('subject and body together', async () => {
    const f = { ...KEYWORDS, filter_subject: true, filter_body: true };
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'SUCCESS', body: 'all fine' }))).toBe('success');
    expect(await kindOf(f, (to) => cronMessage({ to, subject: 'SUCCESS', body: 'but FAILED later' }))).toBe('fail');
  });

  it('HTML body: the HTML part is turned into text (tags and entities do not hide a keyword)', async () => {
    const f = { ...KEYWORDS, filter_body: true };
    const html = (to: string, body: string) =>
      message([`To: ${to}`, 'Subject: report', 'MIME-Version: 1.0', 'Content-Type: text/html; charset=UTF-8'], body);
    expect(await kindOf(f, (to) => html(to, '<html><body><p>Backup <b>FAIL</b>ED &amp; stopped</p></body></html>'))).toBe('fail');
    expect(await kindOf(f, (to) => html(to, '<p>SUCC<span>ESS</span></p>'))).toBe('success');
    // A keyword inside a tag's attribute is not text.
    expect(await kindOf(f, (to) => html(to, '<p title="FAILED">all good</p>'))).toBe('ign');
  });

  it('no keyword matches: fail under filter_default_fail, else ign', async () => {
    const raw = (to: string) => cronMessage({ to, subject: 'nightly', body: 'nothing to say' });
    expect(await kindOf({ ...KEYWORDS, filter_body: true, filter_default_fail: true }, raw)).toBe('fail');
    expect(await kindOf({ ...KEYWORDS, filter_subject: true, filter_body: true }, raw)).toBe('ign');
    // An empty message matches nothing either.
    expect(await kindOf({ filter_subject: true, filter_default_fail: true }, (to) => message([`To: ${to}`], ''))).toBe('fail');
  });

  it('a paused check with manual_resume records e-mail pings as ign and stays paused', async () => {
    const { uuid } = await check({ manual_resume: true });
    expect((await api(d.url, `/api/v3/checks/${uuid}/pause`, { method: 'POST', key: p.apiKey })).status).toBe(200);
    expect((await mail(`${uuid}@${DOMAIN}`, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect((await pings(uuid))[0].type).toBe('ign');
    expect(await status(uuid)).toBe('paused');
  });

  it('encoded subjects: base64 and quoted-printable encoded words are decoded before matching', async () => {
    const f = { success_kw: 'Sauvegarde réussie', failure_kw: 'ÉCHEC', filter_subject: true };
    const b64 = `=?UTF-8?B?${Buffer.from('Sauvegarde réussie ✓').toString('base64')}?=`;
    expect(await kindOf(f, (to) => message([`To: ${to}`, `Subject: ${b64}`], 'x'))).toBe('success');
    const qp = '=?UTF-8?Q?Sauvegarde_=C3=89CHEC?=';
    expect(await kindOf(f, (to) => message([`To: ${to}`, `Subject: ${qp}`], 'x'))).toBe('fail');
    // Two encoded words in a folded header make one subject.
    const folded = `=?UTF-8?Q?Sauvegarde_r?=\r\n =?UTF-8?Q?=C3=A9ussie?=`;
    expect(await kindOf(f, (to) => message([`To: ${to}`, `Subject: ${folded}`], 'x'))).toBe('success');
  });

  it('a multipart message: the plain part, the HTML alternative and a quoted-printable part are all read; attachments are not', async () => {
    const f = { ...KEYWORDS, filter_body: true };
    const multipart = (to: string, plain: string, html: string, attachment: string) =>
      message(
        [`To: ${to}`, 'Subject: report', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="outer"'],
        [
          '--outer',
          'Content-Type: multipart/alternative; boundary="alt"',
          '',
          '--alt',
          'Content-Type: text/plain; charset=UTF-8',
          'Content-Transfer-Encoding: quoted-printable',
          '',
          plain,
          '--alt',
          'Content-Type: text/html; charset=UTF-8',
          '',
          html,
          '--alt--',
          '--outer',
          'Content-Type: application/octet-stream',
          'Content-Disposition: attachment; filename="log.bin"',
          'Content-Transfer-Encoding: base64',
          '',
          Buffer.from(attachment).toString('base64'),
          '--outer--',
        ].join('\r\n'),
      );
    // A soft line break of quoted-printable joins the keyword again.
    expect(await kindOf(f, (to) => multipart(to, 'job FAI=\r\nLED', '<p>job</p>', 'x'))).toBe('fail');
    // The keyword only in the HTML alternative still counts.
    expect(await kindOf(f, (to) => multipart(to, 'job done', '<p>job <i>SUCCESS</i></p>', 'x'))).toBe('success');
    expect(await kindOf(f, (to) => multipart(to, 'job done', '<p>job done</p>', 'FAILED'))).toBe('ign');
  });
});

/** A raw SMTP session on `address`: write lines, wait for replies. */
function rawSession(address: string) {
  const at = address.lastIndexOf(':');
  const socket = connect(Number(address.slice(at + 1)), address.slice(0, at));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  onCleanup(() => socket.destroy());
  return {
    socket,
    write: (line: string) => socket.write(`${line}\r\n`),
    async waitFor(re: RegExp) {
      for (let i = 0; i < 200 && !re.test(received); i++) await new Promise((r) => setTimeout(r, 50));
      expect(received).toMatch(re);
    },
  };
}

describe('limits and durability', () => {
  it('a session cut off in the middle of a message records nothing', async () => {
    const { uuid } = await check();
    const s = rawSession(smtp);
    await s.waitFor(/^220 /m);
    s.write('EHLO client.test');
    await s.waitFor(/^250 /m);
    s.write('MAIL FROM:<cron@h>');
    s.write(`RCPT TO:<${uuid}@${DOMAIN}>`);
    s.write('DATA');
    await s.waitFor(/^354 /m);
    s.write('Subject: half a message');
    s.write('');
    s.write('the job printed this and then');
    await new Promise((r) => setTimeout(r, 200));
    s.socket.destroy();
    await new Promise((r) => setTimeout(r, 300));
    expect(await pings(uuid)).toEqual([]);
    // The listener goes on serving.
    expect((await mail(`${uuid}@${DOMAIN}`, cronMessage({ to: 'x', body: 'ok' }))).response).toBe('250 OK');
    expect(await pings(uuid)).toHaveLength(1);
  });

  it('shutdown does not wait for a session between messages: it gets 421 at once', async () => {
    const other = await startInProcess({ smtpListen: { host: '127.0.0.1', port: 0 } });
    const s = rawSession(other.daemon.smtpAddress!);
    await s.waitFor(/^220 /m);
    s.write('EHLO client.test');
    await s.waitFor(/^250 /m);
    const started = performance.now();
    await other.stop();
    // Well under the 10 s a session in the middle of a message would get.
    expect(performance.now() - started).toBeLessThan(5000);
    await s.waitFor(/^421 4\.3\.2 /m);
  });

  it('a message over the size limit gets 552 and records nothing; one within it goes through', async () => {
    const small = await startInProcess({ smtpListen: { host: '127.0.0.1', port: 0 }, pingEmailDomain: 'pings.example.org', smtpMessageLimit: 4000 });
    const sp = await small.createProject();
    const c = await createCheck(small.url, sp.apiKey, { name: 'big' });
    const uuid = c.ping_url.split('/').pop();
    const to = `${uuid}@pings.example.org`;
    const big = cronMessage({ to, body: 'x'.repeat(5000) });
    const refused = await refusalOf(sendRaw(small.daemon.smtpAddress!, 'cron@h', [to], big));
    expect(refused.responseCode).toBe(552);
    expect(refused.response).toMatch(/^552 /);
    const fits = cronMessage({ to, body: 'y'.repeat(3000) });
    expect((await sendRaw(small.daemon.smtpAddress!, 'cron@h', [to], fits)).response).toBe('250 OK');
    const list = (await api(small.url, `/api/v3/checks/${uuid}/pings/`, { key: sp.apiKey })).json.pings;
    expect(list).toHaveLength(1);
    // The ping body keeps the configured 10000 bytes of the message: all of it here.
    const body = await api(small.url, new URL(list[0].body_url).pathname, { key: sp.apiKey });
    expect(body.text).toBe(fits);
    // The explicit domain replaces the base URL's host.
    const other = await refusalOf(sendRaw(small.daemon.smtpAddress!, 'cron@h', [`${uuid}@checkd.test`], fits));
    expect(other.response).toBe('550 5.1.1 Recipient rejected');
  });

  it('the stored body is the message cut to the ping body limit', async () => {
    const { uuid } = await check();
    const raw = cronMessage({ to: `${uuid}@${DOMAIN}`, body: 'z'.repeat(20_000) });
    expect((await mail(`${uuid}@${DOMAIN}`, raw)).response).toBe('250 OK');
    const [ping] = await pings(uuid);
    const body = await api(d.url, new URL(ping.body_url).pathname, { key: p.apiKey });
    expect(body.text).toBe(raw.slice(0, 10_000));
  });

  it('while the disk refuses writes: a temporary 451, never 250, nothing recorded; the retry goes through', async () => {
    const { uuid } = await check();
    const store = d.daemon.store;
    const realPing = store.transactPing.bind(store);
    // What lmdb-js rejects a failed commit's writes with (see test/service/storage.test.ts).
    store.transactPing = (() => {
      const cause = Promise.reject(Object.assign(new Error('No space left on device'), { code: 'ENOSPC' }));
      cause.catch(() => {});
      return Promise.reject(Object.assign(new Error(COMMIT_FAILED_MESSAGE), { commitError: cause }));
    }) as typeof store.transactPing;
    const raw = cronMessage({ to: `${uuid}@${DOMAIN}`, body: 'ok' });
    try {
      const refused = await refusalOf(mail(`${uuid}@${DOMAIN}`, raw));
      expect(refused.responseCode).toBe(451);
      expect(refused.response).toMatch(/^451 4\.3\.0 /);
    } finally {
      store.transactPing = realPing;
    }
    expect(store.getCheck(uuid)?.nPings).toBe(0);
    expect(logLines.some((l) => JSON.parse(l).msg === 'e-mail ping not recorded')).toBe(true);
    // The sending MTA retries a 4xx later: then it is recorded.
    expect((await mail(`${uuid}@${DOMAIN}`, raw)).response).toBe('250 OK');
    expect(store.getCheck(uuid)?.nPings).toBe(1);
  });
});
