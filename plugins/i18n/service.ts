import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { AppError, defineServiceRef, type ErrorIssue, type Kernel } from '../../kernel/api.js';
import { checkMessage, type IcuProblem } from '../../i18n/icu-check.js';
import { settingsRef } from '../settings/provides.js';
import { CUSTOM_NAMESPACE, type Messages, readCatalogue, type ShippedCatalogue, SOURCE_LOCALE } from './catalogue.js';
import { i18nDb, type I18nDb } from './tables.js';

export const I18N_CHANGED = 'i18n.changed';
export const VALUE_MAX = 10_000;

/** D10's rule: these languages are written right to left. */
const RTL_LANGUAGES = new Set(['ar', 'he', 'fa', 'ur']);
export const defaultDir = (locale: string): 'ltr' | 'rtl' => (RTL_LANGUAGES.has(locale.split('_')[0]!) ? 'rtl' : 'ltr');
const languageOf = (locale: string) => locale.split('_')[0]!;

export interface LocaleInfo {
  locale: string;
  name: string;
  dir: 'ltr' | 'rtl';
  /** null for `en` only. */
  fallback: string | null;
  enabled: boolean;
  shipped: boolean;
}

export type KeyState = 'translated' | 'missing' | 'fallback' | 'override';

export interface KeyView {
  namespace: string;
  key: string;
  source: string;
  value: string | null;
  state: KeyState;
  updatedAt: number | null;
}

interface StoredMessage {
  value: string;
  updatedAt: number;
}

/** Everything the read side answers from, loaded whole (a few thousand rows) and kept until an i18n write. */
interface State {
  locales: Map<string, LocaleInfo>;
  /** locale → namespace → key → stored value. */
  stored: Map<string, Map<string, Map<string, StoredMessage>>>;
  bundles: Map<string, Bundle>;
  manifests: Map<string, Manifest>;
}

export interface Bundle {
  locale: string;
  namespace: string;
  messages: Record<string, string>;
  hash: string;
  etag: string;
  /** The answer's JSON, serialised and encoded once. */
  body: Buffer;
  /** The body compressed, made on the first request that takes it. */
  br?: Buffer;
  gzip?: Buffer;
}

export interface Manifest {
  body: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  etag: string;
}

export interface FormatErrorView {
  locale: string;
  namespace: string;
  key: string;
  kind: IcuProblem['kind'];
  message: string;
  expected?: string[];
  found?: string[];
}

export interface MessageWrite {
  namespace: string;
  key: string;
  locale: string;
  /** null: the stored value goes. */
  value: string | null;
}

/** The name a shipped locale goes by: its own name for itself (`Deutsch`, `français`, `العربية`). */
function autonym(locale: string): string {
  try {
    const tag = locale.replace(/_/g, '-');
    const name = new Intl.DisplayNames([tag], { type: 'language' }).of(tag);
    if (name && name !== tag) return name.slice(0, 60);
  } catch {
    // a locale Intl does not know: its code
  }
  return locale;
}

/** The kept body compressed (brotli at its best quality: done once, read by every client until the next change). */
export function compressedOnce(kept: { body: Buffer; br?: Buffer; gzip?: Buffer }, encoding: 'br' | 'gzip'): Buffer {
  if (encoding === 'br') return (kept.br ??= brotliCompressSync(kept.body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11 } }));
  return (kept.gzip ??= gzipSync(kept.body, { level: 9 }));
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export const invalid = (issues: ErrorIssue[], params?: Record<string, unknown>) => new AppError('VALIDATION_FAILED', { issues, ...(params ? { params } : {}) });

/** The issue code of a problem at a message's value (PUT, bulk; import names it as the reason). */
export const problemCode = (p: IcuProblem) => (p.kind === 'syntax' ? 'icu-syntax' : p.kind);

/**
 * i18n: the shipped catalogue (read once from the catalogue directory), the stored locales and
 * messages, and the merged bundles made from them. The read side answers from memory; every
 * write publishes `i18n.changed`, which drops what is kept here on every replica (IN6).
 */
export class I18nService {
  readonly catalogue: ShippedCatalogue;
  private readonly db: I18nDb;
  private state: Promise<State> | null = null;
  /** The state once loaded, for answers that need no async step (K40). */
  private ready: State | null = null;

  constructor(
    private readonly kernel: Kernel,
    catalogueDir: string,
  ) {
    this.catalogue = readCatalogue(catalogueDir);
    if (!this.catalogue.namespaces.includes(CUSTOM_NAMESPACE))
      this.catalogue = { ...this.catalogue, namespaces: [...this.catalogue.namespaces, CUSTOM_NAMESPACE].sort() };
    this.db = i18nDb(kernel.db);
    kernel.events.listen([I18N_CHANGED], () => this.drop());
  }

  get namespaces(): readonly string[] {
    return this.catalogue.namespaces;
  }

  // ---- state ----

  private load(): Promise<State> {
    const loading = (async (): Promise<State> => {
      const [rows, messages] = await Promise.all([
        this.db.selectFrom('i18n_locales').selectAll().execute(),
        this.db.selectFrom('i18n_messages').select(['locale', 'namespace', 'key', 'value', 'updated_at']).execute(),
      ]);
      const locales = new Map<string, LocaleInfo>();
      const byRow = new Map(rows.map((r) => [r.locale, r]));
      const known = [...new Set([...this.catalogue.locales, ...rows.map((r) => r.locale)])];
      const shipped = new Set(this.catalogue.locales);
      known.sort((a, b) => (a === SOURCE_LOCALE ? -1 : b === SOURCE_LOCALE ? 1 : a < b ? -1 : a > b ? 1 : 0));
      for (const locale of known) {
        const r = byRow.get(locale);
        const isShipped = shipped.has(locale) || locale === SOURCE_LOCALE;
        locales.set(
          locale,
          r
            ? {
                locale,
                name: r.name,
                dir: r.dir === 'rtl' ? 'rtl' : 'ltr',
                fallback: locale === SOURCE_LOCALE ? null : (r.fallback ?? SOURCE_LOCALE),
                enabled: locale === SOURCE_LOCALE || Number(r.enabled) === 1,
                shipped: isShipped,
              }
            : {
                locale,
                name: autonym(locale),
                dir: defaultDir(locale),
                fallback: locale === SOURCE_LOCALE ? null : this.defaultFallback(locale, known),
                enabled: true,
                shipped: isShipped,
              },
        );
      }
      if (!locales.has(SOURCE_LOCALE))
        locales.set(SOURCE_LOCALE, { locale: SOURCE_LOCALE, name: 'English', dir: 'ltr', fallback: null, enabled: true, shipped: true });
      const stored = new Map<string, Map<string, Map<string, StoredMessage>>>();
      for (const m of messages) {
        let byNs = stored.get(m.locale);
        if (!byNs) stored.set(m.locale, (byNs = new Map()));
        let byKey = byNs.get(m.namespace);
        if (!byKey) byNs.set(m.namespace, (byKey = new Map()));
        byKey.set(m.key, { value: m.value, updatedAt: Number(m.updated_at) });
      }
      return { locales, stored, bundles: new Map(), manifests: new Map() };
    })();
    loading.then(
      (state) => {
        if (this.state === loading) this.ready = state;
      },
      () => {
        if (this.state === loading) this.state = null;
      },
    );
    return loading;
  }

  private drop(): void {
    this.state = null;
    this.ready = null;
  }

  private current(): Promise<State> {
    this.state ??= this.load();
    return this.state;
  }

  /** After a write: drop what is kept here, and tell the other replicas (and the dashboards) to. */
  private async changed(pairs: Iterable<[string, string | null]>): Promise<void> {
    this.drop();
    const seen = new Set<string>();
    for (const [locale, namespace] of pairs) {
      const id = `${locale}\0${namespace ?? ''}`;
      if (seen.has(id)) continue;
      seen.add(id);
      await this.kernel.events.publish(I18N_CHANGED, { locale, namespace }).catch(() => undefined);
    }
  }

  /** The language part when it is known (de_AT → de), else en. */
  private defaultFallback(locale: string, known: Iterable<string>): string {
    const lang = languageOf(locale);
    return lang !== locale && new Set(known).has(lang) ? lang : SOURCE_LOCALE;
  }

  /** The locale, its fallbacks, then en (each once). */
  private chain(state: State, locale: string): string[] {
    const out: string[] = [];
    let at: string | null = locale;
    while (at && !out.includes(at)) {
      out.push(at);
      at = state.locales.get(at)?.fallback ?? null;
    }
    if (!out.includes(SOURCE_LOCALE)) out.push(SOURCE_LOCALE);
    return out;
  }

  /** The source texts of a namespace: the en files; for custom, its file and the stored en values (IN5). */
  private source(state: State, namespace: string): Messages {
    const shipped = this.catalogue.messages.get(SOURCE_LOCALE)?.get(namespace) ?? {};
    if (namespace !== CUSTOM_NAMESPACE) return shipped;
    const out: Record<string, string> = { ...shipped };
    for (const [key, m] of state.stored.get(SOURCE_LOCALE)?.get(CUSTOM_NAMESPACE) ?? []) out[key] = m.value;
    return out;
  }

  /** The locale's own text of a key: stored, else shipped; null when it has none. */
  private ownValue(state: State, locale: string, namespace: string, key: string): string | null {
    const stored = state.stored.get(locale)?.get(namespace)?.get(key);
    if (stored) return stored.value;
    const file = this.catalogue.messages.get(locale)?.get(namespace);
    return file && own(file, key) ? file[key]! : null;
  }

  private requireNamespace(namespace: string): void {
    if (!this.catalogue.namespaces.includes(namespace))
      throw new AppError('NOT_FOUND', { message: `There is no namespace "${namespace}".`, params: { namespace } });
  }

  private requireLocale(state: State, locale: string, enabled = false): LocaleInfo {
    const info = state.locales.get(locale);
    if (!info || (enabled && !info.enabled))
      throw new AppError('I18N_LOCALE_NOT_FOUND', { message: `There is no ${enabled ? 'enabled ' : ''}locale "${locale}".`, params: { locale } });
    return info;
  }

  // ---- read side ----

  private makeBundle(state: State, locale: string, namespace: string): Bundle {
    const id = `${locale}\0${namespace}`;
    const kept = state.bundles.get(id);
    if (kept) return kept;
    const chain = this.chain(state, locale);
    const messages: Record<string, string> = {};
    for (const [key, text] of Object.entries(this.source(state, namespace))) {
      let value: string | null = null;
      for (const at of chain) {
        value = this.ownValue(state, at, namespace, key);
        if (value !== null) break;
      }
      messages[key] = value ?? text;
    }
    const body = JSON.stringify({ data: { locale, namespace, messages } });
    const hash = hashOf(body);
    const bundle: Bundle = { locale, namespace, messages, hash, etag: `"${hash}"`, body: Buffer.from(body) };
    state.bundles.set(id, bundle);
    return bundle;
  }

  /** The merged bundle, from memory once made; a promise only when the state must be read. */
  bundle(locale: string, namespace: string): Bundle | Promise<Bundle> {
    const answer = (state: State) => {
      this.requireNamespace(namespace);
      this.requireLocale(state, locale, true);
      return this.makeBundle(state, locale, namespace);
    };
    return this.ready ? answer(this.ready) : this.current().then(answer);
  }

  /** The instance's default locale (`/settings/defaults`), or en. */
  private async instanceDefault(): Promise<string> {
    const defaults = await this.kernel.plugin(settingsRef).defaults();
    return defaults.locale ?? SOURCE_LOCALE;
  }

  async manifest(): Promise<Manifest> {
    const [state, preferred] = await Promise.all([this.current(), this.instanceDefault()]);
    const kept = state.manifests.get(preferred);
    if (kept) return kept;
    const enabled = [...state.locales.values()].filter((l) => l.enabled);
    // The default as the dashboard shows it: the best enabled locale along its chain.
    const defaultLocale = this.chain(state, preferred).find((l) => state.locales.get(l)?.enabled) ?? SOURCE_LOCALE;
    const hashes: Record<string, Record<string, string>> = {};
    for (const l of enabled) {
      hashes[l.locale] = {};
      for (const ns of this.catalogue.namespaces) hashes[l.locale]![ns] = this.makeBundle(state, l.locale, ns).hash;
    }
    const data = {
      source: SOURCE_LOCALE,
      defaultLocale,
      locales: enabled.map((l) => ({ locale: l.locale, name: l.name, dir: l.dir, fallback: l.fallback })),
      namespaces: [...this.catalogue.namespaces],
      hashes,
    };
    const body = JSON.stringify({ data });
    const manifest = { body: Buffer.from(body), etag: `"${hashOf(body)}"` };
    state.manifests.set(preferred, manifest);
    return manifest;
  }

  /** Every locale with its completeness by namespace (own texts over source keys). */
  async locales(): Promise<Array<LocaleInfo & { completeness: Record<string, number> }>> {
    const state = await this.current();
    return [...state.locales.values()].map((l) => {
      const completeness: Record<string, number> = {};
      for (const ns of this.catalogue.namespaces) {
        const keys = Object.keys(this.source(state, ns));
        if (keys.length === 0 || l.locale === SOURCE_LOCALE) {
          completeness[ns] = 1;
          continue;
        }
        const have = keys.filter((k) => this.ownValue(state, l.locale, ns, k) !== null).length;
        completeness[ns] = Math.round((have / keys.length) * 10_000) / 10_000;
      }
      return { ...l, completeness };
    });
  }

  /** The enabled locales (e-mail templates offer each). */
  async enabledLocales(): Promise<string[]> {
    const state = await this.current();
    return [...state.locales.values()].filter((l) => l.enabled).map((l) => l.locale);
  }

  async hasLocale(locale: string): Promise<boolean> {
    return (await this.current()).locales.has(locale);
  }

  /** The ICU problems of every text a locale has of its own (stored or shipped), against the source. */
  async formatErrors(filter: { locale?: string | undefined; namespace?: string | undefined }): Promise<{ errors: FormatErrorView[]; checked: number }> {
    const state = await this.current();
    const issues: ErrorIssue[] = [];
    if (filter.locale !== undefined && !state.locales.has(filter.locale))
      issues.push({ path: 'query.locale', code: 'unknown-locale', message: `There is no locale "${filter.locale}".` });
    if (filter.namespace !== undefined && !this.catalogue.namespaces.includes(filter.namespace))
      issues.push({ path: 'query.namespace', code: 'unknown-namespace', message: `There is no namespace "${filter.namespace}".` });
    if (issues.length) throw invalid(issues);
    const errors: FormatErrorView[] = [];
    let checked = 0;
    const locales = filter.locale !== undefined ? [filter.locale] : [...state.locales.keys()];
    const namespaces = filter.namespace !== undefined ? [filter.namespace] : this.catalogue.namespaces;
    for (const locale of locales)
      for (const namespace of namespaces) {
        const source = this.source(state, namespace);
        for (const [key, text] of Object.entries(source)) {
          const value = this.ownValue(state, locale, namespace, key);
          if (value === null) continue;
          checked++;
          // en's own text is the source: only its syntax is checked; a stored en override is checked against the file.
          const against =
            locale === SOURCE_LOCALE
              ? namespace === CUSTOM_NAMESPACE
                ? null
                : (this.catalogue.messages.get(SOURCE_LOCALE)?.get(namespace)?.[key] ?? null)
              : text;
          for (const p of checkMessage(value, against)) errors.push({ locale, namespace, key, ...p });
        }
      }
    return { errors, checked };
  }

  /** The keys of one locale, sorted by namespace then key, filtered, a page after `after`. */
  async keys(query: {
    locale: string;
    namespace?: string | undefined;
    q?: string | undefined;
    missing?: boolean | undefined;
    limit: number;
    after?: [string, string] | undefined;
  }): Promise<{ keys: KeyView[]; next: [string, string] | null }> {
    const state = await this.current();
    const issues: ErrorIssue[] = [];
    if (!state.locales.has(query.locale)) issues.push({ path: 'query.locale', code: 'unknown-locale', message: `There is no locale "${query.locale}".` });
    if (query.namespace !== undefined && !this.catalogue.namespaces.includes(query.namespace))
      issues.push({ path: 'query.namespace', code: 'unknown-namespace', message: `There is no namespace "${query.namespace}".` });
    if (issues.length) throw invalid(issues);
    const chain = this.chain(state, query.locale);
    const needle = query.q?.toLowerCase();
    const out: KeyView[] = [];
    const namespaces = query.namespace !== undefined ? [query.namespace] : this.catalogue.namespaces;
    for (const namespace of namespaces) {
      if (query.after && namespace < query.after[0]) continue;
      const source = this.source(state, namespace);
      const shippedFile = this.catalogue.messages.get(query.locale)?.get(namespace);
      for (const key of Object.keys(source).sort()) {
        if (query.after && (namespace < query.after[0] || (namespace === query.after[0] && key <= query.after[1]))) continue;
        const stored = state.stored.get(query.locale)?.get(namespace)?.get(key);
        const value = stored ? stored.value : shippedFile && own(shippedFile, key) ? shippedFile[key]! : null;
        let state_: KeyState;
        if (value !== null) state_ = stored && shippedFile && own(shippedFile, key) ? 'override' : 'translated';
        else state_ = chain.slice(1, -1).some((l) => this.ownValue(state, l, namespace, key) !== null) ? 'fallback' : 'missing';
        if (query.locale === SOURCE_LOCALE && value === null) state_ = 'translated';
        if (query.missing && state_ !== 'missing' && state_ !== 'fallback') continue;
        const src = source[key]!;
        if (needle && !key.toLowerCase().includes(needle) && !src.toLowerCase().includes(needle) && !(value ?? '').toLowerCase().includes(needle)) continue;
        out.push({ namespace, key, source: src, value, state: state_, updatedAt: stored?.updatedAt ?? null });
        if (out.length > query.limit) break;
      }
      if (out.length > query.limit) break;
    }
    const page = out.slice(0, query.limit);
    const last = page[page.length - 1];
    return { keys: page, next: out.length > query.limit && last ? [last.namespace, last.key] : null };
  }

  // ---- writes ----

  /**
   * The issues of one message write, at `path` (`body` for PUT, `body.items.N` for bulk), with
   * the problems' details (offset, expected, found) for params; [] when it may be written.
   * Throws 404s (locale, key) for PUT; bulk and import turn them into issues or rejections.
   */
  private check(state: State, w: MessageWrite, path: string): { issues: ErrorIssue[]; problems: Array<Record<string, unknown>>; notFound: AppError | null } {
    if (!this.catalogue.namespaces.includes(w.namespace))
      return {
        issues: [],
        problems: [],
        notFound: new AppError('NOT_FOUND', { message: `There is no namespace "${w.namespace}".`, params: { namespace: w.namespace } }),
      };
    if (!state.locales.has(w.locale))
      return {
        issues: [],
        problems: [],
        notFound: new AppError('I18N_LOCALE_NOT_FOUND', { message: `There is no locale "${w.locale}".`, params: { locale: w.locale } }),
      };
    const source = this.source(state, w.namespace);
    const known = own(source, w.key);
    if (!known && w.namespace !== CUSTOM_NAMESPACE)
      return {
        issues: [],
        problems: [],
        notFound: new AppError('NOT_FOUND', {
          message: `The namespace "${w.namespace}" has no key "${w.key}".`,
          params: { namespace: w.namespace, key: w.key },
        }),
      };
    if (!known && w.value === null)
      return {
        issues: [],
        problems: [],
        notFound: new AppError('NOT_FOUND', { message: `There is no key "${w.key}" in custom.`, params: { namespace: w.namespace, key: w.key } }),
      };
    if (w.value === null) return { issues: [], problems: [], notFound: null };
    const against =
      w.locale === SOURCE_LOCALE
        ? w.namespace === CUSTOM_NAMESPACE
          ? null
          : (this.catalogue.messages.get(SOURCE_LOCALE)?.get(w.namespace)?.[w.key] ?? null)
        : known
          ? source[w.key]!
          : null;
    const found = checkMessage(w.value, against);
    return {
      issues: found.map((p) => ({ path: `${path}.value`, code: problemCode(p), message: p.message })),
      problems: found.map((p) => ({
        path: `${path}.value`,
        code: problemCode(p),
        ...(p.offset !== undefined ? { offset: p.offset } : {}),
        ...(p.expected ? { expected: p.expected, found: p.found } : {}),
      })),
      notFound: null,
    };
  }

  async put(w: MessageWrite & { value: string }, userId: string | null): Promise<void> {
    const state = await this.current();
    const c = this.check(state, w, 'body');
    if (c.notFound) throw c.notFound;
    if (c.issues.length) throw invalid(c.issues, { problems: c.problems });
    await this.db.transaction().execute((trx) => this.write(trx, state, [w], userId));
    await this.changed(this.touched(state, [w]));
  }

  /** Bulk: every item checked first; then all written in one transaction, or none. */
  async bulk(items: MessageWrite[], userId: string | null): Promise<{ updated: number; deleted: number }> {
    const state = await this.current();
    const issues: ErrorIssue[] = [];
    const problems: Array<Record<string, unknown>> = [];
    items.forEach((w, i) => {
      const c = this.check(state, w, `body.items.${i}`);
      if (c.notFound)
        issues.push({
          path: `body.items.${i}`,
          code: c.notFound.code === 'I18N_LOCALE_NOT_FOUND' ? 'unknown-locale' : 'not-found',
          message: c.notFound.message,
        });
      issues.push(...c.issues);
      problems.push(...c.problems);
    });
    if (issues.length) throw invalid(issues, { problems });
    const counts = await this.db.transaction().execute((trx) => this.write(trx, state, items, userId));
    await this.changed(this.touched(state, items));
    return counts;
  }

  /**
   * The (locale, namespace) bundles a write changes: the written locale's, and every locale that
   * falls back to it (all of them for en, the last resort), so that each dashboard hears of its own.
   */
  private touched(state: State, items: MessageWrite[]): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const w of items) for (const l of state.locales.keys()) if (this.chain(state, l).includes(w.locale)) out.push([l, w.namespace]);
    return out;
  }

  /** Stores or removes each item's value; a new custom key written in another locale becomes its own source (en) too (IN5). */
  private async write(trx: I18nDb, state: State, items: MessageWrite[], userId: string | null): Promise<{ updated: number; deleted: number }> {
    let updated = 0;
    let deleted = 0;
    const now = this.kernel.now();
    const customSource = this.source(state, CUSTOM_NAMESPACE);
    const newCustom = new Set<string>();
    for (const w of items) {
      if (w.value === null) {
        const r = await trx
          .deleteFrom('i18n_messages')
          .where('locale', '=', w.locale)
          .where('namespace', '=', w.namespace)
          .where('key', '=', w.key)
          .executeTakeFirst();
        deleted += Number(r.numDeletedRows);
        continue;
      }
      await this.upsert(trx, w.locale, w.namespace, w.key, w.value, userId, now);
      updated++;
      if (w.namespace === CUSTOM_NAMESPACE && w.locale !== SOURCE_LOCALE && !own(customSource, w.key) && !newCustom.has(w.key)) {
        newCustom.add(w.key);
        if (!items.some((x) => x.namespace === CUSTOM_NAMESPACE && x.key === w.key && x.locale === SOURCE_LOCALE && x.value !== null))
          await this.upsert(trx, SOURCE_LOCALE, CUSTOM_NAMESPACE, w.key, w.value, userId, now);
      }
    }
    return { updated, deleted };
  }

  private async upsert(
    trx: I18nDb,
    locale: string,
    namespace: string,
    key: string,
    value: string,
    userId: string | null,
    now: number,
  ): Promise<'created' | 'updated'> {
    const r = await trx
      .updateTable('i18n_messages')
      .set({ value, updated_by: userId, updated_at: now })
      .where('locale', '=', locale)
      .where('namespace', '=', namespace)
      .where('key', '=', key)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) return 'updated';
    await trx.insertInto('i18n_messages').values({ locale, namespace, key, value, updated_by: userId, updated_at: now }).execute();
    return 'created';
  }

  /**
   * DELETE /i18n/keys: the stored value of one locale goes (the shipped or fallback text shows
   * again). In custom, without a locale or for en (its source), the key goes in every locale.
   */
  async remove(namespace: string, key: string, locale: string | undefined): Promise<void> {
    const state = await this.current();
    this.requireNamespace(namespace);
    const everywhere = namespace === CUSTOM_NAMESPACE && (locale === undefined || locale === SOURCE_LOCALE);
    if (locale === undefined && !everywhere)
      throw invalid([{ path: 'query.locale', code: 'required', message: 'Give the locale whose value goes; only a custom key is deleted everywhere.' }]);
    if (locale !== undefined) this.requireLocale(state, locale);
    if (!own(this.source(state, namespace), key))
      throw new AppError('NOT_FOUND', { message: `The namespace "${namespace}" has no key "${key}".`, params: { namespace, key } });
    let q = this.db.deleteFrom('i18n_messages').where('namespace', '=', namespace).where('key', '=', key);
    if (!everywhere) q = q.where('locale', '=', locale!);
    const r = await q.executeTakeFirst();
    if (!everywhere && Number(r.numDeletedRows) === 0)
      throw new AppError('NOT_FOUND', {
        message: `${locale} has no stored value of "${key}": it shows the shipped or fallback text already.`,
        params: { namespace, key, locale },
      });
    await this.changed(
      everywhere
        ? [...state.locales.keys()].map((l): [string, string] => [l, namespace])
        : this.touched(state, [{ namespace, key, locale: locale!, value: null }]),
    );
  }

  // ---- locales ----

  private fallbackIssues(state: State, locale: string, fallback: string): ErrorIssue[] {
    if (fallback === locale) return [{ path: 'body.fallback', code: 'fallback-cycle', message: `${locale} cannot fall back to itself.` }];
    if (!state.locales.has(fallback)) return [{ path: 'body.fallback', code: 'fallback-unknown', message: `There is no locale "${fallback}".` }];
    let at: string | null = fallback;
    const seen = new Set<string>();
    while (at && !seen.has(at)) {
      if (at === locale)
        return [{ path: 'body.fallback', code: 'fallback-cycle', message: `${fallback} falls back to ${locale} already: that would be a cycle.` }];
      seen.add(at);
      at = state.locales.get(at)?.fallback ?? null;
    }
    return [];
  }

  async createLocale(input: { locale: string; name: string; fallback?: string | undefined; dir?: 'ltr' | 'rtl' | undefined }): Promise<LocaleInfo> {
    const state = await this.current();
    if (state.locales.has(input.locale))
      throw new AppError('I18N_LOCALE_EXISTS', { message: `The locale "${input.locale}" exists already.`, params: { locale: input.locale } });
    const fallback = input.fallback ?? this.defaultFallback(input.locale, state.locales.keys());
    const issues = this.fallbackIssues(state, input.locale, fallback);
    if (issues.length) throw invalid(issues);
    const now = this.kernel.now();
    const info: LocaleInfo = { locale: input.locale, name: input.name, dir: input.dir ?? defaultDir(input.locale), fallback, enabled: true, shipped: false };
    try {
      await this.db
        .insertInto('i18n_locales')
        .values({ locale: info.locale, name: info.name, fallback, dir: info.dir, enabled: 1, shipped: 0, created_at: now, updated_at: now })
        .execute();
    } catch (err) {
      // Another request added it first.
      if (await this.db.selectFrom('i18n_locales').select('locale').where('locale', '=', input.locale).executeTakeFirst())
        throw new AppError('I18N_LOCALE_EXISTS', { message: `The locale "${input.locale}" exists already.`, params: { locale: input.locale } });
      throw err;
    }
    await this.changed([[info.locale, null]]);
    return info;
  }

  async patchLocale(
    locale: string,
    input: { name?: string | undefined; fallback?: string | undefined; dir?: 'ltr' | 'rtl' | undefined; enabled?: boolean | undefined },
  ): Promise<{ before: LocaleInfo; after: LocaleInfo }> {
    const state = await this.current();
    const before = this.requireLocale(state, locale);
    if (locale === SOURCE_LOCALE && (input.enabled === false || input.fallback !== undefined))
      throw new AppError('CONFLICT', {
        message: 'en is the source: it cannot be disabled and falls back to nothing.',
        params: { reason: 'source-locale' },
      });
    if (input.enabled === false && before.enabled && (await this.instanceDefault()) === locale)
      throw new AppError('CONFLICT', {
        message: `${locale} is the instance's default language (Settings → Defaults): choose another default first.`,
        params: { reason: 'instance-default' },
      });
    if (input.fallback !== undefined) {
      const issues = this.fallbackIssues(state, locale, input.fallback);
      if (issues.length) throw invalid(issues);
    }
    const after: LocaleInfo = {
      ...before,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.fallback !== undefined ? { fallback: input.fallback } : {}),
      ...(input.dir !== undefined ? { dir: input.dir } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    };
    const now = this.kernel.now();
    const values = {
      name: after.name,
      fallback: after.fallback,
      dir: after.dir,
      enabled: after.enabled ? 1 : 0,
      shipped: after.shipped ? 1 : 0,
      updated_at: now,
    };
    const r = await this.db.updateTable('i18n_locales').set(values).where('locale', '=', locale).executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) {
      // A shipped locale gets its row when first changed.
      try {
        await this.db
          .insertInto('i18n_locales')
          .values({ locale, ...values, created_at: now })
          .execute();
      } catch {
        await this.db.updateTable('i18n_locales').set(values).where('locale', '=', locale).execute();
      }
    }
    await this.changed([[locale, null]]);
    return { before, after };
  }

  async deleteLocale(locale: string): Promise<LocaleInfo> {
    const state = await this.current();
    const info = this.requireLocale(state, locale);
    if (locale === SOURCE_LOCALE) throw new AppError('CONFLICT', { message: 'en is the source: it cannot be deleted.', params: { reason: 'source-locale' } });
    if (info.shipped)
      throw new AppError('CONFLICT', { message: `${locale} ships with the product: disable it instead.`, params: { reason: 'shipped-locale' } });
    if ((await this.instanceDefault()) === locale)
      throw new AppError('CONFLICT', {
        message: `${locale} is the instance's default language (Settings → Defaults): choose another default first.`,
        params: { reason: 'instance-default' },
      });
    const dependents = [...state.locales.values()].filter((l) => l.fallback === locale).map((l) => l.locale);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('i18n_messages').where('locale', '=', locale).execute();
      await trx.deleteFrom('i18n_locales').where('locale', '=', locale).execute();
      // A locale that fell back to this one falls back to en now.
      if (dependents.length)
        await trx.updateTable('i18n_locales').set({ fallback: SOURCE_LOCALE, updated_at: this.kernel.now() }).where('locale', 'in', dependents).execute();
    });
    await this.changed([[locale, null], ...dependents.map((l): [string, null] => [l, null])]);
    return info;
  }

  // ---- export and import ----

  /** The locale's own texts and the source, namespace by namespace (what an export writes). */
  async exportEntries(locale: string, namespace: string | undefined): Promise<Array<{ namespace: string; key: string; source: string; value: string | null }>> {
    const state = await this.current();
    this.requireLocale(state, locale);
    if (namespace !== undefined) this.requireNamespace(namespace);
    const out: Array<{ namespace: string; key: string; source: string; value: string | null }> = [];
    for (const ns of namespace !== undefined ? [namespace] : this.catalogue.namespaces) {
      const source = this.source(state, ns);
      for (const key of Object.keys(source).sort()) out.push({ namespace: ns, key, source: source[key]!, value: this.ownValue(state, locale, ns, key) });
    }
    return out;
  }

  /**
   * Writes what an import read: each entry checked alone (a bad one is rejected, never the file);
   * with `overwrite` false a key the locale has its own text of stays; `dryRun` writes nothing.
   */
  async importEntries(
    locale: string,
    entries: Array<{ namespace: string; key: string; value: string | null }>,
    options: { dryRun: boolean; overwrite: boolean },
    userId: string | null,
  ): Promise<{ created: number; updated: number; unchanged: number; rejected: Array<{ namespace: string; key: string; reason: string }> }> {
    const state = await this.current();
    this.requireLocale(state, locale);
    let created = 0;
    let updated = 0;
    let unchanged = 0;
    const rejected: Array<{ namespace: string; key: string; reason: string }> = [];
    const writes: MessageWrite[] = [];
    const seen = new Set<string>();
    for (const e of entries) {
      const id = `${e.namespace}\0${e.key}`;
      if (seen.has(id)) {
        rejected.push({ namespace: e.namespace, key: e.key, reason: 'duplicate' });
        continue;
      }
      seen.add(id);
      if (e.value === null) {
        rejected.push({ namespace: e.namespace, key: e.key, reason: 'not-text' });
        continue;
      }
      if (e.value.length === 0) {
        unchanged++;
        continue;
      }
      if (e.value.length > VALUE_MAX) {
        rejected.push({ namespace: e.namespace, key: e.key, reason: 'too-long' });
        continue;
      }
      if (e.namespace === CUSTOM_NAMESPACE && !own(this.source(state, CUSTOM_NAMESPACE), e.key) && !/^[A-Za-z0-9_.-]{1,200}$/.test(e.key)) {
        rejected.push({ namespace: e.namespace, key: e.key, reason: 'key-invalid' });
        continue;
      }
      const w: MessageWrite = { namespace: e.namespace, key: e.key, locale, value: e.value };
      const c = this.check(state, w, 'entry');
      if (c.notFound) {
        rejected.push({ namespace: e.namespace, key: e.key, reason: c.notFound.code === 'NOT_FOUND' ? 'unknown-key' : 'unknown-locale' });
        continue;
      }
      if (c.issues.length) {
        rejected.push({ namespace: e.namespace, key: e.key, reason: c.issues[0]!.code });
        continue;
      }
      const current = this.ownValue(state, locale, e.namespace, e.key);
      if (current === e.value || (current !== null && !options.overwrite)) {
        unchanged++;
        continue;
      }
      if (state.stored.get(locale)?.get(e.namespace)?.has(e.key)) updated++;
      else created++;
      writes.push(w);
    }
    if (!options.dryRun && writes.length) {
      await this.db.transaction().execute((trx) => this.write(trx, state, writes, userId));
      await this.changed(this.touched(state, writes));
    }
    return { created, updated, unchanged, rejected };
  }
}

export const i18nServiceRef = defineServiceRef<I18nService>('i18n');
