import { parseAddonManifest, type AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import type { StoredSettings } from './settings-values.js';
import type { AddonsDb, AddonTables } from '../tables.js';

export interface InstalledAddon {
  key: string;
  version: string;
  enabled: boolean;
  connectionId: string | null;
  manifest: AddonManifest;
  settings: StoredSettings;
  installedAt: number;
  updatedAt: number;
}

type Row = AddonTables['addons'];

function toInstalled(row: Row): InstalledAddon {
  const parsed = parseAddonManifest(JSON.parse(row.manifest), { stored: true });
  if (!parsed.ok) throw new Error(`installed manifest of ${row.addon_key} no longer parses at ${parsed.path}: ${parsed.message}`);
  return {
    key: row.addon_key,
    version: row.version,
    enabled: Number(row.enabled) === 1,
    connectionId: row.connection_id,
    manifest: parsed.manifest,
    settings: JSON.parse(row.settings) as StoredSettings,
    installedAt: Number(row.installed_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Installed add-ons (D24): one row each, the version's manifest and the operator's settings. */
export class InstalledStore {
  constructor(private readonly db: AddonsDb) {}

  async list(): Promise<InstalledAddon[]> {
    return (await this.db.selectFrom('addons').selectAll().orderBy('addon_key').execute()).map(toInstalled);
  }

  /** Changes when any add-on was installed, changed or removed (other replicas poll it). */
  async stamp(): Promise<string> {
    const row = await this.db
      .selectFrom('addons')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('updated_at').as('at')])
      .executeTakeFirst();
    return `${Number(row?.n ?? 0)}:${Number(row?.at ?? 0)}`;
  }

  async get(key: string, db: AddonsDb = this.db): Promise<InstalledAddon | null> {
    const row = await db.selectFrom('addons').selectAll().where('addon_key', '=', key).executeTakeFirst();
    return row ? toInstalled(row) : null;
  }

  async insert(trx: AddonsDb, a: Omit<InstalledAddon, 'installedAt' | 'updatedAt'> & { by: string | null; now: number }): Promise<void> {
    await trx
      .insertInto('addons')
      .values({
        addon_key: a.key,
        version: a.version,
        enabled: a.enabled ? 1 : 0,
        connection_id: a.connectionId,
        manifest: JSON.stringify(a.manifest),
        settings: JSON.stringify(a.settings),
        installed_by: a.by,
        installed_at: a.now,
        updated_at: a.now,
      })
      .execute();
  }

  async update(
    trx: AddonsDb,
    key: string,
    patch: { version?: string; manifest?: AddonManifest; settings?: StoredSettings; enabled?: boolean; connectionId?: string | null },
    now: number,
  ): Promise<void> {
    await trx
      .updateTable('addons')
      .set({
        ...(patch.version === undefined ? {} : { version: patch.version }),
        ...(patch.manifest === undefined ? {} : { manifest: JSON.stringify(patch.manifest) }),
        ...(patch.settings === undefined ? {} : { settings: JSON.stringify(patch.settings) }),
        ...(patch.enabled === undefined ? {} : { enabled: patch.enabled ? 1 : 0 }),
        ...(patch.connectionId === undefined ? {} : { connection_id: patch.connectionId }),
        updated_at: now,
      })
      .where('addon_key', '=', key)
      .execute();
  }

  async remove(trx: AddonsDb, key: string): Promise<void> {
    await trx.deleteFrom('addons').where('addon_key', '=', key).execute();
    await trx.deleteFrom('addon_kv').where('addon_key', '=', key).execute();
    await trx.deleteFrom('addon_domains').where('addon_key', '=', key).execute();
    await trx.deleteFrom('addon_instances').where('addon_key', '=', key).execute();
  }
}
