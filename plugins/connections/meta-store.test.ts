/**
 * The meta store's own database is never a connection, however its URL is spelled: an editor
 * could otherwise read password hashes and session tokens through /data.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameMysqlDatabase } from '../../engine/sources/index.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, databaseAvailable, MYSQL_ADMIN_URL, PG_ADMIN_URL, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { ConnectionRepository } from './repository.js';
import { targetOrRefuse } from './service.js';
import { probePlugin } from './testing.js';

const available = { postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };

function spell(
  url: string,
  change: { protocol?: string; host?: string; port?: string; database?: string; user?: string; password?: string; search?: string },
): string {
  const u = new URL(url);
  if (change.protocol) u.protocol = change.protocol;
  if (change.host !== undefined) u.hostname = change.host;
  if (change.port !== undefined) u.port = change.port;
  if (change.database !== undefined) u.pathname = `/${change.database}`;
  if (change.user !== undefined) u.username = change.user;
  if (change.password !== undefined) u.password = change.password;
  if (change.search !== undefined) u.search = change.search;
  return u.toString();
}

function flows(dialect: 'postgres' | 'mysql') {
  let inst: TestInstance;
  let admin: HttpClient;
  let metaUrl: string;
  let metaDb: string;
  let other: TempDatabase;
  const cleanups: Array<() => Promise<void>> = [];
  const api = (method: string, path: string, body?: unknown) => call(inst, admin, method, `/api/v1${path}`, body);
  const port = dialect === 'postgres' ? '5432' : '3306';

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta: dialect, plugins: [probePlugin] }));
    metaUrl = inst.metaUrl!;
    metaDb = new URL(metaUrl).pathname.slice(1);
    other = await createTempDatabase(dialect);
  });
  afterAll(async () => {
    await inst?.close();
    await other?.drop();
    for (const c of cleanups) await c();
  });

  async function expectRefused(url: string) {
    const tested = await api('POST', '/connections/test', { dialect, url });
    expect(tested.status, `${url}: ${tested.text}`).toBe(400);
    expect(tested.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'meta-store' } });
    const created = await api('POST', '/connections', { name: `Own ${randomBytes(3).toString('hex')}`, dialect, url });
    expect(created.status, `${url}: ${created.text}`).toBe(400);
    expect(created.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'meta-store' } });
    expect(created.text).not.toContain(url);
  }

  const spellings: Array<[string, (u: string) => string]> = [
    ['as the meta store URL says', (u) => u],
    ['through localhost', (u) => spell(u, { host: 'localhost' })],
    ['with the default port left out', (u) => spell(u, { port: '' })],
    ['with the port written out, through localhost', (u) => spell(u, { host: 'localhost', port })],
    ['with sslmode=disable written out', (u) => spell(u, { search: '?sslmode=disable' })],
    ['with the other scheme', (u) => spell(u, { protocol: dialect === 'postgres' ? 'postgresql:' : 'mariadb:' })],
    ['with a %-escaped database name', (u) => spell(u, { database: encodeURIComponent(metaDb).replace(/^t/, '%74') })],
  ];
  for (const [what, make] of spellings) {
    it(`refuses the meta store's own database ${what}`, async () => {
      await expectRefused(make(metaUrl));
    });
  }

  it('refuses it through a TCP proxy on another port', async () => {
    const proxy = new TcpProxy('127.0.0.1', Number(port));
    await proxy.start();
    cleanups.push(() => proxy.stop());
    await expectRefused(spell(metaUrl, { port: String(proxy.port) }));
  });

  it('refuses it for a user who cannot read any of its tables (the server is asked, not the tables)', async () => {
    const user = `u_${randomBytes(5).toString('hex')}`;
    if (dialect === 'postgres') {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`create role ${user} login`);
      await c.end();
      cleanups.push(async () => {
        const d = new pg.Client({ connectionString: PG_ADMIN_URL });
        await d.connect();
        await d.query(`drop role if exists ${user}`);
        await d.end();
      });
    } else {
      const password = `pw-${randomBytes(6).toString('hex')}`;
      const c = await createConnection({ uri: MYSQL_ADMIN_URL });
      await c.query(`create user '${user}'@'%' identified by '${password}'`);
      // Enough to open the database, not to read kernel_state or users.
      await c.query(`grant select on \`${metaDb}\`.\`settings\` to '${user}'@'%'`);
      await c.end();
      cleanups.push(async () => {
        const d = await createConnection({ uri: MYSQL_ADMIN_URL });
        await d.query(`drop user if exists '${user}'@'%'`);
        await d.end();
      });
      await expectRefused(spell(metaUrl, { host: 'localhost', user, password }));
      return;
    }
    await expectRefused(spell(metaUrl, { host: 'localhost', user, password: '' }));
  });

  it('refuses a copy of it (a restored backup) by the marker the meta store holds', async () => {
    const copy = await createTempDatabase(dialect);
    cleanups.push(() => copy.drop());
    const marker = await inst.app.kernel.db.selectFrom('kernel_state').selectAll().where('key', '=', 'meta_store_marker').executeTakeFirstOrThrow();
    if (dialect === 'postgres') {
      const c = new pg.Client({ connectionString: copy.url });
      await c.connect();
      await c.query('create table kernel_state (key varchar(100) primary key, value text not null, updated_at bigint not null)');
      await c.query('insert into kernel_state values ($1, $2, $3)', [marker.key, marker.value, marker.updated_at]);
      await c.end();
    } else {
      const c = await createConnection({ uri: copy.url });
      await c.query('create table kernel_state (`key` varchar(100) primary key, value text not null, updated_at bigint not null)');
      await c.query('insert into kernel_state values (?, ?, ?)', [marker.key, marker.value, marker.updated_at]);
      await c.end();
    }
    await expectRefused(copy.url);
  });

  it('accepts another database on the same server', async () => {
    const created = await api('POST', '/connections', { name: 'Neighbour', dialect, url: spell(other.url, { host: 'localhost' }) });
    expect(created.status, created.text).toBe(201);
    expect((await api('POST', `/connections/${created.body.data.connection.id}/test`)).status).toBe(200);
  });

  it('refuses a PATCH of an existing connection onto it', async () => {
    const created = await api('POST', '/connections', { name: 'Moves', dialect, url: other.url });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.connection.id;
    const patched = await api('PATCH', `/connections/${id}`, { url: spell(metaUrl, { host: 'localhost', port }) });
    expect(patched.status, patched.text).toBe(400);
    expect(patched.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'meta-store' } });
    expect((await api('GET', `/connections/${id}`)).body.data.connection.database).toBe(other.name);
  });

  it('refuses a connection stored before the check existed, when it is used or tested', async () => {
    // Stored the way an older version stored it: sealed URL, no check.
    const url = spell(metaUrl, { host: 'localhost' });
    const row = await new ConnectionRepository(inst.app.kernel.meta, Date.now).insert({
      name: 'Legacy',
      dialect,
      urlSealed: inst.app.kernel.secrets('connections').encrypt(url),
      target: targetOrRefuse(dialect, url),
      readOnly: false,
      test: { ok: true, result: { latencyMs: 1, serverVersion: 'x' } },
    });
    const used = await api('POST', `/connections/${row.id}/introspect`);
    expect(used.status, used.text).toBe(400);
    expect(used.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'meta-store', connectionId: row.id } });
    for (const path of [`/probe/${row.id}/ping`, `/probe/${row.id}/source`]) {
      const read = await api('GET', path);
      expect(read.status, read.text).toBe(400);
      expect(read.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'meta-store', connectionId: row.id } });
    }

    const tested = await api('POST', `/connections/${row.id}/test`);
    expect(tested.status, tested.text).toBe(400);
    expect(tested.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'meta-store', connectionId: row.id } });
    expect((await api('GET', `/connections/${row.id}`)).body.data.connection.lastTest).toMatchObject({ ok: false, reason: 'meta-store' });
  });

  if (dialect === 'mysql') {
    it('refuses the database name in another letter case (here a different, missing database: lower_case_table_names = 0)', async () => {
      const res = await api('POST', '/connections', { name: 'Upper', dialect, url: spell(metaUrl, { database: metaDb.toUpperCase() }) });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('CONNECTION_FAILED');
      expect(['meta-store', 'database-not-found']).toContain(res.body.error.params.reason);
    });
  }
}

describe.runIf(available.postgres)('a PostgreSQL meta store is never a connection', () => flows('postgres'));
describe.runIf(available.mysql)('a MariaDB meta store is never a connection', () => flows('mysql'));

describe('MySQL database names', () => {
  it('are one database in any letter case unless the server keeps names as typed', () => {
    expect(sameMysqlDatabase('shop', 'shop', 0)).toBe(true);
    expect(sameMysqlDatabase('shop', 'SHOP', 0)).toBe(false);
    expect(sameMysqlDatabase('shop', 'SHOP', 1)).toBe(true);
    expect(sameMysqlDatabase('Shop', 'sHOP', 2)).toBe(true);
  });
});
