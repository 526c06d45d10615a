// What kind of signal an HTTP ping is (ping-protocol.md §6) and how long the run
// it closes took in the ping list (§7.1). Pure: no I/O, no clock.
import type { CheckRecord, PingKind, PingRecord } from './types.js';
import type { PingSuffix } from './ping-url.js';

/** The check settings classification depends on. */
export type ClassifySettings = Pick<
  CheckRecord,
  | 'status'
  | 'manualResume'
  | 'methods'
  | 'filterHttpBody'
  | 'filterDefaultFail'
  | 'startKw'
  | 'successKw'
  | 'failureKw'
>;

export interface ClassifyInput extends PingSuffix {
  /** The request method exactly as received. */
  method: string;
  /** The stored (already truncated) request body; null or empty when there was none. */
  body: Uint8Array | null;
  check: ClassifySettings;
}

/**
 * The final ping kind, applying ping-protocol §6 steps in order, each overriding
 * the previous one: URL, exit status, allowed methods, HTTP body keywords,
 * paused + manual_resume. The last step reads the stored status, so call this on
 * the check as read inside the ping transaction (applySignal re-applies it anyway).
 * The URL's refusals (an exit status above 255) are parsePingPath's, made before
 * a ping gets here. A non-POST request to a `methods = "POST"` check is not
 * refused: it is recorded as `ign` (ping-protocol §2).
 */
export function classifyPing(input: ClassifyInput): PingKind {
  const { check } = input;
  let kind: PingKind = input.action;
  if (input.exitStatus !== null && input.exitStatus > 0) kind = 'fail';
  // HEAD included: only the exact method POST passes.
  if (check.methods === 'POST' && input.method !== 'POST') kind = 'ign';
  // Keywords replace the URL's verdict entirely, but never revive an ignored ping.
  if (kind !== 'ign' && check.filterHttpBody) kind = classifyByKeywords(bodyText(input.body), check);
  if (check.status === 'paused' && check.manualResume) kind = 'ign';
  return kind;
}

/** How many leading body bytes keyword filtering scans ("the first 10 kB", decimal). */
export const KEYWORD_SCAN_BYTES = 10_000;

const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The body as text for keyword matching. Product decision: invalid UTF-8 (or a
 * character cut by truncation) decodes to U+FFFD instead of failing the request.
 * Capped at 10 000 bytes even when the store keeps more, as the seed document says.
 */
function bodyText(body: Uint8Array | null): string {
  if (body === null || body.length === 0) return '';
  return utf8.decode(body.subarray(0, KEYWORD_SCAN_BYTES));
}

export type KeywordSettings = Pick<CheckRecord, 'startKw' | 'successKw' | 'failureKw' | 'filterDefaultFail'>;

/**
 * ping-protocol §6.1: failure keywords win over success, success over start;
 * with no match the ping fails under filter_default_fail and is ignored otherwise.
 * Shared with e-mail classification, which applies the same order to subject and body.
 */
export function classifyByKeywords(text: string, kw: KeywordSettings): PingKind {
  if (matchesKeywords(text, kw.failureKw)) return 'fail';
  if (matchesKeywords(text, kw.successKw)) return 'success';
  if (matchesKeywords(text, kw.startKw)) return 'start';
  return kw.filterDefaultFail ? 'fail' : 'ign';
}

/** Comma-separated keywords, trimmed, empties dropped; a case-sensitive substring of the text matches. */
export function matchesKeywords(text: string, keywords: string): boolean {
  return keywords
    .split(',')
    .map((k) => k.trim())
    .some((k) => k !== '' && text.includes(k));
}

// ---------------------------------------------------------------------------
// Ping-list durations (§7.1)

/** A start further back than this does not time a run. */
export const MAX_PING_DURATION_MS = 72 * 3600 * 1000;

/** What duration matching needs from a ping. */
export type DurationPing = Pick<PingRecord, 'kind' | 'rid' | 'date'>;

/**
 * The ping list's `duration` for `ping`, in seconds rounded to 2 decimals, or
 * null when the field must be absent. `earlier` holds the check's earlier pings,
 * newest first (the store can walk its index backwards and stop early: only the
 * first same-rid start/success/fail is looked at).
 *
 * Matching is by rid, null equal to null, so overlapping runs with distinct rids
 * each find their own start; log and ign pings are transparent. This is the
 * exact rule: upstream's "disable duration calculation after 10 misses" shortcut
 * is not copied, and gives the same answers, since it only triggers when no
 * start is in reach.
 */
export function pingDuration(ping: DurationPing, earlier: Iterable<DurationPing>): number | null {
  if (ping.kind !== 'success' && ping.kind !== 'fail') return null;
  for (const prev of earlier) {
    if (prev.rid !== ping.rid || !closesOrOpensRun(prev.kind)) continue;
    return prev.kind === 'start' ? durationSince(prev.date, ping.date) : null;
  }
  return null;
}

/**
 * Durations for a run of pings given oldest first, in one pass: result[i] is
 * pingDuration(pings[i], pings[0..i) newest first). Pings before the slice are
 * not seen, so pass enough history for the oldest entries that matter.
 */
export function pingDurations(pings: readonly DurationPing[]): (number | null)[] {
  // Per rid, the latest start/success/fail seen so far.
  const lastByRid = new Map<string | null, DurationPing>();
  return pings.map((ping) => {
    let duration: number | null = null;
    if (ping.kind === 'success' || ping.kind === 'fail') {
      const prev = lastByRid.get(ping.rid);
      if (prev?.kind === 'start') duration = durationSince(prev.date, ping.date);
    }
    if (closesOrOpensRun(ping.kind)) lastByRid.set(ping.rid, ping);
    return duration;
  });
}

function closesOrOpensRun(kind: PingKind): boolean {
  return kind === 'start' || kind === 'success' || kind === 'fail';
}

function durationSince(start: number, end: number): number | null {
  const ms = end - start;
  if (ms >= MAX_PING_DURATION_MS) return null;
  return Math.round(ms / 10) / 100;
}
