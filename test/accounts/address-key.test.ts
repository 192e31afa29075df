import { describe, expect, it } from 'vitest';
import { addressLimitKey } from '../../src/accounts/address-key.ts';

describe('addressLimitKey', () => {
  it('keys IPv6 by its /64 in every spelling, IPv4 and IPv4-mapped IPv6 by the IPv4 address', () => {
    const sameSlash64 = ['2001:db8:a:b::1', '2001:0DB8:000A:000B:ffff:ffff:ffff:ffff', '[2001:db8:a:b:1:2:3:4]', '2001:db8:a:b::1.2.3.4', '2001:db8:a:b::1%eth0'];
    expect(new Set(sameSlash64.map(addressLimitKey))).toEqual(new Set(['2001:db8:a:b::/64']));
    expect(addressLimitKey('2001:db8:a:c::1')).toBe('2001:db8:a:c::/64');
    expect(addressLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(addressLimitKey('::')).toBe('0:0:0:0::/64');
    expect(addressLimitKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    for (const mapped of ['203.0.113.9', '::ffff:203.0.113.9', '::FFFF:cb00:7109', '0:0:0:0:0:ffff:203.0.113.9']) expect(addressLimitKey(mapped)).toBe('203.0.113.9');
    // Not an IP address (a proxy's odd value): kept as it is.
    expect(addressLimitKey('Unknown')).toBe('unknown');
  });
});
