import { sql, type Kysely } from 'kysely';
import type { Migration } from '../plugin/manifest.js';
import type { MetaStore } from './store.js';

export interface PluginMigrations {
  plugin: string;
  migrations: readonly Migration[];
}

export interface MigrationResult {
  applied: Array<{ plugin: string; name: string }>;
}

/**
 * Applies each plugin's pending migrations in load order, under a cross-process lock so two
 * replicas starting together apply each migration once. On PostgreSQL and SQLite a migration
 * and its record commit together, so a crash leaves the store as it was before it.
 */
export async function runMigrations(
  store: Pick<MetaStore, 'db' | 'helpers'>,
  sets: readonly PluginMigrations[],
  now: () => number = Date.now,
): Promise<MigrationResult> {
  for (const set of sets) {
    const seen = new Set<string>();
    for (const m of set.migrations) {
      if (seen.has(m.name)) throw new Error(`plugin ${set.plugin} declares migration ${m.name} twice`);
      seen.add(m.name);
    }
  }
  const { helpers } = store;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return helpers.withMigrationLock(store.db as Kysely<any>, async (conn) => {
    await conn.schema
      .createTable('kernel_migrations')
      .ifNotExists()
      .addColumn('plugin', 'varchar(100)', (c) => c.notNull())
      .addColumn('name', 'varchar(200)', (c) => c.notNull())
      .addColumn('applied_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('kernel_migrations_pk', ['plugin', 'name'])
      .execute();
    const rows = (await conn.selectFrom('kernel_migrations').select(['plugin', 'name', 'applied_at']).execute()) as Array<{
      plugin: string;
      name: string;
      applied_at: number | string;
    }>;
    const done = new Set(rows.map((r) => `${r.plugin}\u0000${r.name}`));
    // applied_at is the only record of the order migrations ran in (appliedMigrations sorts by
    // it), and many run within one millisecond: each stamp is later than every earlier one.
    let last = rows.reduce((max, r) => Math.max(max, Number(r.applied_at)), 0);
    const stamp = () => (last = Math.max(now(), last + 1));
    const applied: MigrationResult['applied'] = [];
    for (const set of sets) {
      for (const m of set.migrations) {
        if (done.has(`${set.plugin}\u0000${m.name}`)) continue;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const apply = async (db: Kysely<any>) => {
          await m.up(db);
          await db.insertInto('kernel_migrations').values({ plugin: set.plugin, name: m.name, applied_at: stamp() }).execute();
        };
        try {
          if (helpers.dialect === 'sqlite')
            await apply(conn); // already inside BEGIN IMMEDIATE
          else await conn.transaction().execute(apply);
        } catch (err) {
          throw new Error(`migration ${set.plugin}/${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push({ plugin: set.plugin, name: m.name });
      }
    }
    return { applied };
  });
}

/** Lists applied migrations in the order they were applied (for tests and the operator). */
export async function appliedMigrations(store: MetaStore): Promise<Array<{ plugin: string; name: string }>> {
  const res = await sql<{ plugin: string; name: string }>`select plugin, name from kernel_migrations order by applied_at, plugin, name`.execute(store.db);
  return res.rows;
}
