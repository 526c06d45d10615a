// Spike.sh (`spike`): the webhook of a Spike integration of the type
// "Healthchecks". Spike opens an incident on `down` and resolves it on `up`,
// matching the two by `check_id`, the check's unique key.
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { jsonCall } from './calls.js';
import { causeSuffix, checkName, dedupKey, heldUpLine, naturalTime } from './facts.js';
import type { KindModule } from './kind.js';


export function spikePayload(n: Notification): Record<string, unknown> {
  const name = checkName(n);
  const title = n.event === 'down' ? `${name} is DOWN${causeSuffix(n)}` : `${name} is UP`;
  let message = `${title}.`;
  if (n.event === 'down' && n.lastPing) {
    message += `\nLast ping was ${naturalTime((n.sentAt ?? n.flip.created) - n.lastPing.date)}.`;
  }
  const held = heldUpLine(n);
  if (held !== null) message += `\n${held}`;
  return { check_id: dedupKey(n), status: n.event, title, message };
}

export function spikeCall(url: string, n: Notification): HttpCall {
  return jsonCall('POST', url, spikePayload(n));
}

export const spike: KindModule<'spike'> = {
  kind: 'spike',
  async deliver({ url }, n, ctx) {
    const res = await ctx.http(spikeCall(url, n));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'message') ?? jsonString(body, 'error') });
  },
};
