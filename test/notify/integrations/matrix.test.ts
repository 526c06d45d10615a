// matrix: an m.room.message event PUT as the daemon's account, plain and HTML
// bodies; one transaction id per delivery, kept across its retries; which
// answers are final; M_LIMIT_EXCEEDED's retry_after_ms.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness, type ServiceRequest } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { deliver } from '../../../daemon/notify/transports.js';
import { testNotification } from '../../../daemon/notify/notifier.js';
import { NOTIFY_DEFAULTS } from '../../../daemon/config/notify.js';

const TOKEN = 'syt_Y2hlY2tk_secret';
const ROUTE = /^\/hs\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/;
let h: Harness;
/** The homeserver's memory of transaction ids: a repeated one gets the same event, not a new message. */
const events = new Map<string, string>();

function model(req: ServiceRequest) {
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return { status: 401, json: { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token passed.' } };
  const m = ROUTE.exec(req.path);
  if (req.method !== 'PUT' || !m) return { status: 404, json: { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' } };
  return checking(
    (r) => {
      const p = jsonProblems(r, { msgtype: 'string', body: 'string', format: 'string', formatted_body: 'string' });
      if (p.length === 0 && jsonOf(r).msgtype !== 'm.text') p.push('msgtype');
      return p;
    },
    (() => {
      const key = `${m[1]} ${m[2]}`;
      if (!events.has(key)) events.set(key, `$event${events.size}`);
      return { status: 200, json: { event_id: events.get(key) } };
    })(),
    (p) => ({ status: 400, json: { errcode: 'M_BAD_JSON', error: p.join('; ') } }),
  )(req);
}

setupSuite(async () => {
  h = await startHarness(model, (rx) => ({ matrixHomeserver: `${rx.url}/hs`, matrixAccessToken: TOKEN }));
});

describe('matrix', () => {
  it('value: a room ID; an alias only through checkd channel create, which joins it', () => {
    expect(validateChannel('matrix', '!AbCdEf:matrix.example')).toEqual({ ok: true, value: '!AbCdEf:matrix.example' });
    expect(validateChannel('matrix', '#ops:matrix.example')).toMatchObject({ ok: false, error: expect.stringMatching(/is joined by checkd channel create/) });
    expect(validateChannel('matrix', 'ops')).toMatchObject({ ok: false, error: expect.stringMatching(/room ID like !abc:example\.org/) });
  });

  it('down and up: PUT of an m.text event with a plain and an HTML body', async () => {
    const c = await channel(h, 'matrix', '!room1:hs.example');
    const { down, up } = await downThenUp(h, c.id, '/hs/', { tags: 'prod <db>' }, 'exit <1>');
    const m = ROUTE.exec(down.path)!;
    expect(down.method).toBe('PUT');
    expect(decodeURIComponent(m[1]!)).toBe('!room1:hs.example');
    expect(down.url).toContain('/rooms/!room1%3Ahs.example/send/m.room.message/');
    expect(down.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(down.headers['content-type']).toBe('application/json');
    const doc = jsonOf(down);
    expect(doc.msgtype).toBe('m.text');
    expect(doc.format).toBe('org.matrix.custom.html');
    expect(doc.body).toBe('backup "nightly" <db> & co is DOWN (received a failure signal).');
    const lines = doc.formatted_body.split('\n');
    expect(lines.slice(0, 6)).toEqual([
      '🔴 <b>backup &quot;nightly&quot; &lt;db&gt; &amp; co</b> is <b>DOWN</b> (received a failure signal).<br>',
      '<br>',
      '<b>Project:</b> Ops &amp; &quot;core&quot;<br>',
      '<b>Tags:</b> <code>prod</code> <code>&lt;db&gt;</code><br>',
      '<b>Period:</b> 1 day<br>',
      '<b>Total Pings:</b> 2<br>',
    ]);
    expect(lines[6]).toMatch(/^<b>Last Ping:<\/b> Failure, .+<br>$/);
    expect(lines[7]).toBe('<b>Last Ping Body:</b><pre>exit &lt;1&gt;</pre>');
    const upDoc = jsonOf(up);
    expect(upDoc.body).toMatch(/^backup "nightly" <db> & co is now UP\. The downtime lasted \d+ seconds?\.$/);
    expect(upDoc.formatted_body.split('\n')[0]).toMatch(/^🟢 <b>backup &quot;nightly&quot; &lt;db&gt; &amp; co<\/b> is now <b>UP<\/b>\. The downtime lasted \d+ seconds?\.<br>$/);
    // Each notification is its own transaction.
    expect(ROUTE.exec(up.path)![2]).not.toBe(m[2]);
  });

  it('a retry is the same transaction, so the room gets the message once', async () => {
    const c = await channel(h, 'matrix', '!room2:hs.example');
    const sent = await expectTransient(h, c.id, '/hs/', [{ status: 502, text: 'Bad Gateway' }], 'Received status code 502');
    expect(sent[1]!.path).toBe(sent[0]!.path);
    const twice = [...events.keys()].filter((k) => k.startsWith(encodeURIComponent('!room2:hs.example')));
    expect(twice).toHaveLength(2); // the down (sent twice, one event) and the up
  });

  it('final: the account is not in the room (403); retried: 429 after retry_after_ms', async () => {
    const c = await channel(h, 'matrix', '!room3:hs.example');
    await expectPermanent(
      h,
      c.id,
      '/hs/',
      { status: 403, json: { errcode: 'M_FORBIDDEN', error: 'User @checkd:hs.example not in room !room3:hs.example' } },
      'Received status code 403 with a message: "M_FORBIDDEN: User @checkd:hs.example not in room !room3:hs.example"',
    );
    const sent = await expectTransient(
      h,
      c.id,
      '/hs/',
      [{ status: 429, json: { errcode: 'M_LIMIT_EXCEEDED', error: 'Too Many Requests', retry_after_ms: 700 } }],
      'Received status code 429 with a message: "M_LIMIT_EXCEEDED: Too Many Requests"',
    );
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(650);
  });

  it('without a homeserver and token: not enabled, nothing sent', async () => {
    const c = await channel(h, 'matrix', '!room4:hs.example');
    const n = testNotification(c, 'p', Date.now(), 'http://checkd.test');
    const before = h.rx.requests.length;
    expect(await deliver(c, n, { ...NOTIFY_DEFAULTS })).toEqual({ ok: false, permanent: true, error: 'Matrix notifications are not enabled.' });
    expect(h.rx.requests.length).toBe(before);
  });
});
