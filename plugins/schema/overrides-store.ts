import { overridesSchema, type Overrides } from './overrides.js';
import type { SchemaDb } from './tables.js';

export interface StoredOverrides {
  overrides: Overrides;
  /** Counts every PUT; with the snapshot id it keys what was derived from both. */
  version: number;
  updatedAt: number | null;
}

const EMPTY: StoredOverrides = { overrides: { tables: [] }, version: 0, updatedAt: null };

/** One row per connection holding its whole override set: PUT replaces the set. */
export class OverridesStore {
  constructor(
    private readonly db: SchemaDb,
    private readonly now: () => number,
  ) {}

  async get(connectionId: string): Promise<StoredOverrides> {
    const row = await this.db.selectFrom('schema_overrides').selectAll().where('connection_id', '=', connectionId).executeTakeFirst();
    if (!row) return EMPTY;
    // A set stored by an older release that no longer parses reads as empty rather than failing every schema read.
    const parsed = overridesSchema.safeParse(JSON.parse(row.overrides));
    return { overrides: parsed.success ? parsed.data : { tables: [] }, version: Number(row.version), updatedAt: Number(row.updated_at) };
  }

  async put(connectionId: string, overrides: Overrides): Promise<StoredOverrides> {
    const json = JSON.stringify(overrides);
    const now = this.now();
    // The version always moves, so MySQL (which counts changed rows, not matched ones) reports the update too.
    const update = () =>
      this.db
        .updateTable('schema_overrides')
        .set((eb) => ({ overrides: json, version: eb('version', '+', 1), updated_at: now }))
        .where('connection_id', '=', connectionId)
        .executeTakeFirst();
    if (Number((await update()).numUpdatedRows) === 0) {
      try {
        await this.db.insertInto('schema_overrides').values({ connection_id: connectionId, overrides: json, version: 1, updated_at: now }).execute();
      } catch (err) {
        // A simultaneous first PUT inserted the row: this one replaces it, as it would have a moment later.
        if (Number((await update()).numUpdatedRows) === 0) throw err;
      }
    }
    const row = await this.db
      .selectFrom('schema_overrides')
      .select(['version', 'updated_at'])
      .where('connection_id', '=', connectionId)
      .executeTakeFirstOrThrow();
    return { overrides, version: Number(row.version), updatedAt: Number(row.updated_at) };
  }
}
