// The value of an `opsgenie` channel: the API integration key and its region
// (US or EU). Pure.
import { onlyKeys, parseJsonObject, str, ValueError } from '../value-rules.js';

const KIND = 'opsgenie';
const MAX_KEY = 40;

export interface OpsgenieConf {
  key: string;
  region: 'us' | 'eu';
}

/** `{"key", "region": "us"|"eu"}`, or (upstream's older form) the bare key for the US region. */
export function parseOpsgenieValue(value: string): OpsgenieConf {
  let key = value;
  let region = 'us';
  if (value.startsWith('{')) {
    const doc = parseJsonObject(KIND, value);
    onlyKeys(KIND, doc, ['key', 'region']);
    key = str(KIND, doc, 'key', '').trim();
    region = str(KIND, doc, 'region', 'us');
  }
  if (!/^\S+$/.test(key) || key.length > MAX_KEY) {
    throw new ValueError(`--value for an opsgenie channel: "key" must be the API integration key (at most ${MAX_KEY} characters, no spaces)`);
  }
  if (region !== 'us' && region !== 'eu') throw new ValueError('--value for an opsgenie channel: "region" must be "us" or "eu"');
  return { key, region };
}
