// Registers one API path with the reference's method handling (api-details
// §1.3, §1.4, §16): CORS headers on every answer, OPTIONS → 204, other methods →
// 405 before auth, and a 301 to the slash form for collection paths. A path
// parameter of the wrong form matches no route (§1.2): 404 whatever the method.
// Each method's handler runs after its hooks: a POST body parsed (body.ts),
// then the key checked (auth.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { requireApiKey, type Access } from './auth.js';
import { readJsonBody } from './body.js';
import { HttpError } from './errors.js';
import type { Store } from '../store/store.js';

type Method = 'GET' | 'POST' | 'DELETE';
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export function corsHeaders(reply: FastifyReply, methods: string): void {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Allow-Headers', 'X-Api-Key');
  reply.header('Access-Control-Allow-Methods', methods);
  reply.header('Access-Control-Max-Age', '600');
}

export interface ResourceOptions<M extends Method> {
  /** The key each method needs; its handler finds request.project set. */
  access: Record<M, Access>;
  /** Route-level config, e.g. for rate limiting. */
  config?: Record<string, unknown>;
  /** Collection paths end with "/" and redirect the slash-less form. */
  collection?: boolean;
  /**
   * Whether the path parameters have the forms this path serves (a UUID, a
   * number...). When they do not, every method is a 404 before auth, as upstream's
   * URL patterns match nothing: not a 405, an OPTIONS 204 or a redirect.
   */
  paramsMatch?: (params: Record<string, string>) => boolean;
  /**
   * Whether the path parameters name the resource for reading only (a check's
   * unique_key): then GET is its one method, in the CORS list and the 405s too.
   */
  getOnly?: (params: Record<string, string>) => boolean;
}

const GET_ONLY = 'GET, OPTIONS';
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerResource<M extends Method>(
  app: FastifyInstance,
  store: Store,
  path: string,
  handlers: Record<M, RouteHandlerMethod>,
  opts: ResourceOptions<M>,
): void {
  const methods = Object.keys(handlers) as M[];
  const allow = [...methods, 'OPTIONS'].join(', ');
  const paramsMatch = opts.paramsMatch ?? (() => true);
  const onRequest = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = req.params as Record<string, string>;
    const getOnly = opts.getOnly?.(params) === true;
    corsHeaders(reply, getOnly ? GET_ONLY : allow);
    if (!paramsMatch(params)) throw HttpError.empty(404);
    if (getOnly && !READS.has(req.method)) throw HttpError.methodNotAllowed(GET_ONLY);
  };
  for (const method of methods) {
    app.route({
      method,
      url: path,
      onRequest,
      // The rate limit plugin appends its hook to these, so it finds a body api_key
      // parsed. A function, not an array: the HEAD route of a GET would share an array.
      preValidation: method === 'POST' ? readJsonBody : undefined,
      preHandler: requireApiKey(store, opts.access[method]),
      config: opts.config ?? {},
      handler: handlers[method],
    });
  }
  app.route({
    method: 'OPTIONS',
    url: path,
    onRequest,
    handler: async (_req, reply) => reply.code(204).send(),
  });
  const served: readonly string[] = methods;
  const others = ALL_METHODS.filter((m) => m !== 'OPTIONS' && !served.includes(m) && !(m === 'HEAD' && served.includes('GET')));
  if (others.length > 0) {
    app.route({
      method: others,
      url: path,
      onRequest,
      handler: async () => {
        throw HttpError.methodNotAllowed(allow);
      },
    });
  }
  if (opts.collection && path.endsWith('/')) {
    const bare = path.slice(0, -1);
    app.route({
      method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'],
      url: bare,
      onRequest: async (req) => {
        if (!paramsMatch(req.params as Record<string, string>)) throw HttpError.empty(404);
      },
      handler: async (req, reply) => {
        const q = req.url.indexOf('?');
        const target = req.url.slice(0, q === -1 ? undefined : q) + '/' + (q === -1 ? '' : req.url.slice(q));
        // 308 keeps the method and body for writes; GET and HEAD keep the reference's 301.
        return reply.redirect(target, req.method === 'GET' || req.method === 'HEAD' ? 301 : 308);
      },
    });
  }
}
