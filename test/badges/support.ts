// Shared pieces of the badge suite (api-details §14, Appendix B): a daemon on a
// real port with a hand-moved clock, projects with their badge keys, and
// independent implementations of the signature and the double tag encoding, so
// the tests do not just replay daemon/domain/badges.ts. Not a test file itself.
import { createHash, createHmac } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { ManualClock } from '../../daemon/shared/clock.js';
import { api, BASE_URL } from '../helpers/http.js';
import { useDaemon, type DaemonEnv, type InProcessDaemon, type TestProject } from '../helpers/in-process.js';

export const T0 = Date.parse('2024-03-01T12:00:00.000Z');

export interface BadgeEnv extends DaemonEnv {
  clock: ManualClock;
  /** The daemon's badge signing secret. */
  secret: string;
}

/** One daemon per test file (see useDaemon), with a ManualClock starting at T0. */
export function useBadgeDaemon(): BadgeEnv {
  const env = useDaemon({ clock: new ManualClock(T0) }) as BadgeEnv;
  beforeAll(async () => {
    env.secret = await env.d.daemon.store.badgeSecret();
  });
  return env;
}

export interface BadgeProject extends TestProject {
  /** The project badge key K. */
  badgeKey: string;
}

export async function badgeProject(env: { d: InProcessDaemon }): Promise<BadgeProject> {
  const p = await env.d.createProject({ checkLimit: 1000 });
  const rec = env.d.daemon.store.getProject(p.id);
  if (!rec) throw new Error('project not stored');
  return { ...p, badgeKey: rec.badgeKey };
}

/** The badges map of a project (GET /api/v3/badges/). */
export async function badgeMap(url: string, key: string): Promise<Record<string, Record<string, string>>> {
  const r = await api(url, '/api/v3/badges/', { key });
  if (r.status !== 200) throw new Error(`badges map: ${r.status} ${r.text}`);
  return r.json.badges;
}

/** A URL handed out with the configured base, pointed at the test daemon. */
export function local(env: { url: string }, publicUrl: string): string {
  if (!publicUrl.startsWith(`${BASE_URL}/`)) throw new Error(`not under the base URL: ${publicUrl}`);
  return env.url + publicUrl.slice(BASE_URL.length);
}

export interface Fetched {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A plain request to a full URL (no API key: badges are public). */
export async function get(fullUrl: string, method = 'GET'): Promise<Fetched> {
  return api(fullUrl, '', { method });
}

/** §14.2, written out again: first 8 chars of base64url(HMAC-SHA1(SHA1(K‖secret), tag)). */
export function signature(badgeKey: string, secret: string, tag: string): string {
  const key = createHash('sha1').update(badgeKey + secret, 'utf8').digest();
  return createHmac('sha1', key).update(tag, 'utf8').digest('base64url').slice(0, 8);
}

/** §14.2, written out again: percent-encode the UTF-8 bytes, then encode each `%` as `%25`. */
export function encodeTwice(tag: string): string {
  let out = '';
  for (const byte of Buffer.from(tag, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /^[A-Za-z0-9_.~-]$/.test(ch) ? ch : `%25${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path of a tag badge (tag `*` drops the tag segment), for hand-built URLs. */
export function tagBadgePath(badgeKey: string, sig: string, tag: string, fmt: string): string {
  return tag === '*' ? `/badge/${badgeKey}/${sig}.${fmt}` : `/badge/${badgeKey}/${sig}/${encodeTwice(tag)}.${fmt}`;
}

/** The `width` attribute of the root <svg>. */
export function svgWidth(svg: string): number {
  const m = /^<svg\b[^>]*\swidth="(\d+)"/.exec(svg);
  if (!m) throw new Error(`no root width in: ${svg.slice(0, 200)}`);
  return Number(m[1]);
}

/** Headers every badge answer carries (§14.3 item 8, §16). */
export function expectBadgeHeaders(h: Headers): void {
  expect(h.get('access-control-allow-origin')).toBe('*');
  expect(h.get('access-control-allow-headers')).toBe('X-Api-Key');
  const methods = (h.get('access-control-allow-methods') ?? '').split(/,\s*/);
  expect(methods).toContain('GET');
  expect(methods).toContain('OPTIONS');
  expect(h.get('access-control-max-age')).toBe('600');
  expect(h.get('cache-control') ?? '').toContain('no-cache');
}
