import { afterEach, describe, expect, it } from 'vitest';
import { appliedMigrations } from '../../kernel/meta/migrate.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { expectContract } from '../helpers/contract.js';
import { databaseAvailable } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { countingMigrations, type MetaDialect } from './support.js';

const available: Record<MetaDialect, boolean> = {
  sqlite: true,
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

const API = '/api/v1';
const admin = { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' };

describe.each(['sqlite', 'postgres', 'mysql'] as const)('a whole instance on a %s meta store', (dialect) => {
  describe.runIf(available[dialect])(`${dialect} instance`, () => {
    let instances: TestInstance[] = [];
    afterEach(async () => {
      // In order: a replica closes before the instance that owns (and drops) the temp database.
      for (const i of instances) await i.close();
      instances = [];
    });

    it('migrates kernel and plugin, is ready, and runs setup once', async () => {
      const probe = countingMigrations('inst');
      const inst = await startInstance({ meta: dialect, plugins: [definePlugin({ name: 'meta-probe', version: '1.0.0', migrations: probe.migrations })] });
      instances.push(inst);
      expect(inst.app.kernel.meta.dialect).toBe(dialect);
      expect(probe.calls).toEqual(['0001_create', '0002_seed', '0003_alter']);
      const applied = (await appliedMigrations(inst.app.kernel.meta)).map((m) => `${m.plugin}/${m.name}`);
      expect(applied).toEqual(
        expect.arrayContaining(['kernel/0001_state_and_settings', 'kernel/0002_identity', 'meta-probe/0001_create', 'meta-probe/0003_alter']),
      );

      const client = inst.client();
      const ready = await client.get(`${API}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ ok: true, checks: { meta: 'ok' } });
      expectContract(inst, 'GET', `${API}/readyz`, ready);

      const info = await client.get(`${API}/system/info`);
      expect(info.body.dialect).toBe(dialect);
      expectContract(inst, 'GET', `${API}/system/info`, info);

      const open = await client.get(`${API}/setup/state`);
      expect(open.status).toBe(200);
      expect(open.body).toEqual({ data: { open: true } });
      expectContract(inst, 'GET', `${API}/setup/state`, open);

      const created = await client.post(`${API}/setup/super-admin`, admin);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.user).toMatchObject({ email: admin.email, name: admin.name, status: 'active' });
      expectContract(inst, 'POST', `${API}/setup/super-admin`, created);
      expect(client.cookie('svc_session')).toBeTruthy();

      const closed = await client.get(`${API}/setup/state`);
      expect(closed.body).toEqual({ data: { open: false } });
      expectContract(inst, 'GET', `${API}/setup/state`, closed);

      const again = await inst.client().post(`${API}/setup/super-admin`, { ...admin, email: 'second@example.com' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('SETUP_CLOSED');
      expectContract(inst, 'POST', `${API}/setup/super-admin`, again);
    });

    it('a second replica on the same store migrates nothing and sees setup closed', async () => {
      const first = await startInstance({ meta: dialect });
      instances.push(first);
      const created = await first.client().post(`${API}/setup/super-admin`, admin);
      expect(created.status, created.text).toBe(201);

      // SQLite replicas share the data dir; server dialects share the database URL.
      const probe = countingMigrations('late');
      const second = await startInstance({
        ...(dialect === 'sqlite' ? { env: { SVC_DATA_DIR: first.dataDir } } : { metaUrl: first.metaUrl! }),
        plugins: [definePlugin({ name: 'late-plugin', version: '1.0.0', migrations: probe.migrations })],
      });
      instances.unshift(second);
      expect(probe.calls).toEqual(['0001_create', '0002_seed', '0003_alter']);
      const state = await second.client().get(`${API}/setup/state`);
      expect(state.body).toEqual({ data: { open: false } });
      expectContract(second, 'GET', `${API}/setup/state`, state);
    });
  });
});
