// The value of a `mattermost` channel: the incoming webhook's URL, bare or in
// the JSON a Slack-style app install stores. Pure.
import { httpUrlValue, isHttpUrl, onlyKeys, parseJsonObject, ValueError } from '../value-rules.js';

const KIND = 'mattermost';

/** The URL, or the Slack-app JSON `{"incoming_webhook": {"url": …}}`. */
export function parseMattermostValue(value: string): string {
  if (!value.startsWith('{')) return httpUrlValue(KIND, value, 'the incoming webhook');
  const doc = parseJsonObject(KIND, value);
  onlyKeys(KIND, doc, ['incoming_webhook']);
  const url = (doc.incoming_webhook as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string' || !isHttpUrl(url)) {
    throw new ValueError('--value for a mattermost channel: "incoming_webhook" must be {"url": <http(s) URL>}');
  }
  return url;
}
