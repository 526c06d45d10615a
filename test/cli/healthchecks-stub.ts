// A stand-in for a Healthchecks server in tests of `checkd import
// --from-healthchecks`: it answers the recorded responses of
// fixtures/healthchecks-v3.json (or edited ones), checks the key as
// Healthchecks does, and can rate-limit, fail or hang on demand. Not a test file.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { join } from 'node:path';
import { onCleanup } from '../helpers/cleanup.js';

export interface Recording {
  api_key: string;
  api_key_readonly: string;
  responses: Record<string, unknown>;
}

/** The recorded answers, freshly parsed (tests may edit their copy). */
export function recording(): Recording {
  return JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/healthchecks-v3.json'), 'utf8')) as Recording;
}

export interface StubOptions {
  /** Answer this many requests with 429 first. */
  rateLimited?: number;
  /** The Retry-After header of those 429s (none when undefined). */
  retryAfter?: string;
  /** Answer this many requests with 503 first (after the 429s). */
  unavailable?: number;
  /** Never answer requests whose path matches. */
  hang?: RegExp;
}

export interface Stub {
  url: string;
  /** Paths requested, in order. */
  requests: string[];
  /** Stop answering now (it is closed at cleanup in any case); closing again does nothing. */
  close(): Promise<void>;
}

/** The stub on 127.0.0.1, on a free port; closed at cleanup (see helpers/cleanup.ts). */
export async function startStub(rec: Recording = recording(), opts: StubOptions = {}): Promise<Stub> {
  const requests: string[] = [];
  let rateLimited = opts.rateLimited ?? 0;
  let unavailable = opts.unavailable ?? 0;
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://stub').pathname;
    requests.push(path);
    if (opts.hang?.test(path)) {
      hanging.push(res);
      return;
    }
    if (rateLimited > 0) {
      rateLimited--;
      res.writeHead(429, opts.retryAfter === undefined ? {} : { 'Retry-After': opts.retryAfter }).end();
      return;
    }
    if (unavailable > 0) {
      unavailable--;
      res.writeHead(503).end();
      return;
    }
    const key = req.headers['x-api-key'];
    const readOnly = key === rec.api_key_readonly;
    if (typeof key !== 'string' || key.length !== 32) return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error": "missing api key"}');
    if (key !== rec.api_key && !readOnly) return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error": "wrong api key"}');
    const answer = rec.responses[path];
    if (answer === undefined) return void res.writeHead(404).end();
    if (path.endsWith('/body')) {
      if (readOnly) return void res.writeHead(401).end('{"error": "wrong api key"}');
      return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end(answer as string);
    }
    if (readOnly && path !== '/api/v3/checks/') return void res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error": "wrong api key"}');
    let doc = answer;
    if (readOnly) {
      // As Healthchecks answers a read-only key: no UUIDs or URLs, a unique_key instead.
      const checks = (answer as { checks: Array<Record<string, unknown>> }).checks.map((c) => {
        const { uuid, ping_url: _p, update_url: _u, pause_url: _pa, resume_url: _r, channels: _c, ...rest } = c;
        return { ...rest, unique_key: `uk-${String(uuid).slice(0, 8)}` };
      });
      doc = { checks };
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(doc));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    })());
  onCleanup(close);
  return { url: `http://127.0.0.1:${port}`, requests, close };
}
