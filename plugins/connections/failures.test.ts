import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { closedPort, mysqlUser, silentServer, sqliteDatabase, withCredentials } from './testing.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

/** The connect timeout, and what a test may take at most to answer (a little slack for the HTTP round trip). */
const CONNECT_TIMEOUT_MS = 5000;
const WITHIN_MS = CONNECT_TIMEOUT_MS + 750;

let inst: TestInstance;
let admin: HttpClient;
let dir: string;
const logLines: string[] = [];
beforeAll(async () => {
  ({ inst, admin } = await bootWithAdmin({ logLines }));
  dir = mkdtempSync(join(tmpdir(), 'conn-fail-'));
});
afterAll(async () => {
  await inst?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * POST /connections/test and POST /connections both answer 400 CONNECTION_FAILED with the
 * reason, within the connect timeout, and nothing is stored; neither answer nor log repeats `secret`.
 */
async function expectFailure(dialect: string, url: string, reason: string, secret?: string): Promise<void> {
  for (const path of ['/api/v1/connections/test', '/api/v1/connections']) {
    const started = Date.now();
    const res = await call(inst, admin, 'POST', path, { name: `failing ${reason}`, dialect, url });
    const took = Date.now() - started;
    expect(res.status, `${path} ${res.text}`).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason } });
    expect(res.body.error.message.length).toBeGreaterThan(10);
    expect(took, `${path} took ${took} ms`).toBeLessThan(WITHIN_MS);
    expect(res.text).not.toContain(url);
    if (secret) expect(res.text).not.toContain(secret);
  }
  expect((await call(inst, admin, 'GET', '/api/v1/connections')).body.data.connections).toEqual([]);
  for (const line of logLines) {
    expect(line).not.toContain(url);
    if (secret) expect(line).not.toContain(secret);
  }
}

describe('connection failures on any dialect', () => {
  it('answers unreachable for a closed port', async () => {
    const port = await closedPort();
    await expectFailure('postgres', `postgres://postgres:hunter2-closed@127.0.0.1:${port}/postgres`, 'unreachable', 'hunter2-closed');
    await expectFailure('mysql', `mysql://root:hunter2-closed@127.0.0.1:${port}/mysql`, 'unreachable', 'hunter2-closed');
  });

  it('answers unreachable for a host name that does not resolve', async () => {
    await expectFailure('postgres', 'postgres://u:hunter2-dns@no-such-host.invalid/db', 'unreachable', 'hunter2-dns');
  });

  it('answers timeout, within the connect timeout, when something accepts and never answers', async () => {
    const silent = await silentServer();
    try {
      const started = Date.now();
      const res = await call(inst, admin, 'POST', '/api/v1/connections/test', {
        dialect: 'mysql',
        url: `mysql://u:hunter2-silent@127.0.0.1:${silent.port}/db`,
      });
      expect(res.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'timeout' } });
      expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 100);
      expect(Date.now() - started).toBeLessThan(WITHIN_MS);
    } finally {
      await silent.close();
    }
  });

  it('answers file-not-found for a SQLite file that does not exist, and never creates it', async () => {
    const file = join(dir, 'missing.db');
    await expectFailure('sqlite', `sqlite:${file}`, 'file-not-found');
    await expectFailure('sqlite', `sqlite:${join(dir, 'no-such-dir', 'x.db')}`, 'file-not-found');
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('answers not-a-database for a file that is not SQLite, and for a directory', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'These are my notes, not a database. '.repeat(10));
    await expectFailure('sqlite', `sqlite:${file}`, 'not-a-database');
    const sub = join(dir, 'a-directory');
    mkdirSync(sub);
    await expectFailure('sqlite', `sqlite:${sub}`, 'not-a-database');
  });

  it("refuses a SQLite file in the service's own data directory", async () => {
    for (const file of [join(inst.dataDir, 'meta.sqlite'), join(inst.dataDir, 'sub', '..', 'meta.sqlite')]) {
      for (const path of ['/api/v1/connections/test', '/api/v1/connections']) {
        const res = await call(inst, admin, 'POST', path, { name: 'Meta', dialect: 'sqlite', url: `sqlite:${file}` });
        expect(res.status).toBe(400);
        expect(res.body.error.issues).toEqual([expect.objectContaining({ path: 'body.url', message: expect.stringContaining('data directory') })]);
      }
    }
  });

  it('records a failing stored test as lastTest, and answers 400 with the reason', async () => {
    const file = sqliteDatabase(dir, 'goes-away.db');
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Goes away', dialect: 'sqlite', url: `sqlite:${file}` })).body.data
      .connection;
    rmSync(file);
    const res = await call(inst, admin, 'POST', `/api/v1/connections/${id}/test`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'file-not-found' } });
    const c = (await call(inst, admin, 'GET', `/api/v1/connections/${id}`)).body.data.connection;
    expect(c.lastTest).toMatchObject({ ok: false, reason: 'file-not-found', latencyMs: null });
    const audit = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select('diff')
      .where('action', '=', 'connections.test')
      .where('target_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.diff!)).toEqual({ ok: false, reason: 'file-not-found' });
    // A new URL that does not work is refused and the old one stays.
    const patch = await call(inst, admin, 'PATCH', `/api/v1/connections/${id}`, { url: `sqlite:${join(dir, 'nope.db')}` });
    expect(patch.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'file-not-found' } });
    expect((await call(inst, admin, 'GET', `/api/v1/connections/${id}`)).body.data.connection.database).toBe(file);
    await call(inst, admin, 'DELETE', `/api/v1/connections/${id}`);
  });
});

describe.runIf(pg)('connection failures on PostgreSQL', () => {
  it('answers database-not-found for a database name the server does not have', async () => {
    await expectFailure('postgres', 'postgres://postgres:hunter2-pg@127.0.0.1:5432/t_no_such_database', 'database-not-found', 'hunter2-pg');
  });

  it('answers auth-failed for a role the server does not know', async () => {
    // pg_hba trusts loopback here, so a wrong password cannot be seen on PostgreSQL (MariaDB checks it below).
    await expectFailure('postgres', 'postgres://no_such_role:hunter2-role@127.0.0.1:5432/postgres', 'auth-failed', 'hunter2-role');
  });

  it('answers tls-failed when TLS is asked of a server that offers none', async () => {
    await expectFailure('postgres', 'postgres://postgres:hunter2-tls@127.0.0.1:5432/postgres?sslmode=require', 'tls-failed', 'hunter2-tls');
  });

  it.runIf(my)('answers not-a-database when the port speaks another protocol (MariaDB)', async () => {
    await expectFailure('postgres', 'postgres://postgres:hunter2-proto@127.0.0.1:3306/postgres', 'not-a-database', 'hunter2-proto');
  });
});

describe.runIf(my)('connection failures on MariaDB/MySQL', () => {
  let temp: TempDatabase;
  let user: Awaited<ReturnType<typeof mysqlUser>>;
  beforeAll(async () => {
    temp = await createTempDatabase('mysql');
    user = await mysqlUser(temp.name);
  });
  afterAll(async () => {
    await user?.drop();
    await temp?.drop();
  });

  it('answers auth-failed for a wrong password, and works with the right one', async () => {
    await expectFailure('mysql', withCredentials(temp.url, user.user, 'hunter2-wrong'), 'auth-failed', 'hunter2-wrong');
    const ok = await call(inst, admin, 'POST', '/api/v1/connections/test', { dialect: 'mysql', url: withCredentials(temp.url, user.user, user.password) });
    expect(ok.status, ok.text).toBe(200);
  });

  it('answers database-not-found for a database name the server does not have', async () => {
    await expectFailure('mysql', 'mysql://root:@127.0.0.1:3306/t_no_such_database', 'database-not-found');
  });

  it('answers permission-denied for a database the user may not use', async () => {
    await expectFailure('mysql', withCredentials(temp.url.replace(temp.name, 'mysql'), user.user, user.password), 'permission-denied', user.password);
  });
});
