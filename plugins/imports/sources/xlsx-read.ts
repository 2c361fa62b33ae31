/**
 * Reading the first sheet of an XLSX within limits. This module runs in the XLSX worker
 * (xlsx-worker.ts), never on the server's own thread: a file that gets past the size checks
 * and still exhausts memory ends the worker, not the process.
 */
import { Readable } from 'node:stream';
import { setField, unescapeSheetText } from '../../../engine/rows/index.js';
import { openZipEntry, readZipDirectory, ZipRefusal, type ZipEntry } from './zip.js';
import type { SourceRecord } from './types.js';

export interface XlsxLimits {
  /** What the parts read (workbook, relationships, styles, shared strings, the sheet) may unpack to together. */
  maxUnpackedBytes: number;
  /** The shared-strings part alone: every string of it is held in memory while the sheet is read. */
  maxSharedStringsBytes: number;
  maxRows: number;
  maxColumns: number;
  /** The worker's heap (V8 old generation), in MB. */
  workerMemoryMb: number;
}

/** Excel's own sheet size for rows and columns; a GiB of XML is ~10-20x a large real upload. */
export const DEFAULT_XLSX_LIMITS: XlsxLimits = {
  maxUnpackedBytes: 1024 * 1024 * 1024,
  maxSharedStringsBytes: 128 * 1024 * 1024,
  maxRows: 1_048_576,
  maxColumns: 16_384,
  workerMemoryMb: 768,
};

/** A refusal that is about a limit rather than a damaged file; `what` names the limit. */
export type XlsxLimitName = 'unpacked-bytes' | 'shared-strings-bytes' | 'declared-size' | 'rows' | 'columns' | 'worker-memory';

export class XlsxLimitError extends Error {
  override name = 'XlsxLimitError';
  constructor(
    readonly what: XlsxLimitName,
    message: string,
    readonly params: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const SHARED_STRINGS = 'xl/sharedStrings.xml';
/** The parts exceljs' streaming reader uses, in the order that lets it read the sheet straight through. */
const LEADING_PARTS = ['xl/_rels/workbook.xml.rels', 'xl/workbook.xml', 'xl/styles.xml', SHARED_STRINGS];
/** exceljs' own test for a worksheet part (unanchored), so the same part is taken as before. */
const SHEET = /xl\/worksheets\/sheet\d+[.]xml/;
/** With no shared-strings part, exceljs would spool the sheet to a temporary file waiting for one. */
const EMPTY_SST = Buffer.from(
  '<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="0" uniqueCount="0"/>',
);

const toLimitError = (err: unknown): unknown => {
  if (!(err instanceof ZipRefusal) || err.reason === 'unreadable') return err;
  const what: XlsxLimitName = err.reason === 'declared-size' ? 'declared-size' : err.reason === 'part-size' ? 'shared-strings-bytes' : 'unpacked-bytes';
  return new XlsxLimitError(what, `The file unpacks beyond the import limits: ${err.message}.`, err.params);
};

/** The parts to read, checked against the limits on what the directory declares (a lie is caught while inflating). */
export function xlsxParts(entries: ZipEntry[], limits: XlsxLimits): ZipEntry[] {
  const byName = new Map<string, ZipEntry>();
  for (const e of [...entries].sort((a, b) => a.localOffset - b.localOffset)) if (!byName.has(e.name)) byName.set(e.name, e);
  // exceljs took the first sheet in the archive's order; so do we.
  const sheet = [...byName.values()].find((e) => SHEET.test(e.name));
  if (!sheet) throw new Error('no worksheet in the workbook');
  const parts = [...LEADING_PARTS.map((n) => byName.get(n)).filter((e): e is ZipEntry => e !== undefined), sheet];
  const sst = byName.get(SHARED_STRINGS);
  if (sst && sst.size > limits.maxSharedStringsBytes)
    throw new XlsxLimitError(
      'shared-strings-bytes',
      `The shared strings unpack to ${sst.size} bytes, more than the limit of ${limits.maxSharedStringsBytes}.`,
      {
        part: SHARED_STRINGS,
        limit: limits.maxSharedStringsBytes,
      },
    );
  const total = parts.reduce((n, e) => n + e.size, 0);
  if (total > limits.maxUnpackedBytes)
    throw new XlsxLimitError('unpacked-bytes', `The workbook unpacks to ${total} bytes, more than the limit of ${limits.maxUnpackedBytes}.`, {
      limit: limits.maxUnpackedBytes,
    });
  return parts;
}

/** The parts to read, or why the file is refused, from its ZIP directory alone (nothing is inflated). */
export async function checkXlsx(path: string, limits: XlsxLimits): Promise<ZipEntry[]> {
  try {
    return xlsxParts(await readZipDirectory(path), limits);
  } catch (err) {
    throw toLimitError(err);
  }
}

function localHeader(name: string, size: number): Buffer {
  const nameBuf = Buffer.from(name, 'utf8');
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(10, 4);
  h.writeUInt16LE(0x800, 6); // UTF-8 name
  h.writeUInt16LE(0, 8); // stored
  h.writeUInt32LE(size, 18);
  h.writeUInt32LE(size, 22);
  h.writeUInt16LE(nameBuf.length, 26);
  return Buffer.concat([h, nameBuf]);
}

/**
 * The parts re-packed as a stored (uncompressed) ZIP stream for exceljs: it only ever sees bytes
 * that were inflated here under the limits, with sizes it need not guess, and no other entry
 * (a hidden local entry, or one the directory does not list, never reaches it).
 */
async function* repacked(path: string, parts: ZipEntry[], limits: XlsxLimits): AsyncGenerator<Buffer> {
  const budget = { left: limits.maxUnpackedBytes };
  const hasSharedStrings = parts.some((p) => p.name === SHARED_STRINGS);
  for (const part of parts) {
    if (!hasSharedStrings && part === parts[parts.length - 1]) yield* [localHeader(SHARED_STRINGS, EMPTY_SST.length), EMPTY_SST];
    const cap =
      part.name === SHARED_STRINGS
        ? { bytes: limits.maxSharedStringsBytes, reason: 'part-size' as const }
        : { bytes: limits.maxUnpackedBytes, reason: 'unpacked-size' as const };
    yield localHeader(part.name, part.size);
    try {
      for await (const chunk of await openZipEntry(path, part, cap, budget)) yield chunk as Buffer;
    } catch (err) {
      throw toLimitError(err);
    }
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  yield end;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** exceljs reads date cells as UTC instants: midnight is a date, anything else a date-time. */
function dateText(d: Date): string {
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const h = d.getUTCHours();
  const m = d.getUTCMinutes();
  const s = d.getUTCSeconds();
  const ms = d.getUTCMilliseconds();
  if (h === 0 && m === 0 && s === 0 && ms === 0) return date;
  return `${date}T${pad(h)}:${pad(m)}:${pad(s)}${ms ? `.${pad(ms, 3)}` : ''}`;
}

/**
 * A cell as a plain value: formulas give their result, rich text and links their text. Text
 * comes back through OOXML's `_xHHHH_` escape (how a carriage return or a control character is
 * written, exports/formats/cells.ts), which exceljs' streaming reader leaves as it is.
 */
export function cellValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return dateText(v);
  if (typeof v === 'string') return unescapeSheetText(v);
  if (typeof v !== 'object') return v;
  const o = v as { richText?: Array<{ text: string }>; result?: unknown; formula?: string; text?: unknown; error?: string };
  if (o.richText) return unescapeSheetText(o.richText.map((r) => r.text).join(''));
  if ('result' in o || o.formula !== undefined) return cellValue(o.result);
  if (o.error !== undefined) return o.error;
  if (o.text !== undefined) return cellValue(o.text);
  return JSON.stringify(v);
}

/**
 * The first worksheet through exceljs' streaming reader (rows are parsed as the parts inflate,
 * never the whole book). Row 1 is the header; `line` is the sheet's row number. `fail` hears
 * of an error of the part stream, which exceljs' reader would otherwise wait on forever.
 */
export async function* parseXlsx(path: string, limits: XlsxLimits, fail: (err: unknown) => void): AsyncGenerator<SourceRecord> {
  const parts = await checkXlsx(path, limits);
  const source = Readable.from(repacked(path, parts, limits), { objectMode: false });
  source.on('error', fail);
  const { default: excel } = await import('exceljs');
  const book = new excel.stream.xlsx.WorkbookReader(source, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  for await (const sheet of book) {
    let header: string[] | null = null;
    for await (const row of sheet) {
      if (row.number > limits.maxRows) throw new XlsxLimitError('rows', `The sheet has rows past row ${limits.maxRows}, the limit.`, { limit: limits.maxRows });
      const values = row.values as unknown[];
      if (values.length - 1 > limits.maxColumns)
        throw new XlsxLimitError('columns', `The sheet has cells past column ${limits.maxColumns}, the limit.`, { limit: limits.maxColumns, row: row.number });
      const cells = values.slice(1).map(cellValue);
      if (!header) {
        header = cells.map((c) => (c === null ? '' : String(c).trim()));
        continue;
      }
      if (cells.every((c) => c === null || c === '')) continue;
      const record: Record<string, unknown> = {};
      header.forEach((name, i) => {
        if (name) setField(record, name, cells[i] ?? null);
      });
      yield { line: row.number, values: record };
    }
    return;
  }
}
