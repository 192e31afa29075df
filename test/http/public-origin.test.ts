import { describe, expect, it } from 'vitest';
import { clientAddress, isSecureOrigin, publicOrigin } from '../../src/http/public-origin.ts';

const request = (url: string, headers: Record<string, string> = {}) => new Request(url, { headers });
const direct = { publicUrl: undefined, trustProxy: false };
const proxied = { publicUrl: undefined, trustProxy: true };

describe('publicOrigin', () => {
  it('is AIRDATE_PUBLIC_URL when set, whatever the request says', () => {
    const web = { publicUrl: 'https://airdate.example.com', trustProxy: true };
    expect(publicOrigin(request('http://10.0.0.5:4000/graphql', { 'x-forwarded-host': 'evil.example' }), web)).toBe('https://airdate.example.com');
    expect(isSecureOrigin(request('http://10.0.0.5:4000/'), web)).toBe(true);
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
