/**
 * A web push device's name from its browser's User-Agent ("Firefox on Android", "Safari on
 * iPhone"), for the list of subscribed devices; "A browser" when the header says nothing known.
 * The order matters: Edge and Opera also say Chrome, Chrome also says Safari, an iPad in desktop
 * mode says Macintosh.
 */
export function deviceName(userAgent: string | null | undefined): string {
  const text = userAgent ?? '';
  const first = (table: [RegExp, string][]): string | null => table.find(([pattern]) => pattern.test(text))?.[1] ?? null;
  const browser = first([
    [/Edg(e|A|iOS)?\//, 'Edge'],
    [/OPR\/|Opera/, 'Opera'],
    [/SamsungBrowser\//, 'Samsung Internet'],
    [/Firefox\/|FxiOS\//, 'Firefox'],
    [/Chrome\/|CriOS\//, 'Chrome'],
    [/Safari\//, 'Safari'],
  ]);
  const system = first([
    [/Android/, 'Android'],
    [/iPhone/, 'iPhone'],
    [/iPad/, 'iPad'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ]);
  if (browser === null && system === null) return 'A browser';
  if (browser === null) return `A browser on ${system}`;
  return system === null ? browser : `${browser} on ${system}`;
}
