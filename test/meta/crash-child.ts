/**
 * Run as its own process by crash.test.ts: migrates the store named by META_URL (or the SQLite
 * file in DATA_DIR) and dies by SIGKILL inside a migration, after its DDL and a row went out
 * and before anything could be committed or cleaned up.
 */
import { kernelMigrations } from '../../kernel/meta/kernel-migrations.js';
import { runMigrations } from '../../kernel/meta/migrate.js';
import { openMetaStore } from '../../kernel/meta/store.js';
import { recordingLogger } from './support.js';

const store = openMetaStore({ url: process.env.META_URL || null, dataDir: process.env.DATA_DIR!, log: recordingLogger() });
await runMigrations(store, [
  { plugin: 'kernel', migrations: kernelMigrations },
  {
    plugin: 'crashy',
    migrations: [
      {
        name: '0001_dies',
        async up(db) {
          await db.schema
            .createTable('crashy_orphan')
            .addColumn('id', 'integer', (c) => c.primaryKey())
            .execute();
          await db.insertInto('crashy_orphan').values({ id: 1 }).execute();
          process.kill(process.pid, 'SIGKILL');
          await new Promise(() => undefined);
        },
      },
    ],
  },
]);
process.stdout.write('survived\n');
