// Zulip (`zulip`): "Send a message" (POST /api/v1/messages) as a bot, to a
// stream topic or as a direct message. The bot's e-mail and API key, the
// server and the destination are the value. Zulip allows 200 requests a
// minute per user by default.
import { isHttpUrl, onlyKeys, parseJsonObject, str, ValueError } from '../../domain/value-rules.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../transports.js';
import { jsonBody, jsonString, member, rateLimited, readAnswer } from './answer.js';
import { formCall, joinUrl } from './calls.js';
import { causeSuffix, checkName, cut, downtimeLine, statusWord } from './facts.js';
import type { KindModule } from './kind.js';

const KIND = 'zulip';
const EMAIL_RE = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const MAX_FIELD = 100;
/** Zulip's default longest topic. */
const MAX_TOPIC = 60;
export const ZULIP_LIMIT = { capacity: 200, windowMs: 60_000 };

export interface ZulipConf {
  botEmail: string;
  apiKey: string;
  mtype: 'stream' | 'private';
  to: string;
  site: string;
  /** "" for the default: "<name> is DOWN". */
  topic: string;
}

function field(doc: Record<string, unknown>, key: string, max: number, required: boolean): string {
  const v = str(KIND, doc, key, '').trim();
  if (required && v === '') throw new ValueError(`--value for a zulip channel: "${key}" is required`);
  if (v.length > max) throw new ValueError(`--value for a zulip channel: "${key}" is longer than ${max} characters`);
  return v;
}

export function parseZulipValue(value: string): ZulipConf {
  const doc = parseJsonObject(KIND, value);
  onlyKeys(KIND, doc, ['bot_email', 'api_key', 'mtype', 'to', 'site', 'topic']);
  const botEmail = field(doc, 'bot_email', MAX_FIELD, true);
  if (!EMAIL_RE.test(botEmail)) throw new ValueError(`--value for a zulip channel: "bot_email" must be the bot's e-mail address, got "${botEmail}"`);
  const apiKey = field(doc, 'api_key', 50, true);
  if (/\s/.test(apiKey)) throw new ValueError('--value for a zulip channel: "api_key" has no spaces');
  const mtype = str(KIND, doc, 'mtype', '');
  if (mtype !== 'stream' && mtype !== 'private') throw new ValueError('--value for a zulip channel: "mtype" must be "stream" or "private"');
  const to = field(doc, 'to', MAX_FIELD, true);
  // Upstream's rule: no site means the host of the bot's address.
  let site = field(doc, 'site', MAX_FIELD, false);
  if (site === '') site = `https://${botEmail.split('@')[1]}`;
  if (!isHttpUrl(site)) throw new ValueError(`--value for a zulip channel: "site" must be the http(s) URL of the server, got "${site}"`);
  return { botEmail, apiKey, mtype, to, site, topic: field(doc, 'topic', MAX_FIELD, false) };
}

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

export const zulip: KindModule = {
  kind: KIND,
  parse(value) {
    const conf = parseZulipValue(value);
    return {
      isNoop: () => false,
      async deliver(n, ctx) {
        const wait = ctx.throttle.take(`zulip:${conf.site} ${conf.botEmail}`, ZULIP_LIMIT, ctx.now);
        if (wait > 0) return rateLimited(wait, 'Zulip takes 200 requests a minute per user');
        const res = await ctx.http(zulipCall(conf, n));
        return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'msg'), retryAfterMs: zulipRetryAfter });
      },
    };
  },
};
