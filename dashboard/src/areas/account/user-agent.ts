/**
 * A User-Agent string as a person names their device: the browser and the system ("Chrome",
 * "Linux"). Product names are names, not words to translate. A small table rather than a
 * library: sessions need the common browsers and systems, not versions or device models, and the
 * raw string stays available on hover. Order matters: Edge and Opera say "Chrome" too, Chrome
 * says "Safari", Android says "Linux", iPadOS may say "Mac OS X".
 */
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\b(OPR|Opera)\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  [/(Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*Safari\//, 'Safari'],
  [/\bcurl\//, 'curl'],
  [/\bnode(-fetch)?\b|\bundici\b/i, 'Node.js'],
  [/\bPostmanRuntime\//, 'Postman'],
];

const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(iPhone|iPod)\b/, 'iOS'],
  [/\biPad\b/, 'iPadOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

export interface Device {
  browser: string | null;
  system: string | null;
}

const first = (ua: string, table: ReadonlyArray<readonly [RegExp, string]>): string | null => table.find(([re]) => re.test(ua))?.[1] ?? null;

/** The browser and system a User-Agent names; null for a part it does not name in a way the table knows. */
export function deviceOf(userAgent: string): Device {
  return { browser: first(userAgent, BROWSERS), system: first(userAgent, SYSTEMS) };
}
