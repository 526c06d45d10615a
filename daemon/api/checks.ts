// /api/vN/checks/...: list, get (by UUID or unique_key), create (with upsert),
// update, pause, resume, delete. Processing order per api-details §6.13/§6.14.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from './auth.js';
import { jsonObjectBody } from './body.js';
import { registerResource } from './resource.js';
import { checkToJson } from '../domain/representation.js';
import { validateCheckInput } from '../domain/check-input.js';
import { isCheckCode, tagList, UUID_RE } from '../domain/ids.js';
import type { VersionedContext } from './context.js';
import type { AuthResult } from '../store/store.js';
import type { CheckRecord } from '../domain/types.js';

type Params = { code: string };

/** Checks listed between two turns of the event loop: reading, representing and serializing one costs ~20 µs. */
const LIST_CHUNK = 250;

export function registerCheckRoutes(app: FastifyInstance, ctx: VersionedContext, prefix: string, config: Record<string, unknown>): void {
  const { store, checks, clock, version, baseUrl } = ctx;
  const represent = (check: CheckRecord, readOnly: boolean, withSubject: boolean) =>
    checkToJson(check, { now: clock.now(), version, readOnly, baseUrl, withSubject });

  /** Resolves a UUID path segment to a check of the caller's project, or answers 404/403. */
  const ownCheck = (uuid: string, auth: AuthResult, reply: FastifyReply): CheckRecord | null => {
    const check = store.getCheck(uuid);
    if (!check) {
      void reply.code(404).type('text/plain').send('');
      return null;
    }
    if (check.projectId !== auth.project.id) {
      void reply.code(403).type('text/plain').send('');
      return null;
    }
    return check;
  };

  registerResource(
    app,
    `${prefix}/checks/`,
    {
      GET: async (req: FastifyRequest, reply) => {
        const auth = authenticate(store, req, reply, 'read');
        if (!auth) return reply;
        const query = req.query as Record<string, string | string[] | undefined>;
        const slug = typeof query.slug === 'string' ? query.slug : (query.slug?.at(-1) ?? '');
        const wanted = [query.tag ?? []].flat();
        const listed = (c: CheckRecord) => {
          if (wanted.length === 0) return true;
          const tags = tagList(c.tags);
          return wanted.every((t) => tags.includes(t));
        };
        // A slug narrows the list through the slug index (scripts look checks up this way).
        if (slug !== '') {
          const found = store.checksBySlug(auth.project.id, slug).sort((a, b) => a.createdAt - b.createdAt);
          return reply.send({ checks: found.filter(listed).map((c) => represent(c, auth.readOnly, false)) });
        }
        // The whole project, streamed out a chunk at a time: with 100,000 checks
        // the list is ~90 MB of JSON and seconds of work, which must neither hold
        // up pings nor sit in memory whole. The text is what JSON.stringify of the
        // whole object would give.
        const { readOnly } = auth;
        const projectId = auth.project.id;
        async function* listText(): AsyncGenerator<string> {
          yield '{"checks":[';
          let separator = '';
          for await (const chunk of store.checkChunks({ projectId, size: LIST_CHUNK })) {
            const items = chunk.filter(listed).map((c) => JSON.stringify(represent(c, readOnly, false)));
            if (items.length === 0) continue;
            yield separator + items.join(',');
            separator = ',';
          }
          yield ']}';
        }
        return reply.type('application/json; charset=utf-8').send(Readable.from(listText(), { objectMode: false }));
      },
      POST: async (req, reply) => {
        const body = jsonObjectBody(req, reply);
        if (!body) return reply;
        const auth = authenticate(store, req, reply, 'write', body);
        if (!auth) return reply;
        const valid = validateCheckInput(body);
        if (!valid.ok) return reply.code(400).send({ error: valid.error });
        const result = await checks.create(auth.project, valid.input, version);
        switch (result.kind) {
          case 'limit':
            return reply.code(403).type('text/plain').send('');
          case 'invalid':
            return reply.code(400).send({ error: result.error });
          default:
            return reply.code(result.kind === 'created' ? 201 : 200).send(represent(result.check, false, true));
        }
      },
    },
    { config, collection: true },
  );

  registerResource(
    app,
    `${prefix}/checks/:code`,
    {
      GET: async (req, reply) => {
        const { code } = req.params as Params;
        const auth = authenticate(store, req, reply, 'read');
        if (!auth) return reply;
        if (UUID_RE.test(code)) {
          const check = ownCheck(code, auth, reply);
          return check ? reply.send(represent(check, auth.readOnly, false)) : reply;
        }
        const check = store.checkByUniqueKey(auth.project.id, code);
        if (!check) return reply.code(404).type('text/plain').send('');
        return reply.send(represent(check, auth.readOnly, false));
      },
      POST: async (req, reply) => {
        const { code } = req.params as Params;
        const body = jsonObjectBody(req, reply);
        if (!body) return reply;
        const auth = authenticate(store, req, reply, 'write', body);
        if (!auth) return reply;
        if (!ownCheck(code, auth, reply)) return reply;
        const valid = validateCheckInput(body);
        if (!valid.ok) return reply.code(400).send({ error: valid.error });
        const result = await checks.update(code, valid.input, version);
        if (result.kind === 'missing') return reply.code(404).type('text/plain').send('');
        if (result.kind === 'invalid') return reply.code(400).send({ error: result.error });
        return reply.send(represent(result.check, false, true));
      },
      DELETE: async (req, reply) => {
        const { code } = req.params as Params;
        const auth = authenticate(store, req, reply, 'write');
        if (!auth) return reply;
        if (!ownCheck(code, auth, reply)) return reply;
        const deleted = await checks.delete(code);
        if (!deleted) return reply.code(404).type('text/plain').send('');
        return reply.send(represent(deleted, false, true));
      },
    },
    { config, paramsMatch: ({ code }) => isCheckCode(code!), getOnly: ({ code }) => !UUID_RE.test(code!) },
  );

  for (const action of ['pause', 'resume'] as const) {
    registerResource(
      app,
      `${prefix}/checks/:code/${action}`,
      {
        POST: async (req, reply) => {
          const { code } = req.params as Params;
          const body = jsonObjectBody(req, reply);
          if (!body) return reply;
          const auth = authenticate(store, req, reply, 'write', body);
          if (!auth) return reply;
          if (!ownCheck(code, auth, reply)) return reply;
          const result = action === 'pause' ? await checks.pause(code) : await checks.resume(code);
          if (result.kind === 'missing') return reply.code(404).type('text/plain').send('');
          if (result.kind === 'not-paused') return reply.code(409).type('text/plain').send('check is not paused');
          return reply.send(represent(result.check, false, true));
        },
      },
      { config, paramsMatch: ({ code }) => UUID_RE.test(code!) },
    );
  }
}
