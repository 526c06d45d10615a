// Gotify (`gotify`): a message to a Gotify server's application ("Gotify REST
// API", POST /message). Markdown text, a priority per event, 0 turning that
// event off. Server URL, application token and priorities are the value.
import { int, isHttpUrl, MAX_URL_LENGTH, onlyKeys, parseJsonObject, str, ValueError } from '../../domain/value-rules.js';
import type { NotifyEventName } from '../../domain/channel-values.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../transports.js';
import { jsonString, readAnswer } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { causeSuffix, checkName, downtimeLine, othersSection, statusWord } from './facts.js';
import type { KindModule } from './kind.js';

const KIND = 'gotify';
const MAX_TOKEN = 100;

export interface GotifyConf {
  url: string;
  token: string;
  /** Null: not sent, the application's default applies; 0: the event is off. */
  priority: number | null;
  priorityUp: number | null;
}

function priority(doc: Record<string, unknown>, key: string): number | null {
  return doc[key] === undefined || doc[key] === null ? null : int(KIND, doc, key, 0, 0, 10);
}

export function parseGotifyValue(value: string): GotifyConf {
  const doc = parseJsonObject(KIND, value);
  onlyKeys(KIND, doc, ['url', 'token', 'priority', 'priority_up']);
  const url = str(KIND, doc, 'url', '').trim();
  if (!isHttpUrl(url) || url.length > MAX_URL_LENGTH) {
    throw new ValueError(`--value for a gotify channel: "url" must be the http(s) URL of the server, got "${url}"`);
  }
  const token = str(KIND, doc, 'token', '').trim();
  if (!/^\S+$/.test(token) || token.length > MAX_TOKEN) {
    throw new ValueError('--value for a gotify channel: "token" must be the application token (no spaces)');
  }
  const conf = { url, token, priority: priority(doc, 'priority'), priorityUp: priority(doc, 'priority_up') };
  if (conf.priority === 0 && conf.priorityUp === 0) throw new ValueError('--value for a gotify channel: "priority" and "priority_up" are both 0 (off)');
  return conf;
}

function eventPriority(conf: GotifyConf, event: NotifyEventName): number | null {
  return event === 'down' ? conf.priority : conf.priorityUp;
}

/** The Markdown text: what happened, then the project's other checks that are down. */
export function gotifyMessage(n: Notification): string {
  const name = checkName(n);
  const parts =
    n.event === 'down'
      ? [`🔴 The check "${name}" is **DOWN**${causeSuffix(n)}.`]
      : [`🟢 The check "${name}" is now **UP**.`, downtimeLine(n)];
  const others = othersSection(n);
  if (others?.kind === 'list') parts.push([others.heading, ...others.items.map((i) => `- ${i.name} (last ping: ${i.lastPing})`)].join('\n'));
  else if (others) parts.push(others.text);
  return parts.filter((p) => p !== null).join('\n\n');
}

export function gotifyCall(conf: GotifyConf, n: Notification): HttpCall {
  const prio = eventPriority(conf, n.event);
  return jsonCall('POST', joinUrl(conf.url, `message?token=${encodeURIComponent(conf.token)}`), {
    title: `${checkName(n)} is ${statusWord(n)}`,
    message: gotifyMessage(n),
    ...(prio !== null ? { priority: prio } : {}),
    extras: { 'client::display': { contentType: 'text/markdown' } },
  });
}

export const gotify: KindModule = {
  kind: KIND,
  listsOtherChecks: true,
  parse(value) {
    const conf = parseGotifyValue(value);
    return {
      isNoop: (event) => eventPriority(conf, event) === 0,
      async deliver(n, ctx) {
        const res = await ctx.http(gotifyCall(conf, n));
        return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'errorDescription') ?? jsonString(body, 'error') });
      },
    };
  },
};
