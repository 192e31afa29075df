import { isIP } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6. */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

/** A CIDR range: the addresses whose first `prefix` bits equal those of `base`. */
export interface IpRange {
  version: 4 | 6;
  base: bigint;
  prefix: number;
  /** The range as written in canonical form, e.g. `10.0.0.0/8`, for messages. */
  text: string;
}

const bitsOf = { 4: 32, 6: 128 } as const;

/**
 * Parses an IP address in the forms `net.isIP` accepts (dotted IPv4, any IPv6 spelling, an IPv6
 * zone such as `%eth0` is dropped), or returns null. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is
 * returned as the IPv4 address: the kernel connects to that IPv4 address, so it is judged as one.
 */
export function parseIpAddress(text: string): IpAddress | null {
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const withoutZone = unbracketed.split('%')[0]!;
  const version = isIP(withoutZone);
  if (version === 4) return { version: 4, value: parseIpv4(withoutZone) };
  if (version !== 6) return null;
  const value = parseIpv6(withoutZone);
  if (value >> 32n === 0xffffn) return { version: 4, value: value & 0xffffffffn };
  return { version: 6, value };
}

/** Parses `address/prefix` (or a bare address, meaning one address); throws Error saying what is wrong. */
export function parseIpRange(text: string): IpRange {
  const [addressText = '', prefixText, ...extra] = text.split('/');
  const address = parseIpAddress(addressText);
  if (address === null || extra.length > 0 || addressText.includes('%')) throw new Error(`"${text}" is not an IP address or CIDR range`);
  const bits = bitsOf[address.version];
  // "::ffff:10.0.0.0/104" is the IPv4 range 10.0.0.0/8 in mapped form; keep its meaning.
  const mappedOffset = address.version === 4 && isIP(addressText) === 6 ? 96 : 0;
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) throw new Error(`"${text}" has a prefix length that is not a number`);
    prefix = Number(prefixText) - mappedOffset;
    if (prefix < 0 || prefix > bits) throw new Error(`"${text}" has a prefix length outside 0–${bits + mappedOffset}`);
  }
  const hostMask = (1n << BigInt(bits - prefix)) - 1n;
  if ((address.value & hostMask) !== 0n) {
    const base = formatIpAddress({ version: address.version, value: address.value & ~hostMask });
    throw new Error(`"${text}" has bits set after the prefix; did you mean ${base}/${prefix}?`);
  }
  return { version: address.version, base: address.value, prefix, text: `${formatIpAddress(address)}/${prefix}` };
}

/** Whether `range` holds `address` (an IPv4 range never holds an IPv6 address and back). */
export function rangeContains(range: IpRange, address: IpAddress): boolean {
  if (range.version !== address.version) return false;
  const shift = BigInt(bitsOf[range.version] - range.prefix);
  return address.value >> shift === range.base >> shift;
}

/** The canonical text of an address: dotted IPv4, or IPv6 with the longest zero run as `::`. */
export function formatIpAddress(address: IpAddress): string {
  if (address.version === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((address.value >> shift) & 0xffn)).join('.');
  }
  const groups = Array.from({ length: 8 }, (_, index) => Number((address.value >> BigInt(112 - index * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function parseIpv4(text: string): bigint {
  return text.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Parses an IPv6 address already validated by `net.isIP`, including a dotted IPv4 tail. */
function parseIpv6(text: string): bigint {
  let groupsText = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const ipv4 = Number(parseIpv4(text.slice(lastColon + 1)));
    tail.push(ipv4 >>> 16, ipv4 & 0xffff);
    // The placeholder group "0" keeps the colon structure; the two tail groups replace it below.
    groupsText = `${text.slice(0, lastColon + 1)}0`;
  }
  const [headText = '', restText] = groupsText.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  let head = parse(headText);
  let rest = restText === undefined ? [] : parse(restText);
  if (tail.length > 0) {
    if (restText === undefined) head = [...head.slice(0, -1), ...tail];
    else rest = [...rest.slice(0, -1), ...tail];
  }
  const zeros = restText === undefined ? [] : new Array<number>(8 - head.length - rest.length).fill(0);
  return [...head, ...zeros, ...rest].reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}
