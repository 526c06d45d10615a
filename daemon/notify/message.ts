// What a notification says: the facts of one event (a check going down or up)
// and how each channel kind renders them (webhook placeholders, shell
// placeholders and environment, e-mail text and HTML, Slack/Discord and ntfy
// payloads). Pure functions over plain data.
import { isoSeconds } from '../domain/format.js';
import { tagList } from '../domain/ids.js';
import { jsonEscape, substituteShell, urlEncode } from '../domain/templates.js';
import type { CheckRecord, FlipRecord, LastPingInfo } from '../domain/types.js';
import { policyPlaceholders, policyReasonSentence, withPolicySentences } from './policy-text.js';
import type { Notification } from './notification.js';
import { storageRows } from './storage-alarm.js';

export type { Notification, OtherChecks } from './notification.js';

/** Characters of the last ping body an e-mail carries (spec §6); $BODY is whole. */
export const EMAIL_BODY_KEEP = 10_000;


export function decodeBody(body: Uint8Array | null): string {
  if (!body || body.length === 0) return '';
  return new TextDecoder('utf-8', { fatal: false }).decode(body);
}

/** The e-mail's part of the body: its last EMAIL_BODY_KEEP characters, and a heading that says so. */
function emailBody(body: string): { heading: string; text: string } {
  if (body.length <= EMAIL_BODY_KEEP) return { heading: 'Last ping body:', text: body };
  return { heading: `Last ping body (its last ${EMAIL_BODY_KEEP} characters):`, text: body.slice(-EMAIL_BODY_KEEP) };
}

export function displayName(check: CheckRecord): string {
  return check.name !== '' ? check.name : check.uuid;
}

export function humanDuration(ms: number): string {
  let s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s === 1 ? '1 second' : `${s} seconds`;
  const units: Array<[string, number]> = [
    ['week', 7 * 86400],
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  const parts: string[] = [];
  for (const [name, size] of units) {
    const n = Math.floor(s / size);
    if (n > 0) {
      parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
      s -= n * size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

export function reasonSentence(flip: FlipRecord, check?: CheckRecord): string | null {
  const policy = check ? policyReasonSentence(flip, check) : null;
  if (policy) return policy;
  if (flip.reason === 'timeout') return 'Success signal did not arrive on time, grace time passed.';
  if (flip.reason === 'fail') return 'Received a failure signal.';
  return null;
}

/** The sentence under the headline: why it went down, or how long it was down. */
export function summarySentence(n: Notification): string | null {
  if (n.test) return 'This is a test notification sent by checkd channel test.';
  if (n.storage) return n.storage.reason;
  const upstream = n.event === 'down' ? reasonSentence(n.flip, n.check) : n.downtimeMs === null ? null : `The downtime lasted ${humanDuration(n.downtimeMs)}.`;
  return withPolicySentences(n, upstream);
}

export function pingKindText(p: LastPingInfo): string {
  if (p.exitStatus !== null && (p.kind === 'success' || p.kind === 'fail')) return `Exit status ${p.exitStatus}`;
  return { success: 'Success', fail: 'Failure', start: 'Start', log: 'Log', ign: 'Ignored' }[p.kind];
}

export function lastPingText(n: Notification): string {
  const p = n.lastPing;
  if (!p) return 'Never';
  const ago = humanDuration(Math.max(0, n.flip.created - p.date));
  return `${pingKindText(p)}, ${isoSeconds(p.date)} (${ago} before the status change)${p.remoteAddr ? `, from ${p.remoteAddr}` : ''}`;
}

/** Label/value rows shared by the e-mail, chat and ntfy renderings. */
export function detailRows(n: Notification): Array<[string, string]> {
  if (n.storage) return storageRows(n, n.storage);
  const c = n.check;
  const rows: Array<[string, string]> = [];
  if (c.desc !== '') rows.push(['Description', c.desc]);
  rows.push(['Project', n.projectName]);
  const tags = tagList(c.tags);
  if (tags.length > 0) rows.push(['Tags', tags.join(' ')]);
  if (c.kind === 'simple') rows.push(['Period', humanDuration(c.timeout * 1000)]);
  else {
    rows.push(['Schedule', c.schedule]);
    rows.push(['Time Zone', c.tz]);
  }
  rows.push(['Total Pings', String(c.nPings)]);
  rows.push(['Last Ping', lastPingText(n)]);
  rows.push(['Status Changed', isoSeconds(n.flip.created)]);
  return rows;
}

function headline(n: Notification): string {
  return `"${displayName(n.check)}" ${n.event === 'down' ? 'has gone down' : 'is up again'}.`;
}

// ---- webhook -------------------------------------------------------------------

export type TemplatePlace = 'url' | 'body' | 'header';

/**
 * The placeholder values of notifications.md §4.2 in the order of §4.3, each
 * made safe for where it lands: URL-encoded in a URL, JSON-escaped in a body
 * sent as JSON (`jsonBody`), as is elsewhere. `$BODY` and `$BODY_JSON` exist in
 * bodies only.
 */
export function webhookValues(n: Notification, place: TemplatePlace, jsonBody = false): Array<[string, string]> {
  const c = n.check;
  const tags = tagList(c.tags);
  const exit = n.lastPing?.exitStatus ?? null;
  // raw: safe anywhere (uuid, status, digits, slug); text: escaped per place.
  const text = (v: string) => (place === 'url' ? urlEncode(v) : place === 'body' && jsonBody ? jsonEscape(v) : v);
  const literal = (v: string) => (place === 'url' ? urlEncode(v) : v);
  const values: Array<[string, string]> = [
    ['$CODE', c.uuid],
    ['$STATUS', n.event],
    ['$NOW', text(isoSeconds(n.flip.created))],
    ['$NAME_JSON', literal(JSON.stringify(c.name))],
    ['$NAME', text(c.name)],
    ['$SLUG', text(c.slug)],
    ['$TAGS', text(c.tags)],
    ['$JSON', literal(n.checkJson)],
  ];
  if (place === 'body') {
    const body = n.lastPing?.body ?? '';
    values.push(['$BODY_JSON', JSON.stringify(body)], ['$BODY', text(body)]);
  }
  values.push(['$EXITSTATUS', exit === null ? '-1' : String(exit)]);
  values.push(...policyPlaceholders(n, text));
  tags.forEach((tag, i) => values.push([`$TAG${i + 1}`, text(tag)]));
  return values;
}

// ---- shell ---------------------------------------------------------------------

/** The command with its placeholders filled, shell-quoted (notifications.md §5). */
export function shellCommand(template: string, n: Notification): string {
  const c = n.check;
  const exit = n.lastPing?.exitStatus ?? null;
  // In the placeholder algorithm's order; the text others wrote goes by reference
  // to shellEnv's variables (substituteShell), never into the command itself.
  const values: Array<[string, string]> = [
    ['$CODE', c.uuid],
    ['$STATUS', n.event],
    ['$NOW', isoSeconds(n.flip.created)],
    ['$EXITSTATUS', exit === null ? '-1' : String(exit)],
  ];
  const refs: Array<[string, string]> = [
    ['$NAME', 'CHECKD_NAME'],
    ['$SLUG', 'CHECKD_SLUG'],
    ['$TAGS', 'CHECKD_TAGS'],
  ];
  tagList(c.tags).forEach((_tag, i) => refs.push([`$TAG${i + 1}`, `CHECKD_TAG${i + 1}`]));
  return substituteShell(template, values, refs);
}

/** The check's details for a shell command's environment. */
export function shellEnv(n: Notification): Record<string, string> {
  const c = n.check;
  return {
    CHECKD_STATUS: n.event,
    CHECKD_CODE: c.uuid,
    CHECKD_NAME: c.name,
    CHECKD_SLUG: c.slug,
    CHECKD_TAGS: c.tags,
    CHECKD_DESC: c.desc,
    CHECKD_PROJECT: n.projectName,
    CHECKD_NOW: isoSeconds(n.flip.created),
    CHECKD_REASON: n.event === 'down' ? n.flip.reason : '',
    CHECKD_EXITSTATUS: n.lastPing?.exitStatus == null ? '-1' : String(n.lastPing.exitStatus),
    CHECKD_DOWNTIME_S: n.downtimeMs === null ? '' : String(Math.round(n.downtimeMs / 1000)),
    CHECKD_TEST: n.test ? '1' : '0',
    ...Object.fromEntries(tagList(c.tags).map((tag, i) => [`CHECKD_TAG${i + 1}`, tag])),
  };
}

// ---- e-mail --------------------------------------------------------------------

export function emailSubject(n: Notification): string {
  return `${n.event === 'down' ? 'DOWN' : 'UP'} | ${displayName(n.check)}`;
}

export function emailText(n: Notification): string {
  const lines = [headline(n), ''];
  const summary = summarySentence(n);
  if (summary) lines.push(summary, '');
  for (const [label, value] of detailRows(n)) lines.push(`${label}: ${value}`);
  if (!n.storage) lines.push(`Check UUID: ${n.check.uuid}`);
  if (n.lastPing && n.lastPing.body !== '') {
    const { heading, text } = emailBody(n.lastPing.body);
    lines.push('', heading, text);
  }
  lines.push('', '-- ', 'Sent by checkd.');
  return lines.join('\n') + '\n';
}

/** HTML-escaped text (the five special characters). */
export function html(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

export function emailHtml(n: Notification): string {
  const color = n.event === 'down' ? '#d9534f' : '#22bc66';
  const summary = summarySentence(n);
  const rows = [...detailRows(n), ...(n.storage ? [] : [['Check UUID', n.check.uuid] as [string, string]])]
    .map(([label, value]) => `<tr><th align="left">${html(label)}</th><td>${html(value)}</td></tr>`)
    .join('\n');
  const cut = n.lastPing && n.lastPing.body !== '' ? emailBody(n.lastPing.body) : null;
  const body = cut ? `<p>${cut.heading}</p>\n<pre>${html(cut.text)}</pre>\n` : '';
  return [
    '<!DOCTYPE html>',
    '<html><body>',
    `<h2 style="color:${color}">${html(headline(n))}</h2>`,
    summary ? `<p>${html(summary)}</p>` : '',
    `<table>\n${rows}\n</table>`,
    body,
    '<p>Sent by checkd.</p>',
    '</body></html>',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

// ---- Slack, Discord ------------------------------------------------------------

/** Slack's incoming-webhook message (also Discord's `/slack` endpoint). */
export function slackPayload(n: Notification, kind: 'slack' | 'discord'): Record<string, unknown> {
  const name = displayName(n.check);
  const up = n.event === 'up';
  const status = up ? 'UP' : 'DOWN';
  const c = n.check;
  const fields: Array<{ title: string; value: string; short: boolean }> = [];
  if (n.storage) {
    for (const [title, value] of detailRows(n)) fields.push({ title, value, short: true });
    return slackMessage(n, name, status, fields);
  }
  if (c.desc !== '') fields.push({ title: 'Description', value: c.desc, short: false });
  fields.push({ title: 'Project', value: n.projectName, short: true });
  const tags = tagList(c.tags);
  if (tags.length > 0) fields.push({ title: 'Tags', value: tags.map((t) => `\`${t}\``).join(' '), short: true });
  if (c.kind === 'simple') fields.push({ title: 'Period', value: humanDuration(c.timeout * 1000), short: true });
  else {
    // Discord renders *...* as emphasis: keep the schedule's asterisks literal.
    const schedule = kind === 'discord' ? c.schedule.replace(/\*/g, '\\*') : c.schedule;
    fields.push({ title: 'Schedule', value: schedule, short: true }, { title: 'Time Zone', value: c.tz, short: true });
  }
  fields.push({ title: 'Total Pings', value: String(c.nPings), short: true });
  fields.push({ title: 'Last Ping', value: lastPingText(n), short: false });
  if (n.lastPing && n.lastPing.body !== '') {
    const body = n.lastPing.body.length > 1000 ? n.lastPing.body.slice(0, 1000) + '…' : n.lastPing.body;
    fields.push({ title: 'Last Ping Body', value: '```\n' + body.replace(/```/g, '`\u200b``') + '\n```', short: false });
  }
  return slackMessage(n, name, status, fields);
}

function slackMessage(n: Notification, name: string, status: string, fields: Array<{ title: string; value: string; short: boolean }>): Record<string, unknown> {
  const up = n.event === 'up';
  return {
    username: 'checkd',
    attachments: [
      {
        color: up ? 'good' : 'danger',
        fallback: `The check "${name}" is ${status}.`,
        title: `“${name}” is ${status}.`,
        text: summarySentence(n),
        mrkdwn_in: ['fields'],
        fields,
      },
    ],
  };
}

// ---- ntfy ----------------------------------------------------------------------

export function ntfyPayload(n: Notification, topic: string, priority: number): Record<string, unknown> {
  const name = displayName(n.check);
  const lines: string[] = [];
  const summary = summarySentence(n);
  if (summary) lines.push(summary, '');
  for (const [label, value] of detailRows(n)) lines.push(`**${label}:** ${value}`);
  return {
    topic,
    priority,
    title: `${name} is ${n.event === 'down' ? 'DOWN' : 'UP'}`,
    message: lines.join('\n'),
    markdown: true,
    tags: [n.event === 'down' ? 'red_circle' : 'green_circle'],
  };
}
