import { z } from 'zod';
import { newId } from '../../kernel/api.js';
import { canonicalModel, schemaModelSchema, type SchemaModel } from '../../engine/schema/model.js';
import { modelHash } from './hash.js';
import type { SchemaDb, SchemaTables } from './tables.js';

export const snapshotSchema = z
  .strictObject({
    id: z.string(),
    connectionId: z.string(),
    /** sha256 of the structure (the canonical model without row estimates). */
    hash: z.string(),
    dialect: z.enum(['postgres', 'mysql', 'sqlite']).nullable(),
    tableCount: z.number().int(),
    viewCount: z.number().int(),
    columnCount: z.number().int(),
    previousSnapshotId: z.string().nullable(),
    /** Queries introspection ran, and how long it took. */
    queries: z.number().int(),
    durationMs: z.number().int(),
    createdAt: z.number(),
  })
  .meta({ id: 'SchemaSnapshot' });
export type Snapshot = z.infer<typeof snapshotSchema>;

type Row = SchemaTables['schema_snapshots'];
type Summary = Omit<Row, 'model'>;
const SUMMARY_COLUMNS = [
  'connection_id',
  'id',
  'hash',
  'dialect',
  'table_count',
  'view_count',
  'column_count',
  'previous_id',
  'queries',
  'duration_ms',
  'created_at',
] as const;

function toSnapshot(r: Summary): Snapshot {
  return {
    id: r.id,
    connectionId: r.connection_id,
    hash: r.hash,
    dialect: r.dialect as Snapshot['dialect'],
    tableCount: Number(r.table_count),
    viewCount: Number(r.view_count),
    columnCount: Number(r.column_count),
    previousSnapshotId: r.previous_id,
    queries: Number(r.queries),
    durationMs: Number(r.duration_ms),
    createdAt: Number(r.created_at),
  };
}

class LostRace extends Error {}

/** Parsed models by snapshot id: snapshots never change, and a large model is costly to parse on every read. */
class ModelCache {
  private readonly entries = new Map<string, SchemaModel>();
  constructor(private readonly size: number) {}
  get(id: string): SchemaModel | undefined {
    const m = this.entries.get(id);
    if (m) {
      this.entries.delete(id);
      this.entries.set(id, m);
    }
    return m;
  }
  set(id: string, model: SchemaModel): void {
    this.entries.set(id, model);
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
  }
}

export interface RecordResult {
  snapshot: Snapshot;
  created: boolean;
  /** The snapshot that was latest before; null on the first introspection. */
  previous: Snapshot | null;
}

/** Immutable snapshots per connection, and which one is the latest. */
export class SnapshotStore {
  private readonly models = new ModelCache(8);

  constructor(
    private readonly db: SchemaDb,
    private readonly now: () => number,
  ) {}

  async head(connectionId: string): Promise<{ snapshotId: string; hash: string } | null> {
    const row = await this.db.selectFrom('schema_heads').select(['snapshot_id', 'hash']).where('connection_id', '=', connectionId).executeTakeFirst();
    return row ? { snapshotId: row.snapshot_id, hash: row.hash } : null;
  }

  async summary(connectionId: string, id: string): Promise<Snapshot | null> {
    const row = await this.db
      .selectFrom('schema_snapshots')
      .select(SUMMARY_COLUMNS)
      .where('connection_id', '=', connectionId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSnapshot(row) : null;
  }

  async model(connectionId: string, id: string): Promise<SchemaModel | null> {
    const cached = this.models.get(id);
    if (cached) return cached;
    const row = await this.db.selectFrom('schema_snapshots').select('model').where('connection_id', '=', connectionId).where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    const model = JSON.parse(row.model) as SchemaModel;
    this.models.set(id, model);
    return model;
  }

  /** Newest first, keyset over the time-ordered id. */
  async list(connectionId: string, limit: number, before?: string): Promise<{ snapshots: Snapshot[]; next: string | null }> {
    let q = this.db.selectFrom('schema_snapshots').select(SUMMARY_COLUMNS).where('connection_id', '=', connectionId);
    if (before !== undefined) q = q.where('id', '<', before);
    const rows = await q
      .orderBy('id', 'desc')
      .limit(limit + 1)
      .execute();
    const page = rows.slice(0, limit).map(toSnapshot);
    return { snapshots: page, next: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  /**
   * Stores `model` as the connection's latest snapshot unless the latest already has its
   * structure. Only the latest counts: a schema that goes back to an earlier shape is a new
   * point in the history, not a jump back to the old snapshot.
   */
  async record(connectionId: string, model: SchemaModel, stats: { queries: number; durationMs: number }): Promise<RecordResult> {
    const canonical = canonicalModel(schemaModelSchema.parse(model));
    const hash = modelHash(canonical);
    const json = JSON.stringify(canonical);
    for (let attempt = 0; ; attempt++) {
      const head = await this.head(connectionId);
      const previous = head ? await this.summary(connectionId, head.snapshotId) : null;
      if (head && previous && head.hash === hash) return { snapshot: previous, created: false, previous };
      try {
        const snapshot = await this.insert(connectionId, canonical, json, hash, head?.snapshotId ?? null, stats);
        this.models.set(snapshot.id, canonical);
        return { snapshot, created: true, previous };
      } catch (err) {
        // Another introspection moved the head first: look again (it may have stored this very structure).
        if (!(err instanceof LostRace) || attempt >= 3) throw err;
      }
    }
  }

  private async insert(
    connectionId: string,
    model: SchemaModel,
    json: string,
    hash: string,
    previousId: string | null,
    stats: { queries: number; durationMs: number },
  ): Promise<Snapshot> {
    const now = this.now();
    const row: Row = {
      connection_id: connectionId,
      id: newId(now),
      hash,
      dialect: model.dialect,
      model: json,
      table_count: model.tables.filter((t) => t.kind === 'table').length,
      view_count: model.tables.filter((t) => t.kind === 'view').length,
      column_count: model.tables.reduce((n, t) => n + t.columns.length, 0),
      previous_id: previousId,
      queries: Math.round(stats.queries),
      duration_ms: Math.round(stats.durationMs),
      created_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('schema_snapshots').values(row).execute();
      if (previousId === null) {
        try {
          await trx.insertInto('schema_heads').values({ connection_id: connectionId, snapshot_id: row.id, hash, updated_at: now }).execute();
        } catch {
          throw new LostRace();
        }
        return;
      }
      const moved = await trx
        .updateTable('schema_heads')
        .set({ snapshot_id: row.id, hash, updated_at: now })
        .where('connection_id', '=', connectionId)
        .where('snapshot_id', '=', previousId)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1) throw new LostRace();
    });
    return toSnapshot(row);
  }
}
