import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { UPLOADS_PREFIX, workDir } from './files.js';
import { DEFAULT_XLSX_LIMITS, type XlsxLimits } from './sources/xlsx.js';
import { readRecords } from './sources/index.js';
import { uploadFile } from './testing.js';
import { repeatedDeflate, SHEET_HEAD, SHEET_TAIL, sharedStringsXml, sheetXml, WORKBOOK_PARTS, zipOf, type FixtureEntry } from './zip-testing.js';

const MiB = 1024 * 1024;
const flushed = (text: string) => deflateRawSync(Buffer.from(text), { finishFlush: constants.Z_FULL_FLUSH });

/** A part of `head`, then `unit` × `times`, then `tail`: gigabytes of XML in a few MB of deflate. */
function bombPart(name: string, head: string, unit: string, times: number, tail: string, declaredSize?: number): FixtureEntry {
  const body = repeatedDeflate(unit, times);
  const deflated = Buffer.concat([flushed(head), body.deflated.subarray(0, -2), deflateRawSync(Buffer.from(tail))]);
  return { name, deflated, size: head.length + body.size + tail.length, declaredSize };
}

const ROW = '<row><c t="inlineStr"><is><t>x</t></is></c></row>';
const ROWS_MiB = ROW.repeat(Math.floor(MiB / ROW.length));
const SI = '<si><t>a</t></si>';
const SIS_MiB = SI.repeat(Math.floor(MiB / SI.length));
const SST_HEAD = '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">';
const ONE_CELL_SHEET = { name: 'xl/worksheets/sheet1.xml', data: sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>') };

/** ~3 GiB of rows in ~9 MB, the directory telling the truth, or claiming 5000 bytes. */
const sheetBomb = (declaredSize?: number) =>
  zipOf([...WORKBOOK_PARTS, bombPart('xl/worksheets/sheet1.xml', SHEET_HEAD, ROWS_MiB, 3000, SHEET_TAIL, declaredSize)]);
/** 200 MiB of shared strings (over the 128 MiB they may take), honest or claiming 100 bytes. */
const stringsBomb = (declaredSize?: number) =>
  zipOf([...WORKBOOK_PARTS, bombPart('xl/sharedStrings.xml', SST_HEAD, SIS_MiB, 200, '</sst>', declaredSize), ONE_CELL_SHEET]);
/** One cell of 96 MiB: within every size limit, but more than a 64 MB heap holds. */
const memoryBomb = () =>
  zipOf([
    ...WORKBOOK_PARTS,
    bombPart('xl/worksheets/sheet1.xml', `${SHEET_HEAD}<row r="1"><c r="A1" t="inlineStr"><is><t>`, 'x'.repeat(MiB), 96, `</t></is></c></row>${SHEET_TAIL}`),
  ]);

const NORMAL_PARTS: FixtureEntry[] = [
  ...WORKBOOK_PARTS,
  { name: 'xl/sharedStrings.xml', data: sharedStringsXml(['ID', 'Name', 'first', 'second']) },
  {
    name: 'xl/worksheets/sheet1.xml',
    data: sheetXml(
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>' +
        '<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="s"><v>2</v></c></row>' +
        '<row r="3"><c r="A3"><v>2</v></c><c r="B3" t="s"><v>3</v></c></row>',
    ),
  },
];
const NORMAL = zipOf(NORMAL_PARTS);

describe('XLSX decompression bombs are refused, the server unharmed', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => {
    // Default size limits; a small worker heap so that the memory bomb stays small.
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_IMPORT_WORKER_MEMORY_MB: '64' } }));
  });
  afterAll(async () => {
    await inst?.close();
  });

  const stored = async () => [...(await inst.app.kernel.files.list(UPLOADS_PREFIX)).map((f) => f.key), ...readdirSync(workDir(inst.dataDir))].sort();
  const refused = async (file: Buffer, what: string) => {
    const before = await stored();
    const res = await uploadFile(inst.url, admin, 'book.xlsx', file);
    // A refused file is not kept, in the file store or on this machine.
    expect(await stored()).toEqual(before);
    expect(res.status, res.text).toBe(413);
    expect(res.body.error.code).toBe('IMPORT_UNPACKED_TOO_LARGE');
    expect(res.body.error.params.what).toBe(what);
    return res.body.error;
  };

  it('a sheet that declares 3 GiB is refused from the ZIP directory, nothing inflated', async () => {
    const started = Date.now();
    const error = await refused(sheetBomb(), 'unpacked-bytes');
    expect(error.params.limit).toBe(DEFAULT_XLSX_LIMITS.maxUnpackedBytes);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a sheet that declares 5000 bytes and unpacks to 3 GiB is stopped while inflating', async () => {
    const error = await refused(sheetBomb(5000), 'declared-size');
    expect(error.params).toMatchObject({ part: 'xl/worksheets/sheet1.xml', limit: 5000 });
  });

  it('shared strings over their own limit are refused, whether declared or lied about', async () => {
    expect((await refused(stringsBomb(), 'shared-strings-bytes')).params.limit).toBe(DEFAULT_XLSX_LIMITS.maxSharedStringsBytes);
    expect((await refused(stringsBomb(100), 'declared-size')).params.part).toBe('xl/sharedStrings.xml');
  });

  it('a file within the size limits that needs more memory ends its worker, not the server', async () => {
    const error = await refused(memoryBomb(), 'worker-memory');
    expect(error.params.limit).toBe(64);
    const health = await fetch(`${inst.url}/api/v1/healthz`);
    expect(health.status).toBe(200);
  });

  it('an entry the ZIP directory does not list is never read', async () => {
    // A reader of local headers (exceljs' own) would take this 3 GiB sheet, which comes first.
    const hidden = { ...bombPart('xl/worksheets/sheet1.xml', SHEET_HEAD, ROWS_MiB, 3000, SHEET_TAIL, 5000), hidden: true };
    const res = await uploadFile(inst.url, admin, 'book.xlsx', zipOf([hidden, ...NORMAL_PARTS]));
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.upload).toMatchObject({
      rowCount: 2,
      sampleRows: [
        { ID: 1, Name: 'first' },
        { ID: 2, Name: 'second' },
      ],
    });
  });

  it('a part that unpacks to less than its directory says is unreadable', async () => {
    const res = await uploadFile(inst.url, admin, 'book.xlsx', zipOf([...WORKBOOK_PARTS, { ...ONE_CELL_SHEET, declaredSize: 10_000 }]));
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('IMPORT_UNREADABLE');
  });

  it('a normal XLSX still uploads', async () => {
    const res = await uploadFile(inst.url, admin, 'book.xlsx', NORMAL);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.upload).toMatchObject({
      format: 'xlsx',
      rowCount: 2,
      sampleRows: [
        { ID: 1, Name: 'first' },
        { ID: 2, Name: 'second' },
      ],
    });
  });

  describe('rows and columns', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'xlsx-limits-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const read = async (file: Buffer, limits: Partial<XlsxLimits>) => {
      const path = join(dir, `f${Math.random()}.xlsx`);
      writeFileSync(path, file);
      const out = [];
      for await (const rec of readRecords('xlsx', path, { xlsxLimits: { ...DEFAULT_XLSX_LIMITS, ...limits } })) out.push(rec);
      return out;
    };

    it('a sheet past the row limit is refused', async () => {
      await expect(read(NORMAL, { maxRows: 2 })).rejects.toMatchObject({ code: 'IMPORT_UNPACKED_TOO_LARGE', params: { what: 'rows', limit: 2 } });
      expect(await read(NORMAL, { maxRows: 3 })).toHaveLength(2);
    });

    it('a sheet past the column limit is refused, however far the cell is', async () => {
      await expect(read(NORMAL, { maxColumns: 1 })).rejects.toMatchObject({ code: 'IMPORT_UNPACKED_TOO_LARGE', params: { what: 'columns', limit: 1 } });
      const far = zipOf([
        ...WORKBOOK_PARTS,
        { name: 'xl/worksheets/sheet1.xml', data: sheetXml('<row r="1"><c r="A1" t="inlineStr"><is><t>ID</t></is></c><c r="XFD1"><v>1</v></c></row>') },
      ]);
      await expect(read(far, { maxColumns: 100 })).rejects.toMatchObject({ params: { what: 'columns' } });
    });
  });
});
