// Google Chat (`googlechat`): a space's incoming webhook, which takes a card
// (Google Chat API, "cardsV2"): a paragraph that says what happened, then the
// check's facts as decorated texts. Card texts are HTML, so every value is
// escaped. Google Chat allows 60 messages a minute per space.
import { html, type Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, rateLimited, readAnswer } from './answer.js';
import { jsonCall } from './calls.js';
import { causePhrase, checkName, downtimeLine, lastPingSummary, scheduleFacts, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

/** Google Chat "Usage limits": writes per space, shared by everything that posts to it. */
export const GOOGLECHAT_LIMIT = { capacity: 60, windowMs: 60_000 };

export function googlechatPayload(n: Notification): Record<string, unknown> {
  const name = html(checkName(n));
  const c = n.check;
  let text: string;
  if (n.event === 'down') {
    const cause = causePhrase(n);
    text = `🔴 The check <b>${name}</b> is <b>DOWN</b>.` + (cause ? `<br>Reason: ${html(cause)}.` : '');
  } else {
    const downtime = downtimeLine(n);
    text = `🟢 The check <b>${name}</b> is now <b>UP</b>.` + (downtime ? `<br>${html(downtime)}` : '');
  }
  const facts: Array<[string, string]> = [['Project', n.projectName]];
  const tags = tagsOf(c);
  if (tags.length > 0) facts.push(['Tags', tags.join(', ')]);
  facts.push(...scheduleFacts(c), ['Total Pings', String(c.nPings)], ['Last Ping', lastPingSummary(n)]);
  const widgets = [
    { textParagraph: { text } },
    ...facts.map(([label, value]) => ({ decoratedText: { topLabel: label, text: html(value) } })),
  ];
  // Google's card reference has `sections` as a list (upstream sends one object).
  return { cardsV2: [{ card: { sections: [{ collapsible: true, uncollapsibleWidgetsCount: 1, widgets }] } }] };
}

export function googlechatCall(url: string, n: Notification): HttpCall {
  return jsonCall('POST', url, googlechatPayload(n));
}

/** The space a webhook posts to (its path names it), the key of its rate limit. */
export function googlechatSpace(url: string): string {
  return new URL(url).pathname;
}

export const googlechat: KindModule<'googlechat'> = {
  kind: 'googlechat',
  async deliver({ url }, n, ctx) {
    const wait = ctx.throttle.take(`googlechat:${googlechatSpace(url)}`, GOOGLECHAT_LIMIT, ctx.now);
    if (wait > 0) return rateLimited(wait, 'Google Chat takes 60 messages a minute per space');
    const res = await ctx.http(googlechatCall(url, n));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'error', 'message') });
  },
};
