import { isIP } from 'node:net';

/**
 * Which host names the server answers to (AIRDATE_ALLOWED_HOSTS; docs/security.md "Host names").
 *
 * DNS rebinding — a page of `attacker.example` whose name the attacker then points at the
 * server's address — reaches the server from the victim's browser with `Host: attacker.example`,
 * and everything built on that host (the origin the CSRF rule compares with, the single sign-on
 * redirect URI, links) would follow it. Such a page can only ever send a name the attacker
 * controls in public DNS. So the server answers, without any setting, to the names public DNS
 * cannot give an attacker:
 * - IP literals (`127.0.0.1`, `192.168.1.20`, `[::1]`): the page's origin is then the server itself;
 * - names of one label (`localhost`, `nas`, a container's service name such as `airdate`), which
 *   only this network's own resolver answers;
 * - names under the special-use and private-use suffixes (RFC 6761 `.localhost`, `.test`;
 *   multicast DNS `.local`; RFC 8375 `.home.arpa`; ICANN's private-use `.internal`; and `.lan`,
 *   which routers hand out and the root zone does not delegate);
 * and to the host of AIRDATE_PUBLIC_URL and the entries of AIRDATE_ALLOWED_HOSTS: a name
 * (`airdate.example.com`), a suffix with a leading dot (`.example.com`: that name and every name
 * under it), or `*` (any host: the check is off). Any other host is refused with 400 before
 * anything else happens (public-origin.ts checkHost).
 */
export interface HostSettings {
  /** AIRDATE_PUBLIC_URL (its host is always allowed). */
  publicUrl: string | undefined;
  /** AIRDATE_ALLOWED_HOSTS, parsed by parseAllowedHosts. */
  allowedHosts: readonly string[];
}

/** Suffixes under which no name can come from public DNS (see above). */
const localSuffixes = ['.localhost', '.local', '.lan', '.home.arpa', '.internal', '.test'];

/** A DNS name of letters, digits and hyphens (as the URL parser leaves it: lower case, punycode). */
const namePattern = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * Parses AIRDATE_ALLOWED_HOSTS (comma- or space-separated): each entry lower-cased, without a
 * trailing dot; throws naming the first entry that is none of a name, `.suffix`, an IP literal or `*`.
 */
export function parseAllowedHosts(text: string): string[] {
  const entries = text
    .split(/[\s,]+/)
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const name = entry.startsWith('.') ? entry.slice(1) : entry;
    const valid = entry === '*' || namePattern.test(name) || isIP(entry.replace(/^\[(.*)\]$/, '$1')) !== 0;
    if (!valid) throw new Error(`"${entry.slice(0, 100)}" is not a host name, a .suffix, an IP address or *`);
  }
  return entries;
}

/** Whether `hostname` (a URL's `hostname`: lower case, IPv6 in brackets, no port) is one the server answers to. */
export function isAllowedHost(hostname: string, settings: HostSettings): boolean {
  const host = hostname.replace(/\.$/, '');
  if (isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0) return true;
  if (!host.includes('.')) return true;
  if (localSuffixes.some((suffix) => host.endsWith(suffix))) return true;
  if (settings.publicUrl !== undefined && new URL(settings.publicUrl).hostname === host) return true;
  return settings.allowedHosts.some((entry) => entry === '*' || entry === host || (entry.startsWith('.') && (host === entry.slice(1) || host.endsWith(entry))));
}
