// Read endpoints around checks: pings, ping bodies, flips, channels, badges
// map, and the storage status probe.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { authenticate } from './auth.js';
import { registerResource } from './resource.js';
import { inWindow, parseFlipWindow } from './flips-query.js';
import { badgeUrls } from '../domain/badges.js';
import { isoMicros, isoSeconds } from '../domain/format.js';
import { isCheckCode, UUID_RE } from '../domain/ids.js';
import type { VersionedContext } from './context.js';
import type { BadgeTallies } from './badge-tallies.js';
import type { AuthResult } from '../store/store.js';
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
  const empty = (reply: FastifyReply, code: number) => reply.code(code).type('text/plain').send('');

  const ownCheck = (uuid: string, auth: AuthResult, reply: FastifyReply): CheckRecord | null => {
    const check = store.getCheck(uuid);
    if (!check) return void empty(reply, 404), null;
    if (check.projectId !== auth.project.id) return void empty(reply, 403), null;
    return check;
  };

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
    `${prefix}/checks/:code/pings/`,
    {
      GET: async (req, reply) => {
        const { code } = req.params as { code: string };
        const auth = authenticate(store, req, reply, 'write');
        if (!auth) return reply;
        const check = ownCheck(code, auth, reply);
        if (!check) return reply;
        const limit = Math.min(auth.project.pingLogLimit, MAX_PINGS_RETURNED);
        return reply.send({ pings: store.listPings(check.uuid, limit).map((p) => pingJson(check, p)) });
      },
    },
    { config, collection: true, paramsMatch: ({ code }) => UUID_RE.test(code!) },
  );

  registerResource(
    app,
    `${prefix}/checks/:code/pings/:n/body`,
    {
      GET: async (req, reply) => {
        const { code, n } = req.params as { code: string; n: string };
        const auth = authenticate(store, req, reply, 'write');
        if (!auth) return reply;
        const check = ownCheck(code, auth, reply);
        if (!check) return reply;
        const num = Number(n);
        // Outside the visible window even if not yet pruned.
        if (num <= check.nPings - auth.project.pingLogLimit) return empty(reply, 404);
        const ping = store.getPing(check.uuid, num);
        if (!ping || !ping.body || ping.body.length === 0) return empty(reply, 404);
        return reply.header('Content-Type', 'text/plain').send(Buffer.from(ping.body));
      },
    },
    { config, paramsMatch: ({ code, n }) => UUID_RE.test(code!) && /^\d+$/.test(n!) },
  );

  registerResource(
    app,
    `${prefix}/checks/:code/flips/`,
    {
      GET: async (req, reply) => {
        const { code } = req.params as { code: string };
        const byUuid = UUID_RE.test(code);
        const auth = authenticate(store, req, reply, 'read');
        if (!auth) return reply;
        const check = byUuid ? ownCheck(code, auth, reply) : (store.checkByUniqueKey(auth.project.id, code) ?? null);
        if (!check) return byUuid ? reply : empty(reply, 404);
        const window = parseFlipWindow(req.query as Record<string, string>, clock.now());
        // Upstream's empty 400 is Django's default type (api-details §4).
        if (!window) return reply.code(400).type('text/html; charset=utf-8').send('');
        // The seed document wins: a bare array, newest first.
        const flips = store
          .listFlips(check.uuid)
          .filter((f) => inWindow(f.created, window))
          .map((f) => ({ timestamp: isoSeconds(f.created), up: f.newStatus === 'up' ? 1 : 0 }));
        return reply.type('application/json').send(JSON.stringify(flips));
      },
    },
    { config, collection: true, paramsMatch: ({ code }) => isCheckCode(code!) },
  );

  registerResource(
    app,
    `${prefix}/channels/`,
    {
      GET: async (req, reply) => {
        const auth = authenticate(store, req, reply, 'write');
        if (!auth) return reply;
        const channels = store.listChannels(auth.project.id).map((c) => ({ id: c.id, name: c.name, kind: c.kind }));
        return reply.send({ channels });
      },
    },
    { config, collection: true },
  );

  registerResource(
    app,
    `${prefix}/badges/`,
    {
      GET: async (req, reply) => {
        const auth = authenticate(store, req, reply, 'read');
        if (!auth) return reply;
        const tags = [...(await badgeTallies.of(auth.project.id)).keys()].filter((t) => t !== '*');
        const badges: Record<string, unknown> = {};
        for (const tag of tags.sort()) badges[tag] = badgeUrls(baseUrl, auth.project.badgeKey, ctx.badgeSecret, tag);
        badges['*'] = badgeUrls(baseUrl, auth.project.badgeKey, ctx.badgeSecret, '*');
        return reply.send({ badges });
      },
    },
    { config, collection: true },
  );

  // No key and no CORS handling (api-details §15).
  app.get(`${prefix}/status/`, async (_req, reply) => {
    try {
      store.probe();
    } catch (err) {
      ctx.logger.error({ err }, 'status probe failed');
      return reply.code(500).type('text/plain').send('storage unavailable');
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
