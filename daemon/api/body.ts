// JSON body parsing of write endpoints (api-details §3): done before auth, an
// empty body is {}, anything that is not a JSON object is a 400.
import type { FastifyReply, FastifyRequest } from 'fastify';

// ignoreBOM keeps a byte-order mark in the text, so that JSON.parse refuses it as
// the reference's json.loads does (api-details §3.1), instead of dropping it silently.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Returns the parsed object, or answers 400 itself and returns null. */
export function jsonObjectBody(req: FastifyRequest, reply: FastifyReply): Record<string, unknown> | null {
  const raw = req.body as Buffer | undefined;
  if (!raw || raw.length === 0) return {};
  let value: unknown;
  try {
    const text = utf8.decode(raw);
    value = JSON.parse(text);
    // A \ud800 escape without its pair is no more text than invalid UTF-8 bytes
    // are: refused alike, rather than stored and read back as U+FFFD.
    if (SURROGATE_ESCAPE_RE.test(text) && !wellFormed(value)) throw new Error('lone surrogate');
  } catch {
    void reply.code(400).send({ error: 'could not parse request body' });
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    void reply.code(400).send({ error: 'json validation error: value is not an object' });
    return null;
  }
  return value as Record<string, unknown>;
}

const SURROGATE_ESCAPE_RE = /\\u[dD][89a-fA-F]/;

/** Every string in a parsed JSON value, keys included, is well-formed UTF-16. */
function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(wellFormed);
  return Object.entries(value).every(([k, v]) => k.isWellFormed() && wellFormed(v));
}
