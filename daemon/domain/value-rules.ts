// The small rules every channel `--value` parser shares: what counts as an
// http(s) URL, reading a JSON object with known members only, and typed
// members with defaults. A broken rule throws ValueError, whose message is the
// sentence `checkd channel create` prints. Pure: no I/O.

export class ValueError extends Error {}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    // Only a full absolute URL: "http:example.com" would parse, but is a typo.
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\/[^/?#\s]/i.test(value) && url.hostname !== ''
    );
  } catch {
    return false;
  }
}

export function parseJsonObject(kind: string, value: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(value);
  } catch (err) {
    throw new ValueError(`--value for a ${kind} channel is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ValueError(`--value for a ${kind} channel must be a JSON object`);
  }
  return doc as Record<string, unknown>;
}

export function onlyKeys(kind: string, doc: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(doc)) {
    if (!allowed.includes(key)) {
      throw new ValueError(`--value for a ${kind} channel: unknown member "${key}"; allowed: ${allowed.join(', ')}`);
    }
  }
}

export function str(kind: string, doc: Record<string, unknown>, key: string, dflt: string): string {
  const v = doc[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'string') throw new ValueError(`--value for a ${kind} channel: "${key}" must be a string`);
  return v;
}

export function bool(kind: string, doc: Record<string, unknown>, key: string, dflt: boolean): boolean {
  const v = doc[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw new ValueError(`--value for a ${kind} channel: "${key}" must be true or false`);
  return v;
}

export function int(kind: string, doc: Record<string, unknown>, key: string, dflt: number, min: number, max: number): number {
  const v = doc[key];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new ValueError(`--value for a ${kind} channel: "${key}" must be a whole number from ${min} to ${max}`);
  }
  return v;
}

/** Longest URL a channel value may be (upstream's form limit). */
export const MAX_URL_LENGTH = 1000;

/** A value that is one http(s) URL (`what` names it in the error: "the incoming webhook"). */
export function httpUrlValue(kind: string, value: string, what: string): string {
  if (!isHttpUrl(value) || value.length > MAX_URL_LENGTH) {
    throw new ValueError(`--value for a ${kind} channel must be an http(s) URL (${what}) of at most ${MAX_URL_LENGTH} characters, got "${value}"`);
  }
  return value;
}
