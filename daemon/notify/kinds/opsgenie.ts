// Opsgenie (`opsgenie`): the Alert API ("Create alert", "Close alert").
// Down creates an alert whose alias is the check's unique key (Opsgenie folds
// a create with an open alias into that alert); up closes the alert by alias.
// The API key and its region (US or EU) are the channel's value.
import type { OpsgenieConf } from '../../domain/integrations/opsgenie.js';
import type { IntegrationSettings } from '../../config/integrations.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { causeSuffix, checkName, cut, dedupKey, downtimeLine, escapedWithin, lastPingSummary, scheduleFacts, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

// Opsgenie "Create alert": message 130 characters, source 100, 20 tags of 50.
const MAX_MESSAGE = 130;
const MAX_SOURCE = 100;
const MAX_TAGS = 20;
const MAX_TAG = 50;

function alertsUrl(conf: OpsgenieConf, settings: IntegrationSettings): string {
  return joinUrl(conf.region === 'eu' ? settings.apiUrls.opsgenieEu : settings.apiUrls.opsgenie, '/v2/alerts');
}

export function opsgenieCreate(n: Notification, settings: IntegrationSettings): Record<string, unknown> {
  const c = n.check;
  const details: Record<string, string> = {
    Project: n.projectName,
    'Total pings': String(c.nPings),
    'Last ping': lastPingSummary(n),
  };
  for (const [label, value] of scheduleFacts(c)) details[label === 'Time Zone' ? 'Time zone' : label] = value;
  return {
    message: escapedWithin(`The check "${checkName(n)}" is DOWN${causeSuffix(n)}.`, MAX_MESSAGE),
    alias: dedupKey(n),
    ...(c.desc !== '' ? { description: c.desc } : {}),
    tags: tagsOf(c)
      .slice(0, MAX_TAGS)
      .map((t) => cut(t, MAX_TAG)),
    details,
    source: cut(settings.siteName, MAX_SOURCE),
  };
}

export function opsgenieCall(conf: OpsgenieConf, n: Notification, settings: IntegrationSettings): HttpCall {
  const headers = { Authorization: `GenieKey ${conf.key}` };
  if (n.event === 'down') return jsonCall('POST', alertsUrl(conf, settings), opsgenieCreate(n, settings), headers);
  const downtime = downtimeLine(n);
  const close = {
    source: cut(settings.siteName, MAX_SOURCE),
    note: `The check "${checkName(n)}" is UP.` + (downtime ? ` ${downtime}` : ''),
  };
  return jsonCall('POST', `${alertsUrl(conf, settings)}/${dedupKey(n)}/close?identifierType=alias`, close, headers);
}

export const opsgenie: KindModule<'opsgenie'> = {
  kind: 'opsgenie',
  async deliver(conf, n, ctx) {
    const res = await ctx.http(opsgenieCall(conf, n, ctx.settings));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'message') });
  },
};
