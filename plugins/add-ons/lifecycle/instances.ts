import { z } from 'zod';
import { DEFAULT_INSTANCE, INSTANCE_COLUMN } from '../../../addons-sdk/src/manifest/index.js';
import { withInstanceColumn, type DdlColumn, type DdlTable } from '../../../engine/schema/ddl/index.js';
import type { InstanceRule, PreparedAppEndpoint } from '../../public-admin/provides.js';
import type { StoredSettings } from './settings-values.js';
import type { AddonsDb } from '../tables.js';

const INSTANCE_ID_MAX = 40;

/** An instance id: kebab-case, 1–40 (D28). `default` names the instance every app has. */
export const instanceIdField = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'kebab-case: lower-case letters and digits, words joined by single hyphens')
  .min(1)
  .max(INSTANCE_ID_MAX);

/**
 * The instance column every app table gets (D28): NOT NULL with the default instance's id as its
 * default, so adding it to a table that holds rows is additive and those rows belong to the
 * default instance.
 */
const INSTANCE_COLUMN_DDL: DdlColumn = {
  name: INSTANCE_COLUMN,
  type: 'string',
  maxLength: INSTANCE_ID_MAX,
  nullable: false,
  default: DEFAULT_INSTANCE,
  autoIncrement: false,
  unique: false,
};

/** An app table as the instance creates it: the author's declaration plus the instance column, indexed. */
export const appTable = (table: DdlTable): DdlTable => withInstanceColumn(table, INSTANCE_COLUMN_DDL);

/** One named instance of an app (D28), its settings as stored (secrets sealed). */
export interface AppInstance {
  id: string;
  name: string;
  settings: StoredSettings;
}

/** The named instances of installed apps, in the operator's order. */
export class InstanceStore {
  constructor(private readonly db: AddonsDb) {}

  async list(key: string, db: AddonsDb = this.db): Promise<AppInstance[]> {
    const rows = await db.selectFrom('addon_instances').selectAll().where('addon_key', '=', key).orderBy('position').execute();
    return rows.map((r) => ({ id: r.instance_id, name: r.name, settings: JSON.parse(r.settings) as StoredSettings }));
  }

  /** Every app's instances at once (GET /surfaces, the runtime's reload). */
  async all(): Promise<Map<string, AppInstance[]>> {
    const rows = await this.db.selectFrom('addon_instances').selectAll().orderBy('addon_key').orderBy('position').execute();
    const out = new Map<string, AppInstance[]>();
    for (const r of rows) {
      const list = out.get(r.addon_key) ?? [];
      list.push({ id: r.instance_id, name: r.name, settings: JSON.parse(r.settings) as StoredSettings });
      out.set(r.addon_key, list);
    }
    return out;
  }

  async replace(trx: AddonsDb, key: string, instances: readonly AppInstance[], now: number): Promise<void> {
    const rows = await trx.selectFrom('addon_instances').select(['instance_id', 'created_at']).where('addon_key', '=', key).execute();
    const createdAt = new Map(rows.map((r) => [r.instance_id, Number(r.created_at)]));
    await trx.deleteFrom('addon_instances').where('addon_key', '=', key).execute();
    let position = 0;
    for (const i of instances)
      await trx
        .insertInto('addon_instances')
        .values({
          addon_key: key,
          instance_id: i.id,
          name: i.name,
          settings: JSON.stringify(i.settings),
          position: position++,
          created_at: createdAt.get(i.id) ?? now,
          updated_at: now,
        })
        .execute();
  }
}

/** `svc_instance = id`, in place of the endpoint's own instance filter: the instance's rows alone. */
export function instanceFilters<F extends { column: string }>(filters: readonly F[], id: string): Array<F | { column: string; op: 'eq'; value: string }> {
  return [...filters.filter((f) => f.column !== INSTANCE_COLUMN), { column: INSTANCE_COLUMN, op: 'eq', value: id }];
}

/** What an instance's key reaches of each app endpoint (by served ref), from the endpoints prepared with its settings. */
export function instanceRules(prepared: readonly PreparedAppEndpoint[]): Record<string, InstanceRule> {
  return Object.fromEntries(
    prepared.map((e) => [
      e.ref,
      { filters: e.definition.filters, defaults: e.definition.defaults, booking: e.definition.booking, timeZone: e.definition.timeZone },
    ]),
  );
}

export { DEFAULT_INSTANCE, INSTANCE_COLUMN };
