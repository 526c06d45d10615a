// Shared pieces of the HTTP API acceptance suite: a daemon per test file with
// a second project, the exact field sets of the check representation, and
// small request helpers. Not a test file itself (no `.test.` in the name).
import { createHash } from 'node:crypto';
import { beforeAll } from 'vitest';
import { useDaemon, type DaemonEnv, type TestProject } from '../helpers/in-process.js';
import type { Clock } from '../../daemon/shared/clock.js';

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

export interface Env extends DaemonEnv {
  /** A second project, for cross-project 403s. */
  other: TestProject;
}

/** One daemon per test file (see useDaemon), with the projects `p` (the caller) and `other`. */
export function useApiDaemon(opts: { clock?: Clock; apiRateLimit?: number; checkLimit?: number } = {}): Env {
  const checkLimit = opts.checkLimit ?? 1000;
  const env = useDaemon({ clock: opts.clock, apiRateLimit: opts.apiRateLimit, project: { checkLimit } }) as Env;
  beforeAll(async () => {
    env.other = await env.d.createProject({ name: 'other', checkLimit });
  });
  return env;
}

/** A fresh project on the env's daemon (isolated list/filter tests). */
export function newProject(env: DaemonEnv, checkLimit = 1000): Promise<TestProject> {
  return env.d.createProject({ checkLimit });
}

export async function createChannel(env: DaemonEnv, name: string, projectId = env.p.id, kind = 'email') {
  return env.d.daemon.store.createChannel({ projectId, kind, name, value: 'ops@example.com' }, env.d.clock.now());
}

export function v3(path: string): string {
  return `/api/v3${path}`;
}
