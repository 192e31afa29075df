/** The app's wording of things the server gives as data: errors, browsers, notifications. Pure functions (test/web/web-text.test.ts). */

/** What the app says for the server's error codes whose own message is written for programs. */
const codeMessages: Record<string, string> = {
  WRONG_CREDENTIALS: 'That name and password do not match an account. Check both and try again.',
  NETWORK: 'The server cannot be reached. Check your connection and try again.',
  UNAUTHENTICATED: 'You are signed out. Sign in again to go on.',
};

/**
 * The message of anything thrown, for a Notice, as a sentence: a known error code's own wording,
 * else the server's message with a capital letter and a full stop.
 */
export function errorText(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && codeMessages[code]) return codeMessages[code];
  const text = (error instanceof Error ? error.message : String(error)).trim();
  if (!text) return 'Something went wrong. Try again.';
  const sentence = text[0]!.toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(sentence) ? sentence : `${sentence}.`;
}

/**
 * "Firefox on Windows", "Safari on iPhone", "Chrome on Android" from a User-Agent string: the
 * browser and system people recognise, not the raw string; "Unknown browser" when it says neither.
 */
export function describeUserAgent(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown browser';
  const browsers: [RegExp, string][] = [
    [/Edg(e|A|iOS)?\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/Firefox\/|FxiOS\//, 'Firefox'],
    [/SamsungBrowser\//, 'Samsung Internet'],
    [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
    [/Safari\//, 'Safari'],
    [/curl\//, 'curl'],
  ];
  const systems: [RegExp, string][] = [
    [/iPhone/, 'iPhone'],
    [/iPad/, 'iPad'],
    [/Android/, 'Android'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ];
  const browser = browsers.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `A browser on ${system}` : 'Unknown browser');
}

/**
 * What a notification is about, as people call it: the title (and episode) its payload carries,
 * e.g. "Harbor Lights S02E03"; the item key when the payload cannot be read.
 */
export function notificationTitle(notification: { itemKey: string; payload: string }): string {
  try {
    const payload = JSON.parse(notification.payload) as { title?: unknown; subtitle?: unknown };
    if (typeof payload.title === 'string' && payload.title) return typeof payload.subtitle === 'string' && payload.subtitle ? `${payload.title} · ${payload.subtitle}` : payload.title;
  } catch {
    // An unreadable payload: the key says at least what kind of item it was.
  }
  return notification.itemKey;
}
