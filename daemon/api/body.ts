// JSON body parsing of write endpoints (api-details §3): done before auth, an
// empty body is {}, anything that is not a JSON object is a 400.
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';

// ignoreBOM keeps a byte-order mark in the text, so that JSON.parse refuses it as
// the reference's json.loads does (api-details §3.1), instead of dropping it silently.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The JSON object of a raw request body; throws the 400 otherwise. */
export function parseJsonObject(raw: Buffer | undefined): Record<string, unknown> {
  if (!raw || raw.length === 0) return {};
  let value: unknown;
  try {
    const text = utf8.decode(raw);
    value = JSON.parse(text);
    // A \ud800 escape without its pair is no more text than invalid UTF-8 bytes
    // are: refused alike, rather than stored and read back as U+FFFD.
    if (SURROGATE_ESCAPE_RE.test(text) && !wellFormed(value)) throw new Error('lone surrogate');
  } catch {
    throw HttpError.json(400, 'could not parse request body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw HttpError.json(400, 'json validation error: value is not an object');
  }
  return value as Record<string, unknown>;
}

/**
 * The preValidation hook of API POST routes: the body parsed once, into
 * request.apiBody, before the rate limit looks for a body api_key in it. A
 * refusal waits in request.apiBodyRefusal for the key hook, so that a 429
 * still comes before a 400.
 */
export async function readJsonBody(req: FastifyRequest): Promise<void> {
  try {
    req.apiBody = parseJsonObject(req.body as Buffer | undefined);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    req.apiBodyRefusal = err;
  }
}

const SURROGATE_ESCAPE_RE = /\\u[dD][89a-fA-F]/;

/** Every string in a parsed JSON value, keys included, is well-formed UTF-16. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(wellFormed);
  return Object.entries(value).every(([k, v]) => k.isWellFormed() && wellFormed(v));
}
