// Opsgenie (`opsgenie`): the Alert API ("Create alert", "Close alert").
// Down creates an alert whose alias is the check's unique key (Opsgenie folds
// a create with an open alias into that alert); up closes the alert by alias.
// The API key and its region (US or EU) are the channel's value.
import { onlyKeys, parseJsonObject, str, ValueError } from '../../domain/value-rules.js';
import type { IntegrationSettings } from '../../config/integrations.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../transports.js';
import { jsonString, readAnswer } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { causeSuffix, checkName, cut, dedupKey, downtimeLine, escapedWithin, lastPingSummary, scheduleFacts, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

const KIND = 'opsgenie';
const MAX_KEY = 40;
// Opsgenie "Create alert": message 130 characters, source 100, 20 tags of 50.
const MAX_MESSAGE = 130;
const MAX_SOURCE = 100;
const MAX_TAGS = 20;
const MAX_TAG = 50;

export interface OpsgenieConf {
  key: string;
  region: 'us' | 'eu';
}

/** `{"key", "region": "us"|"eu"}`, or (upstream's older form) the bare key for the US region. */
export function parseOpsgenieValue(value: string): OpsgenieConf {
  let key = value;
  let region = 'us';
  if (value.startsWith('{')) {
    const doc = parseJsonObject(KIND, value);
    onlyKeys(KIND, doc, ['key', 'region']);
    key = str(KIND, doc, 'key', '').trim();
    region = str(KIND, doc, 'region', 'us');
  }
  if (!/^\S+$/.test(key) || key.length > MAX_KEY) {
    throw new ValueError(`--value for an opsgenie channel: "key" must be the API integration key (at most ${MAX_KEY} characters, no spaces)`);
  }
  if (region !== 'us' && region !== 'eu') throw new ValueError('--value for an opsgenie channel: "region" must be "us" or "eu"');
  return { key, region };
}

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

export const opsgenie: KindModule = {
  kind: KIND,
  parse(value) {
    const conf = parseOpsgenieValue(value);
    return {
      isNoop: () => false,
      async deliver(n, ctx) {
        const res = await ctx.http(opsgenieCall(conf, n, ctx.settings));
        return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'message') });
      },
    };
  },
};
