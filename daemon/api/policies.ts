// The alert-policy endpoints of the API (alert-policies.md): the project's
// maintenance windows (§4.2), and mute and unmute of a check (§4.1, keys,
// 401/403/404 and the answer as for pause).
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';
import { ownCheck } from './own-check.js';
import { registerResource } from './resource.js';
import { openWindowsOf } from './open-windows.js';
import { checkToJson } from '../domain/representation.js';
import { validateMuteInput, validateWindowInput } from '../domain/policy-input.js';
import { windowToJson } from '../domain/maintenance.js';
import { MaintenanceService } from '../service/maintenance.js';
import { UUID_RE } from '../domain/ids.js';
import type { VersionedContext } from './context.js';

export function registerPolicyRoutes(app: FastifyInstance, ctx: VersionedContext, prefix: string, config: Record<string, unknown>): void {
  const { store, checks, clock, version, baseUrl } = ctx;
  const maintenance = new MaintenanceService(store, clock, ctx.gate);

  /** The window a path names, for the caller's project: 404 when there is none, 403 when another project's. */
  const ownWindow = (id: string, projectId: string) => {
    const w = store.getWindow(id);
    if (!w) throw HttpError.empty(404);
    if (w.projectId !== projectId) throw HttpError.empty(403);
    return w;
  };

  registerResource(
    app,
    store,
    `${prefix}/maintenance/`,
    {
      GET: async (req, reply) => reply.send({ windows: maintenance.list(req.project.id).map(windowToJson) }),
      POST: async (req, reply) => {
        const input = validateWindowInput(req.apiBody!);
        if (!input.ok) throw HttpError.json(400, input.error);
        const w = await maintenance.create(req.project.id, input.window);
        return reply.code(201).send(windowToJson(w));
      },
    },
    { config, collection: true, access: { GET: 'read', POST: 'write' } },
  );

  registerResource(
    app,
    store,
    `${prefix}/maintenance/:id`,
    {
      GET: async (req, reply) => reply.send(windowToJson(ownWindow((req.params as { id: string }).id, req.project.id))),
      DELETE: async (req, reply) => {
        const w = ownWindow((req.params as { id: string }).id, req.project.id);
        const removed = await maintenance.remove(w.id);
        if (!removed) throw HttpError.empty(404);
        return reply.send(windowToJson(removed));
      },
    },
    { config, access: { GET: 'read', DELETE: 'write' }, paramsMatch: ({ id }) => UUID_RE.test(id!) },
  );

  for (const action of ['mute', 'unmute'] as const) {
    registerResource(
      app,
      store,
      `${prefix}/checks/:code/${action}`,
      {
        POST: async (req, reply) => {
          const { code } = req.params as { code: string };
          ownCheck(store, code, req.project);
          let result;
          if (action === 'mute') {
            const input = validateMuteInput(req.apiBody!, clock.now());
            if (!input.ok) throw HttpError.json(400, input.error);
            result = await checks.mute(code, input.until);
          } else {
            result = await checks.unmute(code);
          }
          if (result.kind === 'missing') throw HttpError.empty(404);
          const now = clock.now();
          const openWindows = openWindowsOf(store, result.check.projectId, now);
          return reply.send(checkToJson(result.check, { now, version, readOnly: false, baseUrl, withSubject: true, openWindows }));
        },
      },
      { config, access: { POST: 'write' }, paramsMatch: ({ code }) => UUID_RE.test(code!) },
    );
  }
}
