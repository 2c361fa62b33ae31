import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addApiKey, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connect, dataPermissionPlugins, emptySource, type Source } from './testing.js';

/*
 * EX3: formula-safe CSV. Text a spreadsheet would run (=, +, -, @, tab, CR first) gets a leading
 * apostrophe unless it is a number; number columns are never touched. On by default for
 * people (sessions), off for API keys; `formulaSafe` in the request decides either way.
 * PostgreSQL writes CSV through COPY (the apostrophe is added by the server), the others in JS.
 */

const dialects: FixtureDialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const FAST_JOBS = { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 };
const TEXTS = ['=1+2', '+cmd|x', '-x', '@SUM(A1)', '\tx', '\rx', '-5', '+1.5e3', 'plain', "'quoted", ''];
const SAFE = ["'=1+2", "'+cmd|x", "'-x", "'@SUM(A1)", "'\tx", "'\rx", '-5', '+1.5e3', 'plain', "'quoted", ''];

describe.each(dialects)('formula-safe exports on %s', (dialect) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;

  const exportOf = async (body: object, headers?: Record<string, string>) => {
    const payload = { connectionId, table: 'cells', sort: 'id', ...body };
    const res = headers
      ? await admin.request('POST', '/api/v1/exports', { body: payload, headers, noOrigin: true })
      : await call(inst, admin, 'POST', '/api/v1/exports', payload);
    expect(res.status, res.text).toBe(202);
    await inst.app.kernel.jobs.waitFor(res.body.data.export.jobId, 20_000);
    const got = await call(inst, admin, 'GET', `/api/v1/exports/${res.body.data.export.id}`);
    expect(got.body.data.export.state, got.text).toBe('ready');
    const file = await fetch(`${inst.url}/api/v1/exports/${res.body.data.export.id}/download`, {
      headers: { cookie: `svc_session=${admin.cookie('svc_session')}` },
    });
    return { exp: got.body.data.export, body: Buffer.from(await file.arrayBuffer()) };
  };
  const csvCells = (body: Buffer) => (parseCsv(body.toString('utf8')) as string[][]).slice(1);

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: FAST_JOBS }));
    source = await emptySource(dialect);
    await source.exec('create table cells (id integer primary key, txt varchar(40), neg integer)');
    for (const [i, txt] of TEXTS.entries())
      await source
        .db()
        .insertInto('cells')
        .values({ id: i + 1, txt, neg: -i })
        .execute();
    connectionId = await connect(admin, source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('is on by default for a person: text that would run gets an apostrophe, numbers stay', async () => {
    const { exp, body } = await exportOf({ format: 'csv' });
    expect(exp.formulaSafe).toBe(true);
    expect(csvCells(body)).toEqual(TEXTS.map((_t, i) => [String(i + 1), SAFE[i], String(-i)]));
  });

  it('formulaSafe: false gives the raw values', async () => {
    const { exp, body } = await exportOf({ format: 'csv', formulaSafe: false });
    expect(exp.formulaSafe).toBe(false);
    expect(csvCells(body)).toEqual(TEXTS.map((t, i) => [String(i + 1), t, String(-i)]));
  });

  it('is off by default for an API key, which may ask for it', async () => {
    const key = await addApiKey(inst, 'admin');
    const raw = await exportOf({ format: 'csv' }, key);
    expect(raw.exp.formulaSafe).toBe(false);
    expect(csvCells(raw.body).map((r) => r[1])).toEqual(TEXTS);
    const safe = await exportOf({ format: 'csv', formulaSafe: true }, key);
    expect(csvCells(safe.body).map((r) => r[1])).toEqual(SAFE);
  });

  it('XLSX keeps such text as text cells, never formulas', async () => {
    const { body } = await exportOf({ format: 'xlsx' });
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(body as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    const got: unknown[] = [];
    sheet.eachRow((row, n) => {
      if (n === 1) return;
      const cell = row.getCell(2);
      expect(cell.formula, `row ${n}`).toBeFalsy();
      const v = cell.value as unknown;
      got.push(v && typeof v === 'object' && 'richText' in v ? (v as { richText: Array<{ text: string }> }).richText.map((r) => r.text).join('') : v);
      expect(typeof row.getCell(3).value).toBe('number');
    });
    // CR is escaped (_x000D_) in the file; exceljs' loader decodes it in inline strings. '' is no cell.
    expect(got).toEqual([...TEXTS.slice(0, -1), null]);
  });
});
