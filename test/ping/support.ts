// Shared pieces of the ping suite: run ids, and API reads of what pings
// recorded, on the daemon of a test file (useDaemon). Not a test file itself
// (no `.test.` in the name).
import { api } from '../helpers/http.js';
import type { DaemonEnv } from '../helpers/in-process.js';

export const RID_A = '6bf5f1a0-8a3e-4d0b-9d5c-6f0d7d1c0a01';
export const RID_B = '0f4c2b7e-1d3a-4e5f-8a6b-7c8d9e0f1a2b';

export async function getCheck(env: DaemonEnv, uuid: string, version = 3): Promise<any> {
  const r = await api(env.url, `/api/v${version}/checks/${uuid}`, { key: env.p.apiKey });
  if (r.status !== 200) throw new Error(`get failed: ${r.status} ${r.text}`);
  return r.json;
}

export async function listPings(env: DaemonEnv, uuid: string): Promise<any[]> {
  const r = await api(env.url, `/api/v3/checks/${uuid}/pings/`, { key: env.p.apiKey });
  if (r.status !== 200) throw new Error(`pings failed: ${r.status} ${r.text}`);
  return r.json.pings;
}

export async function listFlips(env: DaemonEnv, uuid: string, query = ''): Promise<any[]> {
  const r = await api(env.url, `/api/v3/checks/${uuid}/flips/${query}`, { key: env.p.apiKey });
  if (r.status !== 200) throw new Error(`flips failed: ${r.status} ${r.text}`);
  return r.json;
}

export async function apiPost(env: DaemonEnv, path: string, body: Record<string, unknown> = {}) {
  return api(env.url, `/api/v3${path}`, { method: 'POST', key: env.p.apiKey, body });
}
