// Identifiers and secrets: API keys, ping keys, unique_key, slugs.
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';

const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** 32 characters: `hcw_`/`hcr_` then 28 random URL-safe characters (the reference format). */
export function newApiKey(readOnly: boolean): string {
  return (readOnly ? 'hcr_' : 'hcw_') + randomString(URL_SAFE, 28);
}

export const API_KEY_LENGTH = 32;
/** How much of a key `key list` shows: its kind (hcw_/hcr_) and four random characters. */
export const API_KEY_PREFIX_LENGTH = 8;

/** Whether `key` has an API key's length, counted in characters (code points) as the reference counts them. */
export function hasApiKeyLength(key: string): boolean {
  return [...key].length === API_KEY_LENGTH;
}

export function newPingKey(): string {
  return randomString(LOWER_ALNUM, 22);
}

export function newUuid(): string {
  return randomUUID();
}

/** A secret for signing badge URLs. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Keys are stored as SHA-256 digests only: a leaked database leaks no usable key. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/**
 * What names one notification to one channel: the same on every attempt and
 * after a restart, different for another flip, channel or data dir (its log
 * id). Shaped as a UUID, which is what receivers of Idempotency-Key expect.
 */
export function deliveryIdOf(logId: string, flipRev: number, channelId: string): string {
  const hex = createHash('sha256').update(`${logId}/${flipRev}/${channelId}`, 'utf8').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** SHA-1 of the first 16 hex digits of the UUID without hyphens (the reference rule). */
export function uniqueKeyOf(uuid: string): string {
  return createHash('sha1').update(uuid.replace(/-/g, '').slice(0, 16), 'ascii').digest('hex');
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A ping key, slug, badge key or badge signature in a URL path: upstream's Django `slug` converter. */
export const SLUG_SEGMENT_RE = /^[-a-zA-Z0-9_]+$/;
// The reference accepts [A-z0-9]{40}, which includes a few punctuation characters.
export const UNIQUE_KEY_RE = /^[A-z0-9]{40}$/;

/** A check named in a read path: by UUID, or by the read-only unique_key. */
export function isCheckCode(code: string): boolean {
  return UUID_RE.test(code) || UNIQUE_KEY_RE.test(code);
}

/** The v1/v2 slug derivation from a name (Django's slugify). */
export function slugify(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[^\x00-\x7f]/g, '')
    .toLowerCase()
    // Python's \s also takes the separators \x1c-\x1f, JavaScript's does not.
    .replace(/[^\w\s\x1c-\x1f-]/g, '')
    .replace(/[-\s\x1c-\x1f]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/** Tags of a check: split on spaces, empty tokens dropped. */
export function tagList(tags: string): string[] {
  return tags
    .split(' ')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}
