/** Fixtures for the public-admin tests: an instance serving the public API, fixture connections. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { loadFixture, runScript } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { createTempDatabase, type TempDatabase } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { InstanceOptions, TestInstance } from '../../test/helpers/instance.js';
import { publicAdminRef, type PublicAdminProvides } from './provides.js';

export const ORIGINS = 'https://shop.example,https://book.example';

export async function bootPublic(opts: InstanceOptions & { origins?: string | null } = {}) {
  const { origins = ORIGINS, ...rest } = opts;
  return bootWithAdmin({ ...rest, env: { ...(origins ? { SVC_PUBLIC_API_ORIGINS: origins } : {}), ...rest.env } });
}

export interface FixtureSource {
  dialect: 'sqlite' | 'postgres';
  url: string;
  /** Runs DDL on the source (to change its schema between introspections). */
  exec(sql: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** The shared schema fixture in a fresh SQLite file or PostgreSQL database. */
export async function fixtureSource(dialect: 'sqlite' | 'postgres'): Promise<FixtureSource> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'public-admin-src-'));
    const file = join(dir, 'fixture.sqlite');
    await loadFixture('sqlite', file);
    return {
      dialect,
      url: `sqlite:${file}`,
      exec: (sql) => runScript('sqlite', file, sql),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const temp: TempDatabase = await createTempDatabase('postgres');
  await loadFixture('postgres', temp.url);
  return { dialect, url: temp.url, exec: (sql) => runScript('postgres', temp.url, sql), cleanup: () => temp.drop() };
}

/** A connection to `source`, created and introspected over HTTP. */
export async function addConnection(inst: TestInstance, admin: HttpClient, name: string, source: FixtureSource): Promise<string> {
  const created = await call(inst, admin, 'POST', '/api/v1/connections', { name, dialect: source.dialect, url: source.url });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.connection.id as string;
  await introspect(inst, admin, id);
  return id;
}

export async function introspect(inst: TestInstance, admin: HttpClient, id: string): Promise<void> {
  const res = await call(inst, admin, 'POST', `/api/v1/connections/${id}/introspect`, {});
  expect(res.status, res.text).toBe(200);
}

export async function setOverrides(inst: TestInstance, admin: HttpClient, id: string, tables: unknown[]): Promise<void> {
  const res = await call(inst, admin, 'PUT', `/api/v1/connections/${id}/schema/overrides`, { tables });
  expect(res.status, res.text).toBe(200);
}

/** All endpoints (every page), optionally of one connection. */
export async function scopes(inst: TestInstance, admin: HttpClient, connectionId?: string): Promise<any[]> {
  const res = await call(inst, admin, 'GET', `/api/v1/public-scopes?limit=500${connectionId ? `&connectionId=${connectionId}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.scopes;
}

export async function scopeOf(inst: TestInstance, admin: HttpClient, connectionId: string, table: string): Promise<any> {
  const all = await scopes(inst, admin, connectionId);
  const found = all.find((s) => s.table === table && s.generated);
  expect(found, `no generated endpoint for ${table}`).toBeDefined();
  return found;
}

/**
 * A plugin that reaches the control plane the way the data plane does (`kernel.plugin`), so the
 * tests can call PublicAdminProvides on a running instance. One per instance: `admin()` answers
 * the instance started last with it.
 */
export function providesProbe(): { plugin: ReturnType<typeof definePlugin>; admin(): PublicAdminProvides } {
  let provided: PublicAdminProvides | null = null;
  return {
    plugin: definePlugin({
      name: 'public-admin-probe',
      version: '1.0.0',
      requires: ['public-admin'],
      setup: (kernel) => {
        provided = kernel.plugin(publicAdminRef);
      },
    }),
    admin: () => {
      if (!provided) throw new Error('the probe plugin was not loaded');
      return provided;
    },
  };
}
