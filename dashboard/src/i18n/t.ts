import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import englishShell from '../../../i18n/en/shell.json';
import { readBundle, readManifest } from '../api/i18n';
import type { MessageId, Namespace } from './message-ids';

/**
 * The dashboard's catalogue at run time (issue 31, decisions IN20–IN23).
 *
 * The strings come from the API: `GET /i18n/manifest` names the enabled locales (with their
 * direction and fallback), and `GET /i18n/bundle/{locale}/{namespace}` gives one namespace of one
 * locale, already merged along its fallback chain down to English. The shell's namespace is fetched
 * at start, each area's with its first screen (areas/area.ts, `lazyWithMessages`). The English shell
 * is compiled in only as the last resort: what shows when the API cannot be reached at all.
 *
 * The locale shown is the best enabled one for what the person wants (their preferences' locale
 * signed in, the browser's languages signed out): the locale itself, else its shorter forms
 * (`pt_BR` → `pt`), else the instance's default, else English. `<html lang>` names the catalogue
 * actually shown (not the one asked for) and `dir` is that locale's, unless the person chose a
 * direction themselves.
 */

/** The source locale: every bundle ends its fallback chain here. */
export const SOURCE_LOCALE = 'en';

/** The seed writes locales with `_` (pt_BR); HTML's lang and Intl want BCP 47 (pt-BR). */
export const bcp47 = (locale: string) => locale.replace(/_/g, '-');

export type Dir = 'ltr' | 'rtl';
export interface ManifestLocale {
  locale: string;
  name: string;
  dir: Dir;
  fallback: string | null;
}
export interface Manifest {
  source: string;
  defaultLocale: string;
  locales: ManifestLocale[];
  namespaces: string[];
  hashes: Record<string, Record<string, string>>;
}

const ENGLISH: ManifestLocale = { locale: SOURCE_LOCALE, name: 'English', dir: 'ltr', fallback: null };

/** The strings `t()` knows, by id, in the locale shown. */
let catalogue = new Map<string, string>();
const compiled = new Map<string, IntlMessageFormat>();
const reported = new Set<string>();
/** The namespaces the screens shown so far have asked for (the shell's always). */
const wantedNamespaces = new Set<Namespace>(['shell' as Namespace]);

let shown: ManifestLocale = ENGLISH;
let wanted: readonly string[] = [];
let chosenDir: Dir | null = null;
let manifestCache: Promise<Manifest | null> | null = null;
/** The switch under way: loadNamespace waits for it, so an area's strings come in the locale being switched to. */
let switching: Promise<void> = Promise.resolve();
let switchSeq = 0;
/** The locale whose bundles of every wanted namespace were fetched by a switch (null: none yet, English compiled in). */
let loadedFor: string | null = null;
/** The namespaces that switch fetched. */
let loadedNamespaces = new Set<Namespace>();

let version = 0;
const listeners = new Set<() => void>();
function changed(): void {
  version += 1;
  listeners.forEach((listener) => listener());
}

/** Adds strings to the catalogue, or replaces those it has (the formats made from them are dropped). */
export function addMessages(bundle: Readonly<Record<string, string>>): void {
  for (const [id, text] of Object.entries(bundle)) {
    catalogue.set(id, text);
    compiled.delete(id);
  }
}

addMessages(englishShell);

/** GET /i18n/manifest, asked once (and again after an `i18n.changed`); null when the API cannot be reached. */
export function getManifest(fresh = false): Promise<Manifest | null> {
  if (fresh || !manifestCache) {
    manifestCache = readManifest()
      .then((data) => data as Manifest)
      .catch(() => {
        manifestCache = null; // asked again next time
        return null;
      });
  }
  return manifestCache;
}

async function fetchBundle(locale: string, namespace: Namespace): Promise<Record<string, string>> {
  return readBundle(locale, namespace);
}

/** `de-AT`, `de_at` → `de_AT`: the seed's spelling, for comparing with the manifest's locales. */
const normalise = (locale: string) => locale.trim().replace(/-/g, '_');

/**
 * The enabled locale to show for what is wanted, in order of preference: each wanted locale, then
 * its shorter forms (`pt_BR` → `pt`), then the instance's default, then English.
 */
export function resolveLocale(want: readonly string[], manifest: Manifest): ManifestLocale {
  const byKey = new Map(manifest.locales.map((l) => [l.locale.toLowerCase(), l] as const));
  for (const raw of want) {
    const parts = normalise(raw).split('_');
    for (let n = parts.length; n > 0; n--) {
      const hit = byKey.get(parts.slice(0, n).join('_').toLowerCase());
      if (hit) return hit;
    }
  }
  return byKey.get(manifest.defaultLocale.toLowerCase()) ?? byKey.get(SOURCE_LOCALE) ?? ENGLISH;
}

/** The locales a shown locale's bundles are made of: itself, its fallbacks, English. */
function chainOf(locale: ManifestLocale, manifest: Manifest | null): Set<string> {
  const chain = new Set<string>([locale.locale, SOURCE_LOCALE]);
  let next = locale.fallback;
  while (next && !chain.has(next)) {
    chain.add(next);
    next = manifest?.locales.find((l) => l.locale === next)?.fallback ?? null;
  }
  return chain;
}

function applyToDocument(): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  root.lang = bcp47(shown.locale);
  root.dir = chosenDir ?? shown.dir;
  // Numbers and dates follow the locale asked for, even one without a catalogue (values/context.ts).
  root.dataset.locale = formatLocale();
}

/**
 * Shows the best enabled locale for `want` (a locale or the browser's list), with the direction the
 * person chose (null: the locale's own). Resolves once the shown namespaces are in the catalogue.
 * `force` reloads the bundles even when the locale stays (after a translation changed).
 */
export function showLocale(want: string | readonly string[], dir: Dir | null = chosenDir, force = false): Promise<void> {
  wanted = typeof want === 'string' ? [want] : want;
  chosenDir = dir;
  const seq = ++switchSeq;
  const run = async () => {
    // A later switch is queued behind this one: it does the work (runs are one after another).
    if (seq !== switchSeq) return;
    const manifest = await getManifest(force);
    if (seq !== switchSeq) return;
    const target = manifest ? resolveLocale(wanted, manifest) : ENGLISH;
    if (!manifest || (!force && target.locale === loadedFor)) {
      if (seq !== switchSeq) return;
      shown = manifest ? target : shown;
      applyToDocument();
      if (version === 0) changed();
      return;
    }
    // Another language than the API's: its error messages come with the shell (ui.tsx, errorText).
    if (target.locale !== SOURCE_LOCALE) wantedNamespaces.add('errors' as Namespace);
    const namespaces = [...wantedNamespaces];
    const bundles = await Promise.all(namespaces.map((ns) => fetchBundle(target.locale, ns).catch(() => null)));
    if (seq !== switchSeq) return;
    // The shell's strings must come, else the locale is not shown at all; an area's that failed keeps what it had.
    if (bundles[0] === null) {
      applyToDocument();
      return;
    }
    const next = new Map(catalogue);
    for (const bundle of bundles) if (bundle) for (const [id, text] of Object.entries(bundle)) next.set(id, text);
    loadedNamespaces = new Set(namespaces.filter((_, i) => bundles[i] !== null));
    catalogue = next;
    compiled.clear();
    shown = target;
    loadedFor = target.locale;
    applyToDocument();
    changed();
  };
  switching = switching.then(run, run);
  return switching;
}

/** The locale values are formatted in: the first one wanted that Intl knows, else the catalogue's. */
function formatLocale(): string {
  for (const want of wanted) {
    try {
      const [canonical] = Intl.getCanonicalLocales(bcp47(normalise(want)));
      if (canonical) return canonical;
    } catch {
      // Not a locale Intl reads: the next one.
    }
  }
  return bcp47(shown.locale);
}

/** The locale whose strings are shown, and its direction as applied. */
export function shownLocale(): { locale: string; dir: Dir } {
  return { locale: shown.locale, dir: chosenDir ?? shown.dir };
}

/** What the person wants before their preferences are known: the browser's languages. */
export function browserLocales(): readonly string[] {
  if (typeof navigator === 'undefined') return [SOURCE_LOCALE];
  return navigator.languages?.length ? navigator.languages : [navigator.language || SOURCE_LOCALE];
}

/** Loads one namespace's strings, in the locale shown, into the catalogue. */
export async function loadNamespace(namespace: Namespace): Promise<void> {
  wantedNamespaces.add(namespace);
  // Every switch queued meanwhile (one may start while this waits): the last one fetches this namespace too.
  let waited: Promise<void>;
  do {
    waited = switching;
    await waited;
  } while (waited !== switching);
  if (loadedFor === shown.locale && loadedNamespaces.has(namespace)) return;
  const locale = shown.locale;
  const messages = await fetchBundle(locale, namespace);
  // A switch that started meanwhile loads this namespace itself, in its own locale.
  if (locale !== shown.locale) return;
  addMessages(messages);
  if (loadedFor === locale) loadedNamespaces.add(namespace);
  changed();
}

/**
 * An `i18n.changed {locale, namespace}` event: when the shown bundle is made of that locale and the
 * namespace is on screen, it is asked again (the manifest too: its hashes moved), so the new text
 * shows without a reload. A change to an enabled locale, its fallback or direction changes the
 * manifest; the locale to show is then resolved again.
 */
export async function catalogueChanged(data: unknown): Promise<void> {
  const event = (typeof data === 'object' && data !== null ? data : {}) as { locale?: unknown; namespace?: unknown };
  const manifest = await getManifest(true);
  const locale = typeof event.locale === 'string' ? event.locale : null;
  const namespace = typeof event.namespace === 'string' ? (event.namespace as Namespace) : null;
  if (manifest && resolveLocale(wanted, manifest).locale !== shown.locale) {
    await showLocale(wanted, chosenDir, true);
    return;
  }
  if (locale && !chainOf(shown, manifest).has(locale)) return;
  if (namespace && !wantedNamespaces.has(namespace)) return;
  if (!namespace) {
    await showLocale(wanted, chosenDir, true);
    return;
  }
  const at = shown.locale;
  const messages = await fetchBundle(at, namespace).catch(() => null);
  if (!messages || at !== shown.locale) return;
  addMessages(messages);
  changed();
}

/** For useSyncExternalStore: a number that moves whenever the catalogue's text does. */
export function subscribeCatalogue(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export const catalogueVersion = () => version;

/**
 * The message `id` of the catalogue, formatted with `values` (ICU message syntax) for the locale
 * shown. An id whose namespace is not loaded yet (a screen drawn outside its area's lazy loading)
 * shows as the id itself, and is reported once as a console error, which the browser tests fail on.
 */
export function t(id: MessageId, values?: Record<string, PrimitiveType>): string {
  let format = compiled.get(id);
  if (!format) {
    const text = catalogue.get(id);
    if (text === undefined) {
      if (!reported.has(id)) {
        reported.add(id);
        console.error(`The message "${id}" is not in the catalogue: its area's messages are not loaded.`);
      }
      return id;
    }
    try {
      format = new IntlMessageFormat(text, bcp47(shown.locale));
    } catch {
      // A translation the server let through but this browser cannot read: its text without the braces, never a broken screen.
      format = new IntlMessageFormat(text.replace(/[{}]/g, ''), bcp47(shown.locale));
    }
    compiled.set(id, format);
  }
  try {
    return String(format.format(values));
  } catch {
    return catalogue.get(id) ?? id;
  }
}

/** Whether the catalogue holds `id`: for ids made from data (a permission's name), which may have no message. */
export function hasMessage(id: string): id is MessageId {
  return catalogue.has(id);
}

export type { MessageId, Namespace };
