// HTTP against a test daemon: the JSON API client, a raw client (any method,
// any header, bodies on GET, bytes back), pings, check creation, and ports.
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer } from 'node:net';

/** The base URL test daemons are configured with (the URLs they hand out start with it). */
export const BASE_URL = 'http://checkd.test';
/** A UUID that no daemon has ever issued. */
export const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** fetch with a JSON body (POST unless `method` says otherwise) and the key header. */
export async function api(
  base: string,
  path: string,
  opts: { method?: string; key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers['X-Api-Key'] = opts.key;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(base + path, { method: opts.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

export interface RawRequest {
  method?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP request with full control: any method (GET by default), any header, a body on GET too. */
export function send(base: string, path: string, opts: RawRequest = {}): Promise<RawResponse> {
  const url = new URL(base);
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: opts.method ?? 'GET', headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * A ping that must be accepted (throws unless 200): `target` is what follows
 * `/ping/`, e.g. `${uuid}`, `${uuid}/fail`, `${pingKey}/${slug}/start?rid=...`.
 * GET by default, POST when there is a body and no method.
 */
export async function ping(url: string, target: string, opts: RawRequest = {}): Promise<RawResponse> {
  const method = opts.method ?? (opts.body !== undefined ? 'POST' : 'GET');
  const r = await send(url, `/ping/${target}`, { ...opts, method });
  if (r.status !== 200) throw new Error(`ping ${method} ${target} gave ${r.status} ${r.text}`);
  return r;
}

/** POST /api/v3/checks/ with a read-write key; returns the check's representation (throws unless 201). */
export async function createCheck(url: string, key: string, body: Record<string, unknown> = {}): Promise<any> {
  const r = await api(url, '/api/v3/checks/', { method: 'POST', key, body });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.json;
}

/** A TCP port that was free a moment ago (bound to port 0, then released). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const srv = createServer();
  srv.listen(0, host);
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  return port;
}

/** Whether something can bind host:port right now. */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const srv = createServer();
  return new Promise((resolve) => {
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}
