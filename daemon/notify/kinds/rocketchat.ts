// Rocket.Chat (`rocketchat`): an incoming-webhook integration. A text line
// and one coloured attachment with the check's facts as fields (Rocket.Chat
// "Integrations: incoming webhook" message format).
import type { IntegrationSettings } from '../../config/integrations.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { jsonCall } from './calls.js';
import { causeSuffix, checkName, downtimeLine, lastPingSummary, scheduleFacts, statusWord, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';


export function rocketchatPayload(n: Notification, settings: IntegrationSettings): Record<string, unknown> {
  const c = n.check;
  const fields: Array<{ title: string; value: string; short: boolean }> = [];
  if (c.desc !== '') fields.push({ title: 'Description', value: c.desc, short: false });
  fields.push({ title: 'Project', value: n.projectName, short: true });
  const tags = tagsOf(c);
  if (tags.length > 0) fields.push({ title: 'Tags', value: tags.map((t) => `\`${t}\``).join(' '), short: true });
  for (const [title, value] of scheduleFacts(c)) {
    // Rocket.Chat's Markdown would read the stars of a cron schedule as emphasis.
    fields.push({ title, value: title === 'Schedule' ? value.replace(/\*/g, '\\*') : value, short: true });
  }
  fields.push({ title: 'Total Pings', value: String(c.nPings), short: true });
  fields.push({ title: 'Last Ping', value: lastPingSummary(n), short: true });
  const body = n.lastPing?.body ?? '';
  if (body !== '') {
    // The size only: a chat room is no place for a job's output.
    const size = Buffer.byteLength(body, 'utf8');
    fields.push({ title: 'Last Ping Body', value: size === 1 ? '1 byte' : `${size} bytes`, short: true });
  }
  const downtime = downtimeLine(n);
  const text = `${checkName(n)} is ${statusWord(n)}${causeSuffix(n)}.` + (downtime ? `\n${downtime}` : '');
  return {
    alias: settings.siteName,
    ...(settings.siteLogoUrl ? { avatar: settings.siteLogoUrl } : {}),
    text,
    attachments: [{ color: n.event === 'up' ? '#5cb85c' : '#d9534f', fields }],
  };
}

export function rocketchatCall(url: string, n: Notification, settings: IntegrationSettings): HttpCall {
  return jsonCall('POST', url, rocketchatPayload(n, settings));
}

export const rocketchat: KindModule<'rocketchat'> = {
  kind: 'rocketchat',
  async deliver({ url }, n, ctx) {
    const res = await ctx.http(rocketchatCall(url, n, ctx.settings));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'error') ?? jsonString(body, 'message') });
  },
};
