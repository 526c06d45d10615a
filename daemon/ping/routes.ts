// The ping endpoints (ping-protocol §1–§4): /ping/<uuid>[/start|/fail|/log|/<exit>]
// and /ping/<ping-key>/<slug>[/...] with ?create=1. Every method is a ping.
// The path is read by the domain's parsePingPath; refusals are HttpErrors.
import { METHODS as NODE_METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientAddress } from './remote-addr.js';
import { HttpError } from '../api/errors.js';
import { parsePingPath, type PingUrl } from '../domain/ping-url.js';
import type { PingService, PingFacts } from '../service/pings.js';
import { PING_UA_MAX } from '../domain/types.js';

/**
 * Every method Node's HTTP parser hands over is a ping (ping-protocol §2: TRACE,
 * PURGE, PROPFIND... like GET). CONNECT never reaches a request handler.
 */
const METHODS = NODE_METHODS.filter((m) => m !== 'CONNECT');
const RID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Largest ping request accepted at all; only pingBodyLimit bytes of it are stored. */
export const PING_REQUEST_CAP = 2_621_440;

export interface PingRoutesOptions {
  pings: PingService;
  pingBodyLimit: number;
  trustProxy: boolean;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * The never-cache and CORS headers of every ping answer but a path that
 * matches no route (ping-protocol §4), with Expires (now, to the second) made
 * once a second rather than once a ping.
 */
const neverCache = { second: -1, headers: {} as Readonly<Record<string, string>> };
function neverCacheHeaders(): Readonly<Record<string, string>> {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== neverCache.second) {
    neverCache.second = second;
    neverCache.headers = {
      'Cache-Control': 'max-age=0, no-cache, no-store, must-revalidate, private',
      Expires: new Date(now).toUTCString(),
      'Access-Control-Allow-Origin': '*',
    };
  }
  return neverCache.headers;
}

/** A refused ping: its text as the whole body (`not found`, `invalid url format`...). */
function refusal(status: number, text: string): HttpError {
  return new HttpError(status, text, TEXT, neverCacheHeaders());
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
      ua: (req.headers['user-agent'] ?? '').slice(0, PING_UA_MAX),
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
    reply.headers(neverCacheHeaders()).type(TEXT).header('Ping-Body-Limit', bodyLimitHeader);
    return created ? reply.code(201).send('Created') : reply.code(200).send('OK');
  };

  /** The request body to store when it must be read (not at hand), or the 413 when it exceeds the cap. */
  const readPingBody = async (req: FastifyRequest): Promise<Buffer> => {
    const body = await readBody(req, opts.pingBodyLimit);
    if (body === null) throw refusal(413, 'request body too large');
    return body;
  };

  const byUuid = async (req: FastifyRequest, reply: FastifyReply, url: PingUrl) => {
    const uuid = url.key;
    const rid = ridOf(req);
    if (url.refusal !== undefined || rid === false) {
      // Refusals in the reference's order: unknown check, exit status, rid.
      // The accepted path below looks the check up once, inside its transaction.
      if (!opts.pings.exists(uuid)) throw refusal(404, 'not found');
      throw refusal(400, url.refusal !== undefined ? 'invalid url format' : 'invalid uuid format');
    }
    const body = bodyAtHand(req) ?? (await readPingBody(req));
    const result = await opts.pings.record(uuid, url.action, url.exitStatus, facts(req, body, rid));
    if (result === 'missing') throw refusal(404, 'not found');
    return accepted(reply);
  };

  const bySlug = async (req: FastifyRequest, reply: FastifyReply, url: PingUrl & { by: 'slug' }) => {
    if (url.refusal === 'uppercase-slug') throw refusal(400, 'invalid url format');
    const q = req.query as Record<string, string | string[] | undefined>;
    const create = (Array.isArray(q.create) ? q.create.at(-1) : q.create) === '1';
    const found = await opts.pings.resolveSlug(url.key, url.slug, create);
    if (found.kind === 'missing') throw refusal(404, 'not found');
    if (found.kind === 'ambiguous') throw refusal(409, 'ambiguous slug');
    if (found.kind === 'refused') throw refusal(400, 'invalid url format');
    // The reference keeps an auto-provisioned check even when the ping itself is refused.
    if (url.refusal === 'exit-status-out-of-range') throw refusal(400, 'invalid url format');
    const rid = ridOf(req);
    if (rid === false) throw refusal(400, 'invalid uuid format');
    const body = bodyAtHand(req) ?? (await readPingBody(req));
    const result = await opts.pings.record(found.uuid, url.action, url.exitStatus, facts(req, body, rid));
    if (result === 'missing') throw refusal(404, 'not found');
    return accepted(reply, found.kind === 'created');
  };

  /** One route per segment count; the params, in order, are the path's segments. */
  const route = (path: string, segments: (params: Record<string, string>) => string[]) =>
    app.route({
      method: METHODS,
      url: path,
      exposeHeadRoute: false,
      bodyLimit: PING_REQUEST_CAP,
      handler: async (req, reply) => {
        const url = parsePingPath(segments(req.params as Record<string, string>));
        if (url === null) throw HttpError.empty(404);
        return url.by === 'uuid' ? byUuid(req, reply, url) : bySlug(req, reply, url);
      },
    });

  route('/ping/:a', (p) => [p.a!]);
  route('/ping/:a/', (p) => [p.a!, '']);
  route('/ping/:a/:b', (p) => [p.a!, p.b!]);
  route('/ping/:a/:b/:c', (p) => [p.a!, p.b!, p.c!]);
}
