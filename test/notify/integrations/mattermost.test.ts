// mattermost: Slack's attachment format to an incoming webhook, down and up,
// the ping body cut or left out, and which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';

let h: Harness;

setupSuite(async () => {
  // Mattermost answers "ok"; a body it cannot read gets 400 with its error id.
  const model = checking(
    (req) => (req.method !== 'POST' ? ['not POST'] : jsonProblems(req, { attachments: 'array', username: 'string' })),
    { status: 200, text: 'ok', headers: { 'Content-Type': 'text/plain' } },
    (problems) => ({ status: 400, json: { id: 'web.incoming_webhook.parse.app_error', message: problems.join('; '), status_code: 400 } }),
  );
  h = await startHarness(model, () => ({ siteName: 'Acme Cron', siteLogoUrl: 'https://acme.example/logo.png' }));
});

const fieldsOf = (doc: any) => Object.fromEntries(doc.attachments[0].fields.map((f: { title: string; value: string }) => [f.title, f.value]));

describe('mattermost', () => {
  it('value: the incoming-webhook URL, or the Slack-app JSON', () => {
    expect(validateChannel('mattermost', ' https://chat.example/hooks/abc ')).toEqual({ ok: true, value: 'https://chat.example/hooks/abc' });
    expect(validateChannel('mattermost', '{"incoming_webhook": {"url": "https://chat.example/hooks/abc"}}')).toMatchObject({ ok: true });
    expect(validateChannel('mattermost', 'chat.example/hooks/abc')).toMatchObject({ ok: false, error: expect.stringMatching(/http\(s\) URL/) });
    expect(validateChannel('mattermost', '{"url": "https://x.example"}')).toMatchObject({ ok: false, error: expect.stringMatching(/unknown member "url"/) });
  });

  it('down and up: POST of one red or green attachment with the facts as fields', async () => {
    const c = await channel(h, 'mattermost', `${h.rx.url}/hooks/mm1`);
    const { down, up } = await downThenUp(h, c.id, '/hooks/mm1', {}, 'dump "done"\nexit 1');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/hooks/mm1');
    expect(down.headers['content-type']).toBe('application/json');
    expect(down.headers['user-agent']).toBe('checkd');
    const doc = jsonOf(down);
    expect(doc).toMatchObject({ username: 'Acme Cron', icon_url: 'https://acme.example/logo.png' });
    expect(doc.attachments).toHaveLength(1);
    expect(doc.attachments[0]).toMatchObject({
      color: 'danger',
      fallback: 'The check "backup "nightly" <db> & co" is DOWN.',
      title: '“backup "nightly" <db> & co” is DOWN.',
      text: 'Reason: received a failure signal.',
      mrkdwn_in: ['fields'],
    });
    expect(fieldsOf(doc)).toMatchObject({
      Description: 'Nightly *backup*',
      Project: 'Ops & "core"',
      Tags: '`prod` `db`',
      Period: '1 day',
      'Total Pings': '2',
      'Last Ping': expect.stringMatching(/^Failure, (just now|an? \w+ ago|\d+ \w+ ago)$/),
      'Last Ping Body': '```\ndump "done"\nexit 1\n```',
    });
    expect(doc.attachments[0].fields.find((f: { title: string }) => f.title === 'Description').short).toBe(false);
    expect(doc.attachments[0].fields.find((f: { title: string }) => f.title === 'Project').short).toBe(true);

    const upDoc = jsonOf(up);
    expect(upDoc.attachments[0]).toMatchObject({ color: 'good', title: '“backup "nightly" <db> & co” is UP.' });
    expect(upDoc.attachments[0].text).toMatch(/^The downtime lasted \d+ seconds?\.$/);
    expect(fieldsOf(upDoc)['Last Ping']).toMatch(/^Success, /);
  });

  it('a cron schedule keeps its stars; a long body is cut to 1000 characters; one with a fence is left out', async () => {
    const c = await channel(h, 'mattermost', `${h.rx.url}/hooks/mm2`);
    const long = 'x'.repeat(999) + 'YZ' + 'w'.repeat(500);
    const { down } = await downThenUp(h, c.id, '/hooks/mm2', { schedule: '*/5 * * * *', tz: 'Europe/Riga' }, long);
    const f = fieldsOf(jsonOf(down));
    expect(f.Schedule).toBe('\u034f*/5 \u034f* \u034f* \u034f* \u034f*');
    expect(f['Time Zone']).toBe('Europe/Riga');
    expect(f.Period).toBeUndefined();
    expect(f['Last Ping Body']).toBe('```\n' + 'x'.repeat(999) + 'Y\n[truncated]\n```');

    const fenced = await downThenUp(h, c.id, '/hooks/mm2', {}, 'before ``` after');
    expect(fieldsOf(jsonOf(fenced.down))['Last Ping Body']).toBeUndefined();
  });

  it('a 400 (a hook that does not exist) is not retried; 404 neither', async () => {
    const c = await channel(h, 'mattermost', `${h.rx.url}/hooks/mm3`);
    await expectPermanent(h, c.id, '/hooks/mm3', { status: 400, json: { message: 'Invalid webhook.' } }, 'Received status code 400 with a message: "Invalid webhook."');
    await expectPermanent(h, c.id, '/hooks/mm3', { status: 404, text: 'Not Found' }, 'Received status code 404');
  });

  it('a 5xx is retried; a 429 waits as long as Retry-After says', async () => {
    const c = await channel(h, 'mattermost', `${h.rx.url}/hooks/mm4`);
    await expectTransient(h, c.id, '/hooks/mm4', [{ status: 502 }], 'Received status code 502');
    const sent = await expectTransient(
      h,
      c.id,
      '/hooks/mm4',
      [{ status: 429, json: { message: 'too many' }, headers: { 'Retry-After': '1' } }],
      'Received status code 429 with a message: "too many"',
    );
    expect(sent[1]!.at - sent[0]!.at).toBeGreaterThanOrEqual(950);
  });
});
