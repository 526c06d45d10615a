// The value of a `zulip` channel: the bot's e-mail and API key, the server,
// and where messages go (a stream topic or a direct message). Pure.
import { isHttpUrl, onlyKeys, parseJsonObject, str, ValueError } from '../value-rules.js';

const KIND = 'zulip';
const EMAIL_RE = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const MAX_FIELD = 100;

export interface ZulipConf {
  botEmail: string;
  apiKey: string;
  mtype: 'stream' | 'private';
  to: string;
  site: string;
  /** "" for the default: "<name> is DOWN". */
  topic: string;
}

function field(doc: Record<string, unknown>, key: string, max: number, required: boolean): string {
  const v = str(KIND, doc, key, '').trim();
  if (required && v === '') throw new ValueError(`--value for a zulip channel: "${key}" is required`);
  if (v.length > max) throw new ValueError(`--value for a zulip channel: "${key}" is longer than ${max} characters`);
  return v;
}

export function parseZulipValue(value: string): ZulipConf {
  const doc = parseJsonObject(KIND, value);
  onlyKeys(KIND, doc, ['bot_email', 'api_key', 'mtype', 'to', 'site', 'topic']);
  const botEmail = field(doc, 'bot_email', MAX_FIELD, true);
  if (!EMAIL_RE.test(botEmail)) throw new ValueError(`--value for a zulip channel: "bot_email" must be the bot's e-mail address, got "${botEmail}"`);
  const apiKey = field(doc, 'api_key', 50, true);
  if (/\s/.test(apiKey)) throw new ValueError('--value for a zulip channel: "api_key" has no spaces');
  const mtype = str(KIND, doc, 'mtype', '');
  if (mtype !== 'stream' && mtype !== 'private') throw new ValueError('--value for a zulip channel: "mtype" must be "stream" or "private"');
  const to = field(doc, 'to', MAX_FIELD, true);
  // Upstream's rule: no site means the host of the bot's address.
  let site = field(doc, 'site', MAX_FIELD, false);
  if (site === '') site = `https://${botEmail.split('@')[1]}`;
  if (!isHttpUrl(site)) throw new ValueError(`--value for a zulip channel: "site" must be the http(s) URL of the server, got "${site}"`);
  return { botEmail, apiKey, mtype, to, site, topic: field(doc, 'topic', MAX_FIELD, false) };
}
