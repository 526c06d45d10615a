// Public status badges (api-details §14.3, §14.4, Appendix B): the URLs that the
// badge map (`GET /api/vN/badges/`) and `badge_url` hand out. No authentication;
// the signature (tag badges) or the unguessable check badge key (per-check) is
// the capability. The status is computed when the badge is served.
//
//   /badge/<K>/<sig>[-2]/<T>.<fmt>   tag badge, <T> percent-encoded twice
//   /badge/<K>/<sig>[-2].<fmt>       the all-checks (`*`) badge
//   /b/<states>/<check_badge_key>.<fmt>
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { HttpError } from './errors.js';
import { corsHeaders } from './resource.js';
import {
  badgeJson,
  badgeShields,
  badgeSvg,
  checkBadgeLabel,
  badgeSummaryOf,
  checkBadgeStatus,
  parseBadgeRequest,
  parseCheckBadgeRequest,
  verifyBadgeSignature,
  type BadgeFormat,
  type BadgeSummary,
} from '../domain/badges.js';
import { SLUG_SEGMENT_RE } from '../domain/ids.js';
import { displayStatus } from '../domain/status.js';
import type { HttpContext } from './context.js';
import type { BadgeTallies } from './badge-tallies.js';

const METHODS = 'GET, OPTIONS';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH'] as const;

/**
 * Upstream wraps the badge views in never_cache outside the CORS decorator, so
 * every answer (404, OPTIONS, 405 included) carries both header sets.
 */
async function badgeHeaders(_req: FastifyRequest, reply: FastifyReply): Promise<void> {
  corsHeaders(reply, METHODS);
  reply.header('Cache-Control', 'max-age=0, no-cache, no-store, must-revalidate, private');
  reply.header('Expires', new Date().toUTCString());
}

function sendBadge(reply: FastifyReply, fmt: BadgeFormat, label: string, summary: BadgeSummary): FastifyReply {
  switch (fmt) {
    case 'svg':
      // A Buffer so Fastify sends the type exactly as given, with no charset added.
      return reply.code(200).type('image/svg+xml').send(Buffer.from(badgeSvg(label, summary.status), 'utf8'));
    case 'json':
      return reply.code(200).type('application/json').send(JSON.stringify(badgeJson(summary)));
    case 'shields':
      return reply.code(200).type('application/json').send(JSON.stringify(badgeShields(label, summary.status)));
  }
}

export function registerBadgeRoutes(app: FastifyInstance, ctx: HttpContext, tallies: BadgeTallies): void {
  // Upstream labels the `*` badge with its site name; here --badge-label.
  const masterLabel = ctx.badgeLabel;

  const tagBadge = async (reply: FastifyReply, key: string, sigSegment: string, tagSegment: string | null) => {
    const req = parseBadgeRequest(sigSegment, tagSegment);
    // `<badge_key>` and `<signature>` are Django slugs in upstream's routes.
    if (req === null || !SLUG_SEGMENT_RE.test(key) || !SLUG_SEGMENT_RE.test(req.sig)) throw HttpError.empty(404);
    if (!verifyBadgeSignature(key, ctx.badgeSecret, req.tag, req.sig)) throw HttpError.empty(404);
    const project = ctx.store.projectByBadgeKey(key);
    if (project === undefined) throw HttpError.empty(404);
    const tally = (await tallies.of(project.id)).get(req.tag) ?? { total: 0, grace: 0, down: 0 };
    const label = req.tag === '*' ? masterLabel : req.tag;
    return sendBadge(reply, req.fmt, label, badgeSummaryOf(tally, req.mode));
  };

  const checkBadge = (reply: FastifyReply, states: string, keySegment: string) => {
    const req = parseCheckBadgeRequest(states, keySegment);
    if (req === null) throw HttpError.empty(404);
    const check = ctx.store.checkByBadgeKey(req.badgeKey);
    if (check === undefined) throw HttpError.empty(404);
    const summary = checkBadgeStatus(displayStatus(check, ctx.clock.now(), 3), req.mode);
    return sendBadge(reply, req.fmt, checkBadgeLabel(check), summary);
  };

  const route = (url: string, handler: RouteHandlerMethod) => {
    // GET (Fastify adds HEAD: GET without a body, api-details §1.4 item 3).
    app.route({ method: 'GET', url, onRequest: badgeHeaders, handler });
    app.route({ method: 'OPTIONS', url, onRequest: badgeHeaders, handler: async (_req, reply) => reply.code(204).send() });
    app.route({
      method: [...OTHER_METHODS],
      url,
      onRequest: badgeHeaders,
      handler: async () => {
        throw HttpError.methodNotAllowed(METHODS);
      },
    });
  };

  route('/badge/:key/:sig/:tagfmt', async (req, reply) => {
    const { key, sig, tagfmt } = req.params as { key: string; sig: string; tagfmt: string };
    return tagBadge(reply, key, sig, tagfmt);
  });
  route('/badge/:key/:sigfmt', async (req, reply) => {
    const { key, sigfmt } = req.params as { key: string; sigfmt: string };
    return tagBadge(reply, key, sigfmt, null);
  });
  route('/b/:states/:keyfmt', async (req, reply) => {
    const { states, keyfmt } = req.params as { states: string; keyfmt: string };
    return checkBadge(reply, states, keyfmt);
  });
}
