// What the API's route hooks establish once per request for the handlers, as
// decorations of Fastify's request: the JSON body (body.ts) and the caller's
// project (auth.ts). resource.ts puts the hooks on every API route.
import type { FastifyInstance } from 'fastify';
import type { HttpError } from './errors.js';
import type { ProjectRecord } from '../domain/types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A POST's JSON object, {} for an empty body; null on other methods or when refused. */
    apiBody: Record<string, unknown> | null;
    /** Why the body was refused (a 400); raised by the key hook, after the rate limit. */
    apiBodyRefusal: HttpError | null;
    /** The project of the request's API key, on API routes (set by the key hook). */
    project: ProjectRecord;
    /** Whether that key is the project's read-only one. */
    readOnlyKey: boolean;
  }
}

export function decorateApiRequest(app: FastifyInstance): void {
  app.decorateRequest('apiBody', null);
  app.decorateRequest('apiBodyRefusal', null);
  // Unset until the key hook runs; only the handlers behind it read it.
  app.decorateRequest('project', null as unknown as ProjectRecord);
  app.decorateRequest('readOnlyKey', false);
}
