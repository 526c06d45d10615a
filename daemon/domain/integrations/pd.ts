// The value of a `pd` (PagerDuty) channel: the Events API v2 integration
// (routing) key, bare or in upstream's JSON form. Pure.
import { onlyKeys, parseJsonObject, str, ValueError } from '../value-rules.js';

const KIND = 'pd';
/** Integration keys are 32 characters; upstream's form stops there too. */
const MAX_KEY = 32;

/** The integration (routing) key: the bare key, or upstream's JSON `{"service_key", "account"}`. */
export function parsePdValue(value: string): string {
  let key = value;
  if (value.startsWith('{')) {
    const doc = parseJsonObject(KIND, value);
    onlyKeys(KIND, doc, ['service_key', 'account']);
    str(KIND, doc, 'account', '');
    key = str(KIND, doc, 'service_key', '').trim();
  }
  if (!/^\S+$/.test(key) || key.length > MAX_KEY) {
    throw new ValueError(`--value for a pd channel must be the integration key (at most ${MAX_KEY} characters, no spaces) or {"service_key": …}`);
  }
  return key;
}
