// po (Pushover): a form to the Message API as the daemon's application; a
// priority per event (-3 off); emergency priority repeats, and up cancels it
// by tag first; which answers are final; 6 messages a minute per user key.
import { describe, expect, it } from 'vitest';
import { setupSuite } from '../../helpers/cleanup.js';
import { ping } from '../../helpers/http.js';
import { goDown } from '../support.js';
import { channel, deliveryStatus, downThenUp, expectPermanent, formOf, makeCheck, startHarness, waitForState, type Harness, type ServiceRequest } from './receiver.js';
import { validateChannel } from '../../../daemon/domain/channel-kinds.js';
import { uniqueKeyOf } from '../../../daemon/domain/ids.js';
import { parsePoValue } from '../../../daemon/domain/integrations/po.js';
import { deliver } from '../../../daemon/notify/transports.js';
import { testNotification } from '../../../daemon/notify/notifier.js';
import { Throttle } from '../../../daemon/notify/throttle.js';
import { NOTIFY_DEFAULTS } from '../../../daemon/config/notify.js';
import { INTEGRATION_DEFAULTS } from '../../../daemon/config/integrations.js';

const APP = 'azGDORePK8gMaC0QOYAMyEEuzJnyUi';
const USER = 'uQiRzpo4DXghDmr9QzzfQu27cmVRsG';
const USER2 = 'gznej3rKEVAvPUxu9vvNnqpmZpokzF';
let h: Harness;

/** The Message API and cancel_by_tag as pushover.net/api documents them. */
function model(req: ServiceRequest) {
  const f = formOf(req);
  if (req.method !== 'POST' || req.headers['content-type'] !== 'application/x-www-form-urlencoded') return { status: 400, json: { errors: ['bad request'], status: 0 } };
  if (f.get('token') !== APP) return { status: 400, json: { token: 'invalid', errors: ['application token is invalid'], status: 0, request: 'r' } };
  if (/^\/po\/1\/receipts\/cancel_by_tag\/[^/]+\.json$/.test(req.path)) return { status: 200, json: { status: 1, request: 'r', canceled: 1 } };
  if (req.path !== '/po/1/messages.json') return { status: 404, json: { errors: ['not found'], status: 0 } };
  if (![USER, USER2].includes(f.get('user') ?? '')) {
    return { status: 400, json: { user: 'invalid', errors: ['user identifier is not a valid user, group, or subscribed user key'], status: 0, request: 'r' } };
  }
  const errors: string[] = [];
  if (!f.get('message') || f.get('message')!.length > 1024) errors.push('message cannot be blank or over 1024 characters');
  if ((f.get('title') ?? '').length > 250) errors.push('title is too long');
  const prio = Number(f.get('priority') ?? '0');
  if (prio === 2 && (Number(f.get('retry')) < 30 || Number(f.get('expire')) > 10800 || !f.get('retry') || !f.get('expire'))) errors.push('retry and expire are required');
  if (errors.length > 0) return { status: 400, json: { errors, status: 0, request: 'r' } };
  return { status: 200, json: { status: 1, request: 'r', ...(prio === 2 ? { receipt: 'rcpt' } : {}) } };
}

setupSuite(async () => {
  h = await startHarness(model, (rx) => ({ pushoverAppToken: APP, apiUrls: { ...INTEGRATION_DEFAULTS.apiUrls, pushover: `${rx.url}/po` } }));
});

describe('po', () => {
  it('value: <user key>|<down priority>|<up priority>, or <key>|<priority>', () => {
    expect(parsePoValue(`${USER}|0|-1`)).toEqual({ userKey: USER, priority: 0, priorityUp: -1 });
    expect(parsePoValue(`${USER}|2`)).toEqual({ userKey: USER, priority: 2, priorityUp: 2 });
    expect(validateChannel('po', `${USER}|3|0`)).toMatchObject({ ok: false, error: expect.stringMatching(/-3 \(off\) to 2/) });
    expect(validateChannel('po', `${USER}|-3|-3`)).toMatchObject({ ok: false, error: expect.stringMatching(/both priorities are -3/) });
    expect(validateChannel('po', `not a key|0|0`)).toMatchObject({ ok: false, error: expect.stringMatching(/<user key>/) });
    expect(validateChannel('po', USER)).toMatchObject({ ok: false });
  });

  it('down and up: a form with the HTML message, the priority and the check\'s tag', async () => {
    const c = await channel(h, 'po', `${USER}|1|-1`);
    const { uuid, down, up } = await downThenUp(h, c.id, '/po/', { tags: 'prod <db>' }, 'the body is not sent');
    expect(down.method).toBe('POST');
    expect(down.path).toBe('/po/1/messages.json');
    const f = formOf(down);
    expect(f.get('token')).toBe(APP);
    expect(f.get('user')).toBe(USER);
    expect(f.get('title')).toBe('🔴 backup "nightly" <db> & co is DOWN');
    expect(f.get('html')).toBe('1');
    expect(f.get('priority')).toBe('1');
    expect(f.get('tags')).toBe(uniqueKeyOf(uuid));
    expect(Number(f.get('timestamp'))).toBeGreaterThan(1.6e9);
    expect(f.has('retry')).toBe(false);
    expect(f.has('expire')).toBe(false);
    expect(f.get('message')!.split('\n')).toEqual([
      'Reason: received a failure signal.',
      '',
      '<b>Project:</b> Ops &amp; &quot;core&quot;',
      '<b>Tags:</b> prod, &lt;db&gt;',
      '<b>Period:</b> 1 day',
      '<b>Total Pings:</b> 2',
      expect.stringMatching(/^<b>Last Ping:<\/b> Failure, /),
    ]); // the project's only check: no other checks to list
    expect(f.get('message')).not.toContain('the body is not sent');
    const u = formOf(up);
    expect(u.get('title')).toBe('🟢 backup "nightly" <db> & co is UP');
    expect(u.get('priority')).toBe('-1');
    expect(u.get('message')).toMatch(/^The downtime lasted \d+ seconds?\.\n\n<b>Project:<\/b>/);
  });

  it('emergency: retry and expire on down; up cancels the emergency by tag, then tells', async () => {
    const c = await channel(h, 'po', `${USER}|2|0`);
    const { uuid, downs, ups } = await downThenUp(h, c.id, '/po/');
    expect(downs).toHaveLength(1);
    expect(formOf(downs[0]!).get('priority')).toBe('2');
    expect(formOf(downs[0]!).get('retry')).toBe('300');
    expect(formOf(downs[0]!).get('expire')).toBe('10800');
    expect(ups.map((r) => r.path)).toEqual([`/po/1/receipts/cancel_by_tag/${uniqueKeyOf(uuid)}.json`, '/po/1/messages.json']);
    expect(Object.fromEntries(formOf(ups[0]!))).toEqual({ token: APP });
    expect(formOf(ups[1]!).get('priority')).toBe('0');
  });

  it('priority -3 makes that event a no-op', async () => {
    const c = await channel(h, 'po', `${USER2}|0|-3`);
    const check = await makeCheck(h, { name: 'quiet up', channels: c.id });
    const before = h.rx.on('/po/').length;
    await goDown(h.d.url, check.uuid);
    await h.rx.waitFor('/po/', before + 1);
    await ping(h.d.url, check.uuid);
    await h.d.daemon.notifier.idle();
    expect(h.rx.on('/po/').length - before).toBe(1);
    expect(deliveryStatus(h, c.id)).toMatchObject({ event: 'down' });
  });

  it('final: an invalid user key, and any other 400', async () => {
    const c = await channel(h, 'po', 'unknownUserKey0000000000000000|0|0');
    await expectPermanent(h, c.id, '/po/', { status: 400, json: { user: 'invalid', errors: ['user identifier is not a valid user, group, or subscribed user key'], status: 0 } }, 'Received status code 400 (invalid user)');
    const d = await channel(h, 'po', `${USER2}|0|0`);
    await expectPermanent(h, d.id, '/po/', { status: 400, json: { errors: ['message cannot be blank'], status: 0 } }, 'Received status code 400 with a message: "message cannot be blank"');
  });

  it('retried at least 5 s apart: a 5xx; a failed cancel holds the up message back until it is done', async () => {
    const c = await channel(h, 'po', `${USER2}|2|0`);
    const check = await makeCheck(h, { name: 'emergency', channels: c.id });
    const before = h.rx.on('/po/').length;
    h.rx.queue('/po/1/messages.json', { status: 500, text: 'oops' });
    await goDown(h.d.url, check.uuid);
    await h.rx.waitFor('/po/', before + 1);
    await waitForState(h, c.id, 'retrying');
    expect(deliveryStatus(h, c.id)!.error).toBe('Received status code 500');
    await waitForState(h, c.id, 'ok');
    const downs = h.rx.on('/po/').slice(before);
    expect(downs).toHaveLength(2);
    expect(downs[1]!.at - downs[0]!.at).toBeGreaterThanOrEqual(4900);

    h.rx.queue('/po/1/receipts/', { status: 503 });
    await ping(h.d.url, check.uuid);
    await h.rx.waitFor('/po/', before + 3);
    await waitForState(h, c.id, 'retrying');
    expect(deliveryStatus(h, c.id)!.error).toBe('Cancelling the emergency failed: Received status code 503');
    expect(h.rx.on('/po/').slice(before + 2).map((r) => r.path)).toEqual([`/po/1/receipts/cancel_by_tag/${uniqueKeyOf(check.uuid)}.json`]);
    await waitForState(h, c.id, 'ok');
    expect(h.rx.on('/po/').slice(before + 3).map((r) => r.path)).toEqual([`/po/1/receipts/cancel_by_tag/${uniqueKeyOf(check.uuid)}.json`, '/po/1/messages.json']);
  }, 30_000);

  it('at most 6 messages a minute to one user key; without the app token: not enabled', async () => {
    const c = await channel(h, 'po', `${USER2}|0|0`);
    const settings = { ...NOTIFY_DEFAULTS, timeoutMs: 5000, integrations: { ...INTEGRATION_DEFAULTS, pushoverAppToken: APP, apiUrls: { ...INTEGRATION_DEFAULTS.apiUrls, pushover: `${h.rx.url}/po` } } };
    const throttle = new Throttle();
    const now = Date.now();
    const n = testNotification(c, 'p', now, 'http://checkd.test');
    const before = h.rx.on('/po/').length;
    for (let i = 0; i < 6; i++) expect(await deliver(c, n, settings, undefined, { throttle, now })).toEqual({ ok: true });
    expect(await deliver(c, n, settings, undefined, { throttle, now })).toMatchObject({
      ok: false,
      permanent: false,
      error: 'Rate limit exceeded (checkd sends at most 6 messages a minute to one Pushover user)',
      retryAfterMs: 10_000,
    });
    expect(h.rx.on('/po/').length - before).toBe(6);
    const off = { ...settings, integrations: { ...settings.integrations, pushoverAppToken: null } };
    expect(await deliver(c, n, off, undefined, { throttle: new Throttle() })).toEqual({ ok: false, permanent: true, error: 'Pushover notifications are not enabled.' });
    expect(h.rx.on('/po/').length - before).toBe(6);
  });
});
