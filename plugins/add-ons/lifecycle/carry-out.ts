import { physicalTableName, publicRef, type AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, type Kernel, type MetaDb, type SecretBox } from '../../../kernel/api.js';
import { applyTables, undoTables, type DdlPlan, type UndoStep } from '../../../engine/schema/ddl/index.js';
import { connectionsRef } from '../../connections/provides.js';
import { publicAdminRef, type InstanceKeyWritten, type PreparedAppEndpoint } from '../../public-admin/provides.js';
import { schemaRef } from '../../schema/provides.js';
import type { AddonConnections } from '../connect/connect.js';
import type { AddonsOptions } from '../options.js';
import type { AddonDomains } from '../surfaces/domains.js';
import type { InstalledAddon, InstalledStore } from './installed.js';
import { DEFAULT_INSTANCE, INSTANCE_COLUMN, instanceFilters, instanceRules, type AppInstance, type InstanceStore } from './instances.js';
import type { PackageStore } from './packages.js';
import type { AddonPlan, PlanOutcome } from './plan.js';
import { openSettings, withBookingSettings, type StoredSettings } from './settings-values.js';

/** What the lifecycle works with: the plugin's stores and secrets box (the hub owns them), and the hub's word of a change. */
export interface LifecycleDeps {
  readonly installed: InstalledStore;
  readonly instances: InstanceStore;
  readonly packages: PackageStore;
  readonly connects: AddonConnections;
  readonly domains: AddonDomains;
  readonly box: SecretBox;
  require(key: string): Promise<InstalledAddon>;
  /** Tells the hub's listeners (the runtime, the domains) that `key` was installed, changed or removed. */
  changed(key: string): Promise<void>;
}

interface PreparedApp {
  /** null: the app has no endpoints and no key to update. */
  endpoints: PreparedAppEndpoint[] | null;
  /** The named instances (D28), each with the endpoints as its key reaches them. */
  instances: Array<{ id: string; name: string; endpoints: PreparedAppEndpoint[] }>;
}

/** The instance column is the instance's to set (D28): never exposed, written, filtered or sorted on through an endpoint. */
function withoutInstanceColumn(e: PreparedAppEndpoint): PreparedAppEndpoint {
  const d = e.definition;
  const keep = (list: string[]) => list.filter((c) => c !== INSTANCE_COLUMN);
  return {
    ...e,
    definition: {
      ...d,
      columns: keep(d.columns),
      writable: keep(d.writable),
      filterable: keep(d.filterable),
      searchable: keep(d.searchable),
      orderable: keep(d.orderable),
    },
  };
}

/** The plan `carryOut` runs for a change that only adds (a move of connection, new instances): the tables as the DDL planner left them. */
export function additivePlan(
  key: string,
  connectionId: string | null,
  ddl: DdlPlan | null,
): Pick<AddonPlan, 'key' | 'connectionId' | 'destructive' | 'tables'> {
  return {
    key,
    connectionId,
    destructive: false,
    tables: (ddl?.tables ?? []).map((t) => ({
      name: t.name,
      action: t.action,
      columns: t.columns.map((c) => ({ name: c.name, type: c.type, action: c.action })),
    })),
  };
}

/** The steps every lifecycle write takes: DDL on the connection, then the meta store and the app's endpoints, undone together. */
export class LifecycleSteps {
  protected readonly installed: InstalledStore;
  protected readonly instances: InstanceStore;
  protected readonly packages: PackageStore;
  protected readonly connects: AddonConnections;
  protected readonly domains: AddonDomains;
  protected readonly box: SecretBox;

  constructor(
    protected readonly kernel: Kernel,
    private readonly deps: LifecycleDeps,
    private readonly options: AddonsOptions,
  ) {
    this.installed = deps.installed;
    this.instances = deps.instances;
    this.packages = deps.packages;
    this.connects = deps.connects;
    this.domains = deps.domains;
    this.box = deps.box;
  }

  protected require(key: string): Promise<InstalledAddon> {
    return this.deps.require(key);
  }
  protected changed(key: string): Promise<void> {
    return this.deps.changed(key);
  }

  protected get connections() {
    return this.kernel.plugin(connectionsRef);
  }
  protected get publicAdmin() {
    return this.kernel.plugin(publicAdminRef);
  }
  protected get schema() {
    return this.kernel.plugin(schemaRef);
  }

  protected async publicAdminKeyId(key: string): Promise<string | null> {
    return (await this.publicAdmin.apps.appKeyIds([key])).get(key) ?? null;
  }

  /**
   * Runs the plan's DDL on the connection, then `metaWrites` in one meta-store transaction.
   * When anything fails, the DDL is undone (compensation on MySQL, which commits DDL at once),
   * so the instance is as it was: the previous version keeps working, nothing is half-made.
   */
  protected async carryOut<P>(
    outcome: { plan: Pick<AddonPlan, 'key' | 'connectionId' | 'destructive' | 'tables'>; ddl: PlanOutcome['ddl'] },
    allowDestructive: boolean,
    prepare: () => Promise<P>,
    metaWrites: (trx: MetaDb, prepared: P) => Promise<string[]>,
  ): Promise<void> {
    const { ddl, plan } = outcome;
    const fault = this.options.installFault?.() ?? null;
    let undo: UndoStep[] = [];
    const connectionId = plan.connectionId;
    const dialect = connectionId ? (await this.connections.info(connectionId)).dialect : null;
    if (ddl && connectionId && dialect) {
      if (plan.destructive && !allowDestructive)
        throw new AppError('ADDON_DESTRUCTIVE', {
          params: {
            tables: plan.tables.filter((t) => t.action === 'drop' || t.columns.some((c) => c.action === 'drop' || c.action === 'retype')).map((t) => t.name),
          },
        });
      const failAfter = fault?.ddlSteps;
      const applied = await this.connections.withSource(connectionId, (db) =>
        applyTables(db, dialect, ddl, { allowDestructive, ...(failAfter === undefined ? {} : { failAfter }) }),
      );
      undo = applied.undo;
    }
    const keyIds: string[] = [];
    try {
      if (ddl && connectionId) await this.schema.introspect(connectionId);
      // Everything read is read before the transaction: an embedded SQLite meta store has one
      // connection, which the transaction holds.
      const prepared = await prepare();
      await this.kernel.db.transaction().execute(async (trx) => {
        keyIds.push(...(await metaWrites(trx, prepared)));
        if (fault?.inMetaTransaction) throw new Error('injected failure in the meta transaction');
      });
    } catch (err) {
      if (undo.length && connectionId && dialect) {
        await this.connections
          .withSource(connectionId, (db) => undoTables(db, dialect, undo))
          .catch((e) => this.kernel.log.error({ err: e, key: plan.key }, 'undoing an add-on install failed'));
        await this.schema.introspect(connectionId).catch(() => undefined);
      }
      throw err;
    } finally {
      await this.publicAdmin.apps.changed(keyIds).catch(() => undefined);
    }
  }

  /**
   * The app's endpoints as they will be written, checked against the connection's schema (read
   * before the transaction): the default instance's (the app's settings, `svc_instance =
   * 'default'`), and each named instance's (its settings, its id). `instances` defaults to the
   * stored ones, so a write that is not about instances keeps their keys.
   */
  protected async prepareEndpoints(
    m: AddonManifest,
    connectionId: string | null,
    settings: StoredSettings,
    instances?: readonly AppInstance[],
  ): Promise<PreparedApp> {
    const existingKey = await this.publicAdminKeyId(m.key);
    if (!m.endpoints.length && !existingKey) return { endpoints: null, instances: [] };
    if (m.endpoints.length && !connectionId) throw new AppError('ADDON_CONNECTION_REQUIRED');
    if (!connectionId) return { endpoints: [], instances: [] };
    const named = instances ?? (await this.instances.list(m.key));
    const forInstance = (id: string, values: StoredSettings) =>
      this.publicAdmin.apps
        .prepare(
          m.key,
          connectionId,
          m.endpoints.map(({ ref, table, ...definition }) => ({
            ref: publicRef(m.key, ref),
            table: physicalTableName(m.key, table),
            definition: withBookingSettings({ ...definition, filters: instanceFilters(definition.filters ?? [], id) }, openSettings(values, this.box)),
          })),
        )
        .then((list) => list.map(withoutInstanceColumn));
    const endpoints = await forInstance(DEFAULT_INSTANCE, settings);
    const out: PreparedApp['instances'] = [];
    for (const i of named) out.push({ id: i.id, name: i.name, endpoints: await forInstance(i.id, i.settings) });
    return { endpoints, instances: out };
  }

  protected async writeEndpoints(
    trx: MetaDb,
    m: AddonManifest,
    connectionId: string | null,
    prepared: PreparedApp,
    by: string | null,
    enabled: boolean,
  ): Promise<{ keyIds: string[]; instanceKeys: InstanceKeyWritten[] }> {
    if (prepared.endpoints === null) return { keyIds: [], instanceKeys: [] };
    const written = await this.publicAdmin.apps.write(trx, {
      addonKey: m.key,
      name: `${m.name} (app)`,
      connectionId: connectionId ?? '',
      peak: m.peak,
      endpoints: prepared.endpoints,
      createdBy: by,
      // A disabled app's keys stop with it (D27), one this write creates too.
      suspended: !enabled,
      instances: prepared.instances.map((i) => ({ id: i.id, name: i.name, rules: instanceRules(i.endpoints) })),
    });
    return { keyIds: written.keyIds, instanceKeys: written.instanceKeys };
  }
}
