/** Fixtures for the exports and imports tests: a source database with a table, a connection to it, grants. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { z } from 'zod';
import { route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import { definePlugin, type PluginDefinition } from '../../kernel/plugin/manifest.js';
import { runScript, type FixtureDialect } from '../../test/fixtures/schema/load.js';
import { openDatabase } from '../../test/fixtures/schema/open.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { createTempDatabase } from '../../test/helpers/databases.js';
import { firstPartyPlugins } from '../index.js';
import { exportsServiceRef } from './service.js';

export interface Source {
  dialect: FixtureDialect;
  /** The connection URL as POST /connections takes it. */
  url: string;
  /** What runScript and openDatabase take. */
  target: string;
  exec(script: string): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db(): import('kysely').Kysely<any>;
  cleanup(): Promise<void>;
}

/** An empty source database of the dialect: a temp database, or a SQLite file. */
export async function emptySource(dialect: FixtureDialect): Promise<Source> {
  let url: string;
  let target: string;
  let drop: () => Promise<void>;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'xfer-src-'));
    target = join(dir, 'source.db');
    await runScript('sqlite', target, 'select 1');
    url = `sqlite:${target}`;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const temp = await createTempDatabase(dialect);
    url = target = temp.url;
    drop = temp.drop;
  }
  // One pool per source, ended before the database is dropped (a dropped database's idle
  // connections would otherwise report their end as an uncaught error).
  let handle: ReturnType<typeof openDatabase> | null = null;
  return {
    dialect,
    url,
    target,
    exec: (script) => runScript(dialect, target, script),
    db: () => (handle ??= openDatabase(dialect, target)),
    cleanup: async () => {
      await handle?.destroy().catch(() => undefined);
      handle = null;
      await drop();
    },
  };
}

/** `people` in each dialect's spelling: every portable type an export writes, a secret column and text that needs quoting. */
export const PEOPLE_DDL: Record<FixtureDialect, string> = {
  postgres: `create table people (id integer primary key, name varchar(100) not null, score numeric(10,2), active boolean not null default true,
    born date, seen_at timestamp, meta jsonb, token varchar(64), note text)`,
  mysql: `create table people (id int primary key, name varchar(100) not null, score decimal(10,2), active tinyint(1) not null default 1,
    born date, seen_at datetime, meta json, token varchar(64), note text)`,
  sqlite: `create table people (id integer primary key not null, name varchar(100) not null, score decimal(10,2), active boolean not null default 1,
    born date, seen_at datetime, meta json, token varchar(64), note text)`,
};

/** A row as the wire (and so every export) shows it. */
export interface Person {
  id: number;
  name: string;
  score: string | null;
  active: boolean;
  born: string | null;
  seen_at: string | null;
  meta: unknown;
  token: string;
  note: string | null;
}

const NAMES = ['Ann', 'Bob, Jr.', 'Say "hi"', 'Two\nlines', 'Ünïcödé ✓', 'Zoë', 'semi;colon', '  padded  '];

export function people(n: number): Person[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return {
      id: i,
      name: `${NAMES[k % NAMES.length]} ${i}`,
      score: i % 5 === 0 ? null : `${i}.25`,
      active: i % 2 === 0,
      born: i % 7 === 0 ? null : `1990-01-${String((i % 28) + 1).padStart(2, '0')}`,
      seen_at: i % 3 === 0 ? null : `2024-03-04T05:06:${String(i % 60).padStart(2, '0')}`,
      meta: i % 4 === 0 ? null : { k: i, tags: ['a', 'b'] },
      token: `secret-${i}`,
      note: i % 2 === 0 ? null : `note ${i}`,
    };
  });
}

/** Writes the rows through a plain driver, in each dialect's spelling of booleans, dates and JSON. */
export async function insertPeople(source: Source, rows: Person[]): Promise<void> {
  const db = source.db();
  const values = rows.map((p) => ({
    ...p,
    active: source.dialect === 'postgres' ? p.active : p.active ? 1 : 0,
    seen_at: p.seen_at && source.dialect === 'mysql' ? p.seen_at.replace('T', ' ') : p.seen_at,
    meta: p.meta === null ? null : JSON.stringify(p.meta),
  }));
  for (let i = 0; i < values.length; i += 500)
    await db
      .insertInto('people')
      .values(values.slice(i, i + 500))
      .execute();
}

/** Registers the source as a connection and introspects it; answers the connection id. */
export async function connect(admin: HttpClient, source: Source, name = 'Source'): Promise<string> {
  const created = await admin.post('/api/v1/connections', { name, dialect: source.dialect, url: source.url });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.connection.id as string;
  const intro = await admin.post(`/api/v1/connections/${id}/introspect`);
  expect(intro.status, intro.text).toBe(200);
  return id;
}

export async function reintrospect(admin: HttpClient, connectionId: string): Promise<void> {
  const intro = await admin.post(`/api/v1/connections/${connectionId}/introspect`);
  expect(intro.status, intro.text).toBe(200);
}

/**
 * data.read / data.write belong to the data plugin. Until it is loaded, a stand-in declares
 * them with the roles it is expected to give (viewer reads, editor writes), so grant scopes
 * can be tested here.
 */
export function dataPermissionPlugins(): PluginDefinition[] {
  const declared = new Set(firstPartyPlugins.flatMap((p) => (p.permissions ?? []).map((x) => x.name)));
  if (declared.has('data.read')) return [];
  return [
    definePlugin({
      name: 'data-permissions-stub',
      version: '1.0.0',
      permissions: [
        { name: 'data.read', label: 'Read rows', description: 'Stand-in for the data plugin.', roles: ['editor', 'viewer'] },
        { name: 'data.write', label: 'Write rows', description: 'Stand-in for the data plugin.', roles: ['editor'] },
      ],
    }),
  ];
}

/** A test-only route that runs the expiry sweep now. */
export const sweepProbe = definePlugin({
  name: 'exports-probe',
  version: '1.0.0',
  requires: ['exports'],
  permissions: [{ name: 'exports-probe.sweep', label: 'Sweep', description: 'Test-only.' }],
  routes: [
    route({
      method: 'POST',
      url: '/exports-probe/sweep',
      summary: 'Run the export sweep',
      permission: 'exports-probe.sweep',
      schema: { body: z.strictObject({}), response: { 200: dataOf(z.strictObject({ removed: z.number() })) } },
      handler: async ({ kernel }) => ({ data: { removed: await kernel.plugin(exportsServiceRef).sweep() } }),
    }),
  ],
});

/** A custom role holding these grants; answers its id. */
export async function roleWith(admin: HttpClient, name: string, grants: Array<{ permission: string; scope?: object }>): Promise<string> {
  const role = await admin.post('/api/v1/roles', { name });
  expect(role.status, role.text).toBe(201);
  const put = await admin.put(`/api/v1/roles/${role.body.data.role.id}/permissions`, { grants });
  expect(put.status, put.text).toBe(200);
  return role.body.data.role.id;
}
