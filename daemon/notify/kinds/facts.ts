// The ingredients the service integrations build their messages from
// (spec/integrations.md §0.2): the check's name, the cause of a down event
// (the alert policies' included), the downtime of an up event, period or
// schedule, the last ping in a few words, the last ping's body cut to what a
// message carries, the project's other checks that are down, and the
// per-check key incident tools de-duplicate on. Each kind puts them in its
// service's format. Pure.
import { tagList, uniqueKeyOf } from '../../domain/ids.js';
import type { CheckRecord } from '../../domain/types.js';
import { displayName, html, humanDuration, pingKindText, type Notification } from '../message.js';
import { policyPhrase, policyReasonPhrase, withPolicySentences } from '../policy-text.js';

/** Characters of the last ping body a chat message carries. */
export const BODY_EXCERPT_CHARS = 1000;
/** Down checks listed one by one; beyond this only their number is given. */
const MAX_OTHERS_LISTED = 10;

export function checkName(n: Notification): string {
  return displayName(n.check);
}

export function statusWord(n: Notification): 'DOWN' | 'UP' {
  return n.event === 'down' ? 'DOWN' : 'UP';
}

/**
 * Why the check went down, as a phrase for "… is DOWN (<cause>)", or null
 * (up events): upstream's two causes, or the alert policy that took it down;
 * then what the policies add (alert-policies §6): a reminder's number and the
 * time down, or the hold the notification was released from.
 */
export function causePhrase(n: Notification): string | null {
  if (n.test) return 'a test notification sent by checkd channel test';
  if (n.event !== 'down') return null;
  const cause = flipCause(n);
  const added = policyPhrase(n);
  if (added === null) return cause;
  return cause === null ? added : `${cause}; ${added}`;
}

function flipCause(n: Notification): string | null {
  const policy = policyReasonPhrase(n.flip, n.check);
  if (policy !== null) return policy;
  if (n.flip.reason === 'timeout') return 'success signal did not arrive on time, grace time passed';
  if (n.flip.reason === 'fail') return 'received a failure signal';
  return null;
}

/** " (<cause>)" or "". */
export function causeSuffix(n: Notification): string {
  const cause = causePhrase(n);
  return cause === null ? '' : ` (${cause})`;
}

/**
 * For up events after a down: "The downtime lasted 1 hour 30 minutes.", and
 * for one held by a policy until now, a sentence that says so.
 */
export function downtimeLine(n: Notification): string | null {
  if (n.event !== 'up') return null;
  return withPolicySentences(n, n.downtimeMs === null ? null : `The downtime lasted ${humanDuration(n.downtimeMs)}.`);
}

/**
 * For an up event held by a policy until now, the sentence that says so;
 * null otherwise. For the kinds that carry no downtime line of their own.
 */
export function heldUpLine(n: Notification): string | null {
  return n.event === 'up' ? withPolicySentences(n, null) : null;
}

export function tagsOf(check: CheckRecord): string[] {
  return tagList(check.tags);
}

/** `Period` for simple checks; `Schedule` and `Time Zone` for cron and OnCalendar ones. */
export function scheduleFacts(check: CheckRecord): Array<[label: string, value: string]> {
  if (check.kind === 'simple') return [['Period', humanDuration(check.timeout * 1000)]];
  return [
    ['Schedule', check.schedule],
    ['Time Zone', check.tz],
  ];
}

/** A combining grapheme joiner before each `*`, so that Markdown does not read a cron schedule as emphasis. */
export function literalStars(schedule: string): string {
  return schedule.replace(/\*/g, '\u034f*');
}

/** English relative time of a moment `ms` ago: "a minute ago", "3 hours ago". */
export function naturalTime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 1) return 'just now';
  if (s < 60) return s === 1 ? 'a second ago' : `${s} seconds ago`;
  if (s < 3600) return s < 120 ? 'a minute ago' : `${Math.floor(s / 60)} minutes ago`;
  if (s < 86400) return s < 7200 ? 'an hour ago' : `${Math.floor(s / 3600)} hours ago`;
  return `${humanDuration(s * 1000)} ago`;
}

function sentAt(n: Notification): number {
  return n.sentAt ?? n.flip.created;
}

/** The last ping before the change: "Success, 10 minutes ago", "Exit status 3, an hour ago" or "Never". */
export function lastPingSummary(n: Notification): string {
  if (!n.lastPing) return 'Never';
  return `${pingKindText(n.lastPing)}, ${naturalTime(sentAt(n) - n.lastPing.date)}`;
}

/** The last ping's body, its first 1000 characters and a "[truncated]" line after a cut; null when empty. */
export function bodyExcerpt(n: Notification, max = BODY_EXCERPT_CHARS): string | null {
  const body = n.lastPing?.body ?? '';
  if (body === '') return null;
  return body.length > max ? body.slice(0, max) + '\n[truncated]' : body;
}

/** At most `max` characters, an ellipsis marking a cut. */
export function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/** `text` HTML-escaped in at most `max` characters: the longest prefix that fits, so that no entity is split. */
export function escapedWithin(text: string, max: number): string {
  if (html(text).length <= max) return html(text);
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (html(text.slice(0, mid) + '…').length <= max) lo = mid;
    else hi = mid - 1;
  }
  return html(text.slice(0, lo) + '…');
}

/** The per-check key incident tools de-duplicate on (the check's unique_key). */
export function dedupKey(n: Notification): string {
  return uniqueKeyOf(n.check.uuid);
}

export type OthersSection =
  | { kind: 'all-up'; text: string }
  | { kind: 'list'; heading: string; items: Array<{ name: string; lastPing: string }> }
  | { kind: 'count'; text: string };

/**
 * The project's other checks: none → null; none down → "All the other checks
 * are up."; up to 10 down → each with its last ping; more → their number.
 */
export function othersSection(n: Notification): OthersSection | null {
  const o = n.others;
  if (!o || o.total === 0) return null;
  if (o.down.length === 0) return { kind: 'all-up', text: 'All the other checks are up.' };
  const still = n.event === 'up' ? 'still' : 'also';
  if (o.down.length > MAX_OTHERS_LISTED) return { kind: 'count', text: `${o.down.length} other checks are ${still} down.` };
  return {
    kind: 'list',
    heading: `The following checks are ${still} down:`,
    items: o.down.map((c) => ({
      name: c.name,
      lastPing: c.lastPing === null ? 'never' : naturalTime(sentAt(n) - c.lastPing),
    })),
  };
}
