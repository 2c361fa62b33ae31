import { AppError, constantTimeEqual, hashToken, newId, randomToken, type SecretBox } from '../../../kernel/api.js';
import type { InstanceRule, PublicKey, PublicKeyGrant, PublicMethod } from '../provides.js';
import type { PublicAdminDb, PublicAdminTables } from '../tables.js';

export type KeyKind = 'browser' | 'server';
export type KeyExpiry = '30d' | '90d' | 'never';

export const KEY_PREFIX: Record<KeyKind, string> = { browser: 'adm_pub_', server: 'adm_srv_' };
const PREFIX_LENGTH = 12;
const LIFETIME_MS: Record<KeyExpiry, number | null> = { '30d': 30 * 86_400_000, '90d': 90 * 86_400_000, never: null };
const TOKEN = /^adm_(pub|srv)_[A-Za-z0-9_-]{20,100}$/;

type KeyRow = PublicAdminTables['public_keys'];

export interface StoredKey extends PublicKey {
  expires: KeyExpiry;
  revealable: boolean;
  /** Stopped with its disabled app (D27): answers 401 until the app is enabled again. */
  suspended: boolean;
}

/** Public keys (D19). The store keeps a hash of each secret; a browser key's secret also sealed, so it can be shown again. */
export class KeyStore {
  constructor(
    private readonly db: PublicAdminDb,
    private readonly box: SecretBox,
    private readonly now: () => number,
  ) {}

  /** Whether an operator's key (not an app's) is live: not revoked, not expired. */
  async anyLive(): Promise<boolean> {
    const row = await this.db
      .selectFrom('public_keys')
      .select('id')
      .where('revoked_at', 'is', null)
      .where('addon_key', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', this.now())]))
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  private mint(kind: KeyKind, expires: KeyExpiry) {
    const now = this.now();
    const secret = KEY_PREFIX[kind] + randomToken(32);
    const life = LIFETIME_MS[expires];
    return {
      secret,
      fields: {
        prefix: secret.slice(0, PREFIX_LENGTH),
        key_hash: hashToken(secret),
        // Server keys are shown once: nothing but the hash is kept of them.
        secret_sealed: kind === 'browser' ? this.box.encrypt(secret) : null,
        expires_at: life === null ? null : now + life,
      },
    };
  }

  private async grantsOf(keyIds: string[]): Promise<Map<string, PublicKeyGrant[]>> {
    const out = new Map<string, PublicKeyGrant[]>(keyIds.map((id) => [id, []]));
    if (keyIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('public_key_grants as g')
      .innerJoin('public_scopes as s', 's.id', 'g.scope_id')
      .select(['g.key_id', 's.ref', 'g.methods'])
      .where('g.key_id', 'in', keyIds)
      .orderBy('s.ref_key')
      .execute();
    for (const r of rows) out.get(r.key_id)!.push({ ref: r.ref, methods: JSON.parse(r.methods) as PublicMethod[] });
    return out;
  }

  private toKey(row: KeyRow, grants: PublicKeyGrant[]): StoredKey {
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      prefix: row.prefix,
      grants,
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      createdAt: Number(row.created_at),
      appKey: row.addon_key
        ? {
            addonKey: row.addon_key,
            peak: Number(row.peak ?? 1),
            instance: row.addon_instance ?? null,
            rules: row.instance_rules ? (JSON.parse(row.instance_rules) as Record<string, InstanceRule>) : null,
          }
        : null,
      expires: row.expires,
      revealable: row.secret_sealed !== null,
      suspended: row.suspended_at !== null,
    };
  }

  async create(input: {
    name: string;
    kind: KeyKind;
    expires: KeyExpiry;
    grants: Array<{ scopeId: string; methods: PublicMethod[] }>;
    createdBy: string | null;
  }): Promise<{ key: StoredKey; secret: string }> {
    const now = this.now();
    const { secret, fields } = this.mint(input.kind, input.expires);
    const row: KeyRow = {
      id: newId(now),
      name: input.name,
      kind: input.kind,
      expires: input.expires,
      addon_key: null,
      peak: null,
      created_by: input.createdBy,
      created_at: now,
      rotated_at: null,
      revoked_at: null,
      suspended_at: null,
      addon_instance: null,
      instance_rules: null,
      ...fields,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('public_keys').values(row).execute();
      for (const g of input.grants)
        await trx
          .insertInto('public_key_grants')
          .values({ key_id: row.id, scope_id: g.scopeId, methods: JSON.stringify(g.methods) })
          .execute();
    });
    return { key: this.toKey(row, (await this.grantsOf([row.id])).get(row.id)!), secret };
  }

  /**
   * An app key (D27): a browser key owned by an add-on, written inside the caller's meta
   * transaction (the install's), granting exactly `grants`.
   */
  async createAppKey(
    trx: PublicAdminDb,
    input: {
      addonKey: string;
      name: string;
      peak: number;
      grants: Array<{ scopeId: string; methods: PublicMethod[] }>;
      createdBy: string | null;
      /** A named instance's key (D28) and what it reaches; absent for the app's default key. */
      instance?: { id: string; rules: Record<string, InstanceRule> };
    },
  ): Promise<{ id: string; secret: string; prefix: string }> {
    const now = this.now();
    const { secret, fields } = this.mint('browser', 'never');
    const id = newId(now);
    await trx
      .insertInto('public_keys')
      .values({
        id,
        name: input.name,
        kind: 'browser',
        expires: 'never',
        addon_key: input.addonKey,
        peak: input.peak,
        created_by: input.createdBy,
        created_at: now,
        rotated_at: null,
        revoked_at: null,
        suspended_at: null,
        addon_instance: input.instance?.id ?? null,
        instance_rules: input.instance ? JSON.stringify(input.instance.rules) : null,
        ...fields,
      })
      .execute();
    await this.writeGrants(trx, id, input.grants);
    return { id, secret, prefix: fields.prefix };
  }

  /** The live app key of an add-on's default instance (`instance` null) or of one of its named instances, or null. */
  async appKeyId(addonKey: string, instance: string | null = null): Promise<string | null> {
    let q = this.db.selectFrom('public_keys').select('id').where('addon_key', '=', addonKey).where('revoked_at', 'is', null);
    q = instance === null ? q.where('addon_instance', 'is', null) : q.where('addon_instance', '=', instance);
    const row = await q.executeTakeFirst();
    return row?.id ?? null;
  }

  /** The live keys of an app's named instances: instance id → key id and prefix. */
  async instanceKeys(addonKey: string, db: PublicAdminDb = this.db): Promise<Map<string, { id: string; prefix: string }>> {
    const rows = await db
      .selectFrom('public_keys')
      .select(['id', 'prefix', 'addon_instance'])
      .where('addon_key', '=', addonKey)
      .where('addon_instance', 'is not', null)
      .where('revoked_at', 'is', null)
      .execute();
    return new Map(rows.map((r) => [r.addon_instance!, { id: r.id, prefix: r.prefix }]));
  }

  /** The live app keys of these add-ons, by add-on key (one query for a list of add-ons). */
  async appKeyIds(addonKeys: readonly string[]): Promise<Map<string, string>> {
    if (addonKeys.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('public_keys')
      .select(['id', 'addon_key'])
      .where('addon_key', 'in', [...addonKeys])
      .where('addon_instance', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
    return new Map(rows.map((r) => [r.addon_key!, r.id]));
  }

  /** Replaces a key's grants (an app key's, when its app is upgraded). */
  async writeGrants(trx: PublicAdminDb, keyId: string, grants: Array<{ scopeId: string; methods: PublicMethod[] }>): Promise<void> {
    await trx.deleteFrom('public_key_grants').where('key_id', '=', keyId).execute();
    for (const g of grants)
      await trx
        .insertInto('public_key_grants')
        .values({ key_id: keyId, scope_id: g.scopeId, methods: JSON.stringify(g.methods) })
        .execute();
  }

  /** Keys not revoked (expired ones included, marked by expiresAt), in creation order. */
  async list(limit: number, afterId?: string): Promise<{ keys: StoredKey[]; nextId: string | null }> {
    let q = this.db
      .selectFrom('public_keys')
      .selectAll()
      .where('revoked_at', 'is', null)
      .orderBy('id')
      .limit(limit + 1);
    if (afterId) q = q.where('id', '>', afterId);
    const rows = await q.execute();
    const page = rows.slice(0, limit);
    const grants = await this.grantsOf(page.map((r) => r.id));
    return { keys: page.map((r) => this.toKey(r, grants.get(r.id)!)), nextId: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  private async liveRow(id: string): Promise<KeyRow> {
    const row = await this.db.selectFrom('public_keys').selectAll().where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', { message: 'No such public key (or it was revoked).' });
    return row;
  }

  async get(id: string): Promise<StoredKey> {
    const row = await this.liveRow(id);
    return this.toKey(row, (await this.grantsOf([id])).get(id)!);
  }

  async reveal(id: string): Promise<{ key: StoredKey; secret: string }> {
    const row = await this.liveRow(id);
    if (row.kind !== 'browser' || !row.secret_sealed) throw new AppError('PUBLIC_KEY_NOT_REVEALABLE', { params: { id, kind: row.kind } });
    return { key: this.toKey(row, (await this.grantsOf([id])).get(id)!), secret: this.box.decrypt(row.secret_sealed) };
  }

  /**
   * A new secret in place of the old, which stops at once (its hash is gone). The key keeps its
   * id, name and grants, and its lifetime starts again from now with the choice made at creation.
   */
  async rotate(id: string): Promise<{ key: StoredKey; secret: string }> {
    const row = await this.liveRow(id);
    const { secret, fields } = this.mint(row.kind, row.expires);
    const res = await this.db
      .updateTable('public_keys')
      .set({ ...fields, rotated_at: this.now() })
      .where('id', '=', id)
      .where('key_hash', '=', row.key_hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    // Lost to a simultaneous rotate or revoke: that one's outcome stands.
    if (Number(res.numUpdatedRows) === 0) throw new AppError('CONFLICT', { params: { reason: 'key-changed' } });
    return { key: await this.get(id), secret };
  }

  async revoke(id: string): Promise<StoredKey> {
    const key = await this.get(id);
    const res = await this.db
      .updateTable('public_keys')
      .set({ revoked_at: this.now() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new AppError('NOT_FOUND', { message: 'No such public key (or it was revoked).' });
    return key;
  }

  /** The live key behind a bearer token, or null (unknown, revoked, expired, or a kind its prefix denies). */
  async forToken(token: string): Promise<PublicKey | null> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return null;
    const hash = hashToken(token);
    const row = await this.db.selectFrom('public_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
    if (!row || !constantTimeEqual(row.key_hash, hash)) return null;
    if (row.revoked_at !== null || row.suspended_at !== null) return null;
    if (row.expires_at !== null && Number(row.expires_at) <= this.now()) return null;
    if (!token.startsWith(KEY_PREFIX[row.kind])) return null;
    const { expires: _e, revealable: _r, suspended: _s, ...key } = this.toKey(row, (await this.grantsOf([row.id])).get(row.id)!);
    return key;
  }

  /** Ids of keys revoked or rotated since `since`, for caches on this replica. */
  async changedSince(since: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('public_keys')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('revoked_at', '>=', since),
          eb('rotated_at', '>=', since),
          eb('suspended_at', '>=', since),
          eb.and([eb('expires_at', '>=', since), eb('expires_at', '<=', this.now())]),
        ]),
      )
      .execute();
    return rows.map((r) => r.id);
  }
}
