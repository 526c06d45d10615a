// msteamsw: one Adaptive Card to a Teams Workflows webhook, down and up; HTML
// escaped where Teams reads it; no check UUID; which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';

let h: Harness;

setupSuite(async () => {
  // A Workflows trigger takes a message with Adaptive Card attachments and answers 202.
  const model = checking(
    (req) => {
      const p = jsonProblems(req, { type: 'string', attachments: 'array', 'attachments.0.contentType': 'string', 'attachments.0.content.body': 'array' });
      if (p.length > 0) return p;
      const a = jsonOf(req).attachments[0];
      if (a.contentType !== 'application/vnd.microsoft.card.adaptive') p.push('not an Adaptive Card');
      if (a.content.type !== 'AdaptiveCard') p.push('content.type is not AdaptiveCard');
      return p;
    },
    { status: 202, text: '' },
    (problems) => ({ status: 400, json: { error: { code: 'InvalidRequestContent', message: problems.join('; ') } } }),
  );
  h = await startHarness(model);
});

describe('msteamsw', () => {
  it('value: the Workflows webhook URL', () => {
    expect(validateChannel('msteamsw', 'https://prod-00.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=x')).toMatchObject({ ok: true });
    expect(validateChannel('msteamsw', '')).toMatchObject({ ok: false });
  });

  it('down and up: a message with one Adaptive Card: heading, facts, the last ping body', async () => {
    const c = await channel(h, 'msteamsw', `${h.rx.url}/workflows/t1/triggers/manual/paths/invoke?sig=abc`);
    const { uuid, down, up } = await downThenUp(h, c.id, '/workflows/t1/', { desc: 'line one\nline two', schedule: '*/5 * * * *', tz: 'UTC' }, 'oops');
    expect(down.method).toBe('POST');
    expect(down.url).toBe('/workflows/t1/triggers/manual/paths/invoke?sig=abc');
    expect(down.headers['content-type']).toBe('application/json');
    expect(down.body).not.toContain(uuid);
    const doc = jsonOf(down);
    expect(doc.type).toBe('message');
    expect(doc.attachments).toHaveLength(1);
    expect(doc.attachments[0]).toMatchObject({ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null });
    const card = doc.attachments[0].content;
    expect(card).toMatchObject({ type: 'AdaptiveCard', version: '1.2', $schema: 'http://adaptivecards.io/schemas/adaptive-card.json' });
    expect(card.fallbackText).toBe('“backup &quot;nightly&quot; &lt;db&gt; &amp; co” is DOWN.');
    expect(card.body[0]).toMatchObject({
      type: 'TextBlock',
      text: '🔴 “backup &quot;nightly&quot; &lt;db&gt; &amp; co” is DOWN (received a failure signal).',
      weight: 'Bolder',
      size: 'Medium',
      wrap: true,
      style: 'heading',
    });
    expect(card.body[1].type).toBe('FactSet');
    const facts = Object.fromEntries(card.body[1].facts.map((f: { title: string; value: string }) => [f.title, f.value]));
    expect(facts).toMatchObject({
      'Description:': 'line one\n\nline two',
      'Project:': 'Ops & "core"',
      'Tags:': 'prod db',
      'Schedule:': '\u034f*/5 \u034f* \u034f* \u034f* \u034f*',
      'Time Zone:': 'UTC',
      'Total Pings:': '2',
      'Last Ping:': expect.stringMatching(/^Failure, /),
    });
    expect(card.body[2]).toMatchObject({ type: 'TextBlock', text: 'Last Ping Body:', weight: 'Bolder' });
    expect(card.body[3]).toEqual({ type: 'CodeBlock', codeSnippet: 'oops', language: 'PlainText' });

    const upCard = jsonOf(up).attachments[0].content;
    expect(upCard.body[0].text).toBe('🟢 “backup &quot;nightly&quot; &lt;db&gt; &amp; co” is UP.');
    expect(upCard.fallbackText).toBe('“backup &quot;nightly&quot; &lt;db&gt; &amp; co” is UP.');
    expect(upCard.body).toHaveLength(2); // the up ping has no body
  });

  it('a 4xx is not retried, a 5xx is', async () => {
    const c = await channel(h, 'msteamsw', `${h.rx.url}/workflows/t2/invoke`);
    await expectPermanent(
      h,
      c.id,
      '/workflows/t2/',
      { status: 400, json: { error: { code: 'TriggerInputSchemaMismatch', message: 'The input body does not match.' } } },
      'Received status code 400 with a message: "The input body does not match."',
    );
    await expectTransient(h, c.id, '/workflows/t2/', [{ status: 503 }], 'Received status code 503');
  });
});
