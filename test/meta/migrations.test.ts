import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { kernelMigrations } from '../../kernel/meta/kernel-migrations.js';
import { appliedMigrations, runMigrations, type PluginMigrations } from '../../kernel/meta/migrate.js';
import type { Migration } from '../../kernel/plugin/manifest.js';
import { databaseAvailable } from '../helpers/databases.js';
import { countingMigrations, createStoreTarget, recordedMigrations, tableExists, within, type MetaDialect, type StoreTarget } from './support.js';

const available: Record<MetaDialect, boolean> = {
  sqlite: true,
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const kernelSet: PluginMigrations = { plugin: 'kernel', migrations: kernelMigrations };
const kernelNames = kernelMigrations.map((m) => `kernel/${m.name}`);

describe.each(['sqlite', 'postgres', 'mysql'] as const)('meta store migrations on %s', (dialect) => {
  describe.runIf(available[dialect])(`${dialect} store`, () => {
    let targets: StoreTarget[] = [];
    const target = async () => {
      const t = await createStoreTarget(dialect);
      targets.push(t);
      return t;
    };
    afterEach(async () => {
      await Promise.all(targets.map((t) => t.dispose()));
      targets = [];
    });

    it('applies kernel and plugin migrations in order, records each, and applies nothing the second time', async () => {
      const t = await target();
      const store = t.open();
      expect(store.dialect).toBe(dialect);
      const probe = countingMigrations('probe');
      // Named to sort before "kernel", and a clock that stands still: the listing must follow
      // the order of application, not the alphabet or the millisecond.
      const sets = [kernelSet, { plugin: 'early', migrations: probe.migrations }];
      const frozen = () => 1_700_000_000_000;

      const first = await runMigrations(store, sets, frozen);
      const expected = [...kernelNames, 'early/0001_create', 'early/0002_seed', 'early/0003_alter'];
      expect(first.applied.map((a) => `${a.plugin}/${a.name}`)).toEqual(expected);
      expect(probe.calls).toEqual(['0001_create', '0002_seed', '0003_alter']);
      expect(await recordedMigrations(store)).toEqual([...expected].sort());
      expect((await appliedMigrations(store)).map((a) => `${a.plugin}/${a.name}`)).toEqual(expected);

      const row = await (store.db as AnyDb).selectFrom('probe_items').selectAll().executeTakeFirstOrThrow();
      expect(row).toEqual({ id: 'first', label: 'seeded', note: null });

      const second = await runMigrations(store, sets, frozen);
      expect(second.applied).toEqual([]);
      expect(probe.calls).toHaveLength(3);
      expect(await recordedMigrations(store)).toHaveLength(expected.length);
    });

    it('a later run applies only the migrations a plugin added since, from a fresh handle', async () => {
      const t = await target();
      const probe = countingMigrations('later');
      await runMigrations(t.open(), [kernelSet, { plugin: 'later', migrations: probe.migrations.slice(0, 1) }]);

      // A restart: a new process opens its own handle and brings a newer plugin version.
      const restarted = t.open();
      const out = await runMigrations(restarted, [kernelSet, { plugin: 'later', migrations: probe.migrations }]);
      expect(out.applied).toEqual([
        { plugin: 'later', name: '0002_seed' },
        { plugin: 'later', name: '0003_alter' },
      ]);
      expect(probe.calls).toEqual(['0001_create', '0002_seed', '0003_alter']);
    });

    it('keeps migrations of different plugins apart even when their names match', async () => {
      const t = await target();
      const store = t.open();
      const a = countingMigrations('alpha');
      const b = countingMigrations('beta');
      const out = await runMigrations(store, [kernelSet, { plugin: 'alpha', migrations: a.migrations }, { plugin: 'beta', migrations: b.migrations }]);
      expect(out.applied.filter((m) => m.name === '0001_create').map((m) => m.plugin)).toEqual(['alpha', 'beta']);
      expect(await tableExists(store, 'alpha_items')).toBe(true);
      expect(await tableExists(store, 'beta_items')).toBe(true);
    });

    it('refuses a plugin that declares one migration name twice, before touching the store', async () => {
      const t = await target();
      const store = t.open();
      const noop: Migration = { name: '0001_same', up: async () => undefined };
      await expect(runMigrations(store, [kernelSet, { plugin: 'twice', migrations: [noop, noop] }])).rejects.toThrow(/twice.*0001_same/);
      expect(await tableExists(store, 'kernel_migrations')).toBe(false);
    });

    it('two replicas migrating at once apply every migration exactly once, without an error', async () => {
      const t = await target();
      const probe = countingMigrations('race', { delayMs: 150 });
      const sets = [kernelSet, { plugin: 'race', migrations: probe.migrations }];
      // Two handles = two pools/connections, as two processes would have.
      const [a, b] = await Promise.all([runMigrations(t.open(), sets), runMigrations(t.open(), sets)]);

      const all = [...a.applied, ...b.applied].map((m) => `${m.plugin}/${m.name}`);
      const expected = [...kernelNames, 'race/0001_create', 'race/0002_seed', 'race/0003_alter'];
      expect([...all].sort()).toEqual([...expected].sort());
      expect(probe.calls).toEqual(['0001_create', '0002_seed', '0003_alter']);
      expect(await recordedMigrations(t.open())).toEqual([...expected].sort());
    });

    it('instances with their own databases on one server do not wait for each other’s migration lock', async () => {
      const [t1, t2] = [await target(), await target()];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let holding!: () => void;
      const lockTaken = new Promise<void>((r) => (holding = r));
      const s1 = t1.open();
      const first = s1.helpers.withMigrationLock(s1.db as AnyDb, async () => {
        holding();
        await held;
      });
      try {
        await lockTaken;
        // Bounded: a lock shared across databases would keep the second run waiting for 120 s.
        const outcome = await within(
          runMigrations(t2.open(), [kernelSet]).then(() => 'migrated' as const),
          15_000,
        );
        expect(outcome).toBe('migrated');
      } finally {
        release();
        await first;
      }
    });

    it('a migration that fails names itself and leaves neither its record nor (where DDL is transactional) its effects', async () => {
      const t = await target();
      const store = t.open();
      await runMigrations(store, [kernelSet]);

      const ok: Migration = {
        name: '0001_ok',
        async up(db: AnyDb) {
          await db.schema
            .createTable('crashy_ok')
            .addColumn('id', 'integer', (c) => c.primaryKey())
            .execute();
        },
      };
      const boom: Migration = {
        name: '0002_boom',
        async up(db: AnyDb) {
          await db.schema
            .createTable('crashy_half')
            .addColumn('id', 'integer', (c) => c.primaryKey())
            .execute();
          await db.insertInto('crashy_half').values({ id: 1 }).execute();
          throw new Error('disk on fire');
        },
      };
      const run = runMigrations(store, [kernelSet, { plugin: 'crashy', migrations: [ok, boom] }]);
      await expect(run).rejects.toThrow(/crashy\/0002_boom.*disk on fire/);

      const recorded = await recordedMigrations(store);
      expect(recorded).not.toContain('crashy/0002_boom');
      expect(recorded).toEqual(expect.arrayContaining(kernelNames));
      // Whether the earlier migration of the same run stays (PostgreSQL/MySQL: one transaction
      // each) or goes (SQLite: one transaction for the run), its record and its table agree.
      expect(await tableExists(store, 'crashy_ok')).toBe(recorded.includes('crashy/0001_ok'));

      if (store.helpers.transactionalDdl) {
        expect(await tableExists(store, 'crashy_half')).toBe(false);
      }
      // MySQL/MariaDB commit DDL implicitly, so the table made before the throw survives there
      // (transactionalDdl is false and the operator has to clean up). What still holds is that
      // the failed migration is not recorded, so a fixed version of it runs on the next start.

      const fixed: Migration = {
        name: '0002_boom',
        async up(db: AnyDb) {
          await db.schema
            .createTable('crashy_half')
            .ifNotExists()
            .addColumn('id', 'integer', (c) => c.primaryKey())
            .execute();
        },
      };
      const retry = await runMigrations(store, [kernelSet, { plugin: 'crashy', migrations: [ok, fixed] }]);
      expect(retry.applied.map((m) => m.name)).toContain('0002_boom');
      expect(await recordedMigrations(store)).toEqual(expect.arrayContaining(['crashy/0001_ok', 'crashy/0002_boom']));
      expect(await tableExists(store, 'crashy_ok')).toBe(true);
      expect(await tableExists(store, 'crashy_half')).toBe(true);
    });

    it('the kernel schema seeds the built-in roles and cascades deletes of users and roles', async () => {
      const t = await target();
      const store = t.open();
      await runMigrations(store, [kernelSet]);
      const db = store.db;
      const roles = await db.selectFrom('roles').select(['id', 'builtin']).orderBy('id').execute();
      expect(roles).toEqual([
        { id: 'admin', builtin: 1 },
        { id: 'editor', builtin: 1 },
        { id: 'viewer', builtin: 1 },
      ]);

      const now = Date.now();
      await db
        .insertInto('users')
        .values({
          id: 'u1',
          email: 'a@example.com',
          name: 'A',
          status: 'active',
          password_hash: null,
          totp_enabled: 0,
          last_login_at: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await db.insertInto('roles').values({ id: 'r1', name: 'custom', description: null, builtin: 0, created_at: now, updated_at: now }).execute();
      await db.insertInto('user_roles').values({ user_id: 'u1', role_id: 'r1' }).execute();
      await db.insertInto('role_grants').values({ id: 'g1', role_id: 'r1', permission: 'users.read', scope: null }).execute();
      await db
        .insertInto('sessions')
        .values({
          id: 's1',
          token_hash: 'h'.repeat(64),
          user_id: 'u1',
          ip: null,
          user_agent: null,
          created_at: now,
          last_seen_at: now,
          expires_at: now + 1,
          absolute_expires_at: now + 1,
        })
        .execute();
      // Bigint milliseconds come back as JS numbers on every dialect (D3).
      const session = await db.selectFrom('sessions').select('created_at').executeTakeFirstOrThrow();
      expect(session.created_at).toBe(now);

      await db.deleteFrom('users').where('id', '=', 'u1').execute();
      expect(await db.selectFrom('sessions').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('user_roles').selectAll().execute()).toEqual([]);
      await db.deleteFrom('roles').where('id', '=', 'r1').execute();
      expect(await db.selectFrom('role_grants').selectAll().execute()).toEqual([]);

      // A session for a user that does not exist is refused, not stored as an orphan.
      await expect(
        db
          .insertInto('sessions')
          .values({
            id: 's2',
            token_hash: 'i'.repeat(64),
            user_id: 'nobody',
            ip: null,
            user_agent: null,
            created_at: now,
            last_seen_at: now,
            expires_at: now,
            absolute_expires_at: now,
          })
          .execute(),
      ).rejects.toThrow();
    });

    it('ping answers true while the store is open and false once it is closed', async () => {
      const t = await target();
      const store = t.open();
      expect(await store.ping()).toBe(true);
      await store.close();
      expect(await store.ping()).toBe(false);
      await store.close();
    });
  });
});

describe('sqlite specifics', () => {
  it('the embedded store lives in the data dir, in WAL mode, with foreign keys enforced', async () => {
    const t = await createStoreTarget('sqlite');
    try {
      const store = t.open();
      expect(store.placement).toEqual({ dialect: 'sqlite', location: `${t.dataDir}/meta.sqlite` });
      const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      expect(journal.rows[0]?.journal_mode).toBe('wal');
      const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      expect(fk.rows[0]?.foreign_keys).toBe(1);
    } finally {
      await t.dispose();
    }
  });
});

describe('kernel migrations as MySQL sees them', () => {
  it('declare foreign keys as table constraints, which MySQL 8 enforces (it ignores a column-level REFERENCES)', async () => {
    const statements: string[] = [];
    const offline = new Kysely<unknown>({
      dialect: {
        createAdapter: () => new MysqlAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new MysqlIntrospector(db),
        createQueryCompiler: () => new MysqlQueryCompiler(),
      },
      log: (event) => {
        statements.push(event.query.sql);
      },
    });
    for (const m of kernelMigrations) await m.up(offline as AnyDb);
    await offline.destroy();
    const creates = statements.filter((s) => /^create table/i.test(s));
    expect(creates.length).toBeGreaterThan(3);
    for (const create of creates) {
      const bare = create.replace(/foreign key \([^)]*\) references/gi, '');
      expect(bare, create).not.toMatch(/\breferences\b/i);
    }
    expect(statements.some((s) => /foreign key \(`user_id`\) references `users`/i.test(s))).toBe(true);
  });
});
