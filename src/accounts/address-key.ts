import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client address is limited by (the sign-in limits, the password hashing queue): an
 * IPv4 address as it is, an IPv6 address by its /64. One IPv6 subscriber (a home, a phone, a
 * server at a host) is given a whole /64, 2^64 addresses to pick a fresh one from for every
 * attempt, so a limit on the full address would limit nothing. IPv4-mapped IPv6 addresses
 * (`::ffff:192.0.2.1`, `::ffff:c000:201`) are their IPv4 address. Anything else (not an IP
 * address) is kept as it is, lower-cased.
 */
export function addressLimitKey(address: string): string {
  const plain = address.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(plain)) return plain;
  if (!isIPv6(plain)) return plain.toLowerCase();
  const groups = ipv6Groups(plain);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part read, a zone dropped). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
