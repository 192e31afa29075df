import { describe, expect, it } from 'vitest';
import { isAllowedHost, parseAllowedHosts } from '../../src/http/allowed-hosts.ts';
import { clientAddress, isSecureOrigin, publicOrigin } from '../../src/http/public-origin.ts';

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });
const direct = { publicUrl: undefined, trustProxy: false, allowedHosts: [] };
const proxied = { publicUrl: undefined, trustProxy: true, allowedHosts: ['airdate.example.com', 'a.example'] };
const refusedHost = /^this server does not answer to the host "evil\.example": set AIRDATE_PUBLIC_URL .* or add the name to AIRDATE_ALLOWED_HOSTS$/;

describe('publicOrigin', () => {
  it('is AIRDATE_PUBLIC_URL when set, whatever allowed host the request was addressed to', () => {
    const web = { publicUrl: 'https://airdate.example.com', trustProxy: true, allowedHosts: [] };
    expect(publicOrigin(request('http://10.0.0.5:4000/graphql', { 'x-forwarded-host': 'tv.lan' }), web)).toBe('https://airdate.example.com');
    expect(publicOrigin(request('http://10.0.0.5:4000/graphql', { 'x-forwarded-host': 'airdate.example.com' }), web)).toBe('https://airdate.example.com');
    expect(isSecureOrigin(request('http://10.0.0.5:4000/'), web)).toBe(true);
  });

  it('is never built on a host the server does not answer to: a 400 naming the settings instead', () => {
    const web = { publicUrl: 'https://airdate.example.com', trustProxy: true, allowedHosts: [] };
    for (const [forged, settings] of [
      [request('http://10.0.0.5:4000/graphql', { 'x-forwarded-host': 'evil.example' }), web],
      [request('http://evil.example:4000/graphql'), web],
      [request('http://evil.example:4000/graphql'), direct],
      [request('http://app:4000/', { 'x-forwarded-host': 'evil.example' }), proxied],
    ] as const) {
      expect(() => publicOrigin(forged, settings)).toThrow(refusedHost);
      expect(() => isSecureOrigin(forged, settings)).toThrow(expect.objectContaining({ status: 400 }));
    }
  });

  it("is the request's own origin without a trusted proxy, ignoring X-Forwarded-*", () => {
    const forged = request('http://localhost:4000/graphql', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' });
    expect(publicOrigin(forged, direct)).toBe('http://localhost:4000');
    expect(isSecureOrigin(forged, direct)).toBe(false);
  });

  it('follows X-Forwarded-Proto and X-Forwarded-Host behind a trusted proxy (first value), falling back on malformed ones', () => {
    expect(publicOrigin(request('http://app:4000/', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'airdate.example.com' }), proxied)).toBe(
      'https://airdate.example.com',
    );
    expect(publicOrigin(request('http://app:4000/', { 'x-forwarded-proto': 'https, http', 'x-forwarded-host': 'a.example:8443, b' }), proxied)).toBe(
      'https://a.example:8443',
    );
    expect(publicOrigin(request('http://app:4000/', { 'x-forwarded-proto': 'https' }), proxied)).toBe('https://app:4000');
    expect(publicOrigin(request('http://app:4000/', { 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'a b/c' }), proxied)).toBe('http://app:4000');
    expect(publicOrigin(request('http://app:4000/', { 'x-forwarded-host': 'user@evil.example' }), proxied)).toBe('http://app:4000');
  });
});

describe('clientAddress', () => {
  it("is the socket's address without a trusted proxy, even when X-Forwarded-For is sent", () => {
    expect(clientAddress(request('http://a/', { 'x-forwarded-for': '1.2.3.4' }), direct, '10.0.0.9')).toBe('10.0.0.9');
    expect(clientAddress(request('http://a/'), direct, '::ffff:192.168.1.20')).toBe('192.168.1.20');
    expect(clientAddress(request('http://a/'), direct, undefined)).toBeUndefined();
  });

  it('is the hop the proxy saw (the last X-Forwarded-For entry) behind a trusted proxy, never what the client prepended', () => {
    expect(clientAddress(request('http://a/', { 'x-forwarded-for': '6.6.6.6, 203.0.113.7' }), proxied, '10.0.0.2')).toBe('203.0.113.7');
    expect(clientAddress(request('http://a/', { 'x-forwarded-for': '2001:DB8::1' }), proxied, '10.0.0.2')).toBe('2001:db8::1');
    expect(clientAddress(request('http://a/', { 'x-forwarded-for': 'not-an-address' }), proxied, '10.0.0.2')).toBe('10.0.0.2');
    expect(clientAddress(request('http://a/'), proxied, '10.0.0.2')).toBe('10.0.0.2');
  });
});

describe('allowed hosts (DNS rebinding)', () => {
  const none = { publicUrl: undefined, allowedHosts: [] };
  const hostname = (authority: string) => new URL(`http://${authority}/`).hostname;

  it('answers, without settings, to IP literals, one-label names and names public DNS cannot give an attacker', () => {
    const allowed = ['127.0.0.1', '[::1]', '192.168.1.20', '203.0.113.9', '[2001:db8::1]', 'localhost', 'LOCALHOST', 'nas', 'airdate', 'app.localhost', 'nas.local', 'nas.local.', 'tv.lan', 'tv.home.arpa', 'box.internal', 'airdate.test'];
    for (const host of allowed) expect(isAllowedHost(hostname(host), none), host).toBe(true);
    const refused = ['attacker.example', 'airdate.example.com', '127.0.0.1.nip.io', 'localhost.attacker.example', 'local.attacker.example', 'lan.example', 'evil.localx', 'xn--80ak6aa92e.com'];
    for (const host of refused) expect(isAllowedHost(hostname(host), none), host).toBe(false);
  });

  it("adds AIRDATE_PUBLIC_URL's host and AIRDATE_ALLOWED_HOSTS: names, .suffixes, or * for any", () => {
    expect(isAllowedHost('airdate.example.com', { publicUrl: 'https://airdate.example.com', allowedHosts: [] })).toBe(true);
    expect(isAllowedHost('other.example.com', { publicUrl: 'https://airdate.example.com', allowedHosts: [] })).toBe(false);
    const settings = { publicUrl: undefined, allowedHosts: parseAllowedHosts(' TV.Example.org., .home.example.net ,') };
    expect(settings.allowedHosts).toEqual(['tv.example.org', '.home.example.net']);
    for (const host of ['tv.example.org', 'home.example.net', 'a.b.home.example.net']) expect(isAllowedHost(host, settings), host).toBe(true);
    for (const host of ['example.org', 'atv.example.org', 'tv.example.org.evil.example', 'evilhome.example.net']) expect(isAllowedHost(host, settings), host).toBe(false);
    expect(isAllowedHost('anything.example', { publicUrl: undefined, allowedHosts: parseAllowedHosts('*') })).toBe(true);
  });

  it('refuses entries that are no host', () => {
    for (const entry of ['http://a.example', 'a.example:80', 'a_b.example', '*.example.com', 'a..b', '-a.example']) {
      expect(() => parseAllowedHosts(entry), entry).toThrow(/is not a host name, a \.suffix, an IP address or \*/);
    }
  });
});
