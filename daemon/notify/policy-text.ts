// What notifications say about the alert policies (alert-policies.md §6):
// the causes checkd adds to upstream's, in words. Pure functions over plain data.
import { isoSeconds } from '../domain/format.js';
import type { CheckRecord, FlipRecord } from '../domain/types.js';
import type { Notification, PolicyFacts } from './notification.js';

export type { PolicyFacts } from './notification.js';

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

/** How a hold reads after "held": `while muted`, `during maintenance`, `while "db" was down`. */
function during(facts: PolicyFacts): string {
  switch (facts.released) {
    case 'mute':
      return 'while muted';
    case 'maintenance':
      return 'during maintenance';
    default:
      return facts.parentName === undefined ? 'while a check it depends on was down' : `while "${facts.parentName}" was down`;
  }
}

/**
 * What the policies add to a down event, as a phrase for the service kinds
 * that put it after the cause in "… is DOWN (<cause>; <this>)": a reminder's
 * number and the time down, or the hold it was released from. Null when they
 * add nothing (a plain flip, or an up event).
 */
export function policyPhrase(n: Notification): string | null {
  const facts = n.policy;
  if (n.event !== 'down' || !facts) return null;
  if (facts.reminder !== undefined) {
    return `reminder ${facts.reminder}, down for ${compactDuration((facts.remindedAt ?? n.flip.created) - (downSince(n) ?? n.flip.created), true)}`;
  }
  if (!facts.released) return null;
  const since = downSince(n);
  return `held ${during(facts)}${since === null ? '' : `, down since ${isoSeconds(since)}`}`;
}

/**
 * The sentence under a notification's headline with what the policies add:
 * that it was held and is released now (after upstream's sentence).
 */
export function withPolicySentences(n: Notification, upstream: string | null): string | null {
  const facts = n.policy;
  if (facts?.reminder !== undefined) {
    const down = compactDuration((facts.remindedAt ?? n.flip.created) - (downSince(n) ?? n.flip.created), true);
    const reminder = `Still DOWN for ${down}, reminder ${facts.reminder}.`;
    return upstream === null ? reminder : `${reminder} ${upstream}`;
  }
  if (!facts?.released) return upstream;
  const since = downSince(n);
  const released =
    n.event === 'down'
      ? `Down since ${since === null ? 'the flip' : isoSeconds(since)}, ${during(facts)}: this notification was held until now.`
      : `Up again since ${isoSeconds(n.flip.created)}: this notification was held ${during(facts)}.`;
  return upstream === null ? released : `${upstream} ${released}`;
}

