// Registers one API path with the reference's method handling (api-details
// §1.3, §1.4, §16): CORS headers on every answer, OPTIONS → 204, other methods →
// 405 before auth, and a 301 to the slash form for collection paths. A path
// parameter of the wrong form matches no route (§1.2): 404 whatever the method.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';

type Method = 'GET' | 'POST' | 'DELETE';
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export function corsHeaders(reply: FastifyReply, methods: string): void {
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('Access-Control-Allow-Headers', 'X-Api-Key');
  reply.header('Access-Control-Allow-Methods', methods);
  reply.header('Access-Control-Max-Age', '600');
}

export interface ResourceOptions {
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

const notFound = (reply: FastifyReply) => reply.code(404).type('text/plain').send('');

export function registerResource(
  app: FastifyInstance,
  path: string,
  handlers: Partial<Record<Method, RouteHandlerMethod>>,
  opts: ResourceOptions = {},
): void {
  const methods = Object.keys(handlers) as Method[];
  const allow = [...methods, 'OPTIONS'].join(', ');
  const paramsMatch = opts.paramsMatch ?? (() => true);
  const onRequest = async (req: FastifyRequest, reply: FastifyReply) => {
    const params = req.params as Record<string, string>;
    const getOnly = opts.getOnly?.(params) === true;
    corsHeaders(reply, getOnly ? GET_ONLY : allow);
    if (!paramsMatch(params)) return notFound(reply);
    if (getOnly && !READS.has(req.method)) return reply.code(405).header('Allow', GET_ONLY).type('text/plain').send('');
  };
  for (const method of methods) {
    app.route({
      method,
      url: path,
      onRequest,
      config: opts.config ?? {},
      handler: handlers[method]!,
    });
  }
  app.route({
    method: 'OPTIONS',
    url: path,
    onRequest,
    handler: async (_req, reply) => reply.code(204).send(),
  });
  const others = ALL_METHODS.filter(
    (m) => m !== 'OPTIONS' && !(methods as string[]).includes(m) && !(m === 'HEAD' && methods.includes('GET')),
  );
  if (others.length > 0) {
    app.route({
      method: others,
      url: path,
      onRequest,
      handler: async (_req, reply) => reply.code(405).header('Allow', allow).type('text/plain').send(''),
    });
  }
  if (opts.collection && path.endsWith('/')) {
    const bare = path.slice(0, -1);
    app.route({
      method: ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS'],
      url: bare,
      onRequest: async (req, reply) => {
        if (!paramsMatch(req.params as Record<string, string>)) return notFound(reply);
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
