// The alert-policy endpoints of the API (alert-policies.md): mute and unmute
// a check (§4.1). Keys, 401/403/404 and the answer as for pause.
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';
import { ownCheck } from './own-check.js';
import { registerResource } from './resource.js';
import { checkToJson } from '../domain/representation.js';
import { validateMuteInput } from '../domain/mute-input.js';
import { UUID_RE } from '../domain/ids.js';
import type { VersionedContext } from './context.js';

export function registerPolicyRoutes(app: FastifyInstance, ctx: VersionedContext, prefix: string, config: Record<string, unknown>): void {
  const { store, checks, clock, version, baseUrl } = ctx;
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
          return reply.send(checkToJson(result.check, { now: clock.now(), version, readOnly: false, baseUrl, withSubject: true }));
        },
      },
      { config, access: { POST: 'write' }, paramsMatch: ({ code }) => UUID_RE.test(code!) },
    );
  }
}
