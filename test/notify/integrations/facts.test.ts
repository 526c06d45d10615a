// The pure parts the service kinds share: the message ingredients of
// spec/integrations.md §0.2 (cause, relative times, the body excerpt, the
// other checks), escaping within a length, reading an answer, and the
// rate-limit buckets.
import { describe, expect, it } from 'vitest';
import { newCheck } from '../../../daemon/domain/check-input.js';
import type { Notification } from '../../../daemon/notify/message.js';
import { bodyExcerpt, causePhrase, downtimeLine, escapedWithin, lastPingSummary, naturalTime, othersSection } from '../../../daemon/notify/kinds/facts.js';
import { readAnswer, retryAfterHeader } from '../../../daemon/notify/kinds/answer.js';
import { Throttle } from '../../../daemon/notify/throttle.js';
import { telegramText } from '../../../daemon/notify/kinds/telegram.js';
import { poMessage } from '../../../daemon/notify/kinds/po.js';
import { spikePayload } from '../../../daemon/notify/kinds/spike.js';
import { victoropsPayload } from '../../../daemon/notify/kinds/victorops.js';
import { msteamswCard } from '../../../daemon/notify/kinds/msteamsw.js';
import { pdEvent } from '../../../daemon/notify/kinds/pd.js';
import { INTEGRATION_DEFAULTS } from '../../../daemon/config/integrations.js';

const FLIP = Date.UTC(2024, 4, 1, 11, 10, 0);

function notification(over: Partial<Notification> = {}): Notification {
  const check = newCheck({ uuid: '11111111-2222-4333-8444-555555555555', badgeKey: 'b', projectId: 'p', createdAt: 0 });
  check.name = 'nightly';
  return {
    event: 'down',
    check,
    flip: { created: FLIP, oldStatus: 'up', newStatus: 'down', reason: 'timeout', processed: false },
    lastPing: null,
    downtimeMs: null,
    projectName: 'proj',
    checkJson: '{}',
    test: false,
    deliveryId: '00000000-0000-4000-8000-000000000001',
    sentAt: FLIP,
    ...over,
  };
}

describe('message ingredients', () => {
  it("the cause of a down event, the alert policies' included; none for up", () => {
    expect(causePhrase(notification())).toBe('success signal did not arrive on time, grace time passed');
    expect(causePhrase(notification({ flip: { created: FLIP, oldStatus: 'up', newStatus: 'down', reason: 'fail', processed: false } }))).toBe('received a failure signal');
    expect(causePhrase(notification({ event: 'up' }))).toBeNull();
    const overran = notification({ flip: { created: FLIP, oldStatus: 'up', newStatus: 'down', reason: 'duration', processed: false } });
    overran.check.maxDuration = 5400;
    expect(causePhrase(overran)).toBe('the run took too long: it ran longer than 1h 30m');
    const tolerated = { created: FLIP, oldStatus: 'up', newStatus: 'down', reason: 'fail', failures: 3, processed: false } as const;
    expect(causePhrase(notification({ flip: tolerated }))).toBe('received a failure signal: 3 consecutive failures');
    expect(causePhrase(notification({ test: true }))).toBe('a test notification sent by checkd channel test');
  });

  it('a reminder and a released hold: their number, time down and hold after the cause', () => {
    const fail = { created: FLIP, oldStatus: 'up', newStatus: 'down', reason: 'fail', processed: false } as const;
    const reminder = notification({ flip: fail, policy: { reminder: 3, downSince: FLIP, remindedAt: FLIP + 3 * 3600_000 } });
    expect(causePhrase(reminder)).toBe('received a failure signal; reminder 3, down for 3h 0m');
    const muted = notification({ policy: { released: 'mute', downSince: FLIP } });
    expect(causePhrase(muted)).toBe('success signal did not arrive on time, grace time passed; held while muted, down since 2024-05-01T11:10:00+00:00');
    const parent = notification({ policy: { released: 'dependency', parentName: 'db', downSince: FLIP } });
    expect(causePhrase(parent)).toBe('success signal did not arrive on time, grace time passed; held while "db" was down, down since 2024-05-01T11:10:00+00:00');
    const up = { created: FLIP + 600_000, oldStatus: 'down', newStatus: 'up', reason: '', processed: false } as const;
    expect(downtimeLine(notification({ event: 'up', flip: up, downtimeMs: 600_000 }))).toBe('The downtime lasted 10 minutes.');
    expect(downtimeLine(notification({ event: 'up', flip: up, downtimeMs: 600_000, policy: { released: 'maintenance', downSince: FLIP } }))).toBe(
      'The downtime lasted 10 minutes. Up again since 2024-05-01T11:20:00+00:00: this notification was held during maintenance.',
    );
    expect(causePhrase(notification({ event: 'up', flip: up, policy: { released: 'maintenance' } }))).toBeNull();
  });

  it("an up event held by a policy says so in Spike's, Splunk On-Call's and Teams' messages; only then", () => {
    const up = { created: FLIP + 600_000, oldStatus: 'down', newStatus: 'up', reason: '', processed: false } as const;
    const held = notification({ event: 'up', flip: up, downtimeMs: 600_000, policy: { released: 'mute', downSince: FLIP } });
    const plain = notification({ event: 'up', flip: up, downtimeMs: 600_000 });
    const sentence = 'Up again since 2024-05-01T11:20:00+00:00: this notification was held while muted.';
    expect(spikePayload(held).message).toBe(`nightly is UP.\n${sentence}`);
    expect(spikePayload(plain).message).toBe('nightly is UP.');
    expect(victoropsPayload(held, INTEGRATION_DEFAULTS).state_message).toBe(`nightly is UP. ${sentence}`);
    expect(victoropsPayload(plain, INTEGRATION_DEFAULTS).state_message).toBe('nightly is UP.');
    const texts = (card: Record<string, unknown>) => (card.body as Array<{ type: string; text?: string }>).filter((b) => b.type === 'TextBlock').map((b) => b.text);
    expect(texts(msteamswCard(held))).toEqual(['🟢 “nightly” is UP.', sentence]);
    expect(texts(msteamswCard(plain))).toEqual(['🟢 “nightly” is UP.']);
    // PagerDuty's resolve carries no text at all (Events API v2): nothing to say it in.
    expect(pdEvent('key', held, INTEGRATION_DEFAULTS)).toEqual(pdEvent('key', plain, INTEGRATION_DEFAULTS));
  });

  it('relative times in words', () => {
    expect(naturalTime(0)).toBe('just now');
    expect(naturalTime(1000)).toBe('a second ago');
    expect(naturalTime(42_000)).toBe('42 seconds ago');
    expect(naturalTime(90_000)).toBe('a minute ago');
    expect(naturalTime(10 * 60_000)).toBe('10 minutes ago');
    expect(naturalTime(3600_000 + 5)).toBe('an hour ago');
    expect(naturalTime(5 * 3600_000)).toBe('5 hours ago');
    expect(naturalTime(26 * 3600_000)).toBe('1 day 2 hours ago');
  });

  it('the last ping: its kind and how long ago, at send time; Never', () => {
    expect(lastPingSummary(notification())).toBe('Never');
    const lastPing = { n: 3, kind: 'fail' as const, date: FLIP - 600_000, remoteAddr: null, exitStatus: 2, body: '' };
    expect(lastPingSummary(notification({ lastPing, sentAt: FLIP }))).toBe('Exit status 2, 10 minutes ago');
    expect(lastPingSummary(notification({ lastPing: { ...lastPing, kind: 'ign', exitStatus: 1 }, sentAt: FLIP + 3000_000 }))).toBe('Ignored, an hour ago');
  });

  it('the body: none when empty; its first 1000 characters and a [truncated] line when longer', () => {
    const ping = (body: string) => ({ n: 1, kind: 'success' as const, date: 0, remoteAddr: null, exitStatus: null, body });
    expect(bodyExcerpt(notification())).toBeNull();
    expect(bodyExcerpt(notification({ lastPing: ping('') }))).toBeNull();
    expect(bodyExcerpt(notification({ lastPing: ping('x'.repeat(1000)) }))).toBe('x'.repeat(1000));
    expect(bodyExcerpt(notification({ lastPing: ping('x'.repeat(1001)) }))).toBe('x'.repeat(1000) + '\n[truncated]');
  });

  it('the other checks: none, all up, up to 10 listed, more counted; "still" for up events', () => {
    expect(othersSection(notification())).toBeNull();
    expect(othersSection(notification({ others: { total: 0, down: [] } }))).toBeNull();
    expect(othersSection(notification({ others: { total: 3, down: [] } }))).toEqual({ kind: 'all-up', text: 'All the other checks are up.' });
    const down = [
      { name: 'a', lastPing: FLIP - 7200_000 },
      { name: 'b', lastPing: null },
    ];
    expect(othersSection(notification({ others: { total: 5, down } }))).toEqual({
      kind: 'list',
      heading: 'The following checks are also down:',
      items: [
        { name: 'a', lastPing: '2 hours ago' },
        { name: 'b', lastPing: 'never' },
      ],
    });
    expect(othersSection(notification({ event: 'up', others: { total: 5, down } }))).toMatchObject({ heading: 'The following checks are still down:' });
    const many = Array.from({ length: 11 }, (_, i) => ({ name: `c${i}`, lastPing: null }));
    expect(othersSection(notification({ others: { total: 20, down: many } }))).toEqual({ kind: 'count', text: '11 other checks are also down.' });
  });

  it('escaping within a length never splits an entity', () => {
    expect(escapedWithin('a & b', 130)).toBe('a &amp; b');
    expect(escapedWithin('&&&&&&', 12)).toBe('&amp;&amp;…');
    expect(escapedWithin('"x" is down', 10)).toBe('&quot;x…');
  });

  it('long messages fit the services: Telegram 4096 characters, Pushover 1024', () => {
    const lastPing = { n: 1, kind: 'fail' as const, date: FLIP, remoteAddr: null, exitStatus: null, body: '<'.repeat(5000) };
    const many = Array.from({ length: 10 }, (_, i) => ({ name: `${'long name '.repeat(9)}${i}`, lastPing: null }));
    const n = notification({ lastPing, others: { total: 10, down: many } });
    const text = telegramText(n);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain('<b>Last Ping Body:</b>');
    expect(text).toContain('The following checks are also down:');
    const po = poMessage(notification({ others: { total: 10, down: many } }));
    expect(po.length).toBeLessThanOrEqual(1024);
    expect(po).toContain('<b>Last Ping:</b>');
  });
});

describe('reading an answer', () => {
  const res = (status: number, body = '', headers: Record<string, string> = {}) => ({ ok: true as const, status, body, headers: new Headers(headers) });
  it('200, 201, 202 and 204 succeed; a 4xx other than 408 and 429 is final; the rest retried', () => {
    for (const s of [200, 201, 202, 204]) expect(readAnswer(res(s), 0)).toEqual({ ok: true });
    expect(readAnswer(res(203), 0)).toEqual({ ok: false, error: 'Received status code 203', permanent: false });
    expect(readAnswer(res(404), 0)).toEqual({ ok: false, error: 'Received status code 404', permanent: true });
    expect(readAnswer(res(408), 0)).toMatchObject({ permanent: false });
    expect(readAnswer(res(429, '', { 'Retry-After': '7' }), 0)).toEqual({ ok: false, error: 'Received status code 429', permanent: false, retryAfterMs: 7000 });
    expect(readAnswer({ ok: false, error: 'Connection failed', permanent: false }, 0)).toEqual({ ok: false, error: 'Connection failed', permanent: false });
  });

  it("the service's message, on one line and cut", () => {
    const r = readAnswer(res(500, 'x'), 0, { message: () => 'line one\nline two ' + 'z'.repeat(300) });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/^Received status code 500 with a message: "line one line two z+…"$/);
      expect(r.error.length).toBeLessThan(260);
    }
  });

  it('Retry-After as seconds or a date', () => {
    expect(retryAfterHeader(new Headers({ 'Retry-After': '1.5' }), 0)).toBe(1500);
    expect(retryAfterHeader(new Headers({ 'Retry-After': new Date(60_000).toUTCString() }), 0)).toBe(60_000);
    expect(retryAfterHeader(new Headers({ 'Retry-After': 'soon' }), 0)).toBeUndefined();
    expect(retryAfterHeader(new Headers(), 0)).toBeUndefined();
  });
});

describe('rate-limit buckets', () => {
  it('a burst of the capacity, then one per window/capacity; keys apart', () => {
    const t = new Throttle();
    const limit = { capacity: 3, windowMs: 30_000 };
    expect([t.take('a', limit, 0), t.take('a', limit, 0), t.take('a', limit, 0)]).toEqual([0, 0, 0]);
    expect(t.take('a', limit, 0)).toBe(10_000);
    expect(t.take('b', limit, 0)).toBe(0);
    expect(t.take('a', limit, 5000)).toBe(5000);
    expect(t.take('a', limit, 10_000)).toBe(0);
    expect(t.take('a', limit, 10_000)).toBe(10_000);
    expect([t.take('a', limit, 100_000), t.take('a', limit, 100_000), t.take('a', limit, 100_000), t.take('a', limit, 100_000)]).toEqual([0, 0, 0, 10_000]);
  });
});
