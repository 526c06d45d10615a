// The ping URL grammar (ping-protocol §1): which check a path under /ping/
// addresses and what it signals. The one reader of ping URLs. Pure.
import { SLUG_SEGMENT_RE, UUID_RE } from './ids.js';

/** The action a ping URL names before any check setting is applied (ping-protocol §1, §6 step 1). */
export type UrlAction = 'success' | 'start' | 'fail' | 'log';

/** What the URL signals: `/<exit-status>` is a success carrying its exit status (§6 step 2 reads it). */
export interface PingSuffix {
  action: UrlAction;
  /** The integer of the `/<exit-status>` form, otherwise null. */
  exitStatus: number | null;
}

/**
 * Why a URL of a ping form is still refused, with 400 `invalid url format`
 * (ping-protocol §3): an uppercase slug before the check lookup, an exit status
 * above 255 only after it, so that an unknown check stays a 404.
 */
export type PingUrlRefusal = 'uppercase-slug' | 'exit-status-out-of-range';

interface PingUrlCommon extends PingSuffix {
  refusal?: PingUrlRefusal;
}

export type PingUrl =
  | (PingUrlCommon & { by: 'uuid'; /** The check's UUID. */ key: string })
  | (PingUrlCommon & { by: 'slug'; /** The project's ping key. */ key: string; slug: string });

const EXIT_STATUS_MAX = 255;
const EXIT_STATUS_RE = /^[0-9]+$/;

/**
 * Reads the path after `/ping/`, given as its percent-decoded segments
 * (`/ping/<uuid>/` is `[uuid, '']`). Null when it matches no ping route: a
 * generic 404 (§1 rules 1–5).
 */
export function parsePingPath(segments: readonly string[]): PingUrl | null {
  const [first = '', second, third] = segments;
  if (segments.length === 1 || (segments.length === 2 && second === '')) {
    return UUID_RE.test(first) ? { by: 'uuid', key: first, ...SUCCESS } : null;
  }
  if (segments.length === 2) {
    // The UUID family wins for its suffixes; anything else is a slug ping.
    const suffix = UUID_RE.test(first) ? parseSuffix(second!) : null;
    if (suffix !== null) return withRefusal({ by: 'uuid', key: first, ...suffix });
    return slugUrl(first, second!, SUCCESS);
  }
  if (segments.length === 3) {
    const suffix = parseSuffix(third!);
    return suffix === null ? null : slugUrl(first, second!, suffix);
  }
  return null;
}

const SUCCESS: PingSuffix = { action: 'success', exitStatus: null };

/** `start`, `fail`, `log` or digits (leading zeros allowed); anything else, `-1` included, is null. */
function parseSuffix(s: string): PingSuffix | null {
  if (s === 'start' || s === 'fail' || s === 'log') return { action: s, exitStatus: null };
  if (EXIT_STATUS_RE.test(s)) return { action: 'success', exitStatus: Number(s) };
  return null;
}

function slugUrl(pingKey: string, slug: string, suffix: PingSuffix): PingUrl | null {
  if (!SLUG_SEGMENT_RE.test(pingKey) || !SLUG_SEGMENT_RE.test(slug)) return null;
  const url: PingUrl = { by: 'slug', key: pingKey, slug, ...suffix };
  if (slug !== slug.toLowerCase()) return { ...url, refusal: 'uppercase-slug' };
  return withRefusal(url);
}

function withRefusal(url: PingUrl): PingUrl {
  return url.exitStatus !== null && url.exitStatus > EXIT_STATUS_MAX ? { ...url, refusal: 'exit-status-out-of-range' } : url;
}
