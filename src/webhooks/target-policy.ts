import { formatIpAddress, parseIpAddress, parseIpRange, rangeContains } from './ip-address.ts';
import type { IpAddress, IpRange } from './ip-address.ts';

/** Address classes a policy can allow by name. */
export type AllowedClass = 'external' | 'private' | 'loopback';

/**
 * What kind of address an IP is. Only `external`, `private` and `loopback` can be allowed by word;
 * the rest are reachable only through a CIDR entry that covers them, because a webhook has no
 * business there (cloud metadata services hand out credentials; 0.0.0.0 connects to this host).
 */
export type AddressClass = AllowedClass | 'link-local' | 'cloud-metadata' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

/** A parsed AIRDATE_WEBHOOK_ALLOWED_HOSTS: which webhook targets may be connected to. */
export interface TargetPolicy {
  /** Address classes allowed by word. */
  readonly classes: ReadonlySet<AllowedClass>;
  /** CIDR ranges allowed whatever class their addresses are. */
  readonly ranges: readonly IpRange[];
  /** Host names (lower case, no trailing dot) allowed at any external, private or loopback address. */
  readonly hostNames: ReadonlySet<string>;
}

/** The outcome of checking one address against a policy. */
export type AddressCheck = { allowed: true } | { allowed: false; reason: string };

const settingName = 'AIRDATE_WEBHOOK_ALLOWED_HOSTS';
const classWords: readonly AllowedClass[] = ['external', 'private', 'loopback'];
const hostNamePattern = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Parses a comma list of `external`, `private`, `loopback`, CIDR ranges (IPv4 or IPv6; a bare
 * address means just that address) and host names. Words and names are case-insensitive and
 * spaces around entries are ignored. Throws an Error naming the first bad entry.
 */
export function parseTargetPolicy(text: string): TargetPolicy {
  const classes = new Set<AllowedClass>();
  const ranges: IpRange[] = [];
  const hostNames = new Set<string>();
  if (text.trim() === '') throw new Error(`${settingName} is empty; list at least one of external, private, loopback, a CIDR range or a host name`);
  text.split(',').forEach((raw, index) => {
    const entry = raw.trim().toLowerCase();
    if (entry === '') throw new Error(`${settingName} entry ${index + 1} is empty (two commas in a row, or one at an end?)`);
    if ((classWords as readonly string[]).includes(entry)) {
      classes.add(entry as AllowedClass);
    } else if (entry.includes('/') || entry.includes(':') || parseIpAddress(entry) !== null) {
      // Host names never hold "/" or ":", so such an entry is meant as an address or range.
      try {
        ranges.push(parseIpRange(entry));
      } catch (error) {
        throw new Error(`${settingName}: ${(error as Error).message}`);
      }
    } else if (/^[0-9.]+$/.test(entry)) {
      throw new Error(`${settingName}: "${raw.trim()}" is not an IP address (write IPv4 as four dotted numbers, e.g. 192.168.1.10)`);
    } else if (!entry.includes('.') && classWords.some((word) => editDistance(entry, word) <= 2)) {
      // A one-label host name this close to a word is far more likely a typo than a host.
      const word = classWords.find((candidate) => editDistance(entry, candidate) <= 2)!;
      throw new Error(`${settingName}: "${raw.trim()}" is not a known word; did you mean "${word}"?`);
    } else if (hostNamePattern.test(entry.replace(/\.$/, ''))) {
      hostNames.add(entry.replace(/\.$/, ''));
    } else {
      throw new Error(`${settingName}: "${raw.trim()}" is not external, private, loopback, a CIDR range or a host name`);
    }
  });
  return { classes, ranges, hostNames };
}

/**
 * Whether a webhook to `hostname` may connect to `address` (the IP actually connected to).
 * A CIDR entry covering the address allows it, whatever its class; otherwise link-local,
 * cloud-metadata, unspecified, multicast, broadcast and reserved addresses are refused, and the
 * rest are allowed when their class is listed or `hostname` is listed by name.
 */
export function checkAddress(policy: TargetPolicy, address: string, hostname: string): AddressCheck {
  const parsed = parseIpAddress(address);
  if (parsed === null) return { allowed: false, reason: `"${address}" is not an IP address` };
  if (policy.ranges.some((range) => rangeContains(range, parsed))) return { allowed: true };
  const addressClass = classifyAddress(parsed);
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const canonical = formatIpAddress(parsed);
  if (isAllowedClass(addressClass) && (policy.classes.has(addressClass) || policy.hostNames.has(name))) return { allowed: true };
  const subject = parseIpAddress(name) !== null ? `${address} is` : `${name} resolves to ${address},`;
  const cidr = `${canonical}/${parsed.version === 4 ? 32 : 128}`;
  const remedy = isAllowedClass(addressClass) ? `add "${addressClass}" or "${cidr}" to allow it` : `only a CIDR entry such as "${cidr}" allows it`;
  return { allowed: false, reason: `${subject} ${articled(addressClass)} address, which ${settingName} does not allow (${remedy})` };
}

/** The class of an address, by the first entry of `classTable` that holds it. */
export function classifyAddress(address: IpAddress): AddressClass {
  const nat64 = classTable.nat64;
  if (rangeContains(nat64, address)) {
    // A NAT64 gateway turns 64:ff9b::a.b.c.d into a connection to a.b.c.d: judge that address.
    return classifyAddress({ version: 4, value: address.value & 0xffffffffn });
  }
  for (const [range, addressClass] of address.version === 4 ? classTable.ipv4 : classTable.ipv6) {
    if (rangeContains(range, address)) return addressClass;
  }
  return address.version === 4 ? 'external' : 'reserved';
}

/** Levenshtein distance, for spotting misspelt words. */
function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (left[i - 1] === right[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[right.length]!;
}

function isAllowedClass(addressClass: AddressClass): addressClass is AllowedClass {
  return (classWords as readonly string[]).includes(addressClass);
}

function articled(addressClass: AddressClass): string {
  const label = addressClass === 'cloud-metadata' ? 'cloud metadata' : addressClass;
  return /^[aeiou]/.test(label) ? `an ${label}` : `a ${label}`;
}

function table(entries: [string, AddressClass][]): [IpRange, AddressClass][] {
  return entries.map(([text, addressClass]) => [parseIpRange(text), addressClass]);
}

/** First match wins, so single addresses come before the ranges that hold them. */
const classTable = {
  nat64: parseIpRange('64:ff9b::/96'),
  ipv4: table([
    ['0.0.0.0/32', 'unspecified'],
    ['0.0.0.0/8', 'reserved'],
    ['127.0.0.0/8', 'loopback'],
    // AWS, GCP, Azure, Oracle (169.254.169.254), Alibaba (100.100.100.200), Azure's host endpoint.
    ['169.254.169.254/32', 'cloud-metadata'],
    ['100.100.100.200/32', 'cloud-metadata'],
    ['168.63.129.16/32', 'cloud-metadata'],
    ['169.254.0.0/16', 'link-local'],
    ['10.0.0.0/8', 'private'],
    ['172.16.0.0/12', 'private'],
    ['192.168.0.0/16', 'private'],
    // Carrier-grade NAT space; also what Tailscale hands out, so a receiver on a tailnet counts as private.
    ['100.64.0.0/10', 'private'],
    ['192.0.0.0/24', 'reserved'],
    ['192.0.2.0/24', 'reserved'],
    ['198.18.0.0/15', 'reserved'],
    ['198.51.100.0/24', 'reserved'],
    ['203.0.113.0/24', 'reserved'],
    ['224.0.0.0/4', 'multicast'],
    ['255.255.255.255/32', 'broadcast'],
    ['240.0.0.0/4', 'reserved'],
  ]),
  ipv6: table([
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['fd00:ec2::254/128', 'cloud-metadata'],
    ['fe80::/10', 'link-local'],
    ['fc00::/7', 'private'],
    ['ff00::/8', 'multicast'],
    ['2001:db8::/32', 'reserved'],
    // Global unicast; everything outside it that is not listed above is reserved.
    ['2000::/3', 'external'],
  ]),
};
