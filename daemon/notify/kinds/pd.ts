// PagerDuty (`pd`): the Events API v2 ("Send an Alert Event", PagerDuty
// developer docs). Down triggers an alert and up resolves it, the two tied by
// dedup_key, the check's unique key, so a reminder or a repeated down folds
// into the open incident. The integration key is the channel's value.
import { isoSeconds } from '../../domain/format.js';
import type { IntegrationSettings } from '../../config/integrations.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonBody, member, rateLimited, readAnswer } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { causeSuffix, checkName, cut, dedupKey, lastPingSummary, scheduleFacts, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

/** PagerDuty "Events API v2": summary at most 1024 characters. */
const MAX_SUMMARY = 1024;
/** Events per minute PagerDuty accepts per integration key. */
export const PD_LIMIT = { capacity: 120, windowMs: 60_000 };

/** The check's facts as PagerDuty shows them under the alert. */
export function pdDetails(n: Notification): Record<string, string | number> {
  const c = n.check;
  const details: Record<string, string | number> = {
    Project: n.projectName,
    'Total pings': c.nPings,
    'Last ping': lastPingSummary(n),
  };
  if (c.desc !== '') details.Description = c.desc;
  const tags = tagsOf(c);
  if (tags.length > 0) details.Tags = tags.join(', ');
  for (const [label, value] of scheduleFacts(c)) details[label === 'Time Zone' ? 'Time zone' : label] = value;
  return details;
}

export function pdEvent(routingKey: string, n: Notification, settings: IntegrationSettings): Record<string, unknown> {
  const base = { routing_key: routingKey, dedup_key: dedupKey(n) };
  if (n.event === 'up') return { ...base, event_action: 'resolve' };
  const name = checkName(n);
  return {
    ...base,
    event_action: 'trigger',
    payload: {
      summary: cut(`${name} is DOWN${causeSuffix(n)}.`, MAX_SUMMARY),
      source: cut(name, 255),
      severity: 'critical',
      timestamp: isoSeconds(n.flip.created),
      group: n.projectName,
      custom_details: pdDetails(n),
    },
    client: settings.siteName,
  };
}

export function pdCall(routingKey: string, n: Notification, settings: IntegrationSettings): HttpCall {
  return jsonCall('POST', joinUrl(settings.apiUrls.pagerduty, '/v2/enqueue'), pdEvent(routingKey, n, settings));
}

/** "Event object is invalid: Length of 'routing_key' is incorrect …" */
function pdMessage(body: string): string | null {
  const doc = jsonBody(body);
  const message = member(doc, 'message');
  if (typeof message !== 'string') return null;
  const errors = member(doc, 'errors');
  return Array.isArray(errors) && errors.length > 0 ? `${message}: ${errors.join('; ')}` : message;
}

export const pd: KindModule<'pd'> = {
  kind: 'pd',
  async deliver({ routingKey }, n, ctx) {
    const wait = ctx.throttle.take(`pd:${routingKey}`, PD_LIMIT, ctx.now);
    if (wait > 0) return rateLimited(wait, 'PagerDuty takes 120 events a minute per integration key');
    const res = await ctx.http(pdCall(routingKey, n, ctx.settings));
    // A 403 is how PagerDuty's events endpoint has said "throttled": try again later.
    return readAnswer(res, ctx.now, { message: pdMessage, permanent: (status) => (status === 403 ? false : undefined) });
  },
};
