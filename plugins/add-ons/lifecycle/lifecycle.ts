import { physicalTableName, type AddonManifest } from '../../../addons-sdk/src/manifest/index.js';
import { AppError, type ErrorIssue } from '../../../kernel/api.js';
import { dropTables, planTables } from '../../../engine/schema/ddl/index.js';
import { introspect } from '../../../engine/schema/introspect/index.js';
import type { InstanceKeyWritten } from '../../public-admin/provides.js';
import { pagesRef } from '../../pages/provides.js';
import { addonsDb } from '../tables.js';
import { additivePlan, LifecycleSteps } from './carry-out.js';
import type { InstalledAddon } from './installed.js';
import { appTable, DEFAULT_INSTANCE, INSTANCE_COLUMN, type AppInstance } from './instances.js';
import { connectionForgotten, planInstall, planRemoval, type AddonPlan, type PlanOutcome } from './plan.js';
import { carrySettings, settingsToStore, upgradeSettings, type SettingChange, type StoredSettings } from './settings-values.js';

/** The add-on lifecycle's writes (D24): plan, install, upgrade, settings, enable and disable, connection and instances, removal. */
export class AddonLifecycle extends LifecycleSteps {
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
      settings:
        collect(() => upgradeSettings(from, m.settings, i.settings, body.instanceSettings?.[i.id] ?? {}, this.box, `body.instanceSettings.${i.id}`)) ?? {},
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
        await this.kernel.plugin(pagesRef).nav.removeApp(key, trx);
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
