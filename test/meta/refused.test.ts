/**
 * A meta store whose server is up but refuses new connections (nothing listens, the database
 * takes no connections, the account is locked) is as unavailable as one that is gone: every
 * store-backed route answers 503 META_UNAVAILABLE, never 500 INTERNAL, and recovers by itself.
 */
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { expectContract } from '../helpers/contract.js';
import { createTempDatabase, databaseAvailable, MYSQL_ADMIN_URL, PG_ADMIN_URL, type ServerDialect, type TempDatabase } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { eventually } from './support.js';

const available: Record<ServerDialect, boolean> = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};
const SERVER_PORT: Record<ServerDialect, number> = { postgres: 5432, mysql: 3306 };

async function pgAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function myAdmin<T>(fn: (c: Awaited<ReturnType<typeof createConnection>>) => Promise<T>): Promise<T> {
  const c = await createConnection({ uri: MYSQL_ADMIN_URL });
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Store-backed routes of every kind of caller: public, signed-in (cookie-less answers 401 after a store read), setup. */
async function expectUnavailable(inst: TestInstance): Promise<void> {
  const client = inst.client();
  for (let i = 0; i < 3; i++) {
    const state = await client.get('/api/v1/setup/state');
    expect(state.status, state.text).toBe(503);
    expect(state.body.error.code).toBe('META_UNAVAILABLE');
    expectContract(inst, 'GET', '/api/v1/setup/state', state);
    const login = await client.post('/api/v1/auth/login', { email: 'someone@example.com', password: 'whatever' });
    expect(login.status, login.text).toBe(503);
    expect(login.body.error.code).toBe('META_UNAVAILABLE');
    const ready = await client.get('/api/v1/readyz');
    expect(ready.status).toBe(503);
  }
  expect((await client.get('/api/v1/healthz')).status).toBe(200);
}

describe.runIf(available.postgres)('a PostgreSQL meta store that refuses connections', () => {
  let temp: TempDatabase | null = null;
  let inst: TestInstance | null = null;
  let proxy: TcpProxy | null = null;
  afterEach(async () => {
    if (temp) await pgAdmin((c) => c.query(`alter database "${temp!.name}" allow_connections true`));
    await inst?.close();
    await proxy?.stop();
    await temp?.drop();
    [temp, inst, proxy] = [null, null, null];
  });

  it('answers 503 while the database takes no connections, and recovers', { timeout: 60_000 }, async () => {
    temp = await createTempDatabase('postgres');
    inst = await startInstance({ metaUrl: temp.url });
    expect((await inst.client().get('/api/v1/setup/state')).status).toBe(200);
    await pgAdmin(async (c) => {
      await c.query(`alter database "${temp!.name}" allow_connections false`);
      await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [temp!.name]);
    });
    await expectUnavailable(inst);
    await pgAdmin((c) => c.query(`alter database "${temp!.name}" allow_connections true`));
    await eventually(async () => (await inst!.client().get('/api/v1/setup/state')).status === 200, 'setup/state back to 200');
  });

  it('answers 503 while nothing listens at its address', { timeout: 60_000 }, async () => {
    temp = await createTempDatabase('postgres');
    proxy = new TcpProxy('127.0.0.1', SERVER_PORT.postgres);
    const port = await proxy.start();
    const url = new URL(temp.url);
    url.port = String(port);
    inst = await startInstance({ metaUrl: url.toString() });
    expect((await inst.client().get('/api/v1/setup/state')).status).toBe(200);
    await proxy.stop();
    await expectUnavailable(inst);
  });
});

describe.runIf(available.mysql)('a MariaDB meta store that refuses connections', () => {
  let temp: TempDatabase | null = null;
  let inst: TestInstance | null = null;
  const user = `svc_meta_${Math.random().toString(36).slice(2, 8)}`;
  afterEach(async () => {
    await inst?.close();
    await myAdmin((c) => c.query(`drop user if exists '${user}'@'%'`));
    await temp?.drop();
    [temp, inst] = [null, null];
  });

  it('answers 503 while its account is locked, and recovers', { timeout: 60_000 }, async () => {
    temp = await createTempDatabase('mysql');
    await myAdmin(async (c) => {
      await c.query(`create user '${user}'@'%' identified by 'meta-password'`);
      await c.query(`grant all on \`${temp!.name}\`.* to '${user}'@'%'`);
    });
    const url = new URL(temp.url);
    url.username = user;
    url.password = 'meta-password';
    inst = await startInstance({ metaUrl: url.toString() });
    expect((await inst.client().get('/api/v1/setup/state')).status).toBe(200);
    await myAdmin(async (c) => {
      await c.query(`alter user '${user}'@'%' account lock`);
      const [rows] = await c.query(`select id from information_schema.processlist where user = ?`, [user]);
      for (const r of rows as Array<{ id: number }>) await c.query(`kill ${Number(r.id)}`);
    });
    await expectUnavailable(inst);
    await myAdmin((c) => c.query(`alter user '${user}'@'%' account unlock`));
    await eventually(async () => (await inst!.client().get('/api/v1/setup/state')).status === 200, 'setup/state back to 200');
  });
});
