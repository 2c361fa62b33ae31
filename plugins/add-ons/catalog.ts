import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { addonKeyField, semverField } from '../../addons-sdk/src/manifest/index.js';
import { AppError } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import { projectPath } from '../../kernel/paths.js';

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

function builtInIndex(): CatalogIndex {
  const file = join(builtInDir(), 'index.json');
  if (!existsSync(file)) return { addons: [] };
  return catalogIndexSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

async function fetchLimited(url: string, maxBytes: number): Promise<Buffer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw Object.assign(new Error(`larger than ${maxBytes} bytes`), { tooLarge: true });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw Object.assign(new Error(`larger than ${maxBytes} bytes`), { tooLarge: true });
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** The catalog: the built-in index from disk (works offline) and the remote indexes last fetched. */
export class Catalog {
  constructor(private readonly kernel: Kernel) {}

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
  async refresh(): Promise<Array<{ url: string; ok: boolean; error?: string }>> {
    if (!this.kernel.config.networkFeatures) throw new AppError('NETWORK_FEATURES_DISABLED');
    const state = await this.stored();
    const results: Array<{ url: string; ok: boolean; error?: string }> = [];
    for (const url of state.sources) {
      try {
        const body = await fetchLimited(url, INDEX_MAX_BYTES);
        const index = catalogIndexSchema.parse(JSON.parse(body.toString('utf8')));
        state.fetched[url] = { at: this.kernel.now(), index };
        results.push({ url, ok: true });
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
    add(builtInIndex(), BUILT_IN, null);
    for (const url of state.sources) {
      const f = state.fetched[url];
      if (f) add(f.index, url, url);
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
        bytes = await fetchLimited(v.url, Math.min(v.size, PACKAGE_MAX_BYTES));
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
