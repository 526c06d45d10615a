// Splunk On-Call, formerly VictorOps (`victorops`): the REST endpoint
// integration ("REST Endpoint integration for Splunk On-Call"). Down opens an
// incident (CRITICAL), up resolves it (RECOVERY); entity_id, the check's
// unique key, ties the two together.
import type { IntegrationSettings } from '../../config/integrations.js';
import type { Notification } from '../message.js';
import type { HttpCall } from '../delivery.js';
import { jsonString, readAnswer } from './answer.js';
import { jsonCall } from './calls.js';
import { causeSuffix, checkName, dedupKey, heldUpLine } from './facts.js';
import type { KindModule } from './kind.js';


export function victoropsPayload(n: Notification, settings: IntegrationSettings): Record<string, unknown> {
  const name = checkName(n);
  return {
    entity_id: dedupKey(n),
    message_type: n.event === 'down' ? 'CRITICAL' : 'RECOVERY',
    entity_display_name: name,
    state_message: n.event === 'down' ? `${name} is DOWN${causeSuffix(n)}.` : [`${name} is UP.`, heldUpLine(n)].filter((s) => s !== null).join(' '),
    monitoring_tool: settings.siteName,
  };
}

export function victoropsCall(url: string, n: Notification, settings: IntegrationSettings): HttpCall {
  return jsonCall('POST', url, victoropsPayload(n, settings));
}

export const victorops: KindModule<'victorops'> = {
  kind: 'victorops',
  async deliver({ url }, n, ctx) {
    const res = await ctx.http(victoropsCall(url, n, ctx.settings));
    return readAnswer(res, ctx.now, { message: (body) => jsonString(body, 'message') });
  },
};
