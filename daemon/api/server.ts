// Builds the Fastify app: the v1/v2/v3 API, plus whatever plugins the daemon
// adds (ping and badge routes). Bodies are read raw: the API parses JSON itself
// to give the reference's error messages, and pings log their bytes verbatim.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { registerCheckRoutes } from './checks.js';
import { registerReadRoutes } from './reads.js';
import { registerBadgeRoutes } from './badge-routes.js';
import { registerPolicyRoutes } from './policies.js';
import { BadgeTallies } from './badge-tallies.js';
import { apiKeyOf } from './auth.js';
import { HttpError, sendHttpError } from './errors.js';
import { SharedRateLimitStore } from './rate-limit.js';
import { decorateApiRequest } from './request.js';
import { hashApiKey } from '../domain/ids.js';
import type { HttpContext } from './context.js';
import type { ApiVersion } from '../domain/types.js';
import { isStorageFailure, replyStorageUnavailable } from './storage-errors.js';

/**
 * A request must arrive whole within this: Fastify's default (0) let a client
 * that sends a body a byte short hold its buffer and its socket for ever, and a
 * few hundred such clients take a gigabyte. A minute is plenty for a 2.5 MB ping
 * body on a slow link; headers have Node's own limit.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** The messages of the framework's refusals that the API words its own way. */
const FRAMEWORK_MESSAGES: Record<number, string> = {
  413: 'request body too large',
  429: 'rate limit exceeded, slow down',
  500: 'internal error',
};

export interface HttpServerOptions {
  trustProxy: boolean;
  /** Largest request body accepted at all (bytes); pings store only pingBodyLimit of it. */
  bodyLimit?: number;
}

export async function buildHttpServer(ctx: HttpContext, opts: HttpServerOptions): Promise<FastifyInstance> {
  const httpLog = ctx.logger.child({ component: 'http' });
  const app: FastifyInstance = Fastify({
    loggerInstance: httpLog as unknown as FastifyBaseLogger,
    // One line per request at debug level; never headers (API keys live there).
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: opts.trustProxy,
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    // Fastify's default of 100 characters per path parameter answered 414 to the
    // badge of any tag past ~96 ASCII or ~11 CJK characters (tags have no length
    // limit); Node's own 16 KiB header limit bounds a URL anyway.
    routerOptions: { maxParamLength: 16 * 1024 },
    requestTimeout: REQUEST_TIMEOUT_MS,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // The level is fixed at start: off the hot path entirely unless debugging.
  if (httpLog.isLevelEnabled('debug')) {
    app.addHook('onResponse', async (req, reply) => {
      req.log.debug(
        { method: req.method, url: redactUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    });
  }
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // Content-Type is ignored everywhere (api-details §3, ping-protocol §10.1), but
  // Fastify answers 415 to one it cannot parse ("text", "foo") before any parser
  // or handler runs: a job's /fail would be lost. Every body is read as bytes
  // anyway, so the header is replaced by one that always reaches the parser above.
  // (Fastify also refuses a QUERY without one, on Node versions that parse QUERY.)
  app.addHook('onRequest', (req, _reply, done) => {
    const headers = req.raw.headers;
    if (headers['content-type'] !== undefined || req.method === 'QUERY') headers['content-type'] = 'application/octet-stream';
    done();
  });

  decorateApiRequest(app);
  app.setNotFoundHandler((_req, reply) => sendHttpError(reply, HttpError.empty(404)));
  // Every refusal arrives here: the routes' HttpErrors, and Fastify's and its plugins' own errors.
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (err instanceof HttpError) return sendHttpError(reply, err);
    // A commit LMDB refused (full disk...): 503, the daemon keeps serving.
    if (isStorageFailure(err)) return replyStorageUnavailable(err, ctx.store, req, reply);
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) req.log.error({ err }, 'request failed');
    return sendHttpError(reply, HttpError.json(status, FRAMEWORK_MESSAGES[status] ?? err.message));
  });

  if (ctx.apiRateLimit > 0) {
    await app.register(rateLimit, {
      global: false,
      // One window per key shared by all routes (the default store is per route).
      store: SharedRateLimitStore,
      // After the API routes' body hook (resource.ts), so a key sent in the JSON
      // body is counted as that key; before their key hook, so a 429 comes first.
      hook: 'preValidation',
      keyGenerator: (req: FastifyRequest) => {
        const key = apiKeyOf(req);
        return key === '' ? `ip:${req.ip}` : `key:${hashApiKey(key)}`;
      },
    });
  }
  const config: Record<string, unknown> =
    ctx.apiRateLimit > 0 ? { rateLimit: { max: ctx.apiRateLimit, timeWindow: 60_000 } } : {};
  // One counting pass per project serves the badges and the badge map of every API version.
  const badgeTallies = new BadgeTallies(ctx.store, ctx.clock);
  for (const version of [1, 2, 3] as ApiVersion[]) {
    const vctx = { ...ctx, version };
    const prefix = `/api/v${version}`;
    registerCheckRoutes(app, vctx, prefix, config);
    registerReadRoutes(app, vctx, prefix, config, badgeTallies);
    registerPolicyRoutes(app, vctx, prefix, config);
  }
  registerBadgeRoutes(app, ctx, badgeTallies);
  return app;
}

/**
 * Ping URLs carry no secrets but api_key may appear in a query by mistake, its
 * name percent-encoded too (api%5Fkey) or after a ';'.
 */
function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = url
    .slice(q + 1)
    .split(/([&;])/)
    .map((part, i) => {
      if (i % 2 === 1) return part; // a separator
      const eq = part.indexOf('=');
      if (eq === -1) return part;
      let name: string;
      try {
        name = decodeURIComponent(part.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        name = part.slice(0, eq);
      }
      return name.trim().toLowerCase() === 'api_key' ? `${part.slice(0, eq)}=[redacted]` : part;
    });
  return `${url.slice(0, q)}?${params.join('')}`;
}
