// The sender's address recorded with a ping (ping-protocol §5.1). The
// X-Forwarded-For header is honoured only when the daemon is told it sits
// behind a proxy: otherwise any client could write any address into the log.
import { isIP } from 'node:net';

function normalizeIPv6(a: string): string {
  // IPv4-mapped addresses stay in their dotted form, as the reference stores them.
  if (a.includes('.')) return a.toLowerCase();
  try {
    // URL parsing gives the compressed lowercase form.
    return new URL(`http://[${a}]/`).hostname.slice(1, -1);
  } catch {
    return a;
  }
}

export function clientAddress(forwardedFor: string | undefined, socketAddr: string | undefined, trustProxy: boolean): string | null {
  let a = trustProxy && forwardedFor !== undefined ? forwardedFor : (socketAddr ?? '');
  a = (a.split(',')[0] ?? '').trim();
  if (!isIP(a)) {
    const parts = a.split('.');
    if (parts.length === 4 && parts[3]!.includes(':')) a = a.slice(0, a.indexOf(':'));
  }
  if (isIP(a) === 6) a = normalizeIPv6(a);
  return a === '' ? null : a;
}
