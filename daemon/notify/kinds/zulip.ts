// Zulip (`zulip`): "Send a message" (POST /api/v1/messages) as a bot, to a
// stream topic or as a direct message. The bot's e-mail and API key, the
// server and the destination are the value. Zulip allows 200 requests a
// minute per user by default.
import type { ZulipConf } from '../../domain/integrations/zulip.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonBody, jsonString, member, rateLimited, readAnswer } from './answer.js';
import { formCall, joinUrl } from './calls.js';
import { causeSuffix, checkName, cut, downtimeLine, statusWord } from './facts.js';
import type { KindModule } from './kind.js';

/** Zulip's default longest topic. */
const MAX_TOPIC = 60;
export const ZULIP_LIMIT = { capacity: 200, windowMs: 60_000 };

/** Markdown: what happened, and the check's description under a rule. */
export function zulipContent(n: Notification): string {
  const head = `**${checkName(n)}** is **${statusWord(n)}**${n.event === 'down' ? causeSuffix(n) : ''}.`;
  const parts = [head];
  const downtime = downtimeLine(n);
  if (downtime) parts.push(downtime);
  if (n.check.desc !== '') parts.push(`---\n**Description**\n\n${n.check.desc}`);
  return parts.join('\n\n');
}

export function zulipCall(conf: ZulipConf, n: Notification): HttpCall {
  const fields: Record<string, string> = {
    type: conf.mtype,
    // A direct message to a user id goes as a JSON list of ids.
    to: conf.mtype === 'private' && /^\d+$/.test(conf.to) ? `[${conf.to}]` : conf.to,
    content: zulipContent(n),
  };
  if (conf.mtype === 'stream') fields.topic = cut(conf.topic !== '' ? conf.topic : `${checkName(n)} is ${statusWord(n)}`, MAX_TOPIC);
  const auth = 'Basic ' + Buffer.from(`${conf.botEmail}:${conf.apiKey}`, 'utf8').toString('base64');
  return formCall(joinUrl(conf.site, '/api/v1/messages'), fields, { Authorization: auth });
}

/** Zulip's RATE_LIMIT_HIT body carries "retry-after" in seconds. */
function zulipRetryAfter(_status: number, body: string): number | undefined {
  const v = member(jsonBody(body), 'retry-after');
  return typeof v === 'number' && v >= 0 ? Math.ceil(v * 1000) : undefined;
}

export const zulip: KindModule<'zulip'> = {
  kind: 'zulip',
  async deliver(conf, n, ctx) {
    const wait = ctx.throttle.take(`zulip:${conf.site} ${conf.botEmail}`, ZULIP_LIMIT, ctx.now);
    if (wait > 0) return rateLimited(wait, 'Zulip takes 200 requests a minute per user');
    const res = await ctx.http(zulipCall(conf, n));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'msg'), retryAfterMs: zulipRetryAfter });
  },
};
