import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { kernelMigrations } from '../../kernel/meta/kernel-migrations.js';
import { runMigrations } from '../../kernel/meta/migrate.js';
import { databaseAvailable } from '../helpers/databases.js';
import { createStoreTarget, recordedMigrations, tableExists, within, type MetaDialect, type StoreTarget } from './support.js';

const available: Record<MetaDialect, boolean> = {
  sqlite: true,
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function runChild(target: StoreTarget): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      cwd: ROOT,
      env: { ...process.env, META_URL: target.url ?? '', DATA_DIR: target.dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 30_000,
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, output }));
  });
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('a process killed in the middle of a migration on %s', (dialect) => {
  describe.runIf(available[dialect])(`${dialect} store`, () => {
    let target: StoreTarget | null = null;
    afterEach(async () => {
      await target?.dispose();
      target = null;
    });

    it('leaves the lock free and the migration unrecorded, so the next start applies it', async () => {
      target = await createStoreTarget(dialect);
      const child = await runChild(target);
      expect(child.signal, child.output).toBe('SIGKILL');

      const store = target.open();
      // Bounded: a lock that outlived its process would make this wait (120 s on MySQL, forever on PostgreSQL).
      const outcome = await within(runMigrations(store, [{ plugin: 'kernel', migrations: kernelMigrations }]), 20_000);
      expect(outcome).not.toBe('timed-out');
      expect(await recordedMigrations(store)).not.toContain('crashy/0001_dies');

      if (store.helpers.transactionalDdl) {
        expect(await tableExists(store, 'crashy_orphan')).toBe(false);
      }
      // MySQL/MariaDB committed the CREATE TABLE before the kill (DDL commits implicitly), so
      // crashy_orphan survives there; only the missing record can be relied on.

      const retry = await runMigrations(store, [
        { plugin: 'kernel', migrations: kernelMigrations },
        {
          plugin: 'crashy',
          migrations: [
            {
              name: '0001_dies',
              async up(db) {
                await db.schema
                  .createTable('crashy_orphan')
                  .ifNotExists()
                  .addColumn('id', 'integer', (c) => c.primaryKey())
                  .execute();
              },
            },
          ],
        },
      ]);
      expect(retry.applied).toContainEqual({ plugin: 'crashy', name: '0001_dies' });
    });
  });
});
