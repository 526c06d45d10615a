// The value of a `gotify` channel: the server, the application token and a
// priority per event, 0 turning that event off. Pure.
import { int, isHttpUrl, MAX_URL_LENGTH, onlyKeys, parseJsonObject, str, ValueError } from '../value-rules.js';

const KIND = 'gotify';
const MAX_TOKEN = 100;

export interface GotifyConf {
  url: string;
  token: string;
  /** Null: not sent, the application's default applies; 0: the event is off. */
  priority: number | null;
  priorityUp: number | null;
}

function priority(doc: Record<string, unknown>, key: string): number | null {
  return doc[key] === undefined || doc[key] === null ? null : int(KIND, doc, key, 0, 0, 10);
}

export function parseGotifyValue(value: string): GotifyConf {
  const doc = parseJsonObject(KIND, value);
  onlyKeys(KIND, doc, ['url', 'token', 'priority', 'priority_up']);
  const url = str(KIND, doc, 'url', '').trim();
  if (!isHttpUrl(url) || url.length > MAX_URL_LENGTH) {
    throw new ValueError(`--value for a gotify channel: "url" must be the http(s) URL of the server, got "${url}"`);
  }
  const token = str(KIND, doc, 'token', '').trim();
  if (!/^\S+$/.test(token) || token.length > MAX_TOKEN) {
    throw new ValueError('--value for a gotify channel: "token" must be the application token (no spaces)');
  }
  const conf = { url, token, priority: priority(doc, 'priority'), priorityUp: priority(doc, 'priority_up') };
  if (conf.priority === 0 && conf.priorityUp === 0) throw new ValueError('--value for a gotify channel: "priority" and "priority_up" are both 0 (off)');
  return conf;
}
