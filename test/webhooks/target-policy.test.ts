import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatIpAddress, parseIpAddress, parseIpRange } from '../../src/webhooks/ip-address.ts';
import { checkAddress, classifyAddress, parseTargetPolicy } from '../../src/webhooks/target-policy.ts';

const defaults = parseTargetPolicy('external,private');

function classOf(address: string) {
  const parsed = parseIpAddress(address);
  if (parsed === null) throw new Error(`test address ${address} does not parse`);
  return classifyAddress(parsed);
}

describe('parseTargetPolicy', () => {
  it('reads words, CIDR ranges (v4 and v6), bare addresses and host names, ignoring case and spaces', () => {
    const policy = parseTargetPolicy(' External , LOOPBACK, 10.1.0.0/16, fd12:3456::/32, 192.168.1.7, ::1, HA.Example.org., homeassistant');
    expect([...policy.classes].sort()).toEqual(['external', 'loopback']);
    expect(policy.ranges.map((range) => range.text)).toEqual(['10.1.0.0/16', 'fd12:3456::/32', '192.168.1.7/32', '::1/128']);
    expect([...policy.hostNames]).toEqual(['ha.example.org', 'homeassistant']);
  });

  it('reads a mapped IPv4 range as the IPv4 range it means', () => {
    expect(parseTargetPolicy('::ffff:10.0.0.0/104').ranges[0]!.text).toBe('10.0.0.0/8');
  });

  it.each([
    ['', /is empty/],
    ['   ', /is empty/],
    ['external,,private', /entry 2 is empty/],
    ['external,', /entry 2 is empty/],
    ['10.0.0.0/33', /"10.0.0.0\/33" has a prefix length outside 0–32/],
    ['fc00::/129', /prefix length outside 0–128/],
    ['10.0.0.0/x', /prefix length that is not a number/],
    ['10.0.0.1/8', /bits set after the prefix; did you mean 10.0.0.0\/8\?/],
    ['300.1.1.1/8', /"300.1.1.1\/8" is not an IP address or CIDR range/],
    ['10.0.0', /"10.0.0" is not an IP address/],
    ['fe80::1%eth0', /not an IP address or CIDR range/],
    ['extrenal', /"extrenal" is not a known word; did you mean "external"\?/],
    ['Privat', /did you mean "private"\?/],
    ['http://ha.local', /"http:\/\/ha.local" is not an IP address or CIDR range/],
    ['bad host!', /"bad host!" is not external/],
  ])('refuses %j with a message naming the entry', (text, message) => {
    expect(() => parseTargetPolicy(text)).toThrow(message);
  });
});

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'external'],
    ['192.168.1.10', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['100.100.100.200', 'cloud-metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['93.184.216.34', 'external'],
    ['8.8.8.8', 'external'],
    ['2606:4700::1111', 'external'],
    ['64:ff9b::808:808', 'external'],
  ])('%s is %s', (address, expected) => {
    expect(classOf(address)).toBe(expected);
  });
});

describe('checkAddress', () => {
  it('under the default policy allows external and private addresses and refuses the rest', () => {
    for (const address of ['93.184.216.34', '192.168.1.10', '10.0.0.5', 'fd12::1', '2606:4700::1111']) {
      expect(checkAddress(defaults, address, 'receiver.example')).toEqual({ allowed: true });
    }
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '169.254.169.254', 'fd00:ec2::254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1', '255.255.255.255']) {
      expect(checkAddress(defaults, address, 'receiver.example').allowed).toBe(false);
    }
  });

  it('explains a refusal and how to allow it, naming the host when it was resolved', () => {
    expect(checkAddress(defaults, '127.0.0.1', 'localhost')).toEqual({
      allowed: false,
      reason: 'localhost resolves to 127.0.0.1, a loopback address, which AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow (add "loopback" or "127.0.0.1/32" to allow it)',
    });
    expect(checkAddress(defaults, '169.254.169.254', '169.254.169.254')).toEqual({
      allowed: false,
      reason: '169.254.169.254 is a cloud metadata address, which AIRDATE_WEBHOOK_ALLOWED_HOSTS does not allow (only a CIDR entry such as "169.254.169.254/32" allows it)',
    });
    expect(checkAddress(defaults, 'not-an-ip', 'x')).toEqual({ allowed: false, reason: '"not-an-ip" is not an IP address' });
  });

  it('lets a CIDR entry allow any class, but a class word never allows link-local, metadata or unspecified', () => {
    const everything = parseTargetPolicy('external,private,loopback');
    for (const address of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1']) {
      expect(checkAddress(everything, address, address).allowed).toBe(false);
    }
    const listed = parseTargetPolicy('169.254.169.254/32, fe80::/10, 0.0.0.0');
    for (const address of ['169.254.169.254', 'fe80::1%eth0', '0.0.0.0']) {
      expect(checkAddress(listed, address, address)).toEqual({ allowed: true });
    }
    // A mapped address matches the IPv4 range it maps to.
    expect(checkAddress(parseTargetPolicy('127.0.0.0/8'), '::ffff:127.0.0.2', 'x')).toEqual({ allowed: true });
  });

  it('lets a listed host name reach loopback or private addresses, but not link-local or metadata ones', () => {
    const policy = parseTargetPolicy('external,ha.local');
    expect(checkAddress(policy, '127.0.0.1', 'HA.local.')).toEqual({ allowed: true });
    expect(checkAddress(policy, '192.168.1.4', 'ha.local')).toEqual({ allowed: true });
    expect(checkAddress(policy, '192.168.1.4', 'other.local').allowed).toBe(false);
    expect(checkAddress(policy, '169.254.169.254', 'ha.local').allowed).toBe(false);
    expect(checkAddress(policy, 'fe80::1', 'ha.local').allowed).toBe(false);
  });

  it('refuses loopback when only external is allowed, and private when only loopback is', () => {
    expect(checkAddress(parseTargetPolicy('external'), '10.0.0.1', 'x').allowed).toBe(false);
    expect(checkAddress(parseTargetPolicy('loopback'), '10.0.0.1', 'x').allowed).toBe(false);
    expect(checkAddress(parseTargetPolicy('loopback'), '127.0.0.1', 'x')).toEqual({ allowed: true });
  });
});

describe('IP address parsing', () => {
  it('formats every IPv6 address as WHATWG URL does, and parses the result back to the same number', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), fc.integer({ min: 0, max: 7 }), (random, zeroRun) => {
        // Zero a run of groups so the `::` shortening is exercised, not just dense addresses.
        const mask = zeroRun === 0 ? 0n : ((1n << BigInt(16 * zeroRun)) - 1n) << BigInt(16 * (7 - zeroRun));
        const value = random & ~mask;
        const text = formatIpAddress({ version: 6, value });
        const viaUrl = new URL(`http://[${text}]/`).hostname.slice(1, -1);
        expect(text).toBe(viaUrl);
        const parsed = parseIpAddress(text)!;
        if (parsed.version === 6) expect(parsed.value).toBe(value);
        else expect(value >> 32n).toBe(0xffffn);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads IPv6 with a dotted IPv4 tail', () => {
    expect(parseIpAddress('1:2:3:4:5:6:1.2.3.4')).toEqual({ version: 6, value: parseIpAddress('1:2:3:4:5:6:102:304')!.value });
    expect(parseIpAddress('::ffff:1.2.3.4')).toEqual({ version: 4, value: 0x01020304n });
    expect(parseIpRange('::1.2.3.4').text).toBe('::102:304/128');
  });
});
