import { AppError, type MetaDb, newId } from '../../../kernel/api.js';
import { definitionPatch, storedPart } from '../endpoints/definition.js';
import { generatedDefinition } from '../endpoints/generate.js';
import type {
  AppEndpointRequest,
  AppEndpointsWrite,
  AppEndpointsWritten,
  AppInstanceKeys,
  InstanceKeyWritten,
  PreparedAppEndpoint,
  PublicAdminApps,
  PublicMethod,
} from '../provides.js';
import { check, merge } from '../scopes/scope-ops.js';
import { refKey } from '../endpoints/scopes-store.js';
import type { PublicAdminService } from '../service.js';
import { publicAdminDb } from '../tables.js';

/**
 * The public side of an app (D23, D27): its endpoints (public_scopes rows marked with the
 * add-on) and its app key. Written inside the install's meta transaction, so an install that
 * fails leaves no endpoint or key behind.
 */
export class AppEndpoints implements PublicAdminApps {
  constructor(private readonly service: PublicAdminService) {}

  /**
   * The definitions the endpoints will have, checked against the connection's schema as it is
   * now (the app's tables must already exist there). A ref another endpoint holds → 409
   * ADDON_CONFLICT.
   */
  async prepare(addonKey: string, connectionId: string, requests: AppEndpointRequest[]): Promise<PreparedAppEndpoint[]> {
    this.service.invalidate();
    const catalog = await this.service.catalog();
    return requests.map((r, i) => {
      const clash = catalog.entries.find((e) => refKey(e.def.ref) === refKey(r.ref) && e.def.addonKey !== addonKey);
      if (clash) throw new AppError('ADDON_CONFLICT', { message: `The endpoint ref ${r.ref} is taken.`, params: { what: 'endpoint', name: r.ref } });
      const ctx = catalog.context(connectionId, r.table);
      if (!ctx) throw new Error(`app table ${r.table} is not in the schema of connection ${connectionId}`);
      const def = merge(storedPart(generatedDefinition(ctx, r.ref)), definitionPatch(r.definition));
      try {
        check(ctx, def);
      } catch (err) {
        if (err instanceof AppError && err.issues) {
          throw new AppError('ADDON_PACKAGE_INVALID', {
            message: `Endpoint ${r.ref}: ${err.issues[0]?.message ?? 'not valid'}`,
            params: { reason: 'endpoint-invalid', path: `endpoints.${i}` },
          });
        }
        throw err;
      }
      return { ref: r.ref, table: r.table, definition: def };
    });
  }

  /**
   * Replaces the app's endpoints with `endpoints` and gives its key exactly those grants; creates
   * the key when the app has none. Returns the key's secret when it was created.
   */
  async write(trx: MetaDb, input: AppEndpointsWrite): Promise<AppEndpointsWritten> {
    const db = publicAdminDb(trx);
    const now = Date.now();
    const old = await db.selectFrom('public_scopes').select('id').where('addon_key', '=', input.addonKey).execute();
    if (old.length) {
      await db
        .deleteFrom('public_key_grants')
        .where(
          'scope_id',
          'in',
          old.map((o) => o.id),
        )
        .execute();
      await db.deleteFrom('public_scopes').where('addon_key', '=', input.addonKey).execute();
    }
    const grants: Array<{ scopeId: string; methods: PublicMethod[] }> = [];
    for (const e of input.endpoints) {
      const id = newId(now);
      await db
        .insertInto('public_scopes')
        .values({
          id,
          ref: e.ref,
          ref_key: refKey(e.ref),
          connection_id: input.connectionId,
          table_ref: e.table,
          generated_key: null,
          edited: 1,
          definition: JSON.stringify(e.definition),
          addon_key: input.addonKey,
          created_at: now,
          updated_at: now,
        })
        .execute();
      grants.push({ scopeId: id, methods: e.definition.methods });
    }
    const key = await db
      .selectFrom('public_keys')
      .select('id')
      .where('addon_key', '=', input.addonKey)
      .where('addon_instance', 'is', null)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    let base: { keyId: string | null; secret: string | null } = { keyId: null, secret: null };
    if (key) {
      await this.service.keys.writeGrants(db, key.id, grants);
      await db.updateTable('public_keys').set({ peak: input.peak }).where('id', '=', key.id).execute();
      base = { keyId: key.id, secret: null };
    } else if (grants.length > 0) {
      const created = await this.service.keys.createAppKey(db, {
        addonKey: input.addonKey,
        name: input.name,
        peak: input.peak,
        grants,
        createdBy: input.createdBy,
      });
      base = { keyId: created.id, secret: created.secret };
    }
    const { written, revoked } = await this.writeInstanceKeys(db, input, grants);
    await this.suspend(db, input.addonKey, input.suspended);
    const keyIds = [...(base.keyId ? [base.keyId] : []), ...written.map((k) => k.keyId), ...revoked];
    return { ...base, instanceKeys: written, keyIds };
  }

  /** The instances' keys (D28): updated in place, created for new instances, revoked for instances gone. */
  private async writeInstanceKeys(
    db: ReturnType<typeof publicAdminDb>,
    input: { addonKey: string; name: string; peak: number; createdBy: string | null; instances?: AppInstanceKeys[] },
    grants: Array<{ scopeId: string; methods: PublicMethod[] }>,
  ): Promise<{ written: InstanceKeyWritten[]; revoked: string[] }> {
    const existing = await this.service.keys.instanceKeys(input.addonKey, db);
    const wanted = grants.length > 0 ? (input.instances ?? []) : [];
    const out: InstanceKeyWritten[] = [];
    const gone = [...existing].filter(([id]) => !wanted.some((w) => w.id === id)).map(([, k]) => k.id);
    if (gone.length) {
      await db.deleteFrom('public_key_grants').where('key_id', 'in', gone).execute();
      await db.updateTable('public_keys').set({ revoked_at: Date.now() }).where('id', 'in', gone).execute();
    }
    for (const w of wanted) {
      const had = existing.get(w.id);
      if (had) {
        await this.service.keys.writeGrants(db, had.id, grants);
        await db
          .updateTable('public_keys')
          .set({ peak: input.peak, instance_rules: JSON.stringify(w.rules), name: `${input.name} · ${w.name}`.slice(0, 120) })
          .where('id', '=', had.id)
          .execute();
        out.push({ instance: w.id, keyId: had.id, prefix: had.prefix, secret: null });
        continue;
      }
      const created = await this.service.keys.createAppKey(db, {
        addonKey: input.addonKey,
        name: `${input.name} · ${w.name}`.slice(0, 120),
        peak: input.peak,
        grants,
        createdBy: input.createdBy,
        instance: { id: w.id, rules: w.rules },
      });
      out.push({ instance: w.id, keyId: created.id, prefix: created.prefix, secret: created.secret });
    }
    return { written: out, revoked: gone };
  }

  /** Removes the app's endpoints and key (D27: the key goes with the app). */
  async remove(trx: MetaDb, addonKey: string): Promise<{ endpoints: number; keys: number }> {
    const db = publicAdminDb(trx);
    const scopes = await db.selectFrom('public_scopes').select('id').where('addon_key', '=', addonKey).execute();
    const keys = await db.selectFrom('public_keys').select('id').where('addon_key', '=', addonKey).execute();
    if (scopes.length)
      await db
        .deleteFrom('public_key_grants')
        .where(
          'scope_id',
          'in',
          scopes.map((s) => s.id),
        )
        .execute();
    if (keys.length) {
      await db
        .deleteFrom('public_key_grants')
        .where(
          'key_id',
          'in',
          keys.map((k) => k.id),
        )
        .execute();
      await db
        .updateTable('public_keys')
        .set({ revoked_at: Date.now() })
        .where(
          'id',
          'in',
          keys.map((k) => k.id),
        )
        .where('revoked_at', 'is', null)
        .execute();
    }
    await db.deleteFrom('public_scopes').where('addon_key', '=', addonKey).execute();
    return { endpoints: scopes.length, keys: keys.length };
  }

  /** Stops or restarts the app's keys (its instances' too) with its app (D27: a disabled app's key answers 401). Answers the keys' ids. */
  async setSuspended(trx: MetaDb, addonKey: string, suspended: boolean): Promise<string[]> {
    return this.suspend(publicAdminDb(trx), addonKey, suspended);
  }

  /** A key already in the asked state keeps its stamp (other replicas poll `suspended_at`). */
  private async suspend(db: ReturnType<typeof publicAdminDb>, addonKey: string, suspended: boolean): Promise<string[]> {
    const ids = (await db.selectFrom('public_keys').select('id').where('addon_key', '=', addonKey).where('revoked_at', 'is', null).execute()).map((k) => k.id);
    if (ids.length === 0) return [];
    await db
      .updateTable('public_keys')
      .set({ suspended_at: suspended ? Date.now() : null })
      .where('id', 'in', ids)
      .where('suspended_at', suspended ? 'is' : 'is not', null)
      .execute();
    return ids;
  }

  /** After the install's transaction committed (or rolled back): caches and other replicas. */
  async changed(keyIds: string[]): Promise<void> {
    this.service.endpointsChanged();
    for (const id of keyIds) await this.service.revoked(id);
    await this.service.announce('scopes');
    await this.service.announce('keys');
  }

  /** The live app keys of these add-ons, by add-on key, without opening their secrets. */
  appKeyIds(addonKeys: readonly string[]): Promise<Map<string, string>> {
    return this.service.keys.appKeyIds(addonKeys);
  }

  /** The live keys of an app's named instances (D28): instance id → key id and prefix. */
  instanceKeys(addonKey: string): Promise<Map<string, { id: string; prefix: string }>> {
    return this.service.keys.instanceKeys(addonKey);
  }

  /** The app key's secret: its default instance's (`instance` null) or a named instance's. */
  async appKeySecret(addonKey: string, instance: string | null = null): Promise<{ id: string; secret: string } | null> {
    const id = await this.service.keys.appKeyId(addonKey, instance);
    return id === null ? null : { id, secret: (await this.service.keys.reveal(id)).secret };
  }
}
