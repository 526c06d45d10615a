// googlechat: a card to a space's webhook, down and up; HTML escaped; no
// check UUID; 60 messages a minute per space; which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { deliver } from '../../../daemon/notify/transports.js';
import { testNotification } from '../../../daemon/notify/notifier.js';
import { Throttle } from '../../../daemon/notify/throttle.js';
import { NOTIFY_DEFAULTS } from '../../../daemon/config/notify.js';

let h: Harness;

setupSuite(async () => {
  // Chat answers with the created message; a webhook without its key and token is refused.
  const model = checking(
    (req) => {
      const p = jsonProblems(req, { cardsV2: 'array', 'cardsV2.0.card.sections': 'array', 'cardsV2.0.card.sections.0.widgets': 'array' });
      if (!req.query.get('key') || !req.query.get('token')) p.push('missing key or token');
      return p;
    },
    { status: 200, json: { name: 'spaces/AAA/messages/BBB' } },
    (problems) => ({ status: 400, json: { error: { code: 400, message: problems.join('; '), status: 'INVALID_ARGUMENT' } } }),
  );
  h = await startHarness(model);
});

describe('googlechat', () => {
  it('value: the space webhook URL', () => {
    expect(validateChannel('googlechat', 'https://chat.googleapis.com/v1/spaces/AAA/messages?key=k&token=t')).toMatchObject({ ok: true });
    expect(validateChannel('googlechat', 'spaces/AAA')).toMatchObject({ ok: false });
  });

  it('down and up: a card with a paragraph and the facts as decorated texts', async () => {
    const c = await channel(h, 'googlechat', `${h.rx.url}/v1/spaces/S1/messages?key=k1&token=t1`);
    const { uuid, down, up } = await downThenUp(h, c.id, '/v1/spaces/S1/', { tags: 'a b' });
    expect(down.method).toBe('POST');
    expect(down.url).toBe('/v1/spaces/S1/messages?key=k1&token=t1');
    expect(down.headers['content-type']).toBe('application/json');
    expect(down.body).not.toContain(uuid);
    const doc = jsonOf(down);
    expect(doc.cardsV2).toHaveLength(1);
    const section = doc.cardsV2[0].card.sections[0];
    expect(section).toMatchObject({ collapsible: true, uncollapsibleWidgetsCount: 1 });
    expect(section.widgets[0].textParagraph.text).toBe(
      '🔴 The check <b>backup &quot;nightly&quot; &lt;db&gt; &amp; co</b> is <b>DOWN</b>.<br>Reason: received a failure signal.',
    );
    const facts = Object.fromEntries(section.widgets.slice(1).map((w: any) => [w.decoratedText.topLabel, w.decoratedText.text]));
    expect(facts).toEqual({
      Project: 'Ops &amp; &quot;core&quot;',
      Tags: 'a, b',
      Period: '1 day',
      'Total Pings': '2',
      'Last Ping': expect.stringMatching(/^Failure, /),
    });
    const upText = jsonOf(up).cardsV2[0].card.sections[0].widgets[0].textParagraph.text;
    expect(upText).toMatch(/^🟢 The check <b>backup &quot;nightly&quot; &lt;db&gt; &amp; co<\/b> is now <b>UP<\/b>\.<br>The downtime lasted \d+ seconds?\.$/);
  });

  it('a 4xx is not retried, a 429 or 5xx is', async () => {
    const c = await channel(h, 'googlechat', `${h.rx.url}/v1/spaces/S2/messages?key=k&token=t`);
    await expectPermanent(
      h,
      c.id,
      '/v1/spaces/S2/',
      { status: 403, json: { error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' } } },
      'Received status code 403 with a message: "The caller does not have permission"',
    );
    await expectTransient(
      h,
      c.id,
      '/v1/spaces/S2/',
      [{ status: 429, json: { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } } }, { status: 500 }],
      /^Received status code (429 with a message: "Resource has been exhausted"|500)$/,
    );
  });

  it('sends at most 60 messages a minute to one space; the next waits for the bucket, unsent', async () => {
    const c = await channel(h, 'googlechat', `${h.rx.url}/v1/spaces/S3/messages?key=k&token=t`);
    const other = await channel(h, 'googlechat', `${h.rx.url}/v1/spaces/S4/messages?key=k&token=t`);
    const throttle = new Throttle();
    const now = Date.now();
    const n = testNotification(c, 'p', now, 'http://checkd.test');
    const settings = { ...NOTIFY_DEFAULTS, timeoutMs: 5000 };
    for (let i = 0; i < 60; i++) expect(await deliver(c, n, settings, undefined, { throttle, now })).toEqual({ ok: true });
    const over = await deliver(c, n, settings, undefined, { throttle, now });
    expect(over).toMatchObject({ ok: false, permanent: false, error: 'Rate limit exceeded (Google Chat takes 60 messages a minute per space)', retryAfterMs: 1000 });
    expect(h.rx.on('/v1/spaces/S3/')).toHaveLength(60);
    // Another space has its own budget; a second later there is one more message for the first.
    expect(await deliver(other, n, settings, undefined, { throttle, now })).toEqual({ ok: true });
    expect(await deliver(c, n, settings, undefined, { throttle, now: now + 1000 })).toEqual({ ok: true });
    expect(h.rx.on('/v1/spaces/S3/')).toHaveLength(61);
  });
});
