// Gotify (`gotify`): a message to a Gotify server's application ("Gotify REST
// API", POST /message). Markdown text, a priority per event, 0 turning that
// event off. Server URL, application token and priorities are the value.
import type { GotifyConf } from '../../domain/integrations/gotify.js';
import type { NotifyEventName } from '../../domain/channel-values.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { causeSuffix, checkName, downtimeLine, othersSection, statusWord } from './facts.js';
import type { KindModule } from './kind.js';

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

export const gotify: KindModule<'gotify'> = {
  kind: 'gotify',
  listsOtherChecks: true,
  async deliver(conf, n, ctx) {
    const res = await ctx.http(gotifyCall(conf, n));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'errorDescription') ?? jsonString(body, 'error') });
  },
};
