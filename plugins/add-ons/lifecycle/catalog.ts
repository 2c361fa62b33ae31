import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { addonKeyField, semverField } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, type Kernel, outboundRequest, projectPath } from '../../../kernel/api.js';
import type { AddonsOptions } from '../options.js';

/** A catalog index (D26). Remote ones are refused whole when they do not match it. */
export const catalogIndexSchema = z.object({
  addons: z
    .array(
      z.object({
        key: addonKeyField,
        name: z.string().min(1).max(100),
        description: z.string().max(2000).default(''),
        versions: z
          .array(
            z.object({
              version: semverField,
              engine: z.string().min(1).max(200),
              url: z.string().min(1).max(2048),
              sha256: z.string().regex(/^[0-9a-f]{64}$/),
              size: z.number().int().min(1),
            }),
          )
          .max(200),
      }),
    )
    .max(1000),
});
export type CatalogIndex = z.infer<typeof catalogIndexSchema>;

export const BUILT_IN = 'built-in';
const SETTINGS_KEY = 'addons.catalog';
const INDEX_MAX_BYTES = 2 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;
export const PACKAGE_MAX_BYTES = 20 * 1024 * 1024;

interface StoredCatalog {
  sources: string[];
  /** The last good index of each remote source, and when it was fetched. */
  fetched: Record<string, { at: number; index: CatalogIndex }>;
}

export interface CatalogVersion {
  version: string;
  engine: string;
  sha256: string;
  size: number;
  url: string;
  /** Whether `engine` includes this instance's version. */
  compatible: boolean;
}
export interface CatalogEntry {
  key: string;
  name: string;
  description: string;
  source: string;
  versions: CatalogVersion[];
}

/** Where the built-in catalog's index and tarballs are (`npm run build:catalog`). */
export function builtInDir(): string {
  return process.env.SVC_CATALOG_DIR ?? projectPath('catalog', 'dist');
}

/** The keys of the add-ons the instance ships (telemetry names only these, BR3). */
export function builtInKeys(): string[] {
  return builtInIndex().addons.map((a) => a.key);
}

function builtInIndex(): CatalogIndex {
  const file = join(builtInDir(), 'index.json');
  if (!existsSync(file)) return { addons: [] };
  return catalogIndexSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

const MAX_REDIRECTS = 5;

/**
 * GET under the add-ons' outbound policy (AO25): http(s) only, no IP literal, every address the
 * name resolves to checked public and the connection pinned to it; a redirect is followed
 * (at most MAX_REDIRECTS) only after the same checks on its target. Errors name the reason,
 * never bytes of the answer.
 */
async function fetchLimited(url: string, maxBytes: number, allowLoopback: boolean): Promise<Buffer> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let host: string;
    try {
      host = new URL(current).hostname;
    } catch {
      throw new Error('not a valid URL');
    }
    let res: Awaited<ReturnType<typeof outboundRequest>>;
    try {
      res = await outboundRequest(current, undefined, {
        allowedHosts: [host],
        networkFeatures: true,
        maxBodyBytes: maxBytes,
        timeoutMs: FETCH_TIMEOUT_MS,
        // A loopback name (`localhost`) only, for tests (AddonsOptions); IP literals stay refused.
        ...(allowLoopback ? { allowLoopbackForTests: true } : {}),
      });
    } catch (err) {
      const reason = (err as AppError).params?.['reason'];
      if (reason === 'response_too_large') throw Object.assign(new Error(`larger than ${maxBytes} bytes`), { tooLarge: true });
      if (err instanceof AppError && err.code === 'ADDON_OUTBOUND_REFUSED')
        throw new Error(`refused by the outbound rules (${String(reason)}${hop ? ', after a redirect' : ''})`);
      throw new Error(`could not be fetched (${String(reason ?? 'network')})`);
    }
    const location = res.headers['location'];
    if (res.status >= 300 && res.status < 400 && location) {
      try {
        current = new URL(location, current).href;
      } catch {
        throw new Error('redirected to an invalid URL');
      }
      continue;
    }
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return res.body;
  }
  throw new Error(`more than ${MAX_REDIRECTS} redirects`);
}

export interface RefreshResult {
  url: string;
  ok: boolean;
  error?: string;
  warning?: string;
}

/** The catalog: the built-in index from disk (works offline) and the remote indexes last fetched. */
export class Catalog {
  constructor(
    private readonly kernel: Kernel,
    private readonly options: AddonsOptions = {},
  ) {}

  private fetch(url: string, maxBytes: number): Promise<Buffer> {
    return fetchLimited(url, maxBytes, this.options.allowLoopback?.('catalog') === true);
  }

  private async stored(): Promise<StoredCatalog> {
    return (await this.kernel.settings.get<StoredCatalog>(SETTINGS_KEY)) ?? { sources: [], fetched: {} };
  }

  async sources(): Promise<string[]> {
    return (await this.stored()).sources;
  }

  async setSources(sources: string[]): Promise<void> {
    const before = await this.stored();
    const fetched = Object.fromEntries(Object.entries(before.fetched).filter(([url]) => sources.includes(url)));
    await this.kernel.settings.set(SETTINGS_KEY, { sources, fetched } satisfies StoredCatalog);
  }

  /** Fetches every remote index; a source that fails keeps its last good index and is reported. */
  async refresh(): Promise<RefreshResult[]> {
    if (!this.kernel.config.networkFeatures) throw new AppError('NETWORK_FEATURES_DISABLED');
    const state = await this.stored();
    const results: RefreshResult[] = [];
    for (const url of state.sources) {
      try {
        const body = await this.fetch(url, INDEX_MAX_BYTES);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          // JSON.parse's message quotes the answer: never echo what a source sent.
          throw new Error('not a catalog index (not JSON)');
        }
        const parsed = catalogIndexSchema.parse(json);
        // A built-in add-on's key is the built-in catalog's alone: another source cannot offer it (AO25).
        const builtIn = new Set(builtInIndex().addons.map((a) => a.key));
        const taken = parsed.addons.filter((a) => builtIn.has(a.key)).map((a) => a.key);
        const index = { addons: parsed.addons.filter((a) => !builtIn.has(a.key)) };
        state.fetched[url] = { at: this.kernel.now(), index };
        results.push({
          url,
          ok: true,
          ...(taken.length
            ? { warning: `Ignored ${taken.join(', ')}: the key of a built-in add-on, which only the built-in catalog provides.`.slice(0, 300) }
            : {}),
        });
      } catch (err) {
        const message =
          err instanceof z.ZodError ? `not a catalog index (${err.issues[0]?.path.join('.') || 'root'}: ${err.issues[0]?.message})` : (err as Error).message;
        results.push({ url, ok: false, error: message.slice(0, 300) });
      }
    }
    await this.kernel.settings.set(SETTINGS_KEY, state);
    return results;
  }

  async entries(): Promise<CatalogEntry[]> {
    // semver loads on first use (K32: a started instance loads what it needs when it needs it).
    const { default: semver } = await import('semver');
    const state = await this.stored();
    const out: CatalogEntry[] = [];
    const add = (index: CatalogIndex, source: string, base: string | null) => {
      for (const a of index.addons) {
        out.push({
          key: a.key,
          name: a.name,
          description: a.description,
          source,
          versions: a.versions
            .map((v) => ({
              version: v.version,
              engine: v.engine,
              sha256: v.sha256,
              size: v.size,
              url: base ? new URL(v.url, base).href : v.url,
              compatible: semver.satisfies(this.kernel.version, v.engine, { includePrerelease: true }),
            }))
            .sort((x, y) => semver.rcompare(x.version, y.version)),
        });
      }
    };
    const builtIn = builtInIndex();
    add(builtIn, BUILT_IN, null);
    const builtInKeys = new Set(builtIn.addons.map((a) => a.key));
    for (const url of state.sources) {
      const f = state.fetched[url];
      // An index fetched before AO25 may still list a built-in key: it is not offered.
      if (f) add({ addons: f.index.addons.filter((a) => !builtInKeys.has(a.key)) }, url, url);
    }
    return out;
  }

  async lastRefresh(): Promise<Record<string, number>> {
    const state = await this.stored();
    return Object.fromEntries(Object.entries(state.fetched).map(([url, f]) => [url, f.at]));
  }

  /**
   * The package bytes of a catalog version, checked against its size and sha256 (400
   * ADDON_INTEGRITY). The first source listing the key wins: the built-in catalog, then the
   * remote sources in their order.
   */
  async download(key: string, version: string): Promise<{ bytes: Buffer; source: string }> {
    const entry = (await this.entries()).find((e) => e.key === key && e.versions.some((v) => v.version === version));
    const v = entry?.versions.find((x) => x.version === version);
    if (!entry || !v) throw new AppError('ADDON_NOT_FOUND', { message: `No catalog lists ${key} ${version}.`, params: { key, version } });
    let bytes: Buffer;
    if (entry.source === BUILT_IN) {
      const file = join(builtInDir(), v.url);
      if (v.url.includes('/') || v.url.includes('\\') || !existsSync(file)) throw new AppError('ADDON_NOT_FOUND', { params: { key, version } });
      bytes = readFileSync(file);
    } else {
      if (!this.kernel.config.networkFeatures) throw new AppError('NETWORK_FEATURES_DISABLED');
      try {
        bytes = await this.fetch(v.url, Math.min(v.size, PACKAGE_MAX_BYTES));
      } catch (err) {
        if ((err as { tooLarge?: boolean }).tooLarge)
          throw new AppError('ADDON_INTEGRITY', { message: 'The package is larger than its index says.', params: { key, version } });
        throw new AppError('ADDON_SOURCE_UNREACHABLE', {
          message: `The package could not be fetched: ${(err as Error).message}`.slice(0, 300),
          params: { source: entry.source },
        });
      }
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (bytes.length !== v.size || sha256 !== v.sha256)
      throw new AppError('ADDON_INTEGRITY', { params: { key, version, expectedSha256: v.sha256, sha256, expectedSize: v.size, size: bytes.length } });
    return { bytes, source: entry.source };
  }
}
