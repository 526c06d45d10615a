// telegram: sendMessage as the daemon's bot, an HTML message per event; a
// group that became a supergroup is followed and its new id stored; which
// answers are final; Telegram's retry_after; 6 messages a minute per chat.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { ping } from '../../helpers/http.js';
import { goDown } from '../support.js';
import { channel, checking, deliveryStatus, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, makeCheck, startHarness, type Harness, type ServiceRequest } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { parseTelegramValue } from '../../../daemon/domain/integrations/telegram.js';
import { deliver } from '../../../daemon/notify/transports.js';
import { testNotification } from '../../../daemon/notify/notifier.js';
import { Throttle } from '../../../daemon/notify/throttle.js';
import { NOTIFY_DEFAULTS } from '../../../daemon/config/notify.js';
import { INTEGRATION_DEFAULTS } from '../../../daemon/config/integrations.js';

const TOKEN = '123456:ABC-def_ghi';
const OLD_GROUP = -234;
const SUPERGROUP = -1001234;
let h: Harness;

function problems(req: ServiceRequest): string[] {
  if (req.path !== `/tg/bot${TOKEN}/sendMessage`) return ['route'];
  const p = jsonProblems(req, { chat_id: 'number', text: 'string', parse_mode: 'string' });
  if (p.length > 0) return p;
  const doc = jsonOf(req);
  if (doc.parse_mode.toLowerCase() !== 'html') p.push('Bad Request: unsupported parse_mode');
  if (doc.text.length > 4096) p.push('Bad Request: message is too long');
  if (doc.message_thread_id !== null && typeof doc.message_thread_id !== 'number') p.push('Bad Request: bad message_thread_id');
  return p;
}

function model(req: ServiceRequest) {
  if (problems(req)[0] === 'route') return { status: 404, json: { ok: false, error_code: 404, description: 'Not Found' } };
  const chat = (() => {
    try {
      return JSON.parse(req.body).chat_id;
    } catch {
      return undefined;
    }
  })();
  if (chat === OLD_GROUP) {
    return {
      status: 400,
      json: { ok: false, error_code: 400, description: 'Bad Request: group chat was upgraded to a supergroup chat', parameters: { migrate_to_chat_id: SUPERGROUP } },
    };
  }
  return checking(problems, { status: 200, json: { ok: true, result: { message_id: 7, chat: { id: chat } } } }, (p) => ({
    status: 400,
    json: { ok: false, error_code: 400, description: p.join('; ') },
  }))(req);
}

setupSuite(async () => {
  h = await startHarness(model, (rx) => ({
    telegramBotToken: TOKEN,
    apiUrls: { ...INTEGRATION_DEFAULTS.apiUrls, telegram: `${rx.url}/tg` },
  }));
});

const texts = (prefix: string) => h.rx.on(prefix).map((r) => jsonOf(r));

describe('telegram', () => {
  it('value: {"id", "thread_id", "type", "name"} or a bare chat id', () => {
    expect(parseTelegramValue('{"id": -1001234567890}')).toMatchObject({ chatId: -1001234567890, threadId: null });
    expect(parseTelegramValue('{"id": 5, "type": "supergroup", "name": "Ops", "thread_id": 17}')).toMatchObject({ chatId: 5, threadId: 17 });
    expect(parseTelegramValue('-42')).toMatchObject({ chatId: -42, threadId: null, doc: null });
    expect(validateChannel('telegram', '{"id": "5"}')).toMatchObject({ ok: false, error: expect.stringMatching(/"id" must be a whole number/) });
    expect(validateChannel('telegram', '{"id": 5, "chat": 1}')).toMatchObject({ ok: false, error: expect.stringMatching(/unknown member "chat"/) });
    expect(validateChannel('telegram', '@ops')).toMatchObject({ ok: false });
  });

  it('down and up: sendMessage with an HTML text, every value escaped', async () => {
    const c = await channel(h, 'telegram', '{"id": 1001, "type": "private", "name": "me"}');
    const { down, up } = await downThenUp(h, c.id, '/tg/', { schedule: '*/10 * * * *', tz: 'Europe/Riga', tags: 'prod <x>' }, 'rc=1 <oops> & "done"');
    expect(down.method).toBe('POST');
    expect(down.path).toBe(`/tg/bot${TOKEN}/sendMessage`);
    expect(down.headers['content-type']).toBe('application/json');
    const doc = jsonOf(down);
    expect(doc).toMatchObject({ chat_id: 1001, message_thread_id: null, parse_mode: 'html' });
    const lines = doc.text.split('\n');
    expect(lines[0]).toBe('🔴 The check “backup &quot;nightly&quot; &lt;db&gt; &amp; co” is <b>DOWN</b> (received a failure signal).');
    expect(lines.slice(1, 8)).toEqual([
      '',
      '<b>Project:</b> Ops &amp; &quot;core&quot;',
      '<b>Tags:</b> prod, &lt;x&gt;',
      '<b>Schedule:</b> <code>*/10 * * * *</code>',
      '<b>Time Zone:</b> Europe/Riga',
      '<b>Total Pings:</b> 2',
      expect.stringMatching(/^<b>Last Ping:<\/b> Failure, /),
    ]);
    expect(doc.text).toContain('\n\n<b>Last Ping Body:</b>\n<pre>rc=1 &lt;oops&gt; &amp; &quot;done&quot;</pre>');
    const upText: string = jsonOf(up).text;
    expect(upText.split('\n')[0]).toBe('🟢 The check “backup &quot;nightly&quot; &lt;db&gt; &amp; co” is now <b>UP</b>.');
    expect(upText.split('\n')[1]).toMatch(/^The downtime lasted \d+ seconds?\.$/);
    expect(upText).not.toContain('Last Ping Body');
  });

  it('a topic of a forum group; a long body cut to 1000 characters', async () => {
    const c = await channel(h, 'telegram', '{"id": 1002, "thread_id": 55}');
    const { down } = await downThenUp(h, c.id, '/tg/', {}, 'b'.repeat(1500));
    expect(jsonOf(down).message_thread_id).toBe(55);
    expect(jsonOf(down).text).toContain(`<pre>${'b'.repeat(1000)}\n[truncated]</pre>`);
  });

  it('follows a group that became a supergroup, and stores the new id', async () => {
    const c = await channel(h, 'telegram', JSON.stringify({ id: OLD_GROUP, type: 'group', name: 'Ops', thread_id: null }));
    const check = await makeCheck(h, { name: 'migrating', channels: c.id });
    const before = h.rx.on('/tg/').length;
    await goDown(h.d.url, check.uuid);
    await h.rx.waitFor('/tg/', before + 2);
    await h.d.daemon.notifier.idle();
    const sent = texts('/tg/').slice(before);
    expect(sent.map((d) => d.chat_id)).toEqual([OLD_GROUP, SUPERGROUP]);
    expect(deliveryStatus(h, c.id)).toMatchObject({ state: 'ok', error: '' });
    expect(JSON.parse(h.d.daemon.store.getChannel(c.id)!.value)).toEqual({ id: SUPERGROUP, type: 'group', name: 'Ops', thread_id: null });
    await ping(h.d.url, check.uuid);
    await h.rx.waitFor('/tg/', before + 3);
    await h.d.daemon.notifier.idle();
    expect(texts('/tg/').slice(before + 2).map((d) => d.chat_id)).toEqual([SUPERGROUP]);
  });

  it('final: a chat that is gone for the bot (blocked, kicked, not found) and a wrong token', async () => {
    const c = await channel(h, 'telegram', '{"id": 1003}');
    await expectPermanent(
      h,
      c.id,
      '/tg/',
      { status: 403, json: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } },
      'Received status code 403 with a message: "Forbidden: bot was blocked by the user"',
    );
    await expectPermanent(
      h,
      c.id,
      '/tg/',
      { status: 400, json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } },
      'Received status code 400 with a message: "Bad Request: chat not found"',
    );
    await expectPermanent(h, c.id, '/tg/', { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } }, 'Received status code 401 with a message: "Unauthorized"');
  });

  it('retried: another 400 or 403 (rights a person can grant), a 5xx, and a 429 after its retry_after', async () => {
    // A chat per scenario: each takes several messages, and a chat gets 6 a minute.
    const c = await channel(h, 'telegram', '{"id": 1004}');
    await expectTransient(
      h,
      c.id,
      '/tg/',
      [{ status: 403, json: { ok: false, error_code: 403, description: 'Forbidden: bot is not a member of the channel chat' } }],
      'Received status code 403 with a message: "Forbidden: bot is not a member of the channel chat"',
    );
    const c2 = await channel(h, 'telegram', '{"id": 1006}');
    await expectTransient(
      h,
      c2.id,
      '/tg/',
      [{ status: 400, json: { ok: false, error_code: 400, description: 'Bad Request: not enough rights to send text messages to the chat' } }, { status: 502, text: 'Bad Gateway' }],
      /^Received status code (400 with a message: "Bad Request: not enough rights to send text messages to the chat"|502)$/,
    );
    const c3 = await channel(h, 'telegram', '{"id": 1007}');
    const sent = await expectTransient(
      h,
      c3.id,
      '/tg/',
      [{ status: 429, json: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } } }],
      'Received status code 429 with a message: "Too Many Requests: retry after 1"',
    );
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('at most 6 messages a minute to one chat: the 7th waits, unsent; no bot token: not enabled', async () => {
    const c = await channel(h, 'telegram', '{"id": 1005}');
    const settings = { ...NOTIFY_DEFAULTS, timeoutMs: 5000, integrations: { ...INTEGRATION_DEFAULTS, telegramBotToken: TOKEN, apiUrls: { ...INTEGRATION_DEFAULTS.apiUrls, telegram: `${h.rx.url}/tg` } } };
    const throttle = new Throttle();
    const now = Date.now();
    const n = testNotification(c, 'p', now, 'http://checkd.test');
    const before = h.rx.on('/tg/').length;
    for (let i = 0; i < 6; i++) expect(await deliver(c, n, settings, undefined, { throttle, now: now + i })).toEqual({ ok: true });
    expect(await deliver(c, n, settings, undefined, { throttle, now: now + 6 })).toEqual({
      ok: false,
      permanent: false,
      error: 'Rate limit exceeded (checkd sends at most 6 messages a minute to one Telegram chat)',
      retryAfterMs: expect.any(Number),
    });
    const wait = ((await deliver(c, n, settings, undefined, { throttle, now: now + 6 })) as { retryAfterMs: number }).retryAfterMs;
    expect(wait).toBeGreaterThan(9000);
    expect(wait).toBeLessThanOrEqual(10_000);
    expect(h.rx.on('/tg/').length - before).toBe(6);
    expect(await deliver(c, n, settings, undefined, { throttle, now: now + 6 + wait })).toEqual({ ok: true });

    const off = { ...settings, integrations: { ...settings.integrations, telegramBotToken: null } };
    expect(await deliver(c, n, off, undefined, { throttle: new Throttle() })).toEqual({ ok: false, permanent: true, error: 'Telegram notifications are not enabled.' });
    expect(h.rx.on('/tg/').length - before).toBe(7);
  });
});
