import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { uploadFile } from '../imports/testing.js';
import { connect, dataPermissionPlugins, emptySource, type Source } from './testing.js';

/*
 * Issue 11: an export read back — by our own import, and by the format's usual reader
 * (csv-parse, JSON.parse, exceljs) — gives the values GET /data answers, on every dialect and
 * format. The table holds the values that used to be lost: microseconds, 64-bit integers,
 * exact decimals, a carriage return, '' beside NULL, JSON strings, a column called __proto__,
 * and text that a spreadsheet would take for a formula.
 */

const dialects: FixtureDialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const FAST_JOBS = { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 };
const FORMATS = ['csv', 'jsonl', 'xlsx'] as const;

function ddl(dialect: FixtureDialect, name: string): string {
  if (dialect === 'postgres')
    return `create table ${name} (id integer primary key, ts timestamp(6), tstz timestamptz, big bigint, amount numeric(20,6), txt text,
      req varchar(40) not null, js jsonb, "__proto__" varchar(20), neg integer, flag boolean)`;
  if (dialect === 'mysql')
    return `create table ${name} (id int primary key, ts datetime(6), big bigint, amount decimal(20,6), txt text,
      req varchar(40) not null, js json, \`__proto__\` varchar(20), neg int, flag tinyint(1))`;
  return `create table ${name} (id integer primary key not null, ts datetime, big bigint, amount decimal(20,6), txt text,
    req varchar(40) not null, js json, "__proto__" varchar(20), neg integer, flag boolean)`;
}

interface Tricky {
  id: number;
  ts: string | null;
  big: string | null;
  amount: string | null;
  txt: string | null;
  req: string;
  js: string | null;
  proto: string | null;
  neg: number | null;
  flag: boolean | null;
}

const ROWS: Tricky[] = [
  {
    id: 1,
    ts: '2024-01-02 03:04:05.123456',
    big: '9223372036854775807',
    amount: '12345678901234.123456',
    txt: 'cr\r\nlf',
    req: 'a',
    js: '"hello"',
    proto: 'p1',
    neg: -5,
    flag: true,
  },
  {
    id: 2,
    ts: '2024-01-02 03:04:05',
    big: '-9223372036854775808',
    amount: '-0.000001',
    txt: '',
    req: '',
    js: '{"a": [1, "x"], "b": null}',
    proto: '',
    neg: 0,
    flag: false,
  },
  { id: 3, ts: null, big: null, amount: null, txt: null, req: '=1+2', js: null, proto: null, neg: null, flag: null },
  {
    id: 4,
    ts: '2024-01-02 03:04:05.000001',
    big: '9007199254740993',
    amount: '0.100000',
    txt: '=HYPERLINK("http://x")',
    req: '-x',
    js: '"123"',
    proto: '@me',
    neg: -1,
    flag: true,
  },
  { id: 5, ts: '1999-12-31 23:59:59.999999', big: '-1', amount: '99999999999999.999999', txt: '\tx', req: '+1', js: '123', proto: '\rcr', neg: 7, flag: false },
  {
    id: 6,
    ts: '2000-01-01 00:00:00.5',
    big: '0',
    amount: '1.000000',
    txt: 'lone\rcr and _x000D_ literal',
    req: '@SUM(A1)',
    js: '[]',
    proto: '-2',
    neg: -2,
    flag: null,
  },
];

async function insertRows(source: Source, table: string): Promise<void> {
  const db = source.db();
  for (const r of ROWS) {
    const row: Record<string, unknown> = {
      id: r.id,
      ts: r.ts,
      // SQLite: a BigInt binds as a 64-bit integer; the others take the text.
      big: r.big !== null && source.dialect === 'sqlite' ? BigInt(r.big) : r.big,
      amount: r.amount,
      txt: r.txt,
      req: r.req,
      js: r.js,
      neg: r.neg,
      flag: r.flag === null ? null : source.dialect === 'postgres' ? r.flag : r.flag ? 1 : 0,
    };
    Object.defineProperty(row, '__proto__', { value: r.proto, enumerable: true, writable: true, configurable: true });
    if (source.dialect === 'postgres') row.tstz = r.ts === null ? null : `${r.ts}+00`;
    await db.insertInto(table).values(row).execute();
  }
}

const NUMERIC = new Set(['big', 'amount']);
/** `12.500` and `12.5` are the same decimal: a number cell gives the shortest form. */
const canonical = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s).replace(/^-0$/, '0');

describe.each(dialects)('export → read back on %s', (dialect) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  /** What GET /data answers for the table: the values every read-back must give. */
  let wire: Array<Record<string, unknown>>;
  let columns: string[];
  let nullable: Map<string, boolean>;

  const dataRows = async (table: string) => {
    const res = await admin.get(`/api/v1/data/${connectionId}/${table}?sort=id&limit=500`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.rows as Array<Record<string, unknown>>;
  };

  const exportFile = async (format: string, extra: object = {}): Promise<Buffer> => {
    const res = await call(inst, admin, 'POST', '/api/v1/exports', { connectionId, table: 'tricky', format, columns, sort: 'id', ...extra });
    expect(res.status, res.text).toBe(202);
    await inst.app.kernel.jobs.waitFor(res.body.data.export.jobId, 20_000);
    const got = await call(inst, admin, 'GET', `/api/v1/exports/${res.body.data.export.id}`);
    expect(got.body.data.export.state, got.text).toBe('ready');
    const file = await fetch(`${inst.url}/api/v1/exports/${res.body.data.export.id}/download`, {
      headers: { cookie: `svc_session=${admin.cookie('svc_session')}` },
    });
    expect(file.status).toBe(200);
    return Buffer.from(await file.arrayBuffer());
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: FAST_JOBS }));
    source = await emptySource(dialect);
    await source.exec(ddl(dialect, 'tricky'));
    await source.exec(ddl(dialect, 'tricky_copy'));
    await insertRows(source, 'tricky');
    connectionId = await connect(admin, source);
    const schema = await admin.get(`/api/v1/connections/${connectionId}/schema`);
    expect(schema.status, schema.text).toBe(200);
    const tables = schema.body.data.model.tables as Array<{ name: string; columns: Array<{ name: string; nullable: boolean }> }>;
    const cols = tables.find((t) => t.name === 'tricky')!.columns;
    columns = cols.map((c) => c.name);
    nullable = new Map(cols.map((c) => [c.name, c.nullable]));
    wire = await dataRows('tricky');
    expect(wire).toHaveLength(ROWS.length);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('GET /data answers the stored values exactly (the reference the files are held to)', () => {
    const first = wire[0]!;
    expect(Object.getOwnPropertyDescriptor(first, '__proto__')?.value).toBe('p1');
    expect(first.big).toBe('9223372036854775807');
    expect(first.ts).toBe('2024-01-02T03:04:05.123456');
    expect(first.txt).toBe('cr\r\nlf');
    expect(first.js).toBe('hello');
    expect(wire[3]!.js).toBe('123');
    expect(wire[1]!.txt).toBe('');
    if (dialect !== 'sqlite') expect(first.amount).toBe('12345678901234.123456');
  });

  it.each(FORMATS)('%s read by its usual reader gives the GET /data values', async (format) => {
    const body = await exportFile(format, { formulaSafe: false });
    if (format === 'jsonl') {
      const lines = body
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines).toEqual(wire);
      expect(Object.getOwnPropertyDescriptor(lines[0], '__proto__')?.value).toBe('p1');
      return;
    }
    let cells: unknown[][];
    if (format === 'csv') {
      const records: string[][] = parseCsv(body.toString('utf8'));
      expect(records[0]).toEqual(columns);
      cells = records.slice(1);
    } else {
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(body as unknown as ArrayBuffer);
      const sheet = book.worksheets[0]!;
      cells = [];
      sheet.eachRow((row, n) => {
        const values = (row.values as unknown[]).slice(1);
        const plain = columns.map((_c, i) => {
          const v = values[i];
          // exceljs gives an inline string (the form escaped text takes) as rich text.
          if (v && typeof v === 'object' && 'richText' in v) return (v as { richText: Array<{ text: string }> }).richText.map((r) => r.text).join('');
          return v ?? null;
        });
        if (n === 1) expect(plain).toEqual(columns);
        else cells.push(plain);
      });
    }
    expect(cells).toHaveLength(wire.length);
    cells.forEach((row, r) => {
      columns.forEach((name, i) => {
        const want = Object.getOwnPropertyDescriptor(wire[r], name)!.value as unknown;
        const got = row[i];
        const at = `${format} row ${r + 1} column ${name}`;
        // CSV and XLSX have one empty cell for NULL and '' (EX2; exceljs writes no cell for '').
        if (want === null || want === '') expect(got === null || got === '', at).toBe(true);
        else if (name === 'js') expect(JSON.parse(String(got)), at).toEqual(want);
        else if (format === 'xlsx' && NUMERIC.has(name) && typeof got === 'number') expect(canonical(String(got)), at).toBe(canonical(String(want)));
        else if (format === 'xlsx') expect(got, at).toEqual(want);
        else expect(got, at).toBe(String(want));
      });
    });
  });

  it.each(FORMATS)('%s imported into an empty copy gives the same GET /data rows', async (format) => {
    await source.db().deleteFrom('tricky_copy').execute();
    const file = await exportFile(format, { formulaSafe: false });
    const up = await uploadFile(inst.url, admin, `tricky.${format}`, file);
    expect(up.status, up.text).toBe(201);
    // Not __proto__: the HTTP layer refuses a JSON body with that key (fastify's prototype-poisoning guard), so no mapping can name it.
    const mapping = Object.fromEntries(columns.filter((c) => c !== '__proto__').map((c) => [c, c]));
    const created = await call(inst, admin, 'POST', '/api/v1/imports', {
      uploadId: up.body.data.upload.id,
      connectionId,
      table: 'tricky_copy',
      mapping,
      atomic: true,
    });
    expect(created.status, created.text).toBe(201);
    const run = await call(inst, admin, 'POST', `/api/v1/imports/${created.body.data.import.id}/run`);
    expect(run.status, run.text).toBe(202);
    await inst.app.kernel.jobs.waitFor(run.body.data.import.jobId, 30_000);
    const imp = await call(inst, admin, 'GET', `/api/v1/imports/${created.body.data.import.id}`);
    expect(imp.body.data.import.error, imp.text).toBeNull();
    expect(imp.body.data.import.counts).toMatchObject({ inserted: ROWS.length, refused: 0 });
    // CSV and XLSX have one empty cell for NULL and '' (EX2): a nullable text column reads '' back as NULL.
    const want = wire.map((row) => {
      const out: Record<string, unknown> = {};
      for (const c of columns) {
        const v = Object.getOwnPropertyDescriptor(row, c)!.value as unknown;
        const value = c === '__proto__' ? null : format !== 'jsonl' && v === '' && nullable.get(c) ? null : v;
        Object.defineProperty(out, c, { value, enumerable: true });
      }
      return out;
    });
    expect(await dataRows('tricky_copy')).toEqual(want);
  });
});
