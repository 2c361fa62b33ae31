import { join } from 'node:path';
import { physicalTableName, publicRef, type AddonManifest } from '../../addons-sdk/src/manifest/index.js';
import type { SecretBox } from '../../kernel/crypto.js';
import { AppError, type ErrorIssue } from '../../kernel/errors.js';
import type { Kernel } from '../../kernel/kernel-services.js';
import type { MetaDb } from '../../kernel/meta/types.js';
import { applyTables, dropTables, planTables, undoTables, type DdlPlan, type UndoStep } from '../../engine/schema/ddl/index.js';
import { introspect } from '../../engine/schema/introspect/index.js';
import type { ConnectionsProvides } from '../connections/provides.js';
import type { InstanceKeyWritten, PreparedAppEndpoint } from '../public-admin/apps.js';
import type { PublicAdminProvides } from '../public-admin/provides.js';
import type { SchemaProvides } from '../schema/provides.js';
import { AddonDomains } from './surfaces/domains.js';
import { SurfaceFiles } from './surfaces/bundle.js';
import { Catalog } from './lifecycle/catalog.js';
import { AddonConnections, type ConnectionStatus } from './connect/connect.js';
import { InstalledStore, type InstalledAddon } from './lifecycle/installed.js';
import { appTable, DEFAULT_INSTANCE, INSTANCE_COLUMN, instanceFilters, instanceRules, InstanceStore, type AppInstance } from './lifecycle/instances.js';
import { PackageStore } from './lifecycle/packages.js';
import { AddonRuntime } from './runtime/runtime.js';
import { connectionForgotten, planInstall, planRemoval, type AddonPlan, type PlanOutcome } from './lifecycle/plan.js';
import {
  carrySettings,
  openSettings,
  settingsForm,
  settingsToStore,
  settingsView,
  upgradeSettings,
  withBookingSettings,
  type SettingChange,
  type SettingFormField,
  type StoredSettings,
} from './lifecycle/settings-values.js';
import { addonsDb, type AddonsDb } from './tables.js';

/**
 * Test hooks: make an install fail half-way (after `ddlSteps` DDL steps, or inside the meta
 * transaction) to prove that a failure leaves the instance as it was. Never set in production.
 */
export const installFaults: { ddlSteps?: number; inMetaTransaction?: boolean } = {};

export interface AddonView {
  key: string;
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  connectionId: string | null;
  tables: string[];
  endpoints: string[];
  surfaces: Array<{ name: string; kind: string; title: string }>;
  capabilities: string[];
  actions: string[];
  hooks: string[];
  peak: number;
  appKeyId: string | null;
  settings: Record<string, string | number | boolean>;
  secretsSet: string[];
  settingsSchema: SettingFormField[];
  installedAt: number;
  updatedAt: number;
  /** What connect asks for (D29): its kind, a secret connection's fields (names and labels), an OAuth connection's scopes; null when the add-on declares none. */
  connect: {
    kind: 'secret' | 'oauth2';
    fields: Array<{ name: string; label: string; description?: string; optional: boolean }>;
    scopes: string[];
  } | null;
  connected: boolean;
  connectedAt: number | null;
  /** When the stored OAuth access token expires (it is refreshed when the add-on next runs); null otherwise. */
  connectionExpiresAt: number | null;
}

/** Listeners told when an add-on was installed, changed or removed (the runtime reloads it). */
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

type ChangeListener = (key: string) => void | Promise<void>;

/** The plan `carryOut` runs for a change that only adds (a move of connection, new instances): the tables as the DDL planner left them. */
function additivePlan(key: string, connectionId: string | null, ddl: DdlPlan | null): Pick<AddonPlan, 'key' | 'connectionId' | 'destructive' | 'tables'> {
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

/** The add-on lifecycle (D24): staged → installed (enabled ⇄ disabled) → removed. */
export class AddonService {
  readonly db: AddonsDb;
  readonly packages: PackageStore;
  readonly catalog: Catalog;
  readonly installed: InstalledStore;
  /** Named instances of apps (D28). */
  readonly instances: InstanceStore;
  readonly box: SecretBox;
  readonly runtime: AddonRuntime;
  /** The files of installed add-ons' surfaces (GET /add-ons/{key}/bundle/…). */
  readonly surfaceFiles = new SurfaceFiles();
  readonly connects: AddonConnections;
  /** Host names serving a public-page surface (D28). */
  readonly domains: AddonDomains;
  private readonly listeners = new Set<ChangeListener>();

  constructor(private readonly kernel: Kernel) {
    this.db = addonsDb(kernel.db);
    this.packages = new PackageStore(this.db, join(kernel.config.dataDir, 'addons', 'packages'), () => kernel.now());
    this.catalog = new Catalog(kernel);
    this.installed = new InstalledStore(this.db);
    this.instances = new InstanceStore(this.db);
    this.box = kernel.secrets('addon-settings');
    this.connects = new AddonConnections(kernel, this.db, this.box);
    this.runtime = new AddonRuntime(kernel, this);
    this.domains = new AddonDomains(kernel, this.db);
    // A removed app's names go with it (installed.remove deletes the rows).
    this.onChange(() => this.domains.reload());
  }

  onChange(listener: ChangeListener): void {
    this.listeners.add(listener);
  }

  private async changed(key: string): Promise<void> {
    for (const l of this.listeners) await l(key);
  }

  private get connections() {
    return this.kernel.plugin<ConnectionsProvides>('connections');
  }
  private get publicAdmin() {
    return this.kernel.plugin<PublicAdminProvides>('public-admin');
  }
  private get schema() {
    return this.kernel.plugin<SchemaProvides>('schema');
  }

  async require(key: string): Promise<InstalledAddon> {
    const a = await this.installed.get(key);
    if (!a) throw new AppError('ADDON_NOT_FOUND', { params: { key } });
    return a;
  }

  async view(a: InstalledAddon): Promise<AddonView> {
    return (await this.views([a]))[0]!;
  }

  /** The views of installed add-ons, with their app keys and connections read in one query each. */
  async views(list: readonly InstalledAddon[]): Promise<AddonView[]> {
    const keys = list.map((a) => a.key);
    const [appKeyIds, connections] = await Promise.all([
      this.publicAdmin.apps.appKeyIds(keys.filter((_k, i) => list[i]!.manifest.endpoints.length > 0)),
      this.connects.statuses(keys.filter((_k, i) => list[i]!.manifest.connect)),
    ]);
    return list.map((a) => this.viewOf(a, appKeyIds.get(a.key) ?? null, connections.get(a.key) ?? null));
  }

  private viewOf(a: InstalledAddon, appKeyId: string | null, connection: ConnectionStatus | null): AddonView {
    const m = a.manifest;
    const { values, secretsSet } = settingsView(m.settings, a.settings);
    return {
      key: a.key,
      name: m.name,
      version: a.version,
      description: m.description,
      enabled: a.enabled,
      connectionId: a.connectionId,
      tables: m.tables.map((t) => physicalTableName(m.key, t.name)),
      endpoints: m.endpoints.map((e) => publicRef(m.key, e.ref)),
      surfaces: m.surfaces.map((s) => ({ name: s.name, kind: s.kind, title: s.title })),
      capabilities: [...m.capabilities],
      actions: [...m.actions],
      hooks: [...m.hooks],
      peak: m.peak,
      appKeyId,
      settings: values,
      secretsSet,
      settingsSchema: settingsForm(m.settings),
      installedAt: a.installedAt,
      updatedAt: a.updatedAt,
      ...connectView(a, connection),
    };
  }

  private async publicAdminKeyId(key: string): Promise<string | null> {
    return (await this.publicAdmin.apps.appKeyIds([key])).get(key) ?? null;
  }

  /** GET /add-ons/{key}/plan: an install or upgrade plan with `version`, the removal plan without. */
  async plan(key: string, version: string | undefined, connectionId: string | undefined): Promise<AddonPlan> {
    const installed = await this.installed.get(key);
    if (version === undefined) {
      if (!installed)
        throw new AppError('VALIDATION_FAILED', {
          issues: [
            { path: 'query.version', code: 'required', message: 'Name the version to plan (the add-on is not installed, so there is no removal to plan).' },
          ],
        });
      return planRemoval(installed).plan;
    }
    const staged = await this.packages.require(key, version);
    return (await planInstall(this.kernel, staged, installed, connectionId ?? null, await this.settingChanges(installed, staged.manifest))).plan;
  }

  /** What an upgrade to `m` does to the stored settings, the app's and each instance's (AO20). */
  private async settingChanges(installed: InstalledAddon | null, m: AddonManifest): Promise<SettingChange[]> {
    if (!installed) return [];
    const from = installed.manifest.settings;
    const out: SettingChange[] = carrySettings(from, m.settings, installed.settings, this.box).changes.map((c) => ({ instance: null, ...c }));
    for (const i of await this.instances.list(installed.key))
      out.push(...carrySettings(from, m.settings, i.settings, this.box).changes.map((c) => ({ instance: i.id, ...c })));
    return out;
  }

  private checkHash(outcome: PlanOutcome, planHash: string): void {
    if (outcome.plan.hash !== planHash) throw new AppError('ADDON_PLAN_CHANGED', { params: { hash: outcome.plan.hash } });
  }

  /**
   * Runs the plan's DDL on the connection, then `metaWrites` in one meta-store transaction.
   * When anything fails, the DDL is undone (compensation on MySQL, which commits DDL at once),
   * so the instance is as it was: the previous version keeps working, nothing is half-made.
   */
  private async carryOut<P>(
    outcome: { plan: Pick<AddonPlan, 'key' | 'connectionId' | 'destructive' | 'tables'>; ddl: PlanOutcome['ddl'] },
    allowDestructive: boolean,
    prepare: () => Promise<P>,
    metaWrites: (trx: MetaDb, prepared: P) => Promise<string[]>,
  ): Promise<void> {
    const { ddl, plan } = outcome;
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
      const applied = await this.connections.withSource(connectionId, (db) =>
        applyTables(db, dialect, ddl, { allowDestructive, ...(installFaults.ddlSteps === undefined ? {} : { failAfter: installFaults.ddlSteps }) }),
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
        if (installFaults.inMetaTransaction) throw new Error('injected failure in the meta transaction');
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
  private async prepareEndpoints(
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

  private async writeEndpoints(
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

  async install(
    by: string | null,
    body: { key: string; version: string; connectionId?: string | undefined; planHash: string; settings?: Record<string, unknown> | undefined },
  ): Promise<InstalledAddon> {
    if (await this.installed.get(body.key)) throw new AppError('ADDON_INSTALLED', { params: { key: body.key } });
    const staged = await this.packages.require(body.key, body.version);
    const outcome = await planInstall(this.kernel, staged, null, body.connectionId ?? null);
    this.checkHash(outcome, body.planHash);
    const m = staged.manifest;
    const settings = settingsToStore(m.settings, body.settings ?? {}, {}, this.box);
    const connectionId = outcome.plan.connectionId;
    await this.carryOut(
      outcome,
      false,
      () => this.prepareEndpoints(m, connectionId, settings),
      async (trx, prepared) => {
        await this.installed.insert(addonsDb(trx), {
          key: m.key,
          version: m.version,
          enabled: true,
          connectionId,
          manifest: m,
          settings,
          by,
          now: this.kernel.now(),
        });
        return (await this.writeEndpoints(trx, m, connectionId, prepared, by, true)).keyIds;
      },
    );
    await this.changed(m.key);
    return this.require(m.key);
  }

  async upgrade(
    by: string | null,
    key: string,
    body: {
      version: string;
      planHash: string;
      connectionId?: string | undefined;
      allowDestructive?: boolean | undefined;
      settings?: Record<string, unknown> | undefined;
      instanceSettings?: Record<string, Record<string, unknown>> | undefined;
    },
  ): Promise<InstalledAddon> {
    const installed = await this.require(key);
    const staged = await this.packages.require(key, body.version);
    const m = staged.manifest;
    const outcome = await planInstall(this.kernel, staged, installed, body.connectionId ?? null, await this.settingChanges(installed, m));
    // An add-on installed without tables has no connection: its first tables go where the plan said (AO21).
    const connectionId = outcome.plan.connectionId;
    this.checkHash(outcome, body.planHash);
    // Every stored value is re-checked against the new schema, the instances' too (AO20).
    const from = installed.manifest.settings;
    const named = await this.instances.list(key);
    const unknown = Object.keys(body.instanceSettings ?? {}).filter((id) => !named.some((i) => i.id === id));
    if (unknown.length)
      throw new AppError('VALIDATION_FAILED', {
        issues: unknown.map((id) => ({ path: `body.instanceSettings.${id}`, code: 'unknown_instance', message: `The app has no instance ${id}.` })),
      });
    const issues: ErrorIssue[] = [];
    const collect = <T>(f: () => T): T | null => {
      try {
        return f();
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'ADDON_SETTINGS_INVALID') throw err;
        issues.push(...(err.issues ?? []));
        return null;
      }
    };
    const settings = collect(() => upgradeSettings(from, m.settings, installed.settings, body.settings ?? {}, this.box));
    const instances = named.map((i) => ({
      ...i,
      settings: collect(() => upgradeSettings(from, m.settings, i.settings, body.instanceSettings?.[i.id] ?? {}, this.box, `body.instanceSettings.${i.id}`)) ?? {},
    }));
    if (issues.length || !settings) throw new AppError('ADDON_SETTINGS_INVALID', { issues });
    await this.carryOut(
      outcome,
      body.allowDestructive === true,
      () => this.prepareEndpoints(m, connectionId, settings, instances),
      async (trx, prepared) => {
        await this.installed.update(addonsDb(trx), key, { version: m.version, manifest: m, settings, connectionId }, this.kernel.now());
        if (instances.length) await this.instances.replace(addonsDb(trx), key, instances, this.kernel.now());
        // A connection made for another kind of connect (or none), or tokens another OAuth token URL issued, mean nothing to this version (AO27).
        if (connectionForgotten(installed.manifest, m)) await this.connects.forget(key, addonsDb(trx));
        return (await this.writeEndpoints(trx, m, connectionId, prepared, by, installed.enabled)).keyIds;
      },
    );
    await this.changed(key);
    return this.require(key);
  }

  /**
   * PUT /surfaces/{appKey}/connection (D23, D28): the app's tables are made on `connectionId`
   * (by the install's DDL path: tables the target already holds in the declared shape are
   * kept) and its endpoints follow them. Refused with 409 ADDON_TABLES_NOT_EMPTY while a table
   * on the current connection holds rows; the old, empty tables are left where they are.
   */
  async moveConnection(by: string | null, key: string, connectionId: string): Promise<{ before: InstalledAddon; after: InstalledAddon }> {
    const installed = await this.require(key);
    const m = installed.manifest;
    if (installed.connectionId === connectionId) return { before: installed, after: installed };
    const info = await this.connections.info(connectionId);
    if (info.readOnly)
      throw new AppError('CONFLICT', { message: 'The connection is read-only: an add-on cannot create its tables there.', params: { reason: 'read-only' } });
    const names = m.tables.map((t) => physicalTableName(key, t.name));
    if (installed.connectionId && names.length) {
      const from = installed.connectionId;
      const fromInfo = await this.connections.info(from);
      const holding = await this.connections.withSource(from, async (db) => {
        const present = new Set((await introspect(db, fromInfo.dialect)).model.tables.map((t) => t.name));
        const out: Array<{ table: string; rows: number }> = [];
        for (const name of names.filter((n) => present.has(n))) {
          const row = await db
            .selectFrom(name)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst();
          const rows = Number((row as { n?: unknown } | undefined)?.n ?? 0);
          if (rows > 0) out.push({ table: name, rows });
        }
        return out;
      });
      if (holding.length)
        throw new AppError('ADDON_TABLES_NOT_EMPTY', {
          message: `${holding[0]!.table} holds ${holding[0]!.rows} row(s): an app moves to another connection only while its tables are empty.`,
          params: { tables: holding.map((h) => h.table) },
        });
    }
    let ddl: PlanOutcome['ddl'] = null;
    if (m.tables.length) {
      const existing = await this.connections.withSource(connectionId, async (db) => (await introspect(db, info.dialect)).model.tables);
      ddl = planTables(
        m.tables.map((t) => ({ physicalName: physicalTableName(key, t.name), table: appTable(t) })),
        existing,
        m.tables.map(appTable),
        { physicalName: (t) => physicalTableName(key, t), dialect: info.dialect },
      );
      if (ddl.conflicts.length)
        throw new AppError('ADDON_CONFLICT', {
          message: `The connection already has a table ${ddl.conflicts[0]!.table}.`,
          params: { what: 'table', name: ddl.conflicts[0]!.table },
        });
      if (ddl.refusals.length) throw new AppError('CONFLICT', { message: ddl.refusals[0]!, params: { reason: 'ddl-refused' } });
      if (ddl.destructive)
        throw new AppError('ADDON_CONFLICT', {
          message: 'The connection holds tables of this app in another shape; they would have to be altered destructively.',
          params: { what: 'table', name: ddl.tables.find((t) => t.action !== 'keep' && t.action !== 'create')?.name ?? names[0] },
        });
    }
    const plan = additivePlan(key, connectionId, ddl);
    await this.carryOut(
      { plan, ddl },
      false,
      () => this.prepareEndpoints(m, connectionId, installed.settings),
      async (trx, prepared) => {
        await this.installed.update(addonsDb(trx), key, { connectionId }, this.kernel.now());
        return (await this.writeEndpoints(trx, m, connectionId, prepared, by, installed.enabled)).keyIds;
      },
    );
    await this.changed(key);
    return { before: installed, after: await this.require(key) };
  }

  /**
   * PUT /surfaces/instances (D28): the app's named instances become `input`, in that order.
   * Each has its own settings (checked against the app's schema; a setting left out keeps the
   * instance's value, or for a new instance the app's own) and its own app key, whose every
   * endpoint reaches only rows whose instance column holds its id. An instance left out is
   * removed with its key, refused with 409 ADDON_INSTANCE_NOT_EMPTY while any app table holds
   * rows of it. The instance column is added to the app's tables first when an install made
   * before instances existed lacks it (additive: its rows belong to the default instance).
   */
  async putInstances(
    by: string | null,
    key: string,
    input: ReadonlyArray<{ id: string; name: string; settings?: Record<string, unknown> | undefined }>,
  ): Promise<{ before: AppInstance[]; after: AppInstance[]; created: InstanceKeyWritten[] }> {
    const installed = await this.require(key);
    const m = installed.manifest;
    const before = await this.instances.list(key);
    const issues: Array<{ path: string; code: string; message: string }> = [];
    const seen = new Set<string>();
    input.forEach((i, n) => {
      if (i.id === DEFAULT_INSTANCE)
        issues.push({ path: `body.instances.${n}.id`, code: 'reserved', message: `${DEFAULT_INSTANCE} is the app's own instance; name the others.` });
      else if (seen.has(i.id)) issues.push({ path: `body.instances.${n}.id`, code: 'duplicate', message: `The instance ${i.id} is listed twice.` });
      seen.add(i.id);
    });
    if (issues.length) throw new AppError('VALIDATION_FAILED', { issues });
    const after: AppInstance[] = input.map((i, n) => ({
      id: i.id,
      name: i.name,
      settings: settingsToStore(
        m.settings,
        i.settings ?? {},
        before.find((b) => b.id === i.id)?.settings ?? installed.settings,
        this.box,
        `body.instances.${n}.settings`,
      ),
    }));
    const removed = before.filter((b) => !after.some((a) => a.id === b.id)).map((b) => b.id);
    const connectionId = installed.connectionId;
    let ddl: PlanOutcome['ddl'] = null;
    if (connectionId && m.tables.length) {
      const info = await this.connections.info(connectionId);
      const names = m.tables.map((t) => physicalTableName(key, t.name));
      const existing = await this.connections.withSource(connectionId, async (db) => {
        const tables = (await introspect(db, info.dialect)).model.tables;
        for (const name of names) {
          const t = tables.find((x) => x.name === name);
          if (!t || !removed.length || !t.columns.some((c) => c.name === INSTANCE_COLUMN)) continue;
          for (const id of removed) {
            const row = await db
              .selectFrom(name)
              .select((eb) => eb.fn.countAll().as('n'))
              .where(INSTANCE_COLUMN, '=', id)
              .executeTakeFirst();
            const rows = Number((row as { n?: unknown } | undefined)?.n ?? 0);
            if (rows > 0)
              throw new AppError('ADDON_INSTANCE_NOT_EMPTY', {
                message: `${name} holds ${rows} row(s) of the instance ${id}: delete them first, or keep the instance.`,
                params: { instance: id, table: name, rows },
              });
          }
        }
        return tables;
      });
      ddl = planTables(
        m.tables.map((t) => ({ physicalName: physicalTableName(key, t.name), table: appTable(t) })),
        existing,
        m.tables.map(appTable),
        { physicalName: (t) => physicalTableName(key, t), dialect: info.dialect },
      );
      if (ddl.conflicts.length || ddl.refusals.length || ddl.destructive)
        throw new AppError('CONFLICT', {
          message: ddl.refusals[0] ?? "The app's tables are not in the shape its manifest declares: upgrade or repair them first.",
          params: { reason: 'ddl-refused' },
        });
      if (ddl.tables.every((t) => t.action === 'keep')) ddl = null;
    }
    const plan = additivePlan(key, connectionId, ddl);
    const created: InstanceKeyWritten[] = [];
    await this.carryOut(
      { plan, ddl },
      false,
      () => this.prepareEndpoints(m, connectionId, installed.settings, after),
      async (trx, prepared) => {
        await this.instances.replace(addonsDb(trx), key, after, this.kernel.now());
        // A host name mapped to a removed instance's page would serve a key that no longer exists.
        if (removed.length) await addonsDb(trx).deleteFrom('addon_domains').where('addon_key', '=', key).where('instance_id', 'in', removed).execute();
        // The instances' rows in addons.updated_at: other replicas' runtimes poll that stamp.
        await this.installed.update(addonsDb(trx), key, {}, this.kernel.now());
        const written = await this.writeEndpoints(trx, m, connectionId, prepared, by, installed.enabled);
        created.push(...written.instanceKeys.filter((k) => k.secret !== null));
        return written.keyIds;
      },
    );
    await this.changed(key);
    if (removed.length) await this.domains.reload();
    return { before, after: await this.instances.list(key), created };
  }

  /**
   * The app key a surface of `appKey` carries for an instance (D28): the default instance's
   * with `instance` null or `default`, a named instance's otherwise. For the bundle's
   * `?instance=` and for the domains a host is mapped to. 404 ADDON_INSTANCE_NOT_FOUND for an
   * instance the app does not have; null when the app has no key (no endpoints).
   */
  async appKeyFor(appKey: string, instance: string | null): Promise<{ id: string; secret: string } | null> {
    const named = instance !== null && instance !== DEFAULT_INSTANCE ? instance : null;
    if (named !== null && !(await this.instances.list(appKey)).some((i) => i.id === named))
      throw new AppError('ADDON_INSTANCE_NOT_FOUND', { params: { key: appKey, instance: named } });
    return this.publicAdmin.apps.appKeySecret(appKey, named);
  }

  /** PATCH: enable, disable, settings (checked against the manifest; secrets write-only). */
  async patch(
    key: string,
    body: { enabled?: boolean | undefined; settings?: Record<string, unknown> | undefined },
  ): Promise<{ before: InstalledAddon; after: InstalledAddon }> {
    const before = await this.require(key);
    const settings: StoredSettings | undefined =
      body.settings === undefined ? undefined : settingsToStore(before.manifest.settings, body.settings, before.settings, this.box);
    const m = before.manifest;
    // Settings that booking rules take (withBookingSettings) change the endpoints with them.
    const prepared = settings !== undefined && m.endpoints.some((e) => e.booking) ? await this.prepareEndpoints(m, before.connectionId, settings) : null;
    const keyIds: string[] = [];
    try {
      await this.kernel.db.transaction().execute(async (trx) => {
        await this.installed.update(
          addonsDb(trx),
          key,
          { ...(body.enabled === undefined ? {} : { enabled: body.enabled }), ...(settings === undefined ? {} : { settings }) },
          this.kernel.now(),
        );
        if (prepared) keyIds.push(...(await this.writeEndpoints(trx, m, before.connectionId, prepared, null, body.enabled ?? before.enabled)).keyIds);
        if (body.enabled !== undefined && body.enabled !== before.enabled) keyIds.push(...(await this.publicAdmin.apps.setSuspended(trx, key, !body.enabled)));
      });
    } finally {
      if (keyIds.length || prepared) await this.publicAdmin.apps.changed(keyIds).catch(() => undefined);
    }
    await this.changed(key);
    return { before, after: await this.require(key) };
  }

  /** DELETE: the add-on, its endpoints and app key go; its tables stay unless `dropData`. */
  async remove(key: string, dropData: boolean): Promise<{ removed: InstalledAddon; droppedTables: string[] }> {
    const installed = await this.require(key);
    const keyId = await this.publicAdminKeyId(key);
    const keyIds = [...(keyId ? [keyId] : []), ...[...(await this.publicAdmin.apps.instanceKeys(key)).values()].map((k) => k.id)];
    try {
      await this.kernel.db.transaction().execute(async (trx) => {
        await this.publicAdmin.apps.remove(trx, key);
        await this.installed.remove(addonsDb(trx), key);
        await this.connects.forget(key, addonsDb(trx));
      });
    } finally {
      await this.publicAdmin.apps.changed(keyIds).catch(() => undefined);
    }
    await this.changed(key);
    const droppedTables: string[] = [];
    const connectionId = installed.connectionId;
    if (dropData && connectionId && installed.manifest.tables.length) {
      const names = installed.manifest.tables.map((t) => physicalTableName(key, t.name));
      const dialect = (await this.connections.info(connectionId)).dialect;
      await this.connections.withSource(connectionId, (db) => dropTables(db, dialect, names));
      droppedTables.push(...names);
      await this.schema.introspect(connectionId).catch(() => undefined);
    }
    return { removed: installed, droppedTables };
  }
}

/** What the view says of an add-on's connect (D29): never the fields' values. */
function connectView(a: InstalledAddon, status: ConnectionStatus | null): Pick<AddonView, 'connect' | 'connected' | 'connectedAt' | 'connectionExpiresAt'> {
  const c = a.manifest.connect;
  if (!c) return { connect: null, connected: false, connectedAt: null, connectionExpiresAt: null };
  return {
    connect: {
      kind: c.kind,
      fields:
        c.kind === 'secret'
          ? c.fields.map((f) => ({
              name: f.name,
              label: f.label,
              ...(f.description === undefined ? {} : { description: f.description }),
              optional: f.optional === true,
            }))
          : [],
      scopes: c.kind === 'oauth2' ? [...c.scopes] : [],
    },
    connected: status !== null,
    connectedAt: status?.connectedAt ?? null,
    connectionExpiresAt: status?.expiresAt ?? null,
  };
}
