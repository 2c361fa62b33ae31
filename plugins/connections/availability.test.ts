import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { TcpProxy } from '../../test/helpers/tcp-proxy.js';
import { eventually, pgSessions, probePlugin, sqliteDatabase } from './testing.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

const opened: TestInstance[] = [];
const temps: TempDatabase[] = [];
afterEach(async () => {
  for (const i of opened.splice(0)) await i.close();
});
afterAll(async () => {
  for (const t of temps.splice(0)) await t.drop();
});

async function boot(): Promise<{ inst: TestInstance; admin: HttpClient }> {
  const booted = await bootWithAdmin({ plugins: [probePlugin] });
  opened.push(booted.inst);
  return booted;
}

async function temp(dialect: 'postgres' | 'mysql'): Promise<TempDatabase> {
  const t = await createTempDatabase(dialect);
  temps.push(t);
  return t;
}

/** A URL to the same database through a proxy on another port. */
function through(proxy: TcpProxy, url: string): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${proxy.port}`;
  return u.toString();
}

/** Polls GET `path` until it answers `status` (the pool retries a lost database on its own). */
async function until(inst: TestInstance, client: HttpClient, path: string, status: number, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs;
  let res = await call(inst, client, 'GET', path);
  while (res.status !== status && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    res = await call(inst, client, 'GET', path);
  }
  return res;
}

function goesDownAndComesBack(dialect: 'postgres' | 'mysql') {
  it('answers 503 CONNECTION_UNAVAILABLE while the database is down and recovers by itself', async () => {
    const t = await temp(dialect);
    const proxy = new TcpProxy('127.0.0.1', dialect === 'postgres' ? 5432 : 3306);
    await proxy.start();
    try {
      const { inst, admin } = await boot();
      const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Flaky', dialect, url: through(proxy, t.url) })).body.data.connection;
      expect((await call(inst, admin, 'GET', `/api/v1/probe/${id}/ping`)).body.data).toEqual({ value: '1' });

      proxy.down();
      for (const path of [`/api/v1/probe/${id}/ping`, `/api/v1/probe/${id}/source`]) {
        const started = Date.now();
        const res = await until(inst, admin, path, 503);
        expect(res.status, path).toBe(503);
        expect(res.body.error).toMatchObject({ code: 'CONNECTION_UNAVAILABLE', params: { connectionId: id, reason: 'unreachable' } });
        expect(Date.now() - started).toBeLessThan(6000);
      }
      // The instance itself is fine: liveness and readiness do not depend on the operators' databases.
      expect((await inst.client().get('/api/v1/healthz')).status).toBe(200);
      expect((await inst.client().get('/api/v1/readyz')).status).toBe(200);
      // A test says why, as a test of an unsaved URL would.
      const tested = await call(inst, admin, 'POST', `/api/v1/connections/${id}/test`);
      expect(tested.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'unreachable' } });

      proxy.restore();
      const back = await until(inst, admin, `/api/v1/probe/${id}/ping`, 200);
      expect(back.status, back.text).toBe(200);
      expect((await call(inst, admin, 'GET', `/api/v1/probe/${id}/source`)).status).toBe(200);
    } finally {
      await proxy.stop();
    }
  });
}

describe.runIf(pg)('a PostgreSQL connection behind a proxy', () => goesDownAndComesBack('postgres'));
describe.runIf(my)('a MariaDB connection behind a proxy', () => goesDownAndComesBack('mysql'));

describe.runIf(pg)('PostgreSQL pools', () => {
  it('closes the pool when the connection is deleted', async () => {
    const t = await temp('postgres');
    const { inst, admin } = await boot();
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Pooled', dialect: 'postgres', url: t.url })).body.data.connection;
    // Saving read the schema through the pool, which stays open for the first reads.
    await Promise.all([1, 2, 3].map(() => call(inst, admin, 'GET', `/api/v1/probe/${id}/ping`)));
    expect(await pgSessions(t.name)).toBeGreaterThan(0);
    expect((await call(inst, admin, 'DELETE', `/api/v1/connections/${id}`)).status).toBe(200);
    expect(await eventually(() => pgSessions(t.name), 0)).toBe(0);
    const gone = await call(inst, admin, 'GET', `/api/v1/probe/${id}/ping`);
    expect(gone.status).toBe(404);
  });

  it('closes the old pool when the URL changes, and every pool when the app shuts down', async () => {
    const a = await temp('postgres');
    const b = await temp('postgres');
    const { inst, admin } = await boot();
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Moving', dialect: 'postgres', url: a.url })).body.data.connection;
    await call(inst, admin, 'GET', `/api/v1/probe/${id}/ping`);
    expect(await pgSessions(a.name)).toBe(1);
    expect((await call(inst, admin, 'PATCH', `/api/v1/connections/${id}`, { url: b.url })).status).toBe(200);
    expect(await eventually(() => pgSessions(a.name), 0)).toBe(0);
    await call(inst, admin, 'GET', `/api/v1/probe/${id}/ping`);
    expect(await pgSessions(b.name)).toBe(1);
    await inst.close();
    opened.splice(opened.indexOf(inst), 1);
    expect(await eventually(() => pgSessions(b.name), 0)).toBe(0);
  });

  it('runs sessions under the statement timeout, read-only flag and default schema it was given', async () => {
    const t = await temp('postgres');
    const { inst, admin } = await boot();
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Limits', dialect: 'postgres', url: t.url })).body.data.connection;
    const setting = async (name: string) => (await call(inst, admin, 'GET', `/api/v1/probe/${id}/setting/${name}`)).body.data.value;
    expect(await setting('statement_timeout')).toBe('30s');
    expect(await setting('default_transaction_read_only')).toBe('off');

    await call(inst, admin, 'PUT', `/api/v1/connections/${id}/overrides`, { statementTimeoutMs: 2500, defaultSchema: 'Sales Data' });
    expect(await setting('statement_timeout')).toBe('2500ms');
    expect(await setting('search_path')).toBe('"Sales Data"');
    await call(inst, admin, 'PATCH', `/api/v1/connections/${id}`, { readOnly: true });
    expect(await setting('default_transaction_read_only')).toBe('on');
    expect((await call(inst, admin, 'GET', `/api/v1/probe/${id}/source`)).body.data.value).toBe('Limits:postgres:true');
    // Changing limits replaced the pool rather than adding one.
    expect(await eventually(() => pgSessions(t.name), 1)).toBe(1);
  });
});

describe('a SQLite connection whose file goes away', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'conn-avail-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 503 while the file is missing and recovers when it is back', async () => {
    const file = sqliteDatabase(dir, 'moving.db');
    const { inst, admin } = await boot();
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Moving file', dialect: 'sqlite', url: `sqlite:${file}` })).body.data
      .connection;
    expect((await call(inst, admin, 'GET', `/api/v1/probe/${id}/ping`)).status).toBe(200);
    renameSync(file, `${file}.away`);
    const down = await until(inst, admin, `/api/v1/probe/${id}/ping`, 503);
    expect(down.body.error).toMatchObject({ code: 'CONNECTION_UNAVAILABLE', params: { connectionId: id, reason: 'file-not-found' } });
    // A copy (another inode) comes back: the pool opens the file that is there now.
    copyFileSync(`${file}.away`, file);
    expect((await until(inst, admin, `/api/v1/probe/${id}/ping`, 200)).status).toBe(200);
  });

  it('lets a viewer use a connection through another plugin but not manage it', async () => {
    const file = sqliteDatabase(dir, 'shared.db');
    const { inst, admin } = await boot();
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Shared', dialect: 'sqlite', url: `sqlite:${file}` })).body.data.connection;
    const viewer = (await addUser(inst, { role: 'viewer', email: 'v@example.com' })).client;
    expect((await call(inst, viewer, 'GET', `/api/v1/probe/${id}/ping`)).status).toBe(200);
    const refused = await call(inst, viewer, 'DELETE', `/api/v1/connections/${id}`);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'connections.write' } });
  });
});
