// /api/vN/checks/...: list, get (by UUID or unique_key), create (with upsert),
// update, pause, resume, delete. Processing order per api-details §6.13/§6.14.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from './errors.js';
import { ownCheck, ownCheckByCode } from './own-check.js';
import { registerResource } from './resource.js';
import { openWindowsOf } from './open-windows.js';
import { checkToJson } from '../domain/representation.js';
import { validateCheckInput, type CheckInput } from '../domain/check-input.js';
import { isCheckCode, tagList, UUID_RE } from '../domain/ids.js';
import type { VersionedContext } from './context.js';
import type { CheckRecord } from '../domain/types.js';

type Params = { code: string };

/** Checks listed between two turns of the event loop: reading, representing and serializing one costs ~20 µs. */
const LIST_CHUNK = 250;

export function registerCheckRoutes(app: FastifyInstance, ctx: VersionedContext, prefix: string, config: Record<string, unknown>): void {
  const { store, checks, clock, version, baseUrl } = ctx;
  const represent = (check: CheckRecord, readOnly: boolean, withSubject: boolean, openWindows = openWindowsOf(store, check.projectId, clock.now())) =>
    checkToJson(check, { now: clock.now(), version, readOnly, baseUrl, withSubject, openWindows });

  /** The POST body (parsed by the body hook) as check fields, or the 400 naming what is wrong. */
  const checkInput = (req: FastifyRequest): CheckInput => {
    const valid = validateCheckInput(req.apiBody!);
    if (!valid.ok) throw HttpError.json(400, valid.error);
    return valid.input;
  };

  registerResource(
    app,
    store,
    `${prefix}/checks/`,
    {
      GET: async (req, reply) => {
        const query = req.query as Record<string, string | string[] | undefined>;
        const slug = typeof query.slug === 'string' ? query.slug : (query.slug?.at(-1) ?? '');
        const wanted = [query.tag ?? []].flat();
        const listed = (c: CheckRecord) => {
          if (wanted.length === 0) return true;
          const tags = tagList(c.tags);
          return wanted.every((t) => tags.includes(t));
        };
        // A slug narrows the list through the slug index (scripts look checks up this way).
        const open = openWindowsOf(store, req.project.id, clock.now());
        if (slug !== '') {
          const found = store.checksBySlug(req.project.id, slug).sort((a, b) => a.createdAt - b.createdAt);
          return reply.send({ checks: found.filter(listed).map((c) => represent(c, req.readOnlyKey, false, open)) });
        }
        // The whole project, streamed out a chunk at a time: with 100,000 checks
        // the list is ~90 MB of JSON and seconds of work, which must neither hold
        // up pings nor sit in memory whole. The text is what JSON.stringify of the
        // whole object would give.
        const readOnly = req.readOnlyKey;
        const projectId = req.project.id;
        async function* listText(): AsyncGenerator<string> {
          yield '{"checks":[';
          let separator = '';
          for await (const chunk of store.checkChunks({ projectId, size: LIST_CHUNK })) {
            const items = chunk.filter(listed).map((c) => JSON.stringify(represent(c, readOnly, false, open)));
            if (items.length === 0) continue;
            yield separator + items.join(',');
            separator = ',';
          }
          yield ']}';
        }
        return reply.type('application/json; charset=utf-8').send(Readable.from(listText(), { objectMode: false }));
      },
      POST: async (req, reply) => {
        const result = await checks.create(req.project, checkInput(req), version);
        switch (result.kind) {
          case 'limit':
            throw HttpError.empty(403);
          case 'invalid':
            throw HttpError.json(400, result.error);
          default:
            return reply.code(result.kind === 'created' ? 201 : 200).send(represent(result.check, false, true));
        }
      },
    },
    { config, collection: true, access: { GET: 'read', POST: 'write' } },
  );

  registerResource(
    app,
    store,
    `${prefix}/checks/:code`,
    {
      GET: async (req, reply) => {
        const { code } = req.params as Params;
        return reply.send(represent(ownCheckByCode(store, code, req.project), req.readOnlyKey, false));
      },
      POST: async (req, reply) => {
        const { code } = req.params as Params;
        ownCheck(store, code, req.project);
        const result = await checks.update(code, checkInput(req), version);
        if (result.kind === 'missing') throw HttpError.empty(404);
        if (result.kind === 'invalid') throw HttpError.json(400, result.error);
        return reply.send(represent(result.check, false, true));
      },
      DELETE: async (req, reply) => {
        const { code } = req.params as Params;
        ownCheck(store, code, req.project);
        const deleted = await checks.delete(code);
        if (!deleted) throw HttpError.empty(404);
        return reply.send(represent(deleted, false, true));
      },
    },
    {
      config,
      access: { GET: 'read', POST: 'write', DELETE: 'write' },
      paramsMatch: ({ code }) => isCheckCode(code!),
      getOnly: ({ code }) => !UUID_RE.test(code!),
    },
  );

  for (const action of ['pause', 'resume'] as const) {
    registerResource(
      app,
      store,
      `${prefix}/checks/:code/${action}`,
      {
        POST: async (req, reply) => {
          const { code } = req.params as Params;
          ownCheck(store, code, req.project);
          const result = action === 'pause' ? await checks.pause(code) : await checks.resume(code);
          if (result.kind === 'missing') throw HttpError.empty(404);
          if (result.kind === 'not-paused') throw new HttpError(409, 'check is not paused');
          return reply.send(represent(result.check, false, true));
        },
      },
      { config, access: { POST: 'write' }, paramsMatch: ({ code }) => UUID_RE.test(code!) },
    );
  }
}
