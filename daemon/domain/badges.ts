// Badge logic (spec api-details §14 and Appendix B). Pure: the HTTP layer looks up
// projects/checks and calls in here for signatures, parsing, aggregation and documents.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { tagList } from './ids.js';
import type { DisplayStatus } from './types.js';

export type BadgeFormat = 'svg' | 'json' | 'shields';
export type BadgeMode = 2 | 3;
export type BadgeStatus = 'up' | 'late' | 'down';

export interface BadgeUrls {
  svg: string;
  svg3: string;
  json: string;
  json3: string;
  shields: string;
  shields3: string;
}

export interface BadgeSummary {
  status: BadgeStatus;
  total: number;
  grace: number;
  down: number;
}

export interface BadgeRequest {
  mode: BadgeMode;
  /** The decoded tag, or `*` for the all-checks badge. */
  tag: string;
  fmt: BadgeFormat;
  /** The signature segment as received (possibly with the `-2` suffix). */
  sig: string;
}

export interface CheckBadgeRequest {
  mode: BadgeMode;
  badgeKey: string;
  fmt: BadgeFormat;
}

const SIG_LENGTH = 8;
const FORMATS: ReadonlySet<string> = new Set<BadgeFormat>(['svg', 'json', 'shields']);

export function badgeSignature(badgeKey: string, secret: string, tag: string): string {
  const key = createHash('sha1').update(badgeKey + secret, 'utf8').digest();
  return createHmac('sha1', key).update(tag, 'utf8').digest('base64url').slice(0, SIG_LENGTH);
}

/**
 * Only the first 8 characters of `sig` count, so the `-2` suffix (and anything else a
 * client appends) is ignored.
 */
export function verifyBadgeSignature(badgeKey: string, secret: string, tag: string, sig: string): boolean {
  const given = Buffer.from(sig.slice(0, SIG_LENGTH), 'utf8');
  const expected = Buffer.from(badgeSignature(badgeKey, secret, tag), 'utf8');
  // timingSafeEqual throws on unequal lengths; the length itself is public.
  if (given.length !== expected.length) return false;
  return timingSafeEqual(given, expected);
}

const UNRESERVED = /^[A-Za-z0-9_.~-]$/;

function percentEncodeBytes(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const ch = String.fromCharCode(byte);
    // encodeURIComponent leaves !'()* alone, which the spec's set does not.
    out += UNRESERVED.test(ch) ? ch : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/**
 * The `<T>` URL segment: encoded twice, because the server decodes one level before
 * routing and a single encoding would let `/` and friends break the route.
 */
export function encodeBadgeTag(tag: string): string {
  return percentEncodeBytes(tag).replaceAll('%', '%25');
}

/**
 * Lenient one-level percent-decoding: malformed escapes stay literal and invalid UTF-8
 * becomes U+FFFD, so a hand-edited URL yields a tag that simply fails the signature check
 * instead of an exception.
 */
export function percentDecodeLenient(s: string): string {
  if (!s.includes('%')) return s;
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < s.length; ) {
    if (s[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of enc.encode(ch)) bytes.push(b);
      i += ch.length;
    }
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bytes));
}

// Upstream's route pattern is Python's Unicode-aware [\w%~_.-]+.
const TAG_SEGMENT = /^[\p{L}\p{N}_%~.-]+$/u;

/**
 * Inverse of encodeBadgeTag for a segment the server has already decoded once.
 * Returns null when the segment would not have matched the upstream route.
 */
export function decodeBadgeTag(segment: string): string | null {
  if (!TAG_SEGMENT.test(segment)) return null;
  return percentDecodeLenient(segment);
}

export function badgeUrls(baseUrl: string, badgeKey: string, secret: string, tag: string): BadgeUrls {
  const sig = badgeSignature(badgeKey, secret, tag);
  const prefix = `${baseUrl.replace(/\/+$/, '')}/badge/${encodeURIComponent(badgeKey)}/`;
  const tail = tag === '*' ? '' : `/${encodeBadgeTag(tag)}`;
  const url = (states: string, fmt: BadgeFormat) => `${prefix}${sig}${states}${tail}.${fmt}`;
  return {
    svg: url('-2', 'svg'),
    svg3: url('', 'svg'),
    json: url('-2', 'json'),
    json3: url('', 'json'),
    shields: url('-2', 'shields'),
    shields3: url('', 'shields'),
  };
}

/** Splits at the last dot so tags such as `v1.2` keep their own dots. */
function splitFormat(segment: string): { stem: string; fmt: BadgeFormat } | null {
  const dot = segment.lastIndexOf('.');
  if (dot < 0) return null;
  const fmt = segment.slice(dot + 1);
  if (!FORMATS.has(fmt)) return null;
  return { stem: segment.slice(0, dot), fmt: fmt as BadgeFormat };
}

export function badgeModeFromSig(sig: string): BadgeMode {
  return sig.length === SIG_LENGTH + 2 && sig.endsWith('-2') ? 2 : 3;
}

/**
 * Parses `/badge/K/<sig>/<T>.<fmt>` (pass both segments) or `/badge/K/<sig>.<fmt>`
 * (pass only the first; the tag is `*`). Segments are as routed, i.e. decoded once.
 * Null means 404. The signature is not checked here.
 */
export function parseBadgeRequest(sigSegment: string, tagSegment?: string | null): BadgeRequest | null {
  if (tagSegment === undefined || tagSegment === null) {
    const parts = splitFormat(sigSegment);
    if (!parts || parts.stem === '') return null;
    return { mode: badgeModeFromSig(parts.stem), tag: '*', fmt: parts.fmt, sig: parts.stem };
  }
  const parts = splitFormat(tagSegment);
  if (!parts) return null;
  const tag = decodeBadgeTag(parts.stem);
  if (tag === null || sigSegment === '') return null;
  return { mode: badgeModeFromSig(sigSegment), tag, fmt: parts.fmt, sig: sigSegment };
}

/**
 * Parses `/b/<states>/<check_badge_key>.<fmt>`. Only `3` selects 3-state; any other
 * integer is 2-state (upstream behaviour). A non-integer `states` does not route: null.
 */
export function parseCheckBadgeRequest(statesSegment: string, keySegment: string): CheckBadgeRequest | null {
  if (!/^[0-9]+$/.test(statesSegment)) return null;
  const parts = splitFormat(keySegment);
  if (!parts || parts.stem === '') return null;
  return { mode: Number(statesSegment) === 3 ? 3 : 2, badgeKey: parts.stem, fmt: parts.fmt };
}

/** What a tag badge counts of its checks: enough to answer in either mode. */
export interface BadgeTally {
  total: number;
  grace: number;
  down: number;
}

/**
 * Count one check's display status into the tallies of the `*` badge and of
 * each of its tags: whole space-separated tags, each once (§14.3 step 5). One
 * pass over a project so serves every badge of it.
 */
export function tallyBadgeStatus(tallies: Map<string, BadgeTally>, checkTags: string, status: DisplayStatus): void {
  for (const tag of new Set(['*', ...tagList(checkTags)])) {
    let t = tallies.get(tag);
    if (t === undefined) tallies.set(tag, (t = { total: 0, grace: 0, down: 0 }));
    t.total += 1;
    if (status === 'down') t.down += 1;
    else if (status === 'grace') t.grace += 1;
  }
}

/** §14.3 step 6: any check down makes the badge down; in 3-state mode any in grace makes it late. */
export function badgeSummaryOf(tally: BadgeTally, mode: BadgeMode): BadgeSummary {
  const status: BadgeStatus = tally.down > 0 ? 'down' : tally.grace > 0 && mode === 3 ? 'late' : 'up';
  return { status, total: tally.total, grace: tally.grace, down: tally.down };
}

/**
 * §14.3 step 6 over a list of display statuses. `started` is not a v2 display
 * status; if a caller passes it anyway it counts as up, like every status that
 * is neither down nor grace.
 */
export function aggregateBadgeStatus(displayStatuses: readonly DisplayStatus[], mode: BadgeMode): BadgeSummary {
  const tally: BadgeTally = { total: displayStatuses.length, grace: 0, down: 0 };
  for (const s of displayStatuses) {
    if (s === 'down') tally.down += 1;
    else if (s === 'grace') tally.grace += 1;
  }
  return badgeSummaryOf(tally, mode);
}

/** §14.4: the same rules over a single check, so total is always 1. */
export function checkBadgeStatus(displayStatus: DisplayStatus, mode: BadgeMode): BadgeSummary {
  return aggregateBadgeStatus([displayStatus], mode);
}

/** Per-check badge label: the name, falling back to the UUID when empty. */
export function checkBadgeLabel(check: { name: string; uuid: string }): string {
  return check.name === '' ? check.uuid : check.name;
}

/** A fresh object in the wire key order. */
export function badgeJson(summary: BadgeSummary): BadgeSummary {
  return { status: summary.status, total: summary.total, grace: summary.grace, down: summary.down };
}

const SHIELDS_COLORS: Record<BadgeStatus, string> = { up: 'success', late: 'important', down: 'critical' };

export function badgeShields(
  label: string,
  status: BadgeStatus,
): { schemaVersion: 1; label: string; message: BadgeStatus; color: string } {
  return { schemaVersion: 1, label, message: status, color: SHIELDS_COLORS[status] };
}

const CHAR_WIDTHS: ReadonlyMap<string, number> = new Map(
  (
    [
      [3, 'ijlI'],
      [4, 'frJ-'],
      [5, 't'],
      [6, 'cesx1FLP_'],
      [8, 'ACDHNUV'],
      [9, 'wGOQ'],
      [10, 'mM'],
      [11, 'W'],
    ] as const
  ).flatMap(([w, chars]) => [...chars].map((c) => [c, w] as const)),
);
const DEFAULT_CHAR_WIDTH = 7;

/** Approximate rendered width in px (Verdana 11), summed per code point. */
export function textWidth(s: string): number {
  let total = 0;
  for (const ch of s) total += CHAR_WIDTHS.get(ch) ?? DEFAULT_CHAR_WIDTH;
  return total;
}

// Characters XML 1.0 forbids even when escaped, plus unpaired surrogates; left in, they
// would make the document ill-formed, so they are shown as U+FFFD.
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function xmlSafe(s: string): string {
  return s.replace(XML_INVALID, '\uFFFD');
}

export function escapeXml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');
}

/** Widths are integers, so halves end in .0 or .5; toFixed never uses a locale comma. */
function centre(x: number): string {
  return x.toFixed(1);
}

const SVG_COLORS: Record<BadgeStatus, string> = { up: '#4c1', late: '#fe7d37', down: '#e05d44' };

export interface BadgeGeometry {
  w1: number;
  w2: number;
  width: number;
  labelX: string;
  statusX: string;
}

export function badgeGeometry(label: string, status: string): BadgeGeometry {
  const w1 = textWidth(label) + 10;
  const w2 = textWidth(status) + 10;
  return { w1, w2, width: w1 + w2, labelX: centre(w1 / 2), statusX: centre(w1 + w2 / 2) };
}

export function badgeSvg(label: string, status: BadgeStatus): string {
  const safeLabel = xmlSafe(label);
  const { w1, w2, width, labelX, statusX } = badgeGeometry(safeLabel, status);
  const l = escapeXml(safeLabel);
  const s = escapeXml(status);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="20">`,
    `<linearGradient id="smooth" x2="0" y2="100%">`,
    `<stop offset="0" stop-color="#bbb" stop-opacity=".1"/>`,
    `<stop offset="1" stop-opacity=".1"/>`,
    `</linearGradient>`,
    `<mask id="round">`,
    `<rect width="${width}" height="20" rx="3" fill="#fff"/>`,
    `</mask>`,
    `<g mask="url(#round)">`,
    `<rect width="${w1}" height="20" fill="#555"/>`,
    `<rect x="${w1}" width="${w2}" height="20" fill="${SVG_COLORS[status]}"/>`,
    `<rect width="${width}" height="20" fill="url(#smooth)"/>`,
    `</g>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="11">`,
    `<text x="${labelX}" y="15" fill="#010101" fill-opacity=".3">${l}</text>`,
    `<text x="${labelX}" y="14">${l}</text>`,
    `<text x="${statusX}" y="15" fill="#010101" fill-opacity=".3">${s}</text>`,
    `<text x="${statusX}" y="14">${s}</text>`,
    `</g>`,
    `</svg>`,
    '',
  ].join('\n');
}
