import { AppError, type MetaDb, MetaReadCache, type MetaStore, newId } from '../../kernel/api.js';
import { describeTarget, type SourceTarget, type TestSuccess } from '../../engine/sources/index.js';
import type { FailureReason } from '../../engine/sources/index.js';
import type { ConnectionInfo } from './provides.js';
import { NO_OVERRIDES, overridesSchema, type Connection, type Overrides } from './schemas.js';
import { connectionNotFound } from './errors.js';
import { connectionsDb, type ConnectionRow, type ConnectionsDb } from './tables.js';

export type TestOutcome = { ok: true; result: TestSuccess } | { ok: false; reason: FailureReason };

export function toConnection(row: ConnectionRow): Connection {
  return {
    id: row.id,
    name: row.name,
    dialect: row.dialect,
    readOnly: Boolean(row.read_only),
    host: row.host,
    port: row.port === null ? null : Number(row.port),
    database: row.database_name,
    user: row.user_name,
    tls: row.tls as Connection['tls'],
    serverVersion: row.server_version,
    lastTest:
      row.last_tested_at === null
        ? null
        : {
            at: Number(row.last_tested_at),
            ok: Boolean(row.last_test_ok),
            reason: (row.last_test_reason as FailureReason | null) ?? null,
            latencyMs: row.last_test_latency_ms === null ? null : Number(row.last_test_latency_ms),
          },
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toInfo(row: ConnectionRow): ConnectionInfo {
  return { id: row.id, name: row.name, dialect: row.dialect, readOnly: Boolean(row.read_only) };
}

/** A stored value a later release no longer allows reads as no overrides (as ME3 does for prefs). */
export function overridesOf(row: ConnectionRow): Overrides {
  if (!row.overrides) return NO_OVERRIDES;
  try {
    const parsed = overridesSchema.safeParse(JSON.parse(row.overrides));
    return parsed.success ? parsed.data : NO_OVERRIDES;
  } catch {
    return NO_OVERRIDES;
  }
}

/** The columns copied out of a URL: what may be shown, never the password. */
function targetColumns(target: SourceTarget) {
  const d = describeTarget(target);
  return { host: d.host, port: d.port, database_name: d.database, user_name: d.user, tls: d.tls };
}

function testColumns(outcome: TestOutcome, at: number) {
  return {
    last_tested_at: at,
    last_test_ok: outcome.ok ? 1 : 0,
    last_test_reason: outcome.ok ? null : outcome.reason,
    last_test_latency_ms: outcome.ok ? outcome.result.latencyMs : null,
    ...(outcome.ok ? { server_version: outcome.result.serverVersion.slice(0, 255) } : {}),
  };
}

/** The connections table of the meta store. */
export class ConnectionRepository {
  private readonly db: ConnectionsDb;
  private readonly rows: MetaReadCache<ConnectionRow | null>;

  constructor(
    meta: MetaStore,
    private readonly now: () => number,
  ) {
    this.db = connectionsDb(meta.db);
    this.rows = new MetaReadCache(meta.writes, ['connections']);
  }

  /** Every /data and public request reads its connection's row: kept until the table is written (or 5 s for other replicas). */
  async find(id: string): Promise<ConnectionRow> {
    const row = await this.rows.get(id, async () => (await this.db.selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirst()) ?? null);
    if (!row) throw connectionNotFound(id);
    return row;
  }

  /** `find`'s row when it is at hand without reading; undefined otherwise (also for an unknown id: find says so). */
  peek(id: string): ConnectionRow | undefined {
    return this.rows.peek(id) ?? undefined;
  }

  async all(): Promise<ConnectionRow[]> {
    return this.db.selectFrom('connections').selectAll().orderBy('name_key').orderBy('id').execute();
  }

  /** By name in any letter case, then id; keyset over both. */
  async page(limit: number, after: { n: string; id: string } | undefined): Promise<{ rows: ConnectionRow[]; next: { n: string; id: string } | null }> {
    let q = this.db
      .selectFrom('connections')
      .selectAll()
      .orderBy('name_key')
      .orderBy('id')
      .limit(limit + 1);
    if (after) q = q.where((eb) => eb.or([eb('name_key', '>', after.n), eb.and([eb('name_key', '=', after.n), eb('id', '>', after.id)])]));
    const rows = await q.execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { rows: page, next: rows.length > limit && last ? { n: last.name_key, id: last.id } : null };
  }

  async assertNameFree(name: string, exceptId?: string): Promise<void> {
    let q = this.db.selectFrom('connections').select('id').where('name_key', '=', nameKey(name));
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) {
      throw new AppError('CONFLICT', { message: `A connection named "${name}" already exists.`, params: { reason: 'name-taken', name } });
    }
  }

  async insert(input: {
    name: string;
    dialect: ConnectionRow['dialect'];
    urlSealed: string;
    target: SourceTarget;
    readOnly: boolean;
    test: TestOutcome;
  }): Promise<ConnectionRow> {
    const now = this.now();
    const row: ConnectionRow = {
      id: newId(now),
      name: input.name,
      name_key: nameKey(input.name),
      dialect: input.dialect,
      url_sealed: input.urlSealed,
      read_only: input.readOnly ? 1 : 0,
      ...targetColumns(input.target),
      server_version: null,
      ...testColumns(input.test, now),
      overrides: null,
      created_at: now,
      updated_at: now,
    };
    await this.guardName(input.name, undefined, () => this.db.insertInto('connections').values(row).execute());
    return row;
  }

  async update(
    id: string,
    patch: { name?: string | undefined; readOnly?: boolean | undefined; url?: { sealed: string; target: SourceTarget; test: TestOutcome } | undefined },
  ): Promise<void> {
    const now = this.now();
    const set = {
      ...(patch.name !== undefined ? { name: patch.name, name_key: nameKey(patch.name) } : {}),
      ...(patch.readOnly !== undefined ? { read_only: patch.readOnly ? 1 : 0 } : {}),
      ...(patch.url ? { url_sealed: patch.url.sealed, ...targetColumns(patch.url.target), server_version: null, ...testColumns(patch.url.test, now) } : {}),
      updated_at: now,
    };
    await this.guardName(patch.name, id, () => this.db.updateTable('connections').set(set).where('id', '=', id).execute());
  }

  async recordTest(id: string, test: TestOutcome): Promise<void> {
    await this.db.updateTable('connections').set(testColumns(test, this.now())).where('id', '=', id).execute();
  }

  async setOverrides(id: string, overrides: Overrides): Promise<void> {
    const empty = Object.values(overrides).every((v) => v === null);
    await this.db
      .updateTable('connections')
      .set({ overrides: empty ? null : JSON.stringify(overrides), updated_at: this.now() })
      .where('id', '=', id)
      .execute();
  }

  /** `trx`: the transaction that also removes what other plugins keep about the connection. */
  async remove(id: string, trx?: MetaDb): Promise<boolean> {
    const db = trx ? connectionsDb(trx) : this.db;
    const res = await db.deleteFrom('connections').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** A write that lost a race for the name answers 409, not a unique-index 500. */
  private async guardName(name: string | undefined, exceptId: string | undefined, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (name !== undefined) await this.assertNameFree(name, exceptId);
      throw err;
    }
  }
}

export const nameKey = (name: string) => name.toLowerCase();
