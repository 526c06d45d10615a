// Which addresses --block-private-addresses refuses (notifications.md §4.4).
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, isPrivateLiteral } from '../../daemon/notify/private-addresses.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1',
    '::1', '::', 'fd00::1', 'fc12:3456::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b:1::a',
  ])('%s is refused', (a) => expect(isPrivateAddress(a)).toBe(true));

  it.each(['1.1.1.1', '8.8.8.8', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700::1111', '2001:db9::1', '::ffff:1.1.1.1'])(
    '%s is allowed',
    (a) => expect(isPrivateAddress(a)).toBe(false),
  );

  it('refuses what is not an address at all', () => {
    expect(isPrivateAddress('example.com')).toBe(true);
  });
});

describe('isPrivateLiteral (URL hosts)', () => {
  it('looks at IP literals only, bracketed IPv6 included; names are checked at connect', () => {
    expect(isPrivateLiteral('127.0.0.1')).toBe(true);
    expect(isPrivateLiteral('[::1]')).toBe(true);
    expect(isPrivateLiteral('[2606:4700::1111]')).toBe(false);
    expect(isPrivateLiteral('localhost')).toBe(false);
  });
});
