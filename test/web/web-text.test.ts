import { describe, expect, it } from 'vitest';
import { describeUserAgent, errorText, notificationTitle } from '../../web/src/text.ts';
import { pathMatches } from '../../web/src/router.ts';

/** The web app's wording of server data, and its route patterns (web/src/text.ts, router.ts). */
describe('the web app wording', () => {
  it('names browsers and systems people know instead of the raw User-Agent', () => {
    const cases: [string | null, string][] = [
      ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox on Windows'],
      ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari on iPhone'],
      ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36', 'Chrome on Android'],
      ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0', 'Edge on macOS'],
      ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36', 'Chrome on Linux'],
      ['curl/8.5.0', 'curl'],
      ['something else', 'Unknown browser'],
      [null, 'Unknown browser'],
    ];
    for (const [userAgent, expected] of cases) expect(describeUserAgent(userAgent), String(userAgent)).toBe(expected);
  });

  it('writes errors as sentences, and its own words for codes whose message is for programs', () => {
    expect(errorText(Object.assign(new Error('wrong name or password'), { code: 'WRONG_CREDENTIALS' }))).toBe('That name and password do not match an account. Check both and try again.');
    expect(errorText(new Error('episode 1 not found'))).toBe('Episode 1 not found.');
    expect(errorText(new Error('Already a sentence.'))).toBe('Already a sentence.');
    expect(errorText('')).toBe('Something went wrong. Try again.');
  });

  it("titles a notification from its payload, its key when the payload is unreadable", () => {
    expect(notificationTitle({ itemKey: 'movie:1', payload: JSON.stringify({ title: 'Tidewater', subtitle: 'Movie · 2026' }) })).toBe('Tidewater · Movie · 2026');
    expect(notificationTitle({ itemKey: 'movie:1', payload: '{not json' })).toBe('movie:1');
    expect(notificationTitle({ itemKey: 'game:2', payload: '{}' })).toBe('game:2');
  });

  it('matches routes with a parameter segment, and nothing else', () => {
    expect(pathMatches('/shows/:id', '/shows/12')).toBe(true);
    expect(pathMatches('/shows/:id', '/shows/')).toBe(false);
    expect(pathMatches('/shows/:id', '/shows/1/2')).toBe(false);
    expect(pathMatches('/shows/:id', '/movies/1')).toBe(false);
    expect(pathMatches('/', '/')).toBe(true);
    expect(pathMatches('/', '/search')).toBe(false);
  });
});
