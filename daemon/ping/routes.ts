// The ping endpoints (ping-protocol §1–§4): /ping/<uuid>[/start|/fail|/log|/<exit>]
// and /ping/<ping-key>/<slug>[/...] with ?create=1. Every method is a ping.
import { METHODS as NODE_METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientAddress } from './remote-addr.js';
import { UUID_RE } from '../domain/ids.js';
import type { PingService, PingFacts, PingSuffix } from '../service/pings.js';

/**
 * Every method Node's HTTP parser hands over is a ping (ping-protocol §2: TRACE,
 * PURGE, PROPFIND... like GET). CONNECT never reaches a request handler.
 */
const METHODS = NODE_METHODS.filter((m) => m !== 'CONNECT');
const SEGMENT_RE = /^[-a-zA-Z0-9_]+$/;
const EXIT_RE = /^[0-9]+$/;
const RID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const UA_MAX = 200;
/** Largest ping request accepted at all; only pingBodyLimit bytes of it are stored. */
export const PING_REQUEST_CAP = 2_621_440;

export interface PingRoutesOptions {
  pings: PingService;
  pingBodyLimit: number;
  trustProxy: boolean;
}

type Suffix = { kind: PingSuffix; exitStatus: number | null } | 'bad-exit' | null;

function parseSuffix(s: string | undefined): Suffix {
  if (s === undefined) return { kind: 'success', exitStatus: null };
  if (s === 'start' || s === 'fail' || s === 'log') return { kind: s, exitStatus: null };
  if (EXIT_RE.test(s)) {
    const code = Number(s);
    return code > 255 ? 'bad-exit' : { kind: 'success', exitStatus: code };
  }
  return null;
}

/** The Expires value (now, to the second), made once a second rather than once a ping. */
const expires = { second: -1, text: '' };
function expiresNow(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== expires.second) {
    expires.second = second;
    expires.text = new Date(now).toUTCString();
  }
  return expires.text;
}

function neverCache(reply: FastifyReply): FastifyReply {
  return reply
    .header('Cache-Control', 'max-age=0, no-cache, no-store, must-revalidate, private')
    .header('Expires', expiresNow())
    .header('Access-Control-Allow-Origin', '*')
    .type('text/plain; charset=utf-8');
}

const EMPTY = Buffer.alloc(0);

/**
 * The request body when it needs no reading: parsed by Fastify, or none sent.
 * Undefined when it must be read (readBody). Most pings end here, without the
 * cost of an async read.
 */
function bodyAtHand(req: FastifyRequest): Buffer | undefined {
  if (Buffer.isBuffer(req.body)) return req.body;
  const length = req.headers['content-length'];
  if (length === undefined && req.headers['transfer-encoding'] === undefined) return EMPTY;
  if (length !== undefined && (Number(length) || 0) === 0) return EMPTY;
  return undefined;
}

/**
 * The body of a GET, HEAD or TRACE that has one. Fastify parses none for those, but a
 * ping stores the body of every method (ping-protocol §10.1), so it is read
 * here; at most `keep` bytes are kept, the rest is drained. Null when it
 * exceeds the cap.
 */
async function readBody(req: FastifyRequest, keep: number): Promise<Buffer | null> {
  const length = req.headers['content-length'];
  if (Number(length) > PING_REQUEST_CAP) return null;
  const chunks: Buffer[] = [];
  let seen = 0;
  let kept = 0;
  for await (const chunk of req.raw as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (kept < keep) {
      const part = chunk.subarray(0, keep - kept);
      chunks.push(part);
      kept += part.length;
    }
  }
  return seen > PING_REQUEST_CAP ? null : Buffer.concat(chunks);
}

export function registerPingRoutes(app: FastifyInstance, opts: PingRoutesOptions): void {
  const known = new Set(app.supportedMethods);
  // Bodies of methods Fastify does not know are parsed like POST's.
  for (const m of METHODS) if (!known.has(m)) app.addHttpMethod(m, { hasBody: true });
  const facts = (req: FastifyRequest, raw: Buffer, rid: string | null): PingFacts => {
    const proto = req.headers['x-forwarded-proto'];
    const xff = req.headers['x-forwarded-for'];
    return {
      method: req.method,
      // Present but empty stays empty, as the reference records it.
      scheme: typeof proto === 'string' ? proto : 'http',
      remoteAddr: clientAddress(Array.isArray(xff) ? xff[0] : xff, req.socket.remoteAddress, opts.trustProxy),
      ua: (req.headers['user-agent'] ?? '').slice(0, UA_MAX),
      body: raw.subarray(0, opts.pingBodyLimit),
      rid,
    };
  };

  /** The rid query parameter: null when absent, false when present and malformed. */
  const ridOf = (req: FastifyRequest): string | null | false => {
    const q = req.query as Record<string, string | string[] | undefined>;
    if (q.rid === undefined) return null;
    const rid = Array.isArray(q.rid) ? q.rid.at(-1)! : q.rid;
    return RID_RE.test(rid) ? rid.toLowerCase() : false;
  };

  const bodyLimitHeader = String(opts.pingBodyLimit);
  const accepted = (reply: FastifyReply, created = false) => {
    neverCache(reply).header('Ping-Body-Limit', bodyLimitHeader);
    return created ? reply.code(201).send('Created') : reply.code(200).send('OK');
  };

  const byUuid = async (req: FastifyRequest, reply: FastifyReply, uuid: string, suffix: Suffix) => {
    if (suffix === null) return reply.code(404).type('text/plain').send('');
    const rid = ridOf(req);
    if (suffix === 'bad-exit' || rid === false) {
      // Refusals in the reference's order: unknown check, exit status, rid.
      // The accepted path below looks the check up once, inside its transaction.
      if (!opts.pings.exists(uuid)) return neverCache(reply).code(404).send('not found');
      return neverCache(reply).code(400).send(suffix === 'bad-exit' ? 'invalid url format' : 'invalid uuid format');
    }
    const body = bodyAtHand(req) ?? (await readBody(req, opts.pingBodyLimit));
    if (body === null) return neverCache(reply).code(413).send('request body too large');
    const result = await opts.pings.record(uuid, suffix.kind, suffix.exitStatus, facts(req, body, rid));
    if (result === 'missing') return neverCache(reply).code(404).send('not found');
    return accepted(reply);
  };

  const bySlug = async (req: FastifyRequest, reply: FastifyReply, pingKey: string, slug: string, suffix: Suffix) => {
    if (suffix === null || !SEGMENT_RE.test(pingKey) || !SEGMENT_RE.test(slug)) {
      return reply.code(404).type('text/plain').send('');
    }
    if (slug !== slug.toLowerCase()) return neverCache(reply).code(400).send('invalid url format');
    const q = req.query as Record<string, string | string[] | undefined>;
    const create = (Array.isArray(q.create) ? q.create.at(-1) : q.create) === '1';
    const found = await opts.pings.resolveSlug(pingKey, slug, create);
    if (found.kind === 'missing') return neverCache(reply).code(404).send('not found');
    if (found.kind === 'ambiguous') return neverCache(reply).code(409).send('ambiguous slug');
    // The reference keeps an auto-provisioned check even when the ping itself is refused.
    if (suffix === 'bad-exit') return neverCache(reply).code(400).send('invalid url format');
    const rid = ridOf(req);
    if (rid === false) return neverCache(reply).code(400).send('invalid uuid format');
    const body = bodyAtHand(req) ?? (await readBody(req, opts.pingBodyLimit));
    if (body === null) return neverCache(reply).code(413).send('request body too large');
    const result = await opts.pings.record(found.uuid, suffix.kind, suffix.exitStatus, facts(req, body, rid));
    if (result === 'missing') return neverCache(reply).code(404).send('not found');
    return accepted(reply, found.kind === 'created');
  };

  const route = (url: string, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>) =>
    app.route({ method: METHODS, url, exposeHeadRoute: false, bodyLimit: PING_REQUEST_CAP, handler });

  route('/ping/:a', async (req, reply) => {
    const { a } = req.params as { a: string };
    if (!UUID_RE.test(a)) return reply.code(404).type('text/plain').send('');
    return byUuid(req, reply, a, parseSuffix(undefined));
  });
  route('/ping/:a/', async (req, reply) => {
    const { a } = req.params as { a: string };
    if (!UUID_RE.test(a)) return reply.code(404).type('text/plain').send('');
    return byUuid(req, reply, a, parseSuffix(undefined));
  });
  route('/ping/:a/:b', async (req, reply) => {
    const { a, b } = req.params as { a: string; b: string };
    const suffix = parseSuffix(b);
    // The UUID family wins for its suffixes; anything else is a slug ping.
    if (UUID_RE.test(a) && suffix !== null) return byUuid(req, reply, a, suffix);
    return bySlug(req, reply, a, b, parseSuffix(undefined));
  });
  route('/ping/:a/:b/:c', async (req, reply) => {
    const { a, b, c } = req.params as { a: string; b: string; c: string };
    return bySlug(req, reply, a, b, parseSuffix(c));
  });
}
