// Values written as text on a command line or in the environment: switches
// and counts. Pure: each caller turns a refusal into its own error message.

const TRUE_WORDS: readonly string[] = ['1', 'true', 'yes', 'on'];
/** An empty value is off: `VAR=` in an environment file clears a switch. */
const FALSE_WORDS: readonly string[] = ['0', 'false', 'no', 'off', ''];

/** A switch: true, false, or undefined when the text is neither (case and surrounding blanks do not matter). */
export function parseBool(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return undefined;
}

/**
 * A count: decimal digits only (no sign, point, exponent or blanks), within
 * [min, max]. A count outside the bounds comes back with its value, so that
 * the caller can say what it got.
 */
export type CountResult =
  | { ok: true; value: number }
  | { ok: false; problem: 'not-a-count' }
  | { ok: false; problem: 'out-of-range'; value: number };

export function parseCount(text: string, min = 0, max = Number.MAX_SAFE_INTEGER): CountResult {
  if (!/^\d+$/.test(text)) return { ok: false, problem: 'not-a-count' };
  const value = Number(text);
  return value >= min && value <= max ? { ok: true, value } : { ok: false, problem: 'out-of-range', value };
}
