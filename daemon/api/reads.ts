// Read endpoints around checks: pings, ping bodies, flips, channels, badges
// map, and the storage status probe.
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';
import { ownCheck, ownCheckByCode } from './own-check.js';
import { registerResource } from './resource.js';
import { inWindow, parseFlipWindow } from './flips-query.js';
import { badgeUrls } from '../domain/badges.js';
import { isoMicros, isoSeconds } from '../domain/format.js';
import { isCheckCode, UUID_RE } from '../domain/ids.js';
import type { VersionedContext } from './context.js';
import type { BadgeTallies } from './badge-tallies.js';
import type { CheckRecord, PingRecord } from '../domain/types.js';

const MAX_PINGS_RETURNED = 1000;

export function registerReadRoutes(
  app: FastifyInstance,
  ctx: VersionedContext,
  prefix: string,
  config: Record<string, unknown>,
  badgeTallies: BadgeTallies,
): void {
  const { store, clock, version, baseUrl } = ctx;

  const pingJson = (check: CheckRecord, p: PingRecord) => {
    const doc: Record<string, unknown> = {
      type: p.kind,
      date: isoMicros(p.date),
      n: p.n,
      scheme: p.scheme,
      remote_addr: p.remoteAddr,
      method: p.method,
      ua: p.ua,
      rid: p.rid,
      body_url: p.body && p.body.length > 0 ? `${baseUrl}/api/v${version}/checks/${check.uuid}/pings/${p.n}/body` : null,
    };
    if (p.duration !== null) doc.duration = Math.round(p.duration * 100) / 100;
    return doc;
  };

  registerResource(
    app,
    store,
    `${prefix}/checks/:code/pings/`,
    {
      GET: async (req, reply) => {
        const { code } = req.params as { code: string };
        const check = ownCheck(store, code, req.project);
        const limit = Math.min(req.project.pingLogLimit, MAX_PINGS_RETURNED);
        return reply.send({ pings: store.listPings(check.uuid, limit).map((p) => pingJson(check, p)) });
      },
    },
    { config, collection: true, access: { GET: 'write' }, paramsMatch: ({ code }) => UUID_RE.test(code!) },
  );

  registerResource(
    app,
    store,
    `${prefix}/checks/:code/pings/:n/body`,
    {
      GET: async (req, reply) => {
        const { code, n } = req.params as { code: string; n: string };
        const check = ownCheck(store, code, req.project);
        const num = Number(n);
        // Outside the visible window even if not yet pruned.
        if (num <= check.nPings - req.project.pingLogLimit) throw HttpError.empty(404);
        const ping = store.getPing(check.uuid, num);
        if (!ping || !ping.body || ping.body.length === 0) throw HttpError.empty(404);
        return reply.header('Content-Type', 'text/plain').send(Buffer.from(ping.body));
      },
    },
    { config, access: { GET: 'write' }, paramsMatch: ({ code, n }) => UUID_RE.test(code!) && /^\d+$/.test(n!) },
  );

  registerResource(
    app,
    store,
    `${prefix}/checks/:code/flips/`,
    {
      GET: async (req, reply) => {
        const { code } = req.params as { code: string };
        const check = ownCheckByCode(store, code, req.project);
        const window = parseFlipWindow(req.query as Record<string, string>, clock.now());
        // Upstream's empty 400 is Django's default type (api-details §4).
        if (!window) throw new HttpError(400, '', 'text/html; charset=utf-8');
        // The seed document wins: a bare array, newest first.
        const flips = store
          .listFlips(check.uuid)
          .filter((f) => inWindow(f.created, window))
          .map((f) => ({ timestamp: isoSeconds(f.created), up: f.newStatus === 'up' ? 1 : 0 }));
        // v1 and v2 answer as the real service does, which clients of it read (spec/README.md).
        return reply.type('application/json').send(JSON.stringify(version >= 3 ? flips : { flips }));
      },
    },
    { config, collection: true, access: { GET: 'read' }, paramsMatch: ({ code }) => isCheckCode(code!) },
  );

  registerResource(
    app,
    store,
    `${prefix}/channels/`,
    {
      GET: async (req, reply) => {
        // repeat_every (alert-policies §3) only when set: a channel without it looks as upstream's.
        const channels = store
          .listChannels(req.project.id)
          .map((c) => ({ id: c.id, name: c.name, kind: c.kind, ...(c.repeatEvery ? { repeat_every: c.repeatEvery } : {}) }));
        return reply.send({ channels });
      },
    },
    { config, collection: true, access: { GET: 'write' } },
  );

  registerResource(
    app,
    store,
    `${prefix}/badges/`,
    {
      GET: async (req, reply) => {
        const { project } = req;
        const tags = [...(await badgeTallies.of(project.id)).keys()].filter((t) => t !== '*');
        const badges: Record<string, unknown> = {};
        for (const tag of tags.sort()) badges[tag] = badgeUrls(baseUrl, project.badgeKey, ctx.badgeSecret, tag);
        badges['*'] = badgeUrls(baseUrl, project.badgeKey, ctx.badgeSecret, '*');
        return reply.send({ badges });
      },
    },
    { config, collection: true, access: { GET: 'read' } },
  );

  // No key and no CORS handling (api-details §15).
  app.get(`${prefix}/status/`, async (_req, reply) => {
    try {
      store.probe();
    } catch (err) {
      ctx.logger.error({ err }, 'status probe failed');
      throw new HttpError(500, 'storage unavailable');
    }
    return reply.type('text/plain').send('OK');
  });
  // Like every collection path (api-details §1.3): uptime monitors configured without
  // the slash get the reference's 301 rather than a 404.
  app.get(`${prefix}/status`, async (req, reply) => {
    const q = req.url.indexOf('?');
    return reply.redirect(`${prefix}/status/${q === -1 ? '' : req.url.slice(q)}`, 301);
  });
}
