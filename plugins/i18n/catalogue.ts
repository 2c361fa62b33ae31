import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isLocale } from '../../kernel/api.js';
import { checkMessage, type IcuProblem } from '../../i18n/icu-check.js';

/** The source locale: i18n/en holds every namespace and key; other locales translate it. */
export const SOURCE_LOCALE = 'en';
/** The operator's own strings: keys are created by PUT, not shipped (IN5). */
export const CUSTOM_NAMESPACE = 'custom';

export type Messages = Readonly<Record<string, string>>;

/** What ships in the catalogue directory (i18n/ at the repository root unless a test gives another). */
export interface ShippedCatalogue {
  /** The namespaces: i18n/en/*.json, sorted. */
  namespaces: readonly string[];
  /** Shipped locales (directories whose name is a locale), `en` first, then sorted. */
  locales: readonly string[];
  /** locale → namespace → key → text; a namespace file a locale lacks is an empty object. */
  messages: ReadonlyMap<string, ReadonlyMap<string, Messages>>;
}

function readJson(path: string): Record<string, string> {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${path}: not a JSON object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (typeof v !== 'string') throw new Error(`${path}: "${k}" is not a string`);
    out[k] = v;
  }
  return out;
}

/** Reads the catalogue directory once (at start; files do not change while a server runs). */
export function readCatalogue(dir: string): ShippedCatalogue {
  const sourceDir = join(dir, SOURCE_LOCALE);
  if (!existsSync(sourceDir)) throw new Error(`the catalogue directory ${dir} has no ${SOURCE_LOCALE}/`);
  const namespaces = readdirSync(sourceDir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
  const locales = readdirSync(dir)
    .filter((d) => isLocale(d) && statSync(join(dir, d)).isDirectory())
    .sort((a, b) => (a === SOURCE_LOCALE ? -1 : b === SOURCE_LOCALE ? 1 : a < b ? -1 : a > b ? 1 : 0));
  const messages = new Map<string, Map<string, Messages>>();
  for (const locale of locales) {
    const byNs = new Map<string, Messages>();
    for (const ns of namespaces) {
      const file = join(dir, locale, `${ns}.json`);
      byNs.set(ns, existsSync(file) ? readJson(file) : {});
    }
    messages.set(locale, byNs);
  }
  return { namespaces, locales, messages };
}

export interface FormatError extends IcuProblem {
  locale: string;
  namespace: string;
  key: string;
}

/**
 * The format errors of one shipped locale's files against the English source: every message
 * checked by the ICU check, and every source key the locale lacks (`missing`, when asked).
 * For a test that a shipped locale is complete and clean:
 *   `expect(localeDirectoryErrors(projectPath('i18n'), 'de', { missing: true })).toEqual([])`.
 */
export function localeDirectoryErrors(dir: string, locale: string, options: { missing?: boolean } = {}): Array<FormatError | MissingKey> {
  const catalogue = readCatalogue(dir);
  const own = catalogue.messages.get(locale);
  if (!own) throw new Error(`${locale} is not a directory of ${dir}`);
  const source = catalogue.messages.get(SOURCE_LOCALE)!;
  const out: Array<FormatError | MissingKey> = [];
  for (const ns of catalogue.namespaces) {
    const src = source.get(ns) ?? {};
    const msgs = own.get(ns) ?? {};
    for (const [key, text] of Object.entries(msgs)) {
      if (!Object.prototype.hasOwnProperty.call(src, key)) {
        out.push({ locale, namespace: ns, key, kind: 'unknown-key', message: 'The key is not in the English source.' });
        continue;
      }
      for (const p of checkMessage(text, locale === SOURCE_LOCALE ? null : src[key])) out.push({ locale, namespace: ns, key, ...p });
    }
    if (options.missing)
      for (const key of Object.keys(src))
        if (!Object.prototype.hasOwnProperty.call(msgs, key)) out.push({ locale, namespace: ns, key, kind: 'missing', message: 'Not translated.' });
  }
  return out;
}

export interface MissingKey {
  locale: string;
  namespace: string;
  key: string;
  kind: 'missing' | 'unknown-key';
  message: string;
}
