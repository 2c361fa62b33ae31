import { newId } from '../../../kernel/api.js';
import { storedDefinitionSchema, type StoredDefinition } from './definition.js';
import type { StoredRow } from './resolve.js';
import type { PublicAdminDb, PublicAdminTables } from '../tables.js';

type Row = PublicAdminTables['public_scopes'];

// A connection id never holds a colon, so this is unambiguous (and PostgreSQL text takes no NUL).
export const generatedKey = (connectionId: string, table: string) => `${connectionId}:${table}`;
export const refKey = (ref: string) => ref.toLowerCase();

function toStored(row: Row): StoredRow | null {
  // A definition an older release wrote that no longer parses is skipped, not served half-read.
  const parsed = storedDefinitionSchema.safeParse(JSON.parse(row.definition));
  if (!parsed.success) return null;
  return {
    id: row.id,
    ref: row.ref,
    connectionId: row.connection_id,
    table: row.table_ref,
    generated: row.generated_key !== null,
    edited: Number(row.edited) === 1,
    addonKey: row.addon_key,
    definition: parsed.data as StoredDefinition,
  };
}

/** Stored endpoints (public_scopes rows) and who grants them. */
export class ScopeStore {
  constructor(
    readonly db: PublicAdminDb,
    private readonly now: () => number,
  ) {}

  async all(): Promise<Array<StoredRow & { createdAt: number; updatedAt: number }>> {
    const rows = await this.db.selectFrom('public_scopes').selectAll().orderBy('ref_key').execute();
    return rows.flatMap((r) => {
      const s = toStored(r);
      return s ? [{ ...s, createdAt: Number(r.created_at), updatedAt: Number(r.updated_at) }] : [];
    });
  }

  async byId(id: string): Promise<StoredRow | null> {
    const row = await this.db.selectFrom('public_scopes').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toStored(row) : null;
  }

  async byGeneratedKey(connectionId: string, table: string): Promise<StoredRow | null> {
    const row = await this.db.selectFrom('public_scopes').selectAll().where('generated_key', '=', generatedKey(connectionId, table)).executeTakeFirst();
    return row ? toStored(row) : null;
  }

  async refTaken(ref: string, exceptId?: string): Promise<boolean> {
    let q = this.db.selectFrom('public_scopes').select('id').where('ref_key', '=', refKey(ref));
    if (exceptId) q = q.where('id', '!=', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  /**
   * Stores an endpoint. For a table's generated endpoint, a simultaneous store of the same one
   * (two keys granting it at once) loses on the unique generated_key and reads the winner's row.
   */
  async insert(input: {
    ref: string;
    connectionId: string;
    table: string;
    generated: boolean;
    edited: boolean;
    definition: StoredDefinition;
  }): Promise<StoredRow> {
    const now = this.now();
    const row: Row = {
      id: newId(now),
      ref: input.ref,
      ref_key: refKey(input.ref),
      connection_id: input.connectionId,
      table_ref: input.table,
      generated_key: input.generated ? generatedKey(input.connectionId, input.table) : null,
      edited: input.edited ? 1 : 0,
      definition: JSON.stringify(input.definition),
      addon_key: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.insertInto('public_scopes').values(row).execute();
    } catch (err) {
      if (input.generated) {
        const winner = await this.byGeneratedKey(input.connectionId, input.table);
        if (winner && !input.edited) return winner;
      }
      throw err;
    }
    return toStored(row)!;
  }

  async update(id: string, input: { ref: string; edited: boolean; definition: StoredDefinition }): Promise<void> {
    await this.db
      .updateTable('public_scopes')
      .set({ ref: input.ref, ref_key: refKey(input.ref), edited: input.edited ? 1 : 0, definition: JSON.stringify(input.definition), updated_at: this.now() })
      .where('id', '=', id)
      .execute();
  }

  /** Only once no live key grants it; grants of revoked keys go with it. */
  async remove(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('public_key_grants').where('scope_id', '=', id).execute();
      await trx.deleteFrom('public_scopes').where('id', '=', id).execute();
    });
  }

  /** Live keys (not revoked) granting the scope, with their kinds. */
  async grantingKeys(scopeId: string): Promise<Array<{ id: string; kind: 'browser' | 'server' }>> {
    return this.db
      .selectFrom('public_key_grants as g')
      .innerJoin('public_keys as k', 'k.id', 'g.key_id')
      .select(['k.id', 'k.kind'])
      .where('g.scope_id', '=', scopeId)
      .where('k.revoked_at', 'is', null)
      .execute();
  }
}
