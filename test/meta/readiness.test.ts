import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openMetaStore, type MetaStore } from '../../kernel/meta/store.js';
import { expectContract } from '../helpers/contract.js';
import { createTempDatabase, databaseAvailable, type ServerDialect, type TempDatabase } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { eventually, recordingLogger } from './support.js';

const available: Record<ServerDialect, boolean> = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

const API = '/api/v1';
const SERVER_PORT: Record<ServerDialect, number> = { postgres: 5432, mysql: 3306 };

/** The temp database's URL, but reached through the proxy. */
function throughProxy(url: string, port: number): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

const sleepQuery = (dialect: ServerDialect) => (dialect === 'postgres' ? sql`select pg_sleep(10)` : sql`select sleep(10)`);

describe.each(['postgres', 'mysql'] as const)('readiness and recovery when the %s meta store goes away', (dialect) => {
  describe.runIf(available[dialect])(`${dialect} behind a proxy`, () => {
    let proxy: TcpProxy | null = null;
    let temp: TempDatabase | null = null;
    let inst: TestInstance | null = null;
    let store: MetaStore | null = null;

    afterEach(async () => {
      proxy?.restore();
      await inst?.close();
      await store?.close();
      await proxy?.stop();
      await temp?.drop();
      [proxy, temp, inst, store] = [null, null, null, null];
    });

    async function setUp(): Promise<string> {
      temp = await createTempDatabase(dialect);
      proxy = new TcpProxy('127.0.0.1', SERVER_PORT[dialect]);
      const port = await proxy.start();
      return throughProxy(temp.url, port);
    }

    // Two bounded recovery polls of up to 20 s each sit inside this test.
    it('readyz and a store-backed route answer 503 while the store is away, and recover by themselves', { timeout: 60_000 }, async () => {
      const metaUrl = await setUp();
      inst = await startInstance({ metaUrl });
      const client = inst.client();

      const ready = await client.get(`${API}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ ok: true, version: expect.any(String), checks: { meta: 'ok' } });
      expectContract(inst, 'GET', `${API}/readyz`, ready);

      // Several requests at once leave several pooled connections behind to be cut.
      const warm = await Promise.all(Array.from({ length: 6 }, () => client.get(`${API}/setup/state`)));
      expect(warm.map((r) => r.status)).toEqual(Array(6).fill(200));

      proxy!.down();

      const notReady = await client.get(`${API}/readyz`);
      expect(notReady.status).toBe(503);
      expect(notReady.body).toEqual({ ok: false, version: ready.body.version, checks: { meta: 'unreachable' } });
      expectContract(inst, 'GET', `${API}/readyz`, notReady);

      const state = await client.get(`${API}/setup/state`);
      expect(state.status).toBe(503);
      expect(state.body.error.code).toBe('META_UNAVAILABLE');
      expect(state.text).not.toMatch(/select |kernel_state|ECONN|127\.0\.0\.1/i);
      expectContract(inst, 'GET', `${API}/setup/state`, state);

      const setup = await client.post(`${API}/setup/super-admin`, { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' });
      expect(setup.status).toBe(503);
      expect(setup.body.error.code).toBe('META_UNAVAILABLE');
      expectContract(inst, 'POST', `${API}/setup/super-admin`, setup);

      // Liveness does not depend on the store: the process is up, only not ready.
      const live = await client.get(`${API}/healthz`);
      expect(live.status).toBe(200);

      proxy!.restore();
      await eventually(async () => (await client.get(`${API}/readyz`)).status === 200, 'readyz back to 200');
      await eventually(async () => (await client.get(`${API}/setup/state`)).status === 200, 'setup/state back to 200');

      const back = await client.get(`${API}/readyz`);
      expect(back.body).toEqual({ ok: true, version: ready.body.version, checks: { meta: 'ok' } });
      expectContract(inst, 'GET', `${API}/readyz`, back);
      const created = await client.post(`${API}/setup/super-admin`, { email: 'owner@example.com', password: 'correct horse battery', name: 'Owner' });
      expect(created.status, created.text).toBe(201);
      expectContract(inst, 'POST', `${API}/setup/super-admin`, created);
    });

    it('a connection cut while checked out, or in the middle of a query, fails that query and nothing else', { timeout: 60_000 }, async () => {
      const url = await setUp();
      store = openMetaStore({ url, dataDir: '/nonexistent-never-used', log: recordingLogger() });
      expect(await store.ping()).toBe(true);

      const failures: unknown[] = [];
      await store.db.connection().execute(async (conn) => {
        await sql`select 1`.execute(conn);
        const running = sleepQuery(dialect).execute(conn);
        // Whether the cut lands before or after the query reaches the server, it must reject.
        await new Promise((r) => setTimeout(r, 200));
        proxy!.down();
        await running.then(
          () => failures.push('sleep query succeeded'),
          (err) => failures.push(err),
        );
        // The same checked-out connection stays dead without throwing anywhere else.
        await sql`select 1`.execute(conn).then(
          () => failures.push('second query succeeded'),
          (err) => failures.push(err),
        );
      });
      expect(failures).toHaveLength(2);
      for (const err of failures) {
        expect(err).toBeInstanceOf(Error);
        expect(store.helpers.isUnreachable(err), String(err)).toBe(true);
      }
      expect(await store.ping()).toBe(false);

      proxy!.restore();
      await eventually(() => store!.ping(), 'ping back to true');
      const rows = await sql<{ one: number }>`select 1 as one`.execute(store.db);
      expect(Number(rows.rows[0]?.one)).toBe(1);
    });
  });
});
