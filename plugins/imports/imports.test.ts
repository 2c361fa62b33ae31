import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call, expectContract } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { activeUser, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connect, dataPermissionPlugins, emptySource, roleWith, type Source } from '../exports/testing.js';
import { ITEMS_DDL, uploadFile } from './testing.js';

const dialects: FixtureDialect[] = ['sqlite'];
if (await databaseAvailable('postgres')) dialects.push('postgres');
if (await databaseAvailable('mysql')) dialects.push('mysql');

const FAST_JOBS = { pollMs: 50, progressThrottleMs: 0, backoffBaseMs: 50 };
const MAPPING = { ID: 'id', Code: 'code', Quantity: 'qty', Price: 'price', Active: 'active', Made: 'made', Meta: 'meta', Note: 'note', Ignored: null };

const GOOD_CSV = [
  'ID,Code,Quantity,Price,Active,Made,Meta,Note,Ignored',
  '1,A-1,5,10.50,true,2024-01-02,"{""k"":1}","plain",x',
  '2,B-2,0,,no,,,"comma, and ""quotes""",x',
  '3,C-3,7,3,1,2023-12-31,[1],"two\nlines",x',
].join('\r\n');

interface ItemRow {
  id: number;
  code: string;
  qty: number;
  price: string | null;
  active: boolean;
  note: string | null;
}

async function items(source: Source): Promise<ItemRow[]> {
  const db = source.db();
  const rows = await db.selectFrom('items').select(['id', 'code', 'qty', 'price', 'active', 'note']).orderBy('id').execute();
  return rows.map((r) => ({
    id: Number(r.id),
    code: r.code,
    qty: Number(r.qty),
    price: r.price === null ? null : Number(r.price).toFixed(2),
    active: Boolean(Number(r.active)),
    note: r.note,
  }));
}

async function runImport(inst: TestInstance, client: HttpClient, body: object): Promise<any> {
  const created = await call(inst, client, 'POST', '/api/v1/imports', body);
  expect(created.status, created.text).toBe(201);
  expect(created.body.data.import.state).toBe('created');
  const run = await call(inst, client, 'POST', `/api/v1/imports/${created.body.data.import.id}/run`);
  expect(run.status, run.text).toBe(202);
  await inst.app.kernel.jobs.waitFor(run.body.data.import.jobId, 30_000);
  const got = await call(inst, client, 'GET', `/api/v1/imports/${created.body.data.import.id}`);
  return got.body.data.import;
}

async function report(inst: TestInstance, client: HttpClient, id: string): Promise<string[][]> {
  const res = await client.get(`/api/v1/imports/${id}/error-report`);
  expect(res.status, res.text).toBe(200);
  expectContract(inst, 'GET', `/api/v1/imports/${id}/error-report`, res);
  return parseCsv(res.text);
}

describe.each(dialects)('imports into %s', (dialect) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: Source;
  let connectionId: string;
  const upload = async (name: string, content: string | Uint8Array, client: HttpClient = admin) => {
    const res = await uploadFile(inst.url, client, name, content);
    expect(res.status, res.text).toBe(201);
    return res.body.data.upload;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: FAST_JOBS }));
    source = await emptySource(dialect);
    await source.exec(ITEMS_DDL[dialect]);
    connectionId = await connect(admin, source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });
  beforeEach(async () => {
    await source.db().deleteFrom('items').execute();
  });

  it('detects the format, columns and types of a CSV upload', async () => {
    const up = await upload('items.csv', GOOD_CSV);
    expect(up).toMatchObject({ fileName: 'items.csv', format: 'csv', delimiter: ',', rowCount: 3, problems: 0 });
    expect(up.columns).toEqual([
      { name: 'ID', type: 'integer', empty: 0 },
      { name: 'Code', type: 'string', empty: 0 },
      { name: 'Quantity', type: 'integer', empty: 0 },
      { name: 'Price', type: 'decimal', empty: 1 },
      { name: 'Active', type: 'string', empty: 0 },
      { name: 'Made', type: 'date', empty: 1 },
      { name: 'Meta', type: 'string', empty: 1 },
      { name: 'Note', type: 'string', empty: 0 },
      { name: 'Ignored', type: 'string', empty: 0 },
    ]);
    expect(up.sampleRows[1]).toEqual({
      ID: '2',
      Code: 'B-2',
      Quantity: '0',
      Price: '',
      Active: 'no',
      Made: '',
      Meta: '',
      Note: 'comma, and "quotes"',
      Ignored: 'x',
    });
    const semi = await upload('semi.csv', 'a;b\n1;2\n');
    expect(semi).toMatchObject({
      delimiter: ';',
      columns: [
        { name: 'a', type: 'integer' },
        { name: 'b', type: 'integer' },
      ],
    });
  });

  it('imports CSV through a mapping, all or nothing', async () => {
    const up = await upload('items.csv', GOOD_CSV);
    const imp = await runImport(inst, admin, { uploadId: up.id, connectionId, table: 'items', mapping: MAPPING, atomic: true });
    expect(imp).toMatchObject({ state: 'succeeded', counts: { total: 3, inserted: 3, updated: 0, refused: 0 }, progress: 1, error: null });
    expect(await items(source)).toEqual([
      { id: 1, code: 'A-1', qty: 5, price: '10.50', active: true, note: 'plain' },
      { id: 2, code: 'B-2', qty: 0, price: null, active: false, note: 'comma, and "quotes"' },
      { id: 3, code: 'C-3', qty: 7, price: '3.00', active: true, note: 'two\nlines' },
    ]);
    const meta = await source.db().selectFrom('items').select(['meta', 'made']).where('id', '=', 1).executeTakeFirstOrThrow();
    expect(typeof meta.meta === 'string' ? JSON.parse(meta.meta) : meta.meta).toEqual({ k: 1 });
    expect(await report(inst, admin, imp.id)).toEqual([['line', 'reason', ...Object.keys(MAPPING)]]);
  });

  it('imports a JSON array, JSON lines and XLSX', async () => {
    const json = JSON.stringify([
      { id: 10, code: 'J-10', qty: 1, price: 2.5, active: false, meta: { deep: [1, 2] } },
      { id: 11, code: 'J-11', qty: 2, price: '7.25', active: true, note: null },
    ]);
    const upJson = await upload('items.json', json);
    expect(upJson).toMatchObject({ format: 'json', rowCount: 2 });
    expect(upJson.columns.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([
      ['id', 'integer'],
      ['code', 'string'],
      ['qty', 'integer'],
      ['price', 'decimal'],
      ['active', 'boolean'],
      ['meta', 'json'],
      ['note', 'empty'],
    ]);
    const map = { id: 'id', code: 'code', qty: 'qty', price: 'price', active: 'active', meta: 'meta', note: 'note' };
    expect((await runImport(inst, admin, { uploadId: upJson.id, connectionId, table: 'items', mapping: map })).counts).toMatchObject({
      inserted: 2,
      refused: 0,
    });

    const lines = '{"id": 12, "code": "L-12", "qty": 3}\n\n{"id": 13, "code": "L-13", "qty": 4, "active": "false"}\n';
    const upLines = await upload('items.jsonl', lines);
    expect(upLines).toMatchObject({ format: 'json', rowCount: 2 });
    expect(
      (await runImport(inst, admin, { uploadId: upLines.id, connectionId, table: 'items', mapping: { id: 'id', code: 'code', qty: 'qty', active: 'active' } }))
        .counts,
    ).toMatchObject({ inserted: 2 });

    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Items');
    sheet.addRow(['Id', 'Code', 'Qty', 'Price', 'Made']);
    sheet.addRow([14, 'X-14', 9, 1.5, new Date(Date.UTC(2024, 4, 6))]);
    sheet.addRow([15, { richText: [{ text: 'X-' }, { text: '15' }] }, { formula: '2+3', result: 5 }, null, '2024-05-07']);
    const upXlsx = await upload('items.xlsx', new Uint8Array(await book.xlsx.writeBuffer()));
    expect(upXlsx).toMatchObject({ format: 'xlsx', rowCount: 2 });
    expect(upXlsx.columns.map((c: { type: string }) => c.type)).toEqual(['integer', 'string', 'integer', 'decimal', 'date']);
    const x = await runImport(inst, admin, {
      uploadId: upXlsx.id,
      connectionId,
      table: 'items',
      mapping: { Id: 'id', Code: 'code', Qty: 'qty', Price: 'price', Made: 'made' },
    });
    expect(x.counts).toMatchObject({ inserted: 2, refused: 0 });

    expect((await items(source)).map((r) => [r.id, r.code, r.qty, r.price, r.active])).toEqual([
      [10, 'J-10', 1, '2.50', false],
      [11, 'J-11', 2, '7.25', true],
      [12, 'L-12', 3, null, true],
      [13, 'L-13', 4, null, false],
      [14, 'X-14', 9, '1.50', true],
      [15, 'X-15', 5, null, true],
    ]);
    const made = await source.db().selectFrom('items').select(['id', 'made']).where('id', 'in', [14, 15]).orderBy('id').execute();
    const day = (v: unknown) =>
      v instanceof Date ? `${v.getFullYear()}-${String(v.getMonth() + 1).padStart(2, '0')}-${String(v.getDate()).padStart(2, '0')}` : String(v).slice(0, 10);
    expect(made.map((r) => (dialect === 'mysql' && r.made instanceof Date ? r.made.toISOString().slice(0, 10) : day(r.made)))).toEqual([
      '2024-05-06',
      '2024-05-07',
    ]);
  });

  const BAD_CSV = [
    'ID,Code,Quantity,Price,Active,Made,Meta,Note,Ignored',
    '1,A-1,5,1.00,true,,,,', // fine
    '2,B-2,five,1.00,true,,,,', // line 3: wrong type
    '3,C-3,1,1.00,true,,,', // line 4: 8 fields of 9
    '4,A-1,1,1.00,true,,,,', // line 5: duplicate code
    '5,E-5,-1,1.00,true,,,,', // line 6: check qty >= 0
    '6,F-6,1,1.00,maybe,,,,', // line 7: not a boolean
    '7,G-7,1,1.00,true,2024-02-30,,,', // line 8: no such date
    '1,H-8,1,1.00,true,,,,', // line 9: duplicate primary key
    '9,I-9,2,2.00,false,,,,', // fine
  ].join('\n');
  const REASONS: Array<[string, RegExp]> = [
    ['3', /^qty: not a whole number$/],
    ['4', /^malformed CSV: expected 9 fields, found 8$/],
    ['5', /^duplicate key/],
    ['6', /^check constraint violation/],
    ['7', /^active: not a boolean/],
    ['8', /^made: not a date that exists$/],
    ['9', /^duplicate key/],
  ];

  it('lists refused rows with line and reason; a dry run writes nothing', async () => {
    const up = await upload('bad.csv', BAD_CSV);
    expect(up).toMatchObject({ rowCount: 8, problems: 1 });
    const dry = await runImport(inst, admin, { uploadId: up.id, connectionId, table: 'items', mapping: MAPPING, atomic: false, dryRun: true, batchSize: 3 });
    expect(dry).toMatchObject({ state: 'succeeded', dryRun: true, counts: { total: 9, inserted: 2, updated: 0, refused: 7 } });
    expect(await items(source)).toEqual([]);
    const lines = await report(inst, admin, dry.id);
    expect(lines[0]).toEqual(['line', 'reason', ...Object.keys(MAPPING)]);
    const rows = lines.slice(1).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(rows.map((r) => r[0])).toEqual(REASONS.map(([l]) => l));
    rows.forEach((r, i) => expect(r[1], `line ${r[0]}`).toMatch(REASONS[i]![1]));
    expect(rows[0]!.slice(2, 4)).toEqual(['2', 'B-2']);
    // Running twice is refused: another import of the same upload does it for real.
    const again = await call(inst, admin, 'POST', `/api/v1/imports/${dry.id}/run`);
    expect(again.status).toBe(409);
  });

  it('all or nothing refuses the whole file for one bad row; batch mode keeps the good rows', async () => {
    const up = await upload('bad.csv', BAD_CSV);
    const atomic = await runImport(inst, admin, { uploadId: up.id, connectionId, table: 'items', mapping: MAPPING, atomic: true });
    expect(atomic).toMatchObject({ state: 'failed', counts: { total: 9, inserted: 0, refused: 7 }, error: { code: 'IMPORT_ROWS_REFUSED' } });
    expect(await items(source)).toEqual([]);
    expect((await report(inst, admin, atomic.id)).length).toBe(8);

    const batched = await runImport(inst, admin, { uploadId: up.id, connectionId, table: 'items', mapping: MAPPING, atomic: false, batchSize: 2 });
    expect(batched).toMatchObject({ state: 'succeeded', counts: { total: 9, inserted: 2, updated: 0, refused: 7 } });
    expect((await items(source)).map((r) => r.id)).toEqual([1, 9]);
  });

  it('upserts by a key, counting updates and inserts; the last row for a key wins', async () => {
    await runImport(inst, admin, { uploadId: (await upload('items.csv', GOOD_CSV)).id, connectionId, table: 'items', mapping: MAPPING });
    const csv = ['code,qty,id', 'A-1,50,1', 'Z-9,9,9', 'C-3,70,3', 'C-3,71,3'].join('\n');
    const up = await upload('upsert.csv', csv);
    const imp = await runImport(inst, admin, {
      uploadId: up.id,
      connectionId,
      table: 'items',
      mapping: { code: 'code', qty: 'qty', id: 'id' },
      mode: 'upsert',
      upsertKey: ['code'],
    });
    expect(imp).toMatchObject({ state: 'succeeded', counts: { total: 4, inserted: 1, updated: 3, refused: 0 } });
    expect((await items(source)).map((r) => [r.id, r.code, r.qty, r.price])).toEqual([
      [1, 'A-1', 50, '10.50'],
      [2, 'B-2', 0, null],
      [3, 'C-3', 71, '3.00'],
      [9, 'Z-9', 9, null],
    ]);
  });

  it('checks the mapping, the key and the grants before anything runs', async () => {
    const up = await upload('items.csv', GOOD_CSV);
    const bad = await call(inst, admin, 'POST', '/api/v1/imports', {
      uploadId: up.id,
      connectionId,
      table: 'items',
      mapping: { ID: 'id', Nope: 'code', Code: 'missing' },
    });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad).sort()).toEqual(['body.mapping', 'body.mapping.Code', 'body.mapping.Nope']);
    const required = await call(inst, admin, 'POST', '/api/v1/imports', { uploadId: up.id, connectionId, table: 'items', mapping: { ID: 'id' } });
    expect(required.body.error.issues[0]).toMatchObject({ path: 'body.mapping', code: 'required_columns' });
    const key = await call(inst, admin, 'POST', '/api/v1/imports', {
      uploadId: up.id,
      connectionId,
      table: 'items',
      mapping: MAPPING,
      mode: 'upsert',
      upsertKey: ['qty'],
    });
    expect(issuePaths(key)).toEqual(['body.upsertKey']);

    const elsewhere = await roleWith(admin, `imp-other-${dialect}`, [
      { permission: 'imports.run' },
      { permission: 'data.write', scope: { connectionId, table: 'elsewhere' } },
    ]);
    const someCols = await roleWith(admin, `imp-cols-${dialect}`, [
      { permission: 'imports.run' },
      { permission: 'data.write', scope: { connectionId, table: 'items', columns: ['id', 'code', 'qty'] } },
    ]);
    const outsider = await activeUser(inst, admin, `imp-out-${dialect}@example.com`, [elsewhere]);
    const narrow = await activeUser(inst, admin, `imp-narrow-${dialect}@example.com`, [someCols]);
    const viewer = await activeUser(inst, admin, `imp-viewer-${dialect}@example.com`, ['viewer']);

    expect((await uploadFile(inst.url, viewer.client, 'x.csv', GOOD_CSV)).status).toBe(403);
    const mine = await upload('items.csv', GOOD_CSV, outsider.client);
    const forbidden = await call(inst, outsider.client, 'POST', '/api/v1/imports', { uploadId: mine.id, connectionId, table: 'items', mapping: MAPPING });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.params.permission).toBe('data.write');
    // Someone else's upload is not there for them.
    expect((await call(inst, narrow.client, 'POST', '/api/v1/imports', { uploadId: mine.id, connectionId, table: 'items', mapping: MAPPING })).status).toBe(
      404,
    );
    const own = await upload('items.csv', GOOD_CSV, narrow.client);
    const cols = await call(inst, narrow.client, 'POST', '/api/v1/imports', { uploadId: own.id, connectionId, table: 'items', mapping: MAPPING });
    expect(issuePaths(cols).sort()).toEqual(['body.mapping.Active', 'body.mapping.Made', 'body.mapping.Meta', 'body.mapping.Note', 'body.mapping.Price']);
    const ok = await runImport(inst, narrow.client, { uploadId: own.id, connectionId, table: 'items', mapping: { ID: 'id', Code: 'code', Quantity: 'qty' } });
    expect(ok.counts.inserted).toBe(3);
    expect((await call(inst, viewer.client, 'GET', `/api/v1/imports/${ok.id}`)).status).toBe(403);
    expect((await call(inst, outsider.client, 'GET', `/api/v1/imports/${ok.id}`)).status).toBe(404);
    expect((await call(inst, narrow.client, 'GET', '/api/v1/imports')).body.data.imports.map((i: { id: string }) => i.id)).toEqual([ok.id]);
  });
});

describe('uploads', () => {
  let inst: TestInstance;
  let admin: HttpClient;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ plugins: dataPermissionPlugins(), jobs: FAST_JOBS }));
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('refuses a file over the maxUploadBytes setting with 413', async () => {
    await inst.app.kernel.settings.set('imports', { maxUploadBytes: 1000 });
    try {
      const res = await uploadFile(inst.url, admin, 'big.csv', 'a,b\n' + '1,2\n'.repeat(1000));
      expect(res.status, res.text).toBe(413);
      expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', params: { limit: 1000 } });
      expect((await uploadFile(inst.url, admin, 'small.csv', 'a,b\n1,2\n')).status).toBe(201);
    } finally {
      await inst.app.kernel.settings.set('imports', {});
    }
  });

  it('takes its limit from SVC_IMPORT_MAX_BYTES when no setting is stored', async () => {
    const { inst: limited, admin: root } = await bootWithAdmin({ plugins: dataPermissionPlugins(), env: { SVC_IMPORT_MAX_BYTES: '2000' } });
    try {
      const res = await uploadFile(limited.url, root, 'big.csv', 'a,b\n' + '1,2\n'.repeat(1000));
      expect(res.status, res.text).toBe(413);
      expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', params: { limit: 2000 } });
      expect((await uploadFile(limited.url, root, 'small.csv', 'a,b\n1,2\n')).status).toBe(201);
      // A stored setting still wins over the environment.
      await limited.app.kernel.settings.set('imports', { maxUploadBytes: 10_000 });
      expect((await uploadFile(limited.url, root, 'big.csv', 'a,b\n' + '1,2\n'.repeat(1000))).status).toBe(201);
    } finally {
      await limited.close();
    }
  });

  it('refuses unreadable files and keeps multipart bodies to the upload route', async () => {
    const empty = await uploadFile(inst.url, admin, 'empty.csv', '');
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('IMPORT_UNREADABLE');
    const json = await admin.post('/api/v1/imports/upload', {});
    expect(json.status).toBe(415);
    const form = new FormData();
    form.append('name', 'x');
    const other = await fetch(`${inst.url}/api/v1/roles`, {
      method: 'POST',
      body: form,
      headers: { cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url },
    });
    expect(other.status).toBe(415);
    const noFile = await fetch(`${inst.url}/api/v1/imports/upload`, {
      method: 'POST',
      body: form,
      headers: { cookie: `svc_session=${admin.cookie('svc_session')}`, origin: inst.url },
    });
    expect(noFile.status).toBe(400);
  });
});
