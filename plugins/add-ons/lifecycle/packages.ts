import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAddonManifest, type AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { extractPackage, inspectPackage, PackageError } from '../../../addons-sdk/src/package/index.js';
import { AppError } from '../../../kernel/api.js';
import type { AddonsDb } from '../tables.js';

export interface StagedPackage {
  key: string;
  version: string;
  sha256: string;
  size: number;
  verified: boolean;
  source: string;
  manifest: AddonManifest;
  stagedAt: number;
}

function invalid(err: unknown): never {
  if (err instanceof PackageError) {
    throw new AppError('ADDON_PACKAGE_INVALID', {
      message: `The add-on package is not valid: ${err.message}`,
      params: { reason: err.reason, ...(err.path === undefined ? {} : { path: err.path }) },
    });
  }
  throw err;
}

/**
 * Staged packages (D24): checked by the SDK's one reader of D22 before anything is kept, stored
 * in the meta store, and unpacked on demand into this process's cache, by sha256.
 */
export class PackageStore {
  constructor(
    private readonly db: AddonsDb,
    private readonly cacheDir: string,
    private readonly now: () => number,
  ) {}

  /** Checks a package file and stages it; refuses with 400 ADDON_PACKAGE_INVALID and nothing kept. */
  async stage(file: string, meta: { source: string; verified: boolean; by: string | null }): Promise<StagedPackage> {
    const inspected = await inspectPackage(file).catch(invalid);
    const bytes = readFileSync(file);
    const m = inspected.manifest;
    const row = {
      addon_key: m.key,
      version: m.version,
      sha256: inspected.sha256,
      size: bytes.length,
      verified: meta.verified ? 1 : 0,
      source: meta.source.slice(0, 2048),
      manifest: JSON.stringify(m),
      bytes: bytes.toString('base64'),
      staged_by: meta.by,
      staged_at: this.now(),
    };
    await this.db.transaction().execute(async (trx) => {
      // An installed version's bytes are what its plan was confirmed for: its files and server.js
      // come from them, so other bytes under the same version would change it with no plan (AO22).
      const had = await trx.selectFrom('addon_packages').select('sha256').where('addon_key', '=', m.key).where('version', '=', m.version).executeTakeFirst();
      if (had && had.sha256 !== row.sha256) {
        const installed = await trx.selectFrom('addons').select('version').where('addon_key', '=', m.key).executeTakeFirst();
        if (installed?.version === m.version) throw new AppError('ADDON_VERSION_INSTALLED', { params: { key: m.key, version: m.version, sha256: had.sha256 } });
      }
      await trx.deleteFrom('addon_packages').where('addon_key', '=', m.key).where('version', '=', m.version).execute();
      await trx.insertInto('addon_packages').values(row).execute();
    });
    return this.toStaged(row);
  }

  /** Stages bytes (a download): written to a temp file, checked, staged, and the file removed. */
  async stageBytes(bytes: Buffer, meta: { source: string; verified: boolean; by: string | null }): Promise<StagedPackage> {
    const dir = await mkdtemp(join(tmpdir(), 'svc-addon-'));
    try {
      const file = join(dir, 'package.tgz');
      await writeFile(file, bytes);
      return await this.stage(file, meta);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private toStaged(row: {
    addon_key: string;
    version: string;
    sha256: string;
    size: number;
    verified: number;
    source: string;
    manifest: string;
    staged_at: number;
  }): StagedPackage {
    const parsed = parseAddonManifest(JSON.parse(row.manifest), { stored: true });
    if (!parsed.ok) throw new Error(`staged manifest of ${row.addon_key}@${row.version} no longer parses at ${parsed.path}: ${parsed.message}`);
    return {
      key: row.addon_key,
      version: row.version,
      sha256: row.sha256,
      size: Number(row.size),
      verified: Number(row.verified) === 1,
      source: row.source,
      manifest: parsed.manifest,
      stagedAt: Number(row.staged_at),
    };
  }

  async list(): Promise<StagedPackage[]> {
    const rows = await this.db
      .selectFrom('addon_packages')
      .select(['addon_key', 'version', 'sha256', 'size', 'verified', 'source', 'manifest', 'staged_at'])
      .orderBy('addon_key')
      .orderBy('staged_at')
      .execute();
    return rows.map((r) => this.toStaged(r));
  }

  async get(key: string, version: string): Promise<StagedPackage | null> {
    const row = await this.db
      .selectFrom('addon_packages')
      .select(['addon_key', 'version', 'sha256', 'size', 'verified', 'source', 'manifest', 'staged_at'])
      .where('addon_key', '=', key)
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? this.toStaged(row) : null;
  }

  async require(key: string, version: string): Promise<StagedPackage> {
    const staged = await this.get(key, version);
    if (!staged) throw new AppError('ADDON_NOT_STAGED', { params: { key, version } });
    return staged;
  }

  async remove(key: string, version: string): Promise<boolean> {
    const res = await this.db.deleteFrom('addon_packages').where('addon_key', '=', key).where('version', '=', version).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** The package's files, unpacked once per process into the cache (checked again while unpacking). */
  async unpacked(key: string, version: string): Promise<string> {
    const row = await this.db
      .selectFrom('addon_packages')
      .select(['sha256', 'bytes'])
      .where('addon_key', '=', key)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!row) throw new AppError('ADDON_NOT_STAGED', { params: { key, version } });
    const dir = join(this.cacheDir, row.sha256);
    if (existsSync(join(dir, 'addon.json'))) return dir;
    mkdirSync(this.cacheDir, { recursive: true });
    const bytes = Buffer.from(row.bytes, 'base64');
    if (createHash('sha256').update(bytes).digest('hex') !== row.sha256) throw new AppError('ADDON_INTEGRITY', { params: { key, version } });
    const tmp = await mkdtemp(join(tmpdir(), 'svc-addon-'));
    try {
      const file = join(tmp, 'package.tgz');
      writeFileSync(file, bytes);
      rmSync(dir, { recursive: true, force: true });
      await extractPackage(file, dir).catch(invalid);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return dir;
  }

  /** server.js of a staged version, or null when the package has none. */
  async serverCode(key: string, version: string): Promise<string | null> {
    const file = join(await this.unpacked(key, version), 'server.js');
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  }

  /** server.js.map of a staged version (the source map pack writes beside server.js), or null when the package has none. */
  async serverSourceMap(key: string, version: string): Promise<string | null> {
    const file = join(await this.unpacked(key, version), 'server.js.map');
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  }
}
