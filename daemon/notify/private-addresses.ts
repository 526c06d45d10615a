// --block-private-addresses (notifications.md §4.4): notification requests may
// not reach loopback, private, link-local or other non-public addresses, so
// that whoever can create a webhook channel cannot make checkd call into its
// own network. Checked on the address actually connected to (the DNS answer
// seen by the connection, so a name cannot resolve one way for the check and
// another for the connect), and on IP literals, which skip DNS.
import { lookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent } from 'undici';

export const PRIVATE_ADDRESS_ERROR = 'Connections to private IP addresses are not allowed';
/** The code of the connect error raised for a blocked address. */
export const PRIVATE_ADDRESS_CODE = 'ECHECKD_PRIVATE_ADDRESS';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127], // unspecified and loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

const MAPPED_RE = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

export function isPrivateAddress(address: string): boolean {
  const mapped = MAPPED_RE.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: refuse rather than guess
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

function blockedError(): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(PRIVATE_ADDRESS_ERROR);
  err.code = PRIVATE_ADDRESS_CODE;
  return err;
}

/** A URL host that is an IP literal and private (DNS names are checked at connect). */
export function isPrivateLiteral(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 && isPrivateAddress(host);
}

/** An HTTP dispatcher whose connections resolve names only to public addresses. */
export function publicOnlyDispatcher(): Agent {
  return new Agent({
    connect: {
      lookup: (hostname, options, callback) => {
        lookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
          if (err) return callback(err, '', 0);
          const usable = addresses.filter((a) => !isPrivateAddress(a.address));
          if (usable.length === 0) return callback(blockedError(), '', 0);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
          return callback(null, usable[0]!.address, usable[0]!.family);
        });
      },
    },
  });
}
