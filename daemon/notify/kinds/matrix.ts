// Matrix (`matrix`): an m.room.message event sent as the daemon's account
// (--matrix-homeserver, --matrix-access-token) to the room of the channel's
// value (Matrix Client-Server API, PUT /rooms/{roomId}/send/{eventType}/{txnId}).
// The transaction id is the same for every retry of one delivery, so the
// homeserver posts the message once however often it is sent.
import { isMatrixRoomId } from '../../domain/integrations/matrix.js';
import type { IntegrationSettings } from '../../config/integrations.js';
import { html, type Notification } from '../message.js';
import type { HttpCall, HttpOutcome } from '../delivery.js';
import { jsonBody, member, notEnabled, readAnswer, statusError } from './answer.js';
import { joinUrl, jsonCall } from './calls.js';
import { bodyExcerpt, causeSuffix, checkName, downtimeLine, lastPingSummary, othersSection, scheduleFacts, tagsOf } from './facts.js';
import type { KindModule } from './kind.js';

/** The plain-text body: what happened, for clients that do not show HTML. */
export function matrixPlain(n: Notification): string {
  if (n.event === 'down') return `${checkName(n)} is DOWN${causeSuffix(n)}.`;
  const downtime = downtimeLine(n);
  return `${checkName(n)} is now UP.` + (downtime ? ` ${downtime}` : '');
}

export function matrixHtml(n: Notification): string {
  const name = `<b>${html(checkName(n))}</b>`;
  const parts: string[] = [];
  if (n.event === 'down') parts.push(`🔴 ${name} is <b>DOWN</b>${html(causeSuffix(n))}.<br>`);
  else {
    const downtime = downtimeLine(n);
    parts.push(`🟢 ${name} is now <b>UP</b>.${downtime ? ' ' + html(downtime) : ''}<br>`);
  }
  const c = n.check;
  parts.push('<br>', `<b>Project:</b> ${html(n.projectName)}<br>`);
  const tags = tagsOf(c);
  if (tags.length > 0) parts.push(`<b>Tags:</b> ${tags.map((t) => `<code>${html(t)}</code>`).join(' ')}<br>`);
  for (const [label, value] of scheduleFacts(c)) parts.push(`<b>${label}:</b> ${label === 'Schedule' ? `<code>${html(value)}</code>` : html(value)}<br>`);
  parts.push(`<b>Total Pings:</b> ${c.nPings}<br>`, `<b>Last Ping:</b> ${html(lastPingSummary(n))}<br>`);
  const body = bodyExcerpt(n);
  if (body !== null) parts.push(`<b>Last Ping Body:</b><pre>${html(body)}</pre>`);
  const others = othersSection(n);
  if (others?.kind === 'list') {
    parts.push(`<p>${html(others.heading)}</p><ul>${others.items.map((i) => `<li>${html(i.name)} (last ping: ${html(i.lastPing)})</li>`).join('')}</ul>`);
  } else if (others) parts.push(`<p>${html(others.text)}</p>`);
  return parts.join('\n');
}

/** The transaction id of this delivery: the same for each of its retries, restarts included. */
export function matrixTxnId(n: Notification): string {
  return `checkd-${n.deliveryId}`;
}

export function matrixCall(room: string, n: Notification, settings: IntegrationSettings, homeserver: string, token: string): HttpCall {
  const path = `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/send/m.room.message/${encodeURIComponent(matrixTxnId(n))}`;
  return jsonCall(
    'PUT',
    joinUrl(homeserver, path),
    { msgtype: 'm.text', body: matrixPlain(n), format: 'org.matrix.custom.html', formatted_body: matrixHtml(n) },
    { Authorization: `Bearer ${token}` },
  );
}

/** "M_FORBIDDEN: You are not in this room." */
function matrixMessage(body: string): string | null {
  const doc = jsonBody(body);
  const code = member(doc, 'errcode');
  const error = member(doc, 'error');
  if (typeof code !== 'string') return typeof error === 'string' ? error : null;
  return typeof error === 'string' ? `${code}: ${error}` : code;
}

function matrixRetryAfter(status: number, body: string): number | undefined {
  const ms = member(jsonBody(body), 'retry_after_ms');
  return status === 429 && typeof ms === 'number' && ms >= 0 ? ms : undefined;
}

/** Join a room by its alias as the daemon's account (`checkd channel create`). */
export function matrixJoinCall(alias: string, homeserver: string, token: string): HttpCall {
  return jsonCall('POST', joinUrl(homeserver, `/_matrix/client/v3/join/${encodeURIComponent(alias)}`), {}, { Authorization: `Bearer ${token}` });
}

/** The joined room's ID, or why the join failed. */
export function matrixJoinAnswer(res: HttpOutcome): { ok: true; roomId: string } | { ok: false; error: string } {
  if (!res.ok) return { ok: false, error: res.error };
  const roomId = member(jsonBody(res.body), 'room_id');
  if (res.status === 200 && typeof roomId === 'string' && isMatrixRoomId(roomId)) return { ok: true, roomId };
  if (res.status === 200) return { ok: false, error: 'the homeserver answered without a room ID' };
  return { ok: false, error: statusError(res.status, matrixMessage(res.body)) };
}

export const matrix: KindModule<'matrix'> = {
  kind: 'matrix',
  listsOtherChecks: true,
  async deliver({ roomId }, n, ctx) {
    const { matrixHomeserver: homeserver, matrixAccessToken: token } = ctx.settings;
    if (homeserver === null || token === null) return notEnabled('Matrix');
    const res = await ctx.http(matrixCall(roomId, n, ctx.settings, homeserver, token));
    return readAnswer(res, ctx.now, { message: matrixMessage, retryAfterMs: matrixRetryAfter });
  },
};
