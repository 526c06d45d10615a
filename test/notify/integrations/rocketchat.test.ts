// rocketchat: a text line and one coloured attachment to an incoming webhook;
// the ping body's size only; which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';

let h: Harness;

setupSuite(async () => {
  const model = checking(
    (req) => jsonProblems(req, { text: 'string', attachments: 'array', alias: 'string' }),
    { status: 200, json: { success: true } },
    (problems) => ({ status: 400, json: { success: false, error: problems.join('; ') } }),
  );
  h = await startHarness(model);
});

const fieldsOf = (doc: any) => Object.fromEntries(doc.attachments[0].fields.map((f: { title: string; value: string }) => [f.title, f.value]));

describe('rocketchat', () => {
  it('value: the incoming-webhook URL', () => {
    expect(validateChannel('rocketchat', 'https://chat.example/hooks/abc/def')).toMatchObject({ ok: true });
    expect(validateChannel('rocketchat', 'hooks/abc')).toMatchObject({ ok: false, error: expect.stringMatching(/rocketchat channel must be an http\(s\) URL/) });
  });

  it('down and up: text with the name as written, a red or green attachment, the body as a size', async () => {
    const c = await channel(h, 'rocketchat', `${h.rx.url}/hooks/rc1/token`);
    const { down, up } = await downThenUp(h, c.id, '/hooks/rc1/', { schedule: '0 2 * * *', tz: 'UTC' }, 'héllo');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/hooks/rc1/token');
    expect(down.headers['content-type']).toBe('application/json');
    const doc = jsonOf(down);
    expect(doc.alias).toBe('checkd');
    expect(doc.avatar).toBeUndefined(); // no --site-logo-url
    expect(doc.text).toBe('backup "nightly" <db> & co is DOWN (received a failure signal).');
    expect(doc.attachments[0].color).toBe('#d9534f');
    expect(fieldsOf(doc)).toMatchObject({
      Description: 'Nightly *backup*',
      Project: 'Ops & "core"',
      Tags: '`prod` `db`',
      Schedule: '0 2 \\* \\* \\*',
      'Time Zone': 'UTC',
      'Total Pings': '2',
      'Last Ping': expect.stringMatching(/^Failure, /),
      'Last Ping Body': '6 bytes',
    });
    const upDoc = jsonOf(up);
    expect(upDoc.text).toMatch(/^backup "nightly" <db> & co is UP\.\nThe downtime lasted \d+ seconds?\.$/);
    expect(upDoc.attachments[0].color).toBe('#5cb85c');
    expect(fieldsOf(upDoc)['Last Ping Body']).toBeUndefined();
  });

  it('a one-byte body says "1 byte"', async () => {
    const c = await channel(h, 'rocketchat', `${h.rx.url}/hooks/rc2/token`);
    const { down } = await downThenUp(h, c.id, '/hooks/rc2/', {}, 'x');
    expect(fieldsOf(jsonOf(down))['Last Ping Body']).toBe('1 byte');
  });

  it('a 4xx is not retried, a 5xx is', async () => {
    const c = await channel(h, 'rocketchat', `${h.rx.url}/hooks/rc3/token`);
    await expectPermanent(h, c.id, '/hooks/rc3/', { status: 404, json: { success: false, error: 'Invalid integration id or token provided.' } }, 'Received status code 404 with a message: "Invalid integration id or token provided."');
    await expectTransient(h, c.id, '/hooks/rc3/', [{ status: 500, text: 'oops' }], 'Received status code 500');
  });
});
