// Timestamp formats of the wire contract: ISO 8601 with a +00:00 offset.

/** Seconds precision (check last_ping/next_ping, flip timestamps). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '+00:00';
}

/**
 * Microsecond precision (ping dates). The fraction is there even when it is zero:
 * the API document says ping dates include fractional seconds, and a client
 * parsing with `%S.%f` would fail on the one ping in a thousand that lands on a
 * whole millisecond (upstream's isoformat() leaves it out; the document wins).
 */
export function isoMicros(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 19)}.${iso.slice(20, 23)}000+00:00`;
}
