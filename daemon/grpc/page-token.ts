// ListChecks page tokens. A page's position is a check's creation time and
// UUID, and a UUID is a ping URL: sent readable, a token would tell a
// read-only key what it must not learn. So the position is sealed
// (AES-256-GCM under a key derived from the daemon's secret) and bound to the
// API key that asked: any other key, or any change to the token, gets nothing
// out of it.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { ListPosition } from '../store/store.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class PageTokens {
  private readonly key: Buffer;

  /** `secret`: kept by the data dir (the badge secret), so tokens outlive a restart; the derived key is used for nothing else. */
  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'checkd', 'checkd.v1 ListChecks page token', 32));
  }

  /** The token for `pos`, usable only with `apiKey`. */
  seal(pos: ListPosition, apiKey: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(keyBinding(apiKey));
    const body = Buffer.concat([cipher.update(JSON.stringify([pos.createdAt, pos.uuid]), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** The position sealed in `token` for `apiKey`, or null when it is not such a token. */
  open(token: string, apiKey: string): ListPosition | null {
    const raw = Buffer.from(token, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(keyBinding(apiKey));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const v: unknown = JSON.parse(text);
      if (Array.isArray(v) && v.length === 2 && Number.isFinite(v[0]) && typeof v[1] === 'string') {
        return { createdAt: v[0] as number, uuid: v[1] };
      }
    } catch {
      // a wrong key, a changed token or not one at all: answered below
    }
    return null;
  }
}

/** What a token is bound to: a digest of the key, never the key itself. */
function keyBinding(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey).digest();
}
