// Telegram (`telegram`): the Bot API's sendMessage as the daemon's bot
// (--telegram-bot-token), to the chat (and topic) of the channel's value. An
// HTML message per event. A group that became a supergroup is followed to
// its new chat id, which is then stored. checkd sends at most 6 messages a
// minute to one chat; Telegram's own 429 waits its retry_after.
import { movedTelegramValue, type TelegramConf } from '../../domain/integrations/telegram.js';
import { html, type Notification } from '../message.js';
import type { DeliveryResult, HttpCall } from '../delivery.js';
import { jsonBody, member, notEnabled, rateLimited, readAnswer } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { BODY_EXCERPT_CHARS, bodyExcerpt, causePhrase, checkName, downtimeLine, lastPingSummary, othersSection, scheduleFacts, tagsOf } from './facts.js';
import type { KindContext, KindModule } from './kind.js';

/** Bot API: a message's text is at most 4096 characters. */
const MAX_TEXT = 4096;
/** Upstream's limit per chat, below Telegram's 20 a minute to a group. */
export const TELEGRAM_LIMIT = { capacity: 6, windowMs: 60_000 };

/** Descriptions that mean the chat is gone for this bot: sending again cannot help. */
const GONE = new Set([
  'Forbidden: the group chat was deleted',
  'Forbidden: bot was blocked by the user',
  'Forbidden: user is deactivated',
  'Forbidden: bot was kicked from the group chat',
  'Forbidden: bot was kicked from the supergroup chat',
  'Bad Request: chat not found',
]);

function line(label: string, value: string): string {
  return `<b>${label}:</b> ${value}`;
}

/** The message's HTML, the body cut to `bodyChars` and the other checks listed or not. */
function render(n: Notification, bodyChars: number, withOthers: boolean): string {
  const name = html(checkName(n));
  const cause = causePhrase(n);
  const out: string[] = [];
  if (n.event === 'down') out.push(`🔴 The check “${name}” is <b>DOWN</b>${cause ? ` (${html(cause)})` : ''}.`);
  else {
    out.push(`🟢 The check “${name}” is now <b>UP</b>.`);
    const downtime = downtimeLine(n);
    if (downtime) out.push(html(downtime));
  }
  const c = n.check;
  out.push('', line('Project', html(n.projectName)));
  const tags = tagsOf(c);
  if (tags.length > 0) out.push(line('Tags', html(tags.join(', '))));
  for (const [label, value] of scheduleFacts(c)) out.push(line(label, label === 'Schedule' ? `<code>${html(value)}</code>` : html(value)));
  out.push(line('Total Pings', String(c.nPings)), line('Last Ping', html(lastPingSummary(n))));
  const body = bodyChars > 0 ? bodyExcerpt(n, bodyChars) : null;
  if (body !== null) out.push('', '<b>Last Ping Body:</b>', `<pre>${html(body)}</pre>`);
  const others = withOthers ? othersSection(n) : null;
  if (others?.kind === 'list') out.push('', html(others.heading), ...others.items.map((i) => `• ${html(i.name)} (last ping: ${html(i.lastPing)})`));
  else if (others) out.push('', html(others.text));
  return out.join('\n');
}

/** The message, made to fit Telegram's 4096 characters: the body shrinks first, then the list of other checks goes. */
export function telegramText(n: Notification): string {
  const full = render(n, BODY_EXCERPT_CHARS, true);
  if (full.length <= MAX_TEXT) return full;
  // The longest body excerpt that fits (its escaping makes the length hard to predict).
  let lo = 0;
  let hi = BODY_EXCERPT_CHARS - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (render(n, mid, true).length <= MAX_TEXT) lo = mid;
    else hi = mid - 1;
  }
  const text = render(n, lo, true);
  return text.length <= MAX_TEXT ? text : render(n, 0, false);
}

export function telegramCall(token: string, apiUrl: string, chat: number, threadId: number | null, n: Notification): HttpCall {
  return jsonCall('POST', joinUrl(apiUrl, `bot${token}/sendMessage`), {
    chat_id: chat,
    message_thread_id: threadId,
    parse_mode: 'html',
    text: telegramText(n),
  });
}

function description(body: string): string | null {
  const d = member(jsonBody(body), 'description');
  return typeof d === 'string' ? d : null;
}

function parameter(body: string, name: string): number | undefined {
  const v = member(member(jsonBody(body), 'parameters'), name);
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Telegram's answer as a delivery result (exported for the tests). */
export function telegramAnswer(res: Parameters<typeof readAnswer>[0], now: number): DeliveryResult {
  return readAnswer(res, now, {
    message: description,
    permanent(status, body) {
      const d = description(body);
      if (d !== null && GONE.has(d)) return true;
      // Also answered for what a person fixes in the chat (rights, a closed topic): worth retrying.
      if (status === 400 || status === 403) return false;
      return undefined;
    },
    retryAfterMs(status, body) {
      const s = parameter(body, 'retry_after');
      return status === 429 && s !== undefined ? s * 1000 : undefined;
    },
  });
}

async function send(conf: TelegramConf, n: Notification, ctx: KindContext, token: string): Promise<DeliveryResult> {
  const wait = ctx.throttle.take(`telegram:${conf.chatId}`, TELEGRAM_LIMIT, ctx.now);
  if (wait > 0) return rateLimited(wait, 'checkd sends at most 6 messages a minute to one Telegram chat');
  const api = ctx.settings.apiUrls.telegram;
  const res = await ctx.http(telegramCall(token, api, conf.chatId, conf.threadId, n));
  const moved = res.ok && res.status === 400 ? parameter(res.body, 'migrate_to_chat_id') : undefined;
  if (moved === undefined || !Number.isSafeInteger(moved)) return telegramAnswer(res, ctx.now);
  // The group became a supergroup: send there, and keep the new id whatever the outcome.
  const again = await ctx.http(telegramCall(token, api, moved, conf.threadId, n));
  return { ...telegramAnswer(again, ctx.now), channelValue: movedTelegramValue(conf, moved) };
}

export const telegram: KindModule<'telegram'> = {
  kind: 'telegram',
  listsOtherChecks: true,
  async deliver(conf, n, ctx) {
    const token = ctx.settings.telegramBotToken;
    if (token === null) return notEnabled('Telegram');
    return send(conf, n, ctx, token);
  },
};
