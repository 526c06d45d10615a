// API key authentication (api-details §2). 401 "missing api key" when the key
// is not 32 characters; 401 "wrong api key" when unknown, or read-only on a
// write endpoint. The key comes from X-Api-Key, or for POST from the JSON body.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasApiKeyLength } from '../domain/ids.js';
import type { AuthResult, Store } from '../store/store.js';

export type Access = 'read' | 'write';

export function apiKeyOf(req: FastifyRequest, body: Record<string, unknown> | null): string {
  const header = req.headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? (header[0] ?? '') : header;
  if (req.method === 'POST' && body && Object.hasOwn(body, 'api_key')) {
    const v = body.api_key;
    if (v === null || v === undefined) return '';
    // A number or boolean as its text, as the reference's str() gives; an object or
    // array is no key (and is not serialised: a deeply nested one would throw).
    if (typeof v === 'object') return '';
    return String(v);
  }
  return '';
}

/** Authenticates or answers 401 itself and returns null. */
export function authenticate(
  store: Store,
  req: FastifyRequest,
  reply: FastifyReply,
  access: Access,
  body: Record<string, unknown> | null = null,
): AuthResult | null {
  const key = apiKeyOf(req, body);
  // A 32-character key with an emoji in it is a wrong key, not a missing one.
  if (!hasApiKeyLength(key)) {
    void reply.code(401).send({ error: 'missing api key' });
    return null;
  }
  const auth = store.authenticate(key);
  if (!auth || (access === 'write' && auth.readOnly)) {
    void reply.code(401).send({ error: 'wrong api key' });
    return null;
  }
  return auth;
}
