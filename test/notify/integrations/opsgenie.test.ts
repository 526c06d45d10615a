// opsgenie: create an alert with the check's unique key as alias on down,
// close it by alias on up; the EU region's own API; which failures are retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness, type ServiceRequest } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { uniqueKeyOf } from '../../../daemon/domain/ids.js';
import { parseOpsgenieValue } from '../../../daemon/domain/integrations/opsgenie.js';

let h: Harness;

function problems(req: ServiceRequest): string[] {
  if (!/^GenieKey \S+$/.test(String(req.headers.authorization))) return ['auth'];
  const close = /^\/(us|eu)\/v2\/alerts\/([^/]+)\/close$/.exec(req.path);
  if (req.method !== 'POST' || (!close && !/^\/(us|eu)\/v2\/alerts$/.test(req.path))) return [`no route ${req.method} ${req.path}`];
  if (close) return req.query.get('identifierType') === 'alias' ? jsonProblems(req, {}) : ['identifierType'];
  const p = jsonProblems(req, { message: 'string', alias: 'string', tags: 'array', details: 'object', source: 'string' });
  if (p.length === 0 && jsonOf(req).message.length > 130) p.push('message: must be at most 130 characters');
  for (const v of Object.values(p.length === 0 ? jsonOf(req).details : {})) if (typeof v !== 'string') p.push('details: values must be strings');
  return p;
}

setupSuite(async () => {
  const model = (req: ServiceRequest) =>
    problems(req)[0] === 'auth'
      ? { status: 401, json: { message: 'Could not authenticate', took: 0, requestId: 'r' } }
      : checking(problems, { status: 202, json: { result: 'Request will be processed', took: 0.1, requestId: 'r1' } }, (p) => ({
          status: 422,
          json: { message: p.join('; '), took: 0, requestId: 'r' },
        }))(req);
  h = await startHarness(model, (rx) => ({
    apiUrls: { telegram: rx.url, pagerduty: rx.url, opsgenie: `${rx.url}/us`, opsgenieEu: `${rx.url}/eu`, pushover: rx.url },
  }));
});

describe('opsgenie', () => {
  it('value: {"key", "region"}, or the bare key of a US account', () => {
    expect(parseOpsgenieValue('{"key": " abc-123 ", "region": "eu"}')).toEqual({ key: 'abc-123', region: 'eu' });
    expect(parseOpsgenieValue('abc-123')).toEqual({ key: 'abc-123', region: 'us' });
    expect(parseOpsgenieValue('{"key": "abc"}')).toEqual({ key: 'abc', region: 'us' });
    expect(validateChannel('opsgenie', '{"key": "abc", "region": "apac"}')).toMatchObject({ ok: false, error: expect.stringMatching(/"us" or "eu"/) });
    expect(validateChannel('opsgenie', `{"key": "${'k'.repeat(41)}"}`)).toMatchObject({ ok: false, error: expect.stringMatching(/at most 40/) });
    expect(validateChannel('opsgenie', '{"key": ""}')).toMatchObject({ ok: false });
  });

  it('down creates an alert by alias, up closes it by alias', async () => {
    const c = await channel(h, 'opsgenie', '{"key": "gk-1", "region": "us"}');
    const { uuid, down, up } = await downThenUp(h, c.id, '/us/', { schedule: '0 3 * * *', tz: 'UTC' });
    const alias = uniqueKeyOf(uuid);
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/us/v2/alerts');
    expect(down.headers.authorization).toBe('GenieKey gk-1');
    expect(down.headers['content-type']).toBe('application/json');
    expect(jsonOf(down)).toEqual({
      message: 'The check &quot;backup &quot;nightly&quot; &lt;db&gt; &amp; co&quot; is DOWN (received a failure signal).',
      alias,
      description: 'Nightly *backup*',
      tags: ['prod', 'db'],
      details: {
        Project: 'Ops & "core"',
        'Total pings': '2',
        'Last ping': expect.stringMatching(/^Failure, /),
        Schedule: '0 3 * * *',
        'Time zone': 'UTC',
      },
      source: 'checkd',
    });
    expect(up.method).toBe('POST');
    expect(up.url).toBe(`/us/v2/alerts/${alias}/close?identifierType=alias`);
    expect(up.headers.authorization).toBe('GenieKey gk-1');
    const close = jsonOf(up);
    expect(close.source).toBe('checkd');
    expect(close.note).toMatch(/^The check "backup "nightly" <db> & co" is UP\. The downtime lasted \d+ seconds?\.$/);
  });

  it('an EU account goes to the EU API; a long name is cut to the 130 characters of a message', async () => {
    const c = await channel(h, 'opsgenie', '{"key": "gk-eu", "region": "eu"}');
    const { down, up } = await downThenUp(h, c.id, '/eu/', { name: 'n'.repeat(100) });
    expect(down.path).toBe('/eu/v2/alerts');
    expect(jsonOf(down).message).toHaveLength(130);
    expect(jsonOf(down).message).toBe(`The check &quot;${'n'.repeat(100)}&quot; is DOW…`);
    expect(up.path).toMatch(/^\/eu\/v2\/alerts\/[0-9a-f]{40}\/close$/);
  });

  it('a 4xx (a key Opsgenie does not know) is final; 429 and 5xx are retried', async () => {
    const c = await channel(h, 'opsgenie', 'gk-3');
    await expectPermanent(h, c.id, '/us/', { status: 401, json: { message: 'Could not authenticate', took: 0, requestId: 'r' } }, 'Received status code 401 with a message: "Could not authenticate"');
    await expectTransient(
      h,
      c.id,
      '/us/',
      [{ status: 429, json: { message: 'You are making too many requests! To avoid errors, we recommend you limit requests.', took: 0 } }, { status: 503, text: 'busy' }],
      /^Received status code (429 with a message: "You are making too many requests! To avoid errors, we recommend you limit requests\."|503)$/,
    );
  });
});
