// Microsoft Teams through Workflows (`msteamsw`): the webhook of a Power
// Automate flow "When a Teams webhook request is received", which accepts a
// message carrying one Adaptive Card (Microsoft Learn, "Create and send
// messages"): a heading, the check's facts, and the last ping's body.
import { html, type Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { jsonCall } from './calls.js';
import { bodyExcerpt, causeSuffix, checkName, heldUpLine, lastPingSummary, literalStars, scheduleFacts, statusWord, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';


export function msteamswCard(n: Notification): Record<string, unknown> {
  const name = checkName(n);
  const status = statusWord(n);
  const c = n.check;
  const facts: Array<{ title: string; value: string }> = [];
  // A single line break does not show in a FactSet value; a blank line does.
  if (c.desc !== '') facts.push({ title: 'Description:', value: c.desc.replace(/\n/g, '\n\n') });
  facts.push({ title: 'Project:', value: n.projectName });
  const tags = tagsOf(c);
  if (tags.length > 0) facts.push({ title: 'Tags:', value: tags.join(' ') });
  for (const [title, value] of scheduleFacts(c)) facts.push({ title: `${title}:`, value: title === 'Schedule' ? literalStars(value) : value });
  facts.push({ title: 'Total Pings:', value: String(c.nPings) }, { title: 'Last Ping:', value: lastPingSummary(n) });
  const heading = n.event === 'down' ? `🔴 “${name}” is DOWN${causeSuffix(n)}.` : `🟢 “${name}” is UP.`;
  const body: unknown[] = [
    { type: 'TextBlock', text: html(heading), weight: 'Bolder', size: 'Medium', wrap: true, style: 'heading' },
  ];
  const held = heldUpLine(n);
  if (held !== null) body.push({ type: 'TextBlock', text: html(held), wrap: true });
  body.push({ type: 'FactSet', facts });
  const excerpt = bodyExcerpt(n);
  if (excerpt !== null) {
    body.push(
      { type: 'TextBlock', text: 'Last Ping Body:', weight: 'Bolder' },
      { type: 'CodeBlock', codeSnippet: excerpt, language: 'PlainText' },
    );
  }
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.2',
    fallbackText: html(`“${name}” is ${status}.`),
    body,
  };
}

export function msteamswCall(url: string, n: Notification): HttpCall {
  return jsonCall('POST', url, {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: msteamswCard(n) }],
  });
}

export const msteamsw: KindModule<'msteamsw'> = {
  kind: 'msteamsw',
  async deliver({ url }, n, ctx) {
    const res = await ctx.http(msteamswCall(url, n));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'error', 'message') ?? jsonString(body, 'message') });
  },
};
