import type { AddonEndpoint } from '../../addons-sdk/src/manifest/index.js';
import { AppError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import type { MetaDb } from '../../kernel/meta/types.js';
import { definitionPatch, storedPart, type StoredDefinition } from './definition.js';
import { generatedDefinition } from './generate.js';
import type { PublicMethod } from './provides.js';
import { check, merge } from './scope-ops.js';
import { refKey } from './scopes-store.js';
import type { PublicAdminService } from './service.js';
import { publicAdminDb } from './tables.js';

/** One endpoint of an app, as its install asks for it. */
export interface AppEndpointRequest {
  /** The served ref, `<key>-<ref>` (D23). */
  ref: string;
  /** The table's name on the connection (`<key>__<table>`). */
  table: string;
  definition: Omit<AddonEndpoint, 'ref' | 'table'>;
}

export interface PreparedAppEndpoint {
  ref: string;
  table: string;
  definition: StoredDefinition;
}

/**
 * The public side of an app (D23, D27): its endpoints (public_scopes rows marked with the
 * add-on) and its app key. Written inside the install's meta transaction, so an install that
 * fails leaves no endpoint or key behind.
 */
export class AppEndpoints {
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
  async write(
    trx: MetaDb,
    input: { addonKey: string; name: string; connectionId: string; peak: number; endpoints: PreparedAppEndpoint[]; createdBy: string | null },
  ): Promise<{ keyId: string | null; secret: string | null }> {
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
    const key = await db.selectFrom('public_keys').select('id').where('addon_key', '=', input.addonKey).where('revoked_at', 'is', null).executeTakeFirst();
    if (key) {
      await this.service.keys.writeGrants(db, key.id, grants);
      await db.updateTable('public_keys').set({ peak: input.peak }).where('id', '=', key.id).execute();
      return { keyId: key.id, secret: null };
    }
    if (grants.length === 0) return { keyId: null, secret: null };
    const created = await this.service.keys.createAppKey(db, {
      addonKey: input.addonKey,
      name: input.name,
      peak: input.peak,
      grants,
      createdBy: input.createdBy,
    });
    return { keyId: created.id, secret: created.secret };
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

  /** Stops or restarts the app's key with its app (D27: a disabled app's key answers 401). Answers the key's id. */
  async setSuspended(trx: MetaDb, addonKey: string, suspended: boolean): Promise<string | null> {
    const db = publicAdminDb(trx);
    const key = await db.selectFrom('public_keys').select('id').where('addon_key', '=', addonKey).where('revoked_at', 'is', null).executeTakeFirst();
    if (!key) return null;
    await db
      .updateTable('public_keys')
      .set({ suspended_at: suspended ? Date.now() : null })
      .where('id', '=', key.id)
      .execute();
    return key.id;
  }

  /** After the install's transaction committed (or rolled back): caches and other replicas. */
  async changed(keyIds: string[]): Promise<void> {
    this.service.endpointsChanged();
    for (const id of keyIds) await this.service.revoked(id);
    await this.service.announce('scopes');
    await this.service.announce('keys');
  }

  /** The app key's secret (a browser key, so it can be revealed). */
  /** The live app keys of these add-ons, by add-on key, without opening their secrets. */
  appKeyIds(addonKeys: readonly string[]): Promise<Map<string, string>> {
    return this.service.keys.appKeyIds(addonKeys);
  }

  async appKeySecret(addonKey: string): Promise<{ id: string; secret: string } | null> {
    const id = await this.service.keys.appKeyId(addonKey);
    return id === null ? null : { id, secret: (await this.service.keys.reveal(id)).secret };
  }
}
