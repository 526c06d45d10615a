// pd (PagerDuty Events API v2): trigger on down and resolve on up with the
// check's unique key as dedup_key; a 400 is final; 403, 429 and 5xx retried.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { channel, checking, downThenUp, expectPermanent, expectTransient, jsonOf, jsonProblems, startHarness, type Harness } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { uniqueKeyOf } from '../../../daemon/domain/ids.js';
import { parsePdValue } from '../../../daemon/domain/integrations/pd.js';

const KEY = 'R0ut1ngKeyR0ut1ngKeyR0ut1ngKey32';
let h: Harness;

setupSuite(async () => {
  // The Events API v2 as documented: 202 for a valid event, 400 "invalid event" otherwise.
  const model = checking(
    (req) => {
      if (req.method !== 'POST' || req.path !== '/pd/v2/enqueue') return [`no route ${req.method} ${req.path}`];
      const p = jsonProblems(req, { routing_key: 'string', event_action: 'string', dedup_key: 'string' });
      if (p.length > 0) return p;
      const ev = jsonOf(req);
      if (ev.routing_key.length !== 32) p.push("Length of 'routing_key' is incorrect (should be 32 characters)");
      if (!['trigger', 'acknowledge', 'resolve'].includes(ev.event_action)) p.push("'event_action' is invalid");
      if (ev.dedup_key.length > 255) p.push("'dedup_key' is too long");
      if (ev.event_action === 'trigger') {
        p.push(...jsonProblems(req, { 'payload.summary': 'string', 'payload.source': 'string', 'payload.severity': 'string' }));
        if (!['critical', 'error', 'warning', 'info'].includes(ev.payload?.severity)) p.push("'payload.severity' is invalid");
        if ((ev.payload?.summary ?? '').length > 1024) p.push("'payload.summary' is too long");
      }
      return p;
    },
    { status: 202, json: { status: 'success', message: 'Event processed', dedup_key: 'x' } },
    (errors) => ({ status: 400, json: { status: 'invalid event', message: 'Event object is invalid', errors } }),
  );
  h = await startHarness(model, (rx) => ({ apiUrls: { ...INTEGRATION_API(rx.url) } }));
});

function INTEGRATION_API(base: string) {
  return { telegram: base, pagerduty: `${base}/pd`, opsgenie: base, opsgenieEu: base, pushover: base };
}

describe('pd', () => {
  it('value: the integration key, trimmed, or upstream\'s JSON with service_key', () => {
    expect(validateChannel('pd', `  ${KEY} `)).toEqual({ ok: true, value: KEY });
    expect(parsePdValue(JSON.stringify({ service_key: KEY, account: 'acme' }))).toBe(KEY);
    expect(validateChannel('pd', 'x'.repeat(33))).toMatchObject({ ok: false, error: expect.stringMatching(/integration key/) });
    expect(validateChannel('pd', 'two words')).toMatchObject({ ok: false });
    expect(validateChannel('pd', '{"service_key": ""}')).toMatchObject({ ok: false });
  });

  it('down triggers, up resolves, on the check\'s unique key; the name as written', async () => {
    const c = await channel(h, 'pd', KEY);
    const { uuid, down, up } = await downThenUp(h, c.id, '/pd/', { tags: 'prod db' });
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/pd/v2/enqueue');
    expect(down.headers['content-type']).toBe('application/json');
    const ev = jsonOf(down);
    expect(ev).toMatchObject({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: uniqueKeyOf(uuid),
      client: 'checkd',
      payload: {
        summary: 'backup "nightly" <db> & co is DOWN (received a failure signal).',
        source: 'backup "nightly" <db> & co',
        severity: 'critical',
        group: 'Ops & "core"',
        custom_details: {
          Project: 'Ops & "core"',
          'Total pings': 2,
          'Last ping': expect.stringMatching(/^Failure, /),
          Description: 'Nightly *backup*',
          Tags: 'prod, db',
          Period: '1 day',
        },
      },
    });
    expect(ev.payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(jsonOf(up)).toEqual({ routing_key: KEY, dedup_key: uniqueKeyOf(uuid), event_action: 'resolve' });
  });

  it('a cron check shows its schedule and time zone; a timeout says so', async () => {
    const c = await channel(h, 'pd', JSON.stringify({ service_key: KEY, account: 'acme' }));
    const { down } = await downThenUp(h, c.id, '/pd/', { schedule: '0 3 * * 1', tz: 'America/New_York', tags: '' });
    const details = jsonOf(down).payload.custom_details;
    expect(details).toMatchObject({ Schedule: '0 3 * * 1', 'Time zone': 'America/New_York' });
    expect(details.Period).toBeUndefined();
    expect(details.Tags).toBeUndefined();
  });

  it('a 400 (an event PagerDuty cannot take) is final', async () => {
    const c = await channel(h, 'pd', 'short-key');
    await expectPermanent(
      h,
      c.id,
      '/pd/',
      { status: 400, json: { status: 'invalid event', message: 'Event object is invalid', errors: ["Length of 'routing_key' is incorrect (should be 32 characters)"] } },
      `Received status code 400 with a message: "Event object is invalid: Length of 'routing_key' is incorrect (should be 32 characters)"`,
    );
  });

  it('403 (throttled), 429 and 5xx are retried', async () => {
    const c = await channel(h, 'pd', KEY);
    await expectTransient(h, c.id, '/pd/', [{ status: 429, text: '' }], 'Received status code 429');
    await expectTransient(
      h,
      c.id,
      '/pd/',
      [{ status: 403, json: { status: 'throttle exceeded', message: 'Requests for this service are arriving too quickly. Please retry later.' } }, { status: 500 }],
      /^Received status code (403 with a message: "Requests for this service are arriving too quickly\. Please retry later\."|500)$/,
    );
  });
});
