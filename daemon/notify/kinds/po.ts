// Pushover (`po`): the Message API as the daemon's application
// (--pushover-app-token) to the user or group key of the channel's value,
// with a priority per event (-3 turning it off). Emergency priority (2)
// repeats until acknowledged; the up event first cancels the down's
// emergency by its tag (the check's unique key, "Receipts and Callbacks
// API"). checkd sends at most 6 messages a minute to one user key.
import { createHash } from 'node:crypto';
import { PO_EMERGENCY, type PoConf } from '../../domain/integrations/po.js';
import type { NotifyEventName } from '../../domain/channel-values.js';
import type { IntegrationSettings } from '../../config/integrations.js';
import { html, type Notification } from '../message.js';
import type { DeliveryResult, HttpCall } from '../delivery.js';
import { jsonBody, member, notEnabled, rateLimited, readAnswer } from './answer.js';
import { formCall, joinUrl } from './calls.js';
import { causePhrase, checkName, cut, dedupKey, downtimeLine, lastPingSummary, othersSection, scheduleFacts, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

// Pushover "Message API": title 250 characters, message 1024.
const MAX_TITLE = 250;
const MAX_MESSAGE = 1024;
/** Pushover asks clients to wait at least 5 seconds after a 5xx or a network error. */
const MIN_RETRY_MS = 5000;
export const PUSHOVER_LIMIT = { capacity: 6, windowMs: 60_000 };

function eventPriority(conf: PoConf, event: NotifyEventName): number {
  return event === 'down' ? conf.priority : conf.priorityUp;
}

function render(n: Notification, withOthers: boolean): string {
  const lines: string[] = [];
  const cause = causePhrase(n);
  const downtime = downtimeLine(n);
  if (cause) lines.push(html(`Reason: ${cause}.`));
  else if (downtime) lines.push(html(downtime));
  if (lines.length > 0) lines.push('');
  const c = n.check;
  lines.push(`<b>Project:</b> ${html(n.projectName)}`);
  const tags = tagsOf(c);
  if (tags.length > 0) lines.push(`<b>Tags:</b> ${html(tags.join(', '))}`);
  for (const [label, value] of scheduleFacts(c)) lines.push(`<b>${label}:</b> ${label === 'Schedule' ? `<code>${html(value)}</code>` : html(value)}`);
  lines.push(`<b>Total Pings:</b> ${c.nPings}`, `<b>Last Ping:</b> ${html(lastPingSummary(n))}`);
  const others = withOthers ? othersSection(n) : null;
  if (others?.kind === 'list') lines.push('', html(others.heading), ...others.items.map((i) => `<b>${html(i.name)}</b> (last ping: ${html(i.lastPing)})`));
  else if (others) lines.push('', html(others.text));
  return lines.join('\n');
}

/** The HTML message in Pushover's 1024 characters: without the other checks if need be, then cut at a line. */
export function poMessage(n: Notification): string {
  let text = render(n, true);
  if (text.length > MAX_MESSAGE) text = render(n, false);
  if (text.length > MAX_MESSAGE) {
    const lastLine = text.lastIndexOf('\n', MAX_MESSAGE);
    text = lastLine > 0 ? text.slice(0, lastLine) : cut(text, MAX_MESSAGE);
  }
  return text;
}

export function poMessageCall(conf: PoConf, n: Notification, settings: IntegrationSettings, token: string): HttpCall {
  const prio = eventPriority(conf, n.event);
  const fields: Record<string, string> = {
    token,
    user: conf.userKey,
    title: cut(`${n.event === 'down' ? '🔴' : '🟢'} ${checkName(n)} is ${n.event === 'down' ? 'DOWN' : 'UP'}`, MAX_TITLE),
    message: poMessage(n),
    html: '1',
    priority: String(prio),
    tags: dedupKey(n),
    timestamp: String(Math.floor(n.flip.created / 1000)),
  };
  if (prio === PO_EMERGENCY) {
    fields.retry = String(settings.pushoverEmergencyRetryS);
    fields.expire = String(settings.pushoverEmergencyExpireS);
  }
  return formCall(joinUrl(settings.apiUrls.pushover, '/1/messages.json'), fields);
}

export function poCancelCall(n: Notification, settings: IntegrationSettings, token: string): HttpCall {
  return formCall(joinUrl(settings.apiUrls.pushover, `/1/receipts/cancel_by_tag/${dedupKey(n)}.json`), { token });
}

function errors(body: string): string | null {
  const list = member(jsonBody(body), 'errors');
  return Array.isArray(list) && list.length > 0 ? list.map(String).join('; ') : null;
}

/** Pushover's answer: 4xx other than 429 final, "invalid user" named; retries at least 5 s apart. */
export function poAnswer(res: Parameters<typeof readAnswer>[0], now: number): DeliveryResult {
  if (res.ok && res.status === 400 && member(jsonBody(res.body), 'user') === 'invalid') {
    return { ok: false, error: 'Received status code 400 (invalid user)', permanent: true };
  }
  const r = readAnswer(res, now, { message: errors });
  if (r.ok || r.permanent) return r;
  return { ...r, retryAfterMs: Math.max(r.retryAfterMs ?? 0, MIN_RETRY_MS) };
}

/** The rate-limit bucket of a user key, named by a digest so that the key is not kept in memory. */
function bucket(userKey: string): string {
  return 'po:' + createHash('sha256').update(userKey).digest('hex').slice(0, 32);
}

export const po: KindModule<'po'> = {
  kind: 'po',
  listsOtherChecks: true,
  async deliver(conf, n, ctx) {
    const token = ctx.settings.pushoverAppToken;
    if (token === null) return notEnabled('Pushover');
    const wait = ctx.throttle.take(bucket(conf.userKey), PUSHOVER_LIMIT, ctx.now);
    if (wait > 0) return rateLimited(wait, 'checkd sends at most 6 messages a minute to one Pushover user');
    if (n.event === 'up' && conf.priority === PO_EMERGENCY) {
      // Stop the down's emergency from repeating. If that cannot be done now, the up message
      // waits for it (sent later with it); a cancel refused for good does not hold it back.
      const cancelled = poAnswer(await ctx.http(poCancelCall(n, ctx.settings, token)), ctx.now);
      if (!cancelled.ok && !cancelled.permanent) return { ...cancelled, error: `Cancelling the emergency failed: ${cancelled.error}` };
    }
    return poAnswer(await ctx.http(poMessageCall(conf, n, ctx.settings, token)), ctx.now);
  },
};
