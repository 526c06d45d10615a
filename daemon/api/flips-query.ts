// Query parameters of the flips endpoint (api-details §12). Any violation is a
// 400 with an empty body, as in the reference.

export interface FlipWindow {
  /** Inclusive lower bound, epoch ms. */
  from: number | null;
  /** Exclusive upper bound, epoch ms. */
  until: number | null;
}

const INT_RE = /^\s*[+-]?\d+\s*$/;
const SECONDS_RE = /^\s*[+-]?\d+(\.0+)?\s*$/;
const MAX_TIMESTAMP = 10_000_000_000;
const MAX_SECONDS = 31_536_000;

function last(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.at(-1) : v;
}

/** Returns null when the parameters are invalid. */
export function parseFlipWindow(query: Record<string, string | string[] | undefined>, now: number): FlipWindow | null {
  const window: FlipWindow = { from: null, until: null };
  const bound = (raw: string | undefined): number | null | undefined => {
    if (raw === undefined) return undefined;
    if (!INT_RE.test(raw)) return null;
    const v = Number(raw.trim());
    return v >= 0 && v <= MAX_TIMESTAMP ? v : null;
  };
  const start = bound(last(query.start));
  const end = bound(last(query.end));
  if (start === null || end === null) return null;
  if (start !== undefined) window.from = start * 1000;
  if (end !== undefined) window.until = end * 1000;
  const secondsRaw = last(query.seconds);
  if (secondsRaw !== undefined && secondsRaw !== '') {
    if (!SECONDS_RE.test(secondsRaw)) return null;
    const seconds = Math.trunc(Number(secondsRaw.trim()));
    if (seconds < 0 || seconds > MAX_SECONDS) return null;
    if (seconds > 0) window.from = Math.max(window.from ?? -Infinity, now - seconds * 1000);
  }
  return window;
}

export function inWindow(created: number, w: FlipWindow): boolean {
  return (w.from === null || created >= w.from) && (w.until === null || created < w.until);
}
