// Shared pieces of the ping suite: a real daemon per test file on a real port,
// a raw HTTP client (any method, any header, bodies on GET, bytes back), and
// small API helpers. Not a test file itself (no `.test.` in the name).
import { request } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { api, createCheck as createCheckAt, startInProcess, type InProcessDaemon, type TestProject } from '../helpers/daemon.js';
import type { Clock } from '../../daemon/shared/clock.js';

export { api };

export const BASE_URL = 'http://checkd.test';
/** A UUID that no daemon has ever issued. */
export const MISSING_UUID = '00000000-0000-4000-8000-000000000000';
export const RID_A = '6bf5f1a0-8a3e-4d0b-9d5c-6f0d7d1c0a01';
export const RID_B = '0f4c2b7e-1d3a-4e5f-8a6b-7c8d9e0f1a2b';

export interface PingEnv {
  d: InProcessDaemon;
  url: string;
  p: TestProject;
}

export interface PingEnvOptions {
  clock?: Clock;
  pingBodyLimit?: number;
  trustProxy?: boolean;
  checkLimit?: number;
  pingLogLimit?: number;
  dataDir?: string;
}

/** One daemon per test file (or describe block), started before and stopped after. */
export function usePingDaemon(opts: PingEnvOptions = {}): PingEnv {
  const env = {} as PingEnv;
  beforeAll(async () => {
    env.d = await startInProcess({
      clock: opts.clock,
      pingBodyLimit: opts.pingBodyLimit,
      trustProxy: opts.trustProxy,
      dataDir: opts.dataDir,
      baseUrl: BASE_URL,
    });
    env.url = env.d.url;
    env.p = await env.d.createProject({ checkLimit: opts.checkLimit ?? 1000, pingLogLimit: opts.pingLogLimit ?? 100 });
  });
  afterAll(async () => {
    await env.d?.stop();
  });
  return env;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
}

/** One HTTP request with full control: any method, any header, a body on GET too. */
export function send(
  base: string,
  path: string,
  opts: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
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

/** Create a check through the API and return its representation (asserts 201). */
export async function createCheck(env: PingEnv, body: Record<string, unknown> = {}, key = env.p.apiKey): Promise<any> {
  return createCheckAt(env.url, key, body);
}

export async function getCheck(env: PingEnv, uuid: string, version = 3): Promise<any> {
  const r = await api(env.url, `/api/v${version}/checks/${uuid}`, { key: env.p.apiKey });
  if (r.status !== 200) throw new Error(`get failed: ${r.status} ${r.text}`);
  return r.json;
}

export async function listPings(env: PingEnv, uuid: string): Promise<any[]> {
  const r = await api(env.url, `/api/v3/checks/${uuid}/pings/`, { key: env.p.apiKey });
  if (r.status !== 200) throw new Error(`pings failed: ${r.status} ${r.text}`);
  return r.json.pings;
}

export async function listFlips(env: PingEnv, uuid: string, query = ''): Promise<any[]> {
  const r = await api(env.url, `/api/v3/checks/${uuid}/flips/${query}`, { key: env.p.apiKey });
  if (r.status !== 200) throw new Error(`flips failed: ${r.status} ${r.text}`);
  return r.json;
}

/** A ping that must be accepted; returns the raw response. */
export async function ping(
  env: PingEnv,
  path: string,
  opts: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const r = await send(env.url, `/ping/${path}`, opts);
  if (r.status !== 200 && r.status !== 201) throw new Error(`ping ${path} gave ${r.status} ${r.text}`);
  return r;
}

export async function apiPost(env: PingEnv, path: string, body: Record<string, unknown> = {}) {
  return api(env.url, `/api/v3${path}`, { method: 'POST', key: env.p.apiKey, body });
}

/** Wait until `probe` returns a truthy value (polls every 20 ms). */
export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
