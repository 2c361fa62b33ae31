import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manyTablesSql } from '../../test/fixtures/schema/many-tables.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { addUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { BODY_LIMIT, MAX_SOURCE_CHARS } from './routes.js';

const URL = '/api/v1/schema-import/parse';
let inst: TestInstance;
let admin: HttpClient;

beforeAll(async () => {
  ({ inst, admin } = await bootWithAdmin());
});
afterAll(async () => {
  await inst?.close();
});

describe('POST /schema-import/parse', () => {
  it('parses SQL into the schema model, with warnings for what it skipped', async () => {
    const source = 'SET x = 1;\nCREATE TABLE a (id serial PRIMARY KEY, name text NOT NULL);\nCREATE TABLE b (a_id int REFERENCES a (id) ON DELETE CASCADE);';
    const res = await call(inst, admin, 'POST', URL, { format: 'sql', dialect: 'postgres', source });
    expect(res.status).toBe(200);
    expect(res.body.data.model.dialect).toBe('postgres');
    expect(res.body.data.model.tables.map((t: { name: string }) => t.name)).toEqual(['a', 'b']);
    expect(res.body.data.model.tables[1].foreignKeys[0]).toMatchObject({ referencedTable: 'a', onDelete: 'cascade' });
    expect(res.body.data.warnings).toEqual([{ line: 1, column: 1, message: 'skipped SET: session settings are not part of the schema model' }]);
  });

  it('parses Prisma, Drizzle and the JSON model', async () => {
    const prisma = await call(inst, admin, 'POST', URL, {
      format: 'prisma',
      source: 'datasource db {\n  provider = "sqlite"\n  url = "file:x"\n}\nmodel A {\n  id Int @id\n}\n',
    });
    expect(prisma.status).toBe(200);
    expect(prisma.body.data.model).toMatchObject({ dialect: 'sqlite', tables: [{ name: 'A' }] });

    const drizzle = await call(inst, admin, 'POST', URL, {
      format: 'drizzle',
      source: "import { pgTable, integer } from 'drizzle-orm/pg-core';\nexport const t = pgTable('t', { id: integer('id').primaryKey() });\n",
    });
    expect(drizzle.status).toBe(200);
    expect(drizzle.body.data.model.tables[0]).toMatchObject({ name: 't', primaryKey: { columns: ['id'] } });

    const json = await call(inst, admin, 'POST', URL, { format: 'json', source: JSON.stringify(prisma.body.data.model) });
    expect(json.status).toBe(200);
    expect(json.body.data).toEqual({ model: prisma.body.data.model, warnings: [] });
  });

  it('uses the requested dialect when the file names none', async () => {
    const res = await call(inst, admin, 'POST', URL, { format: 'json', dialect: 'mysql', source: '{"dialect":null,"tables":[],"enums":[]}' });
    expect(res.body.data.model.dialect).toBe('mysql');
  });

  it('answers 400 SCHEMA_PARSE_FAILED with the line and column of the problem', async () => {
    const source = 'CREATE TABLE a (\n  id integer,\n  b_id integer REFERENCES b (id) ON UPDATE LATER\n);';
    const res = await call(inst, admin, 'POST', URL, { format: 'sql', dialect: 'postgres', source });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('SCHEMA_PARSE_FAILED');
    expect(res.body.error.params).toEqual({ line: 3, column: 44, message: 'expected CASCADE, RESTRICT, SET NULL, SET DEFAULT or NO ACTION (found `LATER`)' });
    expect(res.body.error.message).toBe(
      'The schema file cannot be read: line 3, column 44: expected CASCADE, RESTRICT, SET NULL, SET DEFAULT or NO ACTION (found `LATER`)',
    );

    const prisma = await call(inst, admin, 'POST', URL, { format: 'prisma', source: 'model A {\n  id Int @id\n  name\n}' });
    expect(prisma.status).toBe(400);
    expect(prisma.body.error.params).toMatchObject({ line: 3, column: 7 });
  });

  it('refuses pathological nesting with 400, not a crash', async () => {
    const depth = 200_000;
    const prisma = `model A {\n  id Int @id @default(${'['.repeat(depth)}${']'.repeat(depth)})\n}\n`;
    const drizzle = `export const x = ${'('.repeat(depth)}1${')'.repeat(depth)};\n`;
    for (const [format, source] of [
      ['prisma', prisma],
      ['drizzle', drizzle],
    ]) {
      const res = await call(inst, admin, 'POST', URL, { format, source });
      expect(res.status, res.text.slice(0, 300)).toBe(400);
      expect(res.body.error.code).toBe('SCHEMA_PARSE_FAILED');
    }
  });

  it('validates the body', async () => {
    const res = await call(inst, admin, 'POST', URL, { format: 'yaml', source: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.issues[0].path).toBe('body.format');
  });

  it('records what was parsed in the audit trail, without the file', async () => {
    await call(inst, admin, 'POST', URL, { format: 'sql', dialect: 'sqlite', source: 'CREATE TABLE secret_looking_name (id int);' });
    const row = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select(['action', 'diff'])
      .where('action', '=', 'schema-import.parse')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.diff!)).toEqual({ format: 'sql', dialect: 'sqlite', chars: 42, tables: 1, warnings: 0 });
  });
});

describe('who may parse', () => {
  it('editors may, viewers may not', async () => {
    const body = { format: 'sql', dialect: 'sqlite', source: 'CREATE TABLE t (id int);' };
    const editor = await addUser(inst, { role: 'editor', email: 'editor@example.com' });
    expect((await call(inst, editor.client, 'POST', URL, body)).status).toBe(200);
    const viewer = await addUser(inst, { role: 'viewer', email: 'viewer@example.com' });
    const refused = await call(inst, viewer.client, 'POST', URL, body);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'schema-import.use' } });
    expect((await call(inst, inst.client(), 'POST', URL, body)).status).toBe(401);
  });
});

describe('a 10 MB DDL file', () => {
  it('parses within the body limit, in bounded time', async () => {
    const limit = MAX_SOURCE_CHARS;
    const perTable = manyTablesSql('postgres', 100, 12).length / 100;
    let source = manyTablesSql('postgres', Math.ceil(limit / perTable) + 50, 12);
    // Cut at the last whole statement under 10 MB.
    source = source.slice(0, source.lastIndexOf(';', limit - 1) + 1);
    const expected = (source.match(/^create table /gm) ?? []).length;
    expect(source.length).toBeGreaterThan(limit - 2048);
    expect(expected).toBeGreaterThan(15_000);

    const started = Date.now();
    const res = await admin.post(URL, { format: 'sql', source });
    const elapsed = Date.now() - started;
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const { model, warnings } = res.body.data;
    expect(model.dialect).toBe('postgres');
    expect(model.tables).toHaveLength(expected);
    expect(model.tables[expected - 1].foreignKeys[0]).toMatchObject({ referencedTable: `t${String(expected - 2).padStart(4, '0')}`, onDelete: 'set null' });
    expect(warnings).toEqual([]);
    expect(elapsed).toBeLessThan(60_000);
  }, 120_000);

  it('is refused above the limit with 413', async () => {
    const res = await admin.post(URL, { format: 'sql', source: 'x'.repeat(BODY_LIMIT) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses a source over 10 MB that still fits the body limit', async () => {
    const res = await call(inst, admin, 'POST', URL, { format: 'sql', source: '-'.repeat(MAX_SOURCE_CHARS + 1) });
    expect(res.status).toBe(400);
    expect(res.body.error.issues[0].path).toBe('body.source');
  });
});
