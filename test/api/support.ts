// Shared pieces of the HTTP API acceptance suite: a daemon per test file on a
// real port, the exact field sets of the check representation, and small
// request helpers. Not a test file itself (no `.test.` in the name).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { api, createCheck as createCheckAt, startInProcess, type InProcessDaemon, type TestProject } from '../helpers/daemon.js';
import type { Clock } from '../../daemon/shared/clock.js';

export { api };

export const BASE_URL = 'http://checkd.test';

/** The seed/§5.1 member order of a read-write representation of a simple check, write responses. */
export const RW_WRITE_KEYS = [
  'name',
  'slug',
  'tags',
  'desc',
  'grace',
  'n_pings',
  'status',
  'started',
  'last_ping',
  'next_ping',
  'manual_resume',
  'methods',
  'subject',
  'subject_fail',
  'start_kw',
  'success_kw',
  'failure_kw',
  'filter_subject',
  'filter_body',
  'filter_http_body',
  'filter_default_fail',
  'badge_url',
  'uuid',
  'ping_url',
  'update_url',
  'pause_url',
  'resume_url',
  'channels',
  'timeout',
] as const;

/** List and get responses: the seed document wins, no subject / subject_fail. */
export const RW_READ_KEYS = RW_WRITE_KEYS.filter((k) => k !== 'subject' && k !== 'subject_fail');

const RW_ONLY = ['uuid', 'ping_url', 'update_url', 'pause_url', 'resume_url', 'channels'];

/** A read-only key's view in list/get: the rw-only members replaced by unique_key after badge_url. */
export const RO_READ_KEYS = [
  ...RW_READ_KEYS.filter((k) => !RW_ONLY.includes(k) && k !== 'timeout'),
  'unique_key',
  'timeout',
];

/** Swap timeout for schedule + tz (checks defined by a schedule). */
export function scheduleKeys(keys: readonly string[]): string[] {
  return [...keys.filter((k) => k !== 'timeout'), 'schedule', 'tz'];
}

/** Independent implementation of api-details §5.2. */
export function expectedUniqueKey(uuid: string): string {
  return createHash('sha1').update(uuid.replace(/-/g, '').slice(0, 16), 'ascii').digest('hex');
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID that no daemon has ever issued. */
export const MISSING_UUID = '00000000-0000-4000-8000-000000000000';

export interface Env {
  d: InProcessDaemon;
  url: string;
  p: TestProject;
  other: TestProject;
}

/**
 * One daemon per test file, started before the tests and stopped after. Two
 * projects: `p` (the caller) and `other` (for cross-project 403s).
 */
export function useDaemon(opts: { clock?: Clock; apiRateLimit?: number; checkLimit?: number } = {}): Env {
  const env = {} as Env;
  beforeAll(async () => {
    env.d = await startInProcess({ clock: opts.clock, apiRateLimit: opts.apiRateLimit ?? 0, baseUrl: BASE_URL });
    env.url = env.d.url;
    env.p = await env.d.createProject({ checkLimit: opts.checkLimit ?? 1000 });
    env.other = await env.d.createProject({ name: 'other', checkLimit: opts.checkLimit ?? 1000 });
  });
  afterAll(async () => {
    await env.d?.stop();
  });
  return env;
}

/** Create a check and return its read-write representation (asserts 201). */
export async function createCheck(env: Env, body: Record<string, unknown> = {}, key = env.p.apiKey): Promise<any> {
  return createCheckAt(env.url, key, body);
}

/** A fresh project on the env's daemon (isolated list/filter tests). */
export function newProject(env: Env, checkLimit = 1000): Promise<TestProject> {
  return env.d.createProject({ checkLimit });
}

export async function createChannel(env: Env, name: string, projectId = env.p.id, kind = 'email') {
  return env.d.daemon.store.createChannel({ projectId, kind, name, value: 'ops@example.com' }, env.d.clock.now());
}

/** Send a ping over HTTP (success by default; suffix "start", "fail", ...). */
export async function ping(env: Env, uuid: string, opts: { suffix?: string; body?: string; method?: string } = {}) {
  const path = `/ping/${uuid}${opts.suffix ? `/${opts.suffix}` : ''}`;
  const res = await fetch(env.url + path, { method: opts.method ?? (opts.body !== undefined ? 'POST' : 'GET'), body: opts.body });
  await res.text();
  if (res.status !== 200) throw new Error(`ping ${path} gave ${res.status}`);
}

export function v3(path: string): string {
  return `/api/v3${path}`;
}
