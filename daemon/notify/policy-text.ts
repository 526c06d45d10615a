// What notifications say about the alert policies (alert-policies.md §6):
// the causes checkd adds to upstream's, in words. Pure functions over plain data.
import { isoSeconds } from '../domain/format.js';
import type { CheckRecord, FlipRecord } from '../domain/types.js';
import type { Notification } from './notification.js';

export type { PolicyFacts } from './notification.js';

/** What a notification says beyond its flip (alert-policies §3–§6). */

const UNITS: Array<[string, number]> = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
];

/**
 * A duration in the two largest units that matter: `2h`, `1h 30m`, `45m`,
 * `2d 3h`. With `pair`, the second unit shows even at zero (`3h 0m`), as an
 * elapsed time reads; a configured limit drops it (`2h`).
 */
export function compactDuration(ms: number, pair = false): string {
  let s = Math.max(0, Math.floor(ms / 1000));
  const first = UNITS.findIndex(([, size]) => s >= size);
  if (first === -1) return '0s';
  const [unit, size] = UNITS[first]!;
  const n = Math.floor(s / size);
  s -= n * size;
  const next = UNITS[first + 1];
  if (!next) return `${n}${unit}`;
  const m = Math.floor(s / next[1]);
  return m > 0 || pair ? `${n}${unit} ${m}${next[0]}` : `${n}${unit}`;
}

/**
 * The cause of a down flip that one of checkd's policies made, as a phrase
 * that fits "… is DOWN (<cause>)"; null for upstream's causes.
 */
export function policyReasonPhrase(flip: FlipRecord, check: CheckRecord): string | null {
  if (flip.reason === 'duration') {
    const limit = check.maxDuration ? compactDuration(check.maxDuration * 1000) : 'its run-time limit';
    return `the run took too long: it ran longer than ${limit}`;
  }
  if (flip.reason === 'fail' && flip.failures) return `received a failure signal: ${flip.failures} consecutive failures`;
  return null;
}

/** The sentence of a down flip whose cause is one of checkd's policies; null for upstream's causes. */
export function policyReasonSentence(flip: FlipRecord, check: CheckRecord): string | null {
  const phrase = policyReasonPhrase(flip, check);
  return phrase === null ? null : `${phrase[0]!.toUpperCase()}${phrase.slice(1)}.`;
}

/**
 * The webhook placeholders of the policies (§6), after upstream's: `$REASON`
 * (timeout, fail or duration for a down event, empty for up), `$REMINDER` (0
 * for the first notification) and `$DOWN_SINCE` (the down flip's instant, empty
 * when unknown). `text` makes a value safe for where it lands.
 */
export function policyPlaceholders(n: Notification, text: (v: string) => string): Array<[string, string]> {
  const since = downSince(n);
  return [
    ['$REASON', n.event === 'down' ? n.flip.reason : ''],
    ['$REMINDER', String(n.policy?.reminder ?? 0)],
    ['$DOWN_SINCE', since === null ? '' : text(isoSeconds(since))],
  ];
}

/** When the check went down, as far as the notification knows. */
export function downSince(n: Notification): number | null {
  if (n.policy?.downSince !== undefined) return n.policy.downSince;
  if (n.event === 'down') return n.flip.created;
  return n.downtimeMs === null ? null : n.flip.created - n.downtimeMs;
}
