import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call, expectContract } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { activeUser, bootWithAdmin, issuePaths, openEvents } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connect, dataPermissionPlugins, emptySource, insertPeople, PEOPLE_DDL, people, roleWith, sweepProbe, type Person, type Source } from './testing.js';

const dialects: FixtureDialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const FAST_JOBS = { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 };
const ROWS = people(40);
const VISIBLE = ['id', 'name', 'score', 'active', 'born', 'seen_at', 'meta', 'note'] as const;

async function download(client: HttpClient, inst: TestInstance, id: string): Promise<{ res: Response; body: Buffer }> {
  const res = await fetch(`${inst.url}/api/v1/exports/${id}/download`, { headers: { cookie: `svc_session=${client.cookie('svc_session')}` } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** Asks for an export and waits for its job; answers the export as GET /exports/{id} then shows it. */
async function exportOf(inst: TestInstance, client: HttpClient, body: object): Promise<any> {
  const res = await call(inst, client, 'POST', '/api/v1/exports', body);
  expect(res.status, res.text).toBe(202);
  const exp = res.body.data.export;
  expect(['queued', 'running', 'ready']).toContain(exp.state);
  await inst.app.kernel.jobs.waitFor(exp.jobId, 20_000);
  const got = await call(inst, client, 'GET', `/api/v1/exports/${exp.id}`);
  expect(got.status).toBe(200);
  return got.body.data.export;
}

/** JSON cells compared as values: PostgreSQL writes jsonb with spaces, JSON.stringify without. */
const jsonCellsParsed = (cells: string[]) => cells.map((c, i) => (VISIBLE[i] === 'meta' && c ? JSON.parse(c) : c));

/** What a CSV cell holds for a wire value. */
const csvText = (v: unknown) => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

describe.each(dialects)('exports from %s', (dialect) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: FAST_JOBS }));
    source = await emptySource(dialect);
    await source.exec(PEOPLE_DDL[dialect]);
    await insertPeople(source, ROWS);
    connectionId = await connect(admin, source);
    const put = await admin.put(`/api/v1/connections/${connectionId}/schema/overrides`, {
      tables: [{ table: 'people', columns: [{ column: 'token', secret: true }] }],
    });
    expect(put.status, put.text).toBe(200);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('writes CSV that parses back to the rows, without the secret column', async () => {
    const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'csv' });
    expect(exp).toMatchObject({ state: 'ready', rowCount: ROWS.length, progress: 1, columns: [...VISIBLE], format: 'csv', table: 'people', error: null });
    expect(exp.bytes).toBeGreaterThan(0);
    expect(exp.expiresAt - exp.finishedAt).toBe(24 * 3600_000);
    expect(exp.fileName).toMatch(/^people-\d{8}-\d{4}\.csv$/);
    const { res, body } = await download(admin, inst, exp.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toContain(`filename="${exp.fileName}"`);
    expect(Number(res.headers.get('content-length'))).toBe(exp.bytes);
    const text = body.toString('utf8');
    const records: string[][] = parseCsv(text);
    expect(records[0]).toEqual([...VISIBLE]);
    expect(records.slice(1).map(jsonCellsParsed)).toEqual(ROWS.map((p) => jsonCellsParsed(VISIBLE.map((c) => csvText(p[c])))));
    expect(text).not.toContain('secret-');
    // CRLF ends every record (EX2); a line break inside a quoted value stays as it is.
    expect(text.split('\r\n')).toHaveLength(ROWS.length + 2);
    expect(text).toContain('"Two\nlines 4"');
  });

  it('writes a filtered, sorted CSV with the same rows as JSON lines', async () => {
    const filter = {
      active: { ne: false },
      score: { gte: 3, lt: '30.5' },
      name: { like: '%o%' },
      born: { gt: '1990-01-03' },
      id: { in: [4, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28] },
      seen_at: { lte: '2024-03-04T05:06:30' },
    };
    const columns = ['id', 'name', 'score', 'active', 'born', 'seen_at'];
    const csv = await exportOf(inst, admin, { connectionId, table: 'people', format: 'csv', columns, filter, sort: '-score' });
    const jsonl = await exportOf(inst, admin, { connectionId, table: 'people', format: 'jsonl', columns, filter, sort: '-score' });
    const fromJson = (await download(admin, inst, jsonl.id)).body
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((l) => Object.values(JSON.parse(l)).map(csvText));
    const fromCsv: string[][] = parseCsv((await download(admin, inst, csv.id)).body.toString('utf8')).slice(1);
    expect(fromJson.length).toBeGreaterThan(1);
    expect(fromCsv).toEqual(fromJson);
    expect(csv.rowCount).toBe(fromJson.length);
  });

  it('writes JSON lines with the wire values', async () => {
    const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'jsonl' });
    const { res, body } = await download(admin, inst, exp.id);
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = body
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(ROWS.map(({ token: _t, ...rest }) => rest));
  });

  it('writes XLSX with numbers as numbers and text as text', async () => {
    const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'xlsx', columns: ['id', 'name', 'score', 'active', 'meta'] });
    const { res, body } = await download(admin, inst, exp.id);
    expect(res.headers.get('content-type')).toContain('spreadsheetml');
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(body as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    const values: unknown[][] = [];
    sheet.eachRow((row) => values.push((row.values as unknown[]).slice(1)));
    expect(values[0]).toEqual(['id', 'name', 'score', 'active', 'meta']);
    const expected = ROWS.map((p) => [
      p.id,
      p.name,
      p.score === null ? undefined : Number(p.score),
      p.active,
      p.meta === null ? undefined : JSON.stringify(p.meta),
    ]);
    // exceljs leaves trailing empty cells out of a row's values.
    expect(values.slice(1).map((r) => [...r, ...Array(5 - r.length).fill(undefined)])).toEqual(expected);
  });

  it('exports a filtered, sorted query', async () => {
    const filter = { active: { eq: true }, score: { gte: 10 }, name: { like: '%a%' }, note: { null: true } };
    const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'jsonl', columns: ['id', 'name', 'score'], filter, sort: '-score' });
    expect(exp.filter).toEqual(filter);
    expect(exp.sort).toBe('-score');
    const { body } = await download(admin, inst, exp.id);
    const got = body
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const want = ROWS.filter((p) => p.active && p.score !== null && Number(p.score) >= 10 && /a/i.test(p.name) && p.note === null)
      .sort((a, b) => Number(b.score) - Number(a.score))
      .map((p) => ({ id: p.id, name: p.name, score: p.score }));
    expect(want.length).toBeGreaterThan(2);
    expect(got).toEqual(want);
    expect(exp.rowCount).toBe(want.length);
  });

  it('exports the grid’s search and a list of filters; the search looks only where its asker could read (EX9)', async () => {
    const idsOf = async (client: HttpClient, exp: { id: string }) =>
      (parseCsv((await download(client, inst, exp.id)).body.toString('utf8'), { columns: true }) as Array<{ id: string }>).map((r) => Number(r.id));
    const filter = [{ id: { gte: 2 } }, { id: { gte: 5 } }, { id: { lte: 30 } }];
    // CSV: PostgreSQL's COPY binds its values another way than the other dialects' statements.
    const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'csv', columns: ['id'], search: 'NOTE 1', filter, sort: 'id' });
    expect(exp).toMatchObject({ search: 'NOTE 1', filter, state: 'ready' });
    const want = ROWS.filter((p) => [p.name, p.note ?? ''].some((t) => t.toLowerCase().includes('note 1')) && p.id >= 5 && p.id <= 30).map((p) => p.id);
    expect(want).toEqual([11, 13, 15, 17, 19]);
    expect(await idsOf(admin, exp)).toEqual(want);
    // The search's characters are literal, and a secret column is never searched.
    for (const search of ['%', '_', 'secret-1']) {
      const none = await exportOf(inst, admin, { connectionId, table: 'people', format: 'jsonl', search });
      expect(none.rowCount, search).toBe(0);
    }
    // A grant that reads id and name only: the notes are not searched for it.
    const role = await roleWith(admin, `search-${dialect}`, [
      { permission: 'exports.run' },
      { permission: 'data.read', scope: { connectionId, table: 'people', columns: ['id', 'name'] } },
    ]);
    const narrow = await activeUser(inst, admin, `search-${dialect}@example.com`, [role]);
    expect((await exportOf(inst, narrow.client, { connectionId, table: 'people', format: 'csv', search: 'note 1' })).rowCount).toBe(0);
    const anns = await exportOf(inst, narrow.client, { connectionId, table: 'people', format: 'csv', search: 'ann', sort: 'id' });
    expect(await idsOf(narrow.client, anns)).toEqual(ROWS.filter((p) => p.name.startsWith('Ann')).map((p) => p.id));
    // Bad input names its place.
    const bad = await call(inst, admin, 'POST', '/api/v1/exports', {
      connectionId,
      table: 'people',
      format: 'csv',
      search: 'a\u0000',
      filter: [{ nope: { eq: 1 } }],
    });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad).sort()).toEqual(['body.search']);
    const unknown = await call(inst, admin, 'POST', '/api/v1/exports', {
      connectionId,
      table: 'people',
      format: 'csv',
      filter: [{ id: { eq: 1 } }, { nope: { eq: 1 } }],
    });
    expect(issuePaths(unknown)).toEqual(['body.filter.1.nope']);
  });

  it('refuses secret, unknown and unfilterable columns with the body path', async () => {
    const secret = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'csv', columns: ['id', 'token'] });
    expect(secret.status).toBe(400);
    expect(issuePaths(secret)).toEqual(['body.columns.1']);
    const bad = await call(inst, admin, 'POST', '/api/v1/exports', {
      connectionId,
      table: 'people',
      format: 'csv',
      filter: { nope: { eq: 1 }, token: { eq: 'x' }, meta: { eq: 'x' } },
      sort: 'nope',
    });
    expect(issuePaths(bad).sort()).toEqual(['body.filter.meta.eq', 'body.filter.nope', 'body.filter.token', 'body.sort']);
    const table = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'nope', format: 'csv' });
    expect(table.status).toBe(404);
  });

  it('publishes progress as job events', async () => {
    const many = people(12_000).map((p) => ({ ...p, id: p.id + 1000 }));
    await insertPeople(source, many);
    const events = await openEvents(inst, admin);
    try {
      const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'csv' });
      expect(exp.rowCount).toBe(ROWS.length + many.length);
      const progress = events.events.filter((e) => e.kind === 'job.progress' && e.data.job.id === exp.jobId).map((e) => e.data.job.progress);
      // Chunks of 5 000 rows (COPY on PostgreSQL: as the bytes arrive, about 1 MB here): the start and two chunks in between.
      expect(progress.filter((p: number | null) => p !== null && p > 0 && p < 1).length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      await events.waitFor((e) => e.kind === 'job.finished' && e.data.job.id === exp.jobId);
    } finally {
      events.close();
      const db = source.db();
      await db.deleteFrom('people').where('id', '>', 1000).execute();
    }
  });

  it('honours data.read scopes and shows an export only to its owner', async () => {
    const columnsOnly = await roleWith(admin, `cols-${dialect}`, [
      { permission: 'exports.run' },
      { permission: 'data.read', scope: { connectionId, table: 'people', columns: ['id', 'name', 'token'] } },
    ]);
    const otherTable = await roleWith(admin, `other-${dialect}`, [
      { permission: 'exports.run' },
      { permission: 'data.read', scope: { connectionId, table: 'elsewhere' } },
    ]);
    const narrow = await activeUser(inst, admin, `narrow-${dialect}@example.com`, [columnsOnly]);
    const outside = await activeUser(inst, admin, `outside-${dialect}@example.com`, [otherTable]);
    const viewer = await activeUser(inst, admin, `viewer-${dialect}@example.com`, ['viewer']);

    const exp = await exportOf(inst, narrow.client, { connectionId, table: 'people', format: 'csv' });
    expect(exp.columns).toEqual(['id', 'name']);
    const refused = await call(inst, narrow.client, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'csv', columns: ['score'] });
    expect(issuePaths(refused)).toEqual(['body.columns.0']);
    const filtered = await call(inst, narrow.client, 'POST', '/api/v1/exports', {
      connectionId,
      table: 'people',
      format: 'csv',
      columns: ['id'],
      filter: { score: { gt: 1 } },
    });
    expect(issuePaths(filtered)).toEqual(['body.filter.score']);
    const forbidden = await call(inst, outside.client, 'POST', '/api/v1/exports', { connectionId, table: 'people', format: 'csv' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.params.permission).toBe('data.read');

    // Another user's export is not there for them; an admin sees it.
    for (const path of [`/api/v1/exports/${exp.id}`, `/api/v1/exports/${exp.id}/download`]) {
      const res = await viewer.client.get(path);
      expect(res.status, path).toBe(404);
      expectContract(inst, 'GET', path, res);
    }
    expect((await call(inst, viewer.client, 'GET', '/api/v1/exports')).body.data.exports).toEqual([]);
    const mine = await call(inst, narrow.client, 'GET', '/api/v1/exports?limit=1');
    expect(mine.body.data.exports.map((e: { id: string }) => e.id)).toEqual([exp.id]);
    const all = await call(inst, admin, 'GET', '/api/v1/exports?all=true&limit=500');
    expect(all.body.data.exports.map((e: { id: string }) => e.id)).toContain(exp.id);
    expect((await download(admin, inst, exp.id)).res.status).toBe(200);
  });

  it('pages the list newest first', async () => {
    const first = await call(inst, admin, 'GET', '/api/v1/exports?limit=2');
    expect(first.body.data.exports).toHaveLength(2);
    const second = await call(inst, admin, 'GET', `/api/v1/exports?limit=2&cursor=${first.body.data.nextCursor}`);
    const ids = [...first.body.data.exports, ...second.body.data.exports].map((e: { id: string }) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
    expect(new Set(ids).size).toBe(4);
  });
});

describe('export files expire', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  let clock = Date.now();
  const fileKeyOf = async (id: string) =>
    (
      await inst.app.kernel.db
        .withTables<{ exports: { id: string; file_key: string | null } }>()
        .selectFrom('exports')
        .select('file_key')
        .where('id', '=', id)
        .executeTakeFirst()
    )?.file_key ?? null;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: [...dataPermissionPlugins(), sweepProbe], jobs: FAST_JOBS, now: () => clock }));
    source = await emptySource('sqlite');
    await source.exec(PEOPLE_DDL.sqlite);
    await insertPeople(source, ROWS.slice(0, 5));
    connectionId = await connect(admin, source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('answers 410 after the retention, and the sweep removes the file', async () => {
    const exp = await exportOf(inst, admin, { connectionId, table: 'people', format: 'csv' });
    const file = (await fileKeyOf(exp.id))!;
    expect(await inst.app.kernel.files.stat(file)).not.toBeNull();
    clock += 24 * 3600_000 + 1;
    // Past expiry, a download is refused even before the sweep ran.
    const early = await admin.get(`/api/v1/exports/${exp.id}/download`);
    expect(early.status).toBe(410);
    expect(early.body.error.code).toBe('EXPORT_EXPIRED');
    const swept = await call(inst, admin, 'POST', '/api/v1/exports-probe/sweep', {});
    expect(swept.body.data.removed).toBeGreaterThanOrEqual(1);
    expect(await inst.app.kernel.files.stat(file)).toBeNull();
    expect((await call(inst, admin, 'GET', `/api/v1/exports/${exp.id}`)).body.data.export.state).toBe('expired');
    const late = await admin.get(`/api/v1/exports/${exp.id}/download`);
    expect(late.status).toBe(410);
    expectContract(inst, 'GET', `/api/v1/exports/${exp.id}/download`, late);
  });

  it('serves an export made ready before the file store from its old path, until it expires (EX7)', async () => {
    const db = inst.app.kernel.db.withTables<{ exports: { id: string; file_key: string | null } }>();
    const legacy = async (format: 'csv' | 'jsonl') => {
      const exp = await exportOf(inst, admin, { connectionId, table: 'people', format });
      // What such a row looks like: no file_key, nothing in the file store.
      await inst.app.kernel.files.delete((await fileKeyOf(exp.id))!);
      await db.updateTable('exports').set({ file_key: null }).where('id', '=', exp.id).execute();
      return exp;
    };
    const kept = await legacy('csv');
    const path = join(inst.dataDir, 'exports', `${kept.id}.csv`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'id,name\r\n1,written before the file store\r\n');
    const { res, body } = await download(admin, inst, kept.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`filename="${kept.fileName}"`);
    expect(body.toString('utf8')).toBe('id,name\r\n1,written before the file store\r\n');

    // No file there (another replica wrote it, or it was removed by hand): gone.
    const lost = await legacy('jsonl');
    const gone = await admin.get(`/api/v1/exports/${lost.id}/download`);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('EXPORT_EXPIRED');

    clock += 24 * 3600_000 + 1;
    await call(inst, admin, 'POST', '/api/v1/exports-probe/sweep', {});
    expect(existsSync(path)).toBe(false);
    expect((await admin.get(`/api/v1/exports/${kept.id}/download`)).status).toBe(410);
  });

  it('answers 409 while the export is not ready', async () => {
    const idle = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: { workers: 0 } });
    try {
      const id = await connect(idle.admin, source, 'Idle');
      const res = await call(idle.inst, idle.admin, 'POST', '/api/v1/exports', { connectionId: id, table: 'people', format: 'csv' });
      expect(res.body.data.export.state).toBe('queued');
      const dl = await idle.admin.get(`/api/v1/exports/${res.body.data.export.id}/download`);
      expect(dl.status).toBe(409);
      expect(dl.body.error).toMatchObject({ code: 'EXPORT_NOT_READY', params: { state: 'queued' } });
    } finally {
      await idle.inst.close();
    }
  });
});
