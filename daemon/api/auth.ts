// API key authentication (api-details §2), once per request in the preHandler
// hook of every API route. 401 "missing api key" when the key is not 32
// characters; 401 "wrong api key" when unknown, or read-only on a write
// endpoint. The key comes from X-Api-Key, or for POST from the JSON body.
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import { hasApiKeyLength } from '../domain/ids.js';
import type { Store } from '../store/store.js';

export type Access = 'read' | 'write';

export function apiKeyOf(req: FastifyRequest): string {
  const header = req.headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? (header[0] ?? '') : header;
  const body = req.apiBody;
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

/**
 * The preHandler that authenticates an API route: sets request.project and
 * request.readOnlyKey, or throws the 401. A refused body is thrown first, as
 * the body is parsed before the key is checked (api-details §3).
 */
export function requireApiKey(store: Store, access: Access) {
  return async (req: FastifyRequest): Promise<void> => {
    if (req.apiBodyRefusal) throw req.apiBodyRefusal;
    const key = apiKeyOf(req);
    // A 32-character key with an emoji in it is a wrong key, not a missing one.
    if (!hasApiKeyLength(key)) throw HttpError.json(401, 'missing api key');
    const auth = store.authenticate(key);
    if (!auth || (access === 'write' && auth.readOnly)) throw HttpError.json(401, 'wrong api key');
    req.project = auth.project;
    req.readOnlyKey = auth.readOnly;
  };
}
