// zulip: a bot's message (form, Basic auth) to a stream topic or a user;
// the topic and content; which failures are retried, Zulip's retry-after.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, formOf, startHarness, type Harness, type ServiceRequest } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { parseZulipValue } from '../../../daemon/domain/integrations/zulip.js';

let h: Harness;
const AUTH = 'Basic ' + Buffer.from('alert-bot@zulip.example:ZK3y').toString('base64');

function problems(req: ServiceRequest): string[] {
  if (req.headers.authorization !== AUTH) return ['auth'];
  if (req.method !== 'POST' || !req.path.endsWith('/api/v1/messages')) return [`no route ${req.method} ${req.path}`];
  if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return ['not a form'];
  const f = formOf(req);
  const p: string[] = [];
  if (!['stream', 'private', 'channel', 'direct'].includes(f.get('type') ?? '')) p.push('Invalid message type');
  if (!f.get('to')) p.push('Missing "to" argument');
  if (!f.get('content')) p.push('Message must not be empty');
  if (f.get('type') === 'stream' && !f.get('topic')) p.push('Missing topic');
  if ((f.get('topic') ?? '').length > 60) p.push('Topic too long');
  return p;
}

setupSuite(async () => {
  const model = (req: ServiceRequest) =>
    problems(req)[0] === 'auth'
      ? { status: 401, json: { result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' } }
      : checking(problems, { status: 200, json: { result: 'success', msg: '', id: 42 } }, (p) => ({
          status: 400,
          json: { result: 'error', msg: p.join('; '), code: 'BAD_REQUEST' },
        }))(req);
  h = await startHarness(model);
});

const value = (extra: Record<string, unknown>) =>
  JSON.stringify({ bot_email: 'alert-bot@zulip.example', api_key: 'ZK3y', mtype: 'stream', to: 'ops', site: `${h.rx.url}/z`, topic: '', ...extra });

describe('zulip', () => {
  it('value: bot_email, api_key, mtype, to, site and topic', () => {
    const ok = { bot_email: 'bot@zulip.example', api_key: 'k', mtype: 'stream', to: 'ops', site: 'https://chat.example', topic: '' };
    expect(validateChannel('zulip', JSON.stringify(ok))).toMatchObject({ ok: true });
    expect(parseZulipValue(JSON.stringify({ ...ok, site: '' })).site).toBe('https://zulip.example');
    expect(validateChannel('zulip', JSON.stringify({ ...ok, bot_email: 'nope' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"bot_email"/) });
    expect(validateChannel('zulip', JSON.stringify({ ...ok, api_key: '' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"api_key" is required/) });
    expect(validateChannel('zulip', JSON.stringify({ ...ok, site: 'chat.example' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"site"/) });
    expect(validateChannel('zulip', JSON.stringify({ ...ok, mtype: 'dm' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"mtype"/) });
    expect(validateChannel('zulip', JSON.stringify({ ...ok, to: '' }))).toMatchObject({ ok: false, error: expect.stringMatching(/"to" is required/) });
  });

  it('down and up to a stream: the topic names the check and status; content in Markdown', async () => {
    const c = await channel(h, 'zulip', value({}));
    const { uuid, down, up } = await downThenUp(h, c.id, '/z/');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/z/api/v1/messages');
    expect(down.headers.authorization).toBe(AUTH);
    expect(down.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(down.body).not.toContain(uuid);
    const f = formOf(down);
    expect(f.get('type')).toBe('stream');
    expect(f.get('to')).toBe('ops');
    expect(f.get('topic')).toBe('backup "nightly" <db> & co is DOWN');
    expect(f.get('content')).toBe('**backup "nightly" <db> & co** is **DOWN** (received a failure signal).\n\n---\n**Description**\n\nNightly *backup*');
    const u = formOf(up);
    expect(u.get('topic')).toBe('backup "nightly" <db> & co is UP');
    expect(u.get('content')).toMatch(/^\*\*backup "nightly" <db> & co\*\* is \*\*UP\*\*\.\n\nThe downtime lasted \d+ seconds?\.\n\n---\n\*\*Description\*\*\n\nNightly \*backup\*$/);
  });

  it('a configured topic; a direct message to a user id; a long name cut to 60 characters of topic', async () => {
    const fixed = await channel(h, 'zulip', value({ topic: 'cron alerts' }));
    const one = await downThenUp(h, fixed.id, '/z/', { desc: '' });
    expect(formOf(one.down).get('topic')).toBe('cron alerts');
    expect(formOf(one.down).get('content')).toBe('**backup "nightly" <db> & co** is **DOWN** (received a failure signal).');
    const dm = await channel(h, 'zulip', value({ mtype: 'private', to: '42' }));
    const two = await downThenUp(h, dm.id, '/z/');
    expect(formOf(two.down).get('type')).toBe('private');
    expect(formOf(two.down).get('to')).toBe('[42]');
    expect(formOf(two.down).has('topic')).toBe(false);
    const auto = await channel(h, 'zulip', value({}));
    const long = await downThenUp(h, auto.id, '/z/', { name: 'x'.repeat(100) });
    expect(formOf(long.down).get('topic')).toBe('x'.repeat(59) + '…');
  });

  it('a 4xx (a stream that does not exist) is final; a 429 waits for its retry-after', async () => {
    const c = await channel(h, 'zulip', value({ to: 'nowhere' }));
    await expectPermanent(h, c.id, '/z/', { status: 400, json: { result: 'error', msg: "Stream 'nowhere' does not exist", code: 'STREAM_DOES_NOT_EXIST' } }, `Received status code 400 with a message: "Stream 'nowhere' does not exist"`);
    const ok = await channel(h, 'zulip', value({}));
    const sent = await expectTransient(
      h,
      ok.id,
      '/z/',
      [{ status: 429, json: { result: 'error', msg: 'API usage exceeded rate limit', 'retry-after': 0.8, code: 'RATE_LIMIT_HIT' } }],
      'Received status code 429 with a message: "API usage exceeded rate limit"',
    );
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(750);
  });
});
