// Mattermost (`mattermost`): an incoming webhook, which takes Slack's message
// format (Mattermost "Incoming webhooks"): one attachment, green or red, with
// the check's facts as fields and the last ping's body in a code block.
import type { IntegrationSettings } from '../../config/integrations.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { jsonCall } from './calls.js';
import { bodyExcerpt, causePhrase, checkName, downtimeLine, lastPingSummary, literalStars, scheduleFacts, statusWord, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

interface Field {
  title: string;
  value: string;
  short: boolean;
}

export function mattermostPayload(n: Notification, settings: IntegrationSettings): Record<string, unknown> {
  const name = checkName(n);
  const status = statusWord(n);
  const c = n.check;
  const fields: Field[] = [];
  if (c.desc !== '') fields.push({ title: 'Description', value: c.desc, short: false });
  fields.push({ title: 'Project', value: n.projectName, short: true });
  const tags = tagsOf(c);
  if (tags.length > 0) fields.push({ title: 'Tags', value: tags.map((t) => `\`${t}\``).join(' '), short: true });
  for (const [title, value] of scheduleFacts(c)) {
    fields.push({ title, value: title === 'Schedule' ? literalStars(value) : value, short: true });
  }
  fields.push({ title: 'Total Pings', value: String(c.nPings), short: true });
  fields.push({ title: 'Last Ping', value: lastPingSummary(n), short: true });
  const body = bodyExcerpt(n);
  // A fence inside the body would end the code block early: leave such a body out.
  if (body !== null && !body.includes('```')) fields.push({ title: 'Last Ping Body', value: '```\n' + body + '\n```', short: false });
  const cause = causePhrase(n);
  return {
    username: settings.siteName,
    ...(settings.siteLogoUrl ? { icon_url: settings.siteLogoUrl } : {}),
    attachments: [
      {
        color: n.event === 'up' ? 'good' : 'danger',
        fallback: `The check "${name}" is ${status}.`,
        title: `“${name}” is ${status}.`,
        text: cause !== null ? `Reason: ${cause}.` : downtimeLine(n),
        mrkdwn_in: ['fields'],
        fields,
      },
    ],
  };
}

export function mattermostCall(url: string, n: Notification, settings: IntegrationSettings): HttpCall {
  return jsonCall('POST', url, mattermostPayload(n, settings));
}

export const mattermost: KindModule<'mattermost'> = {
  kind: 'mattermost',
  async deliver({ url }, n, ctx) {
    const res = await ctx.http(mattermostCall(url, n, ctx.settings));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'message') });
  },
};
