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

/** Bytes per unit of a size: decimal units as disks are sold, binary ones as `df -h` counts. */
const SIZE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tib: 1024 ** 4,
};

/**
 * A size in bytes: a whole or decimal number and an optional unit, in any
 * case, with or without a blank between (`500MB`, `2 GB`, `1.5GiB`, `4096`).
 * Undefined when the text is no such size; whole bytes, rounded down.
 */
export function parseSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!m) return undefined;
  const unit = SIZE_UNITS[m[2]!.toLowerCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A size as people read it: `64 MB`, `1.5 GB`, `512 B` (decimal units). */
export function sizeText(bytes: number): string {
  const units: Array<[string, number]> = [
    ['TB', 1e12],
    ['GB', 1e9],
    ['MB', 1e6],
    ['kB', 1e3],
  ];
  for (const [name, size] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(bytes >= 10 * size ? 0 : 1))} ${name}`;
  }
  return `${bytes} B`;
}
