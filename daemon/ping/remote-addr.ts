// The sender's address recorded with a ping (ping-protocol §5.1). The
// X-Forwarded-For header is honoured only when the daemon is told it sits
// behind a proxy: otherwise any client could write any address into the log.
import { isIP } from 'node:net';

const MAPPED_RE = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

function normalizeIPv6(a: string): string {
  let h: string;
  try {
    // URL parsing gives the compressed lowercase form, a dotted IPv4 tail in hex.
    h = new URL(`http://[${a}]/`).hostname.slice(1, -1);
  } catch {
    return a;
  }
  // IPv4-mapped addresses are written with the IPv4 part dotted, as the reference stores them.
  const mapped = MAPPED_RE.exec(h);
  if (!mapped) return h;
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `::ffff:${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
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
