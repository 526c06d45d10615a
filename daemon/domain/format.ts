// Timestamp formats of the wire contract: ISO 8601 with a +00:00 offset.

/** Seconds precision (check last_ping/next_ping, flip timestamps). */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '+00:00';
}

/** Microsecond precision, fraction left out when zero (ping dates). */
export function isoMicros(ms: number): string {
  const iso = new Date(ms).toISOString();
  const millis = iso.slice(20, 23);
  return millis === '000' ? iso.slice(0, 19) + '+00:00' : `${iso.slice(0, 19)}.${millis}000+00:00`;
}
