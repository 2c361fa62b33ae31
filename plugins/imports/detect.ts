import { csvHeader, sniffDelimiter } from './sources/csv.js';
import { jsonShape } from './sources/json.js';
import { readRecords, type ReadOptions, type UploadFormat } from './sources/index.js';
import { open } from 'node:fs/promises';

/** What a column of an uploaded file looks like; `empty` when every value is empty. */
export const GUESSED_TYPES = ['empty', 'boolean', 'integer', 'decimal', 'date', 'datetime', 'json', 'string'] as const;
export type GuessedType = (typeof GUESSED_TYPES)[number];

export interface DetectedColumn {
  name: string;
  type: GuessedType;
  /** Records where the column is missing or empty. */
  empty: number;
}

export interface Scan {
  format: UploadFormat;
  delimiter: string | null;
  columns: DetectedColumn[];
  sampleRows: Array<Record<string, unknown>>;
  rowCount: number;
  problems: number;
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const BOOLEAN = /^(true|false)$/i;

function typeOf(v: unknown): GuessedType {
  if (v === null || v === undefined || v === '') return 'empty';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'decimal';
  if (typeof v === 'object') return 'json';
  const s = String(v).trim();
  if (BOOLEAN.test(s)) return 'boolean';
  if (INTEGER.test(s)) return 'integer';
  if (DECIMAL.test(s)) return 'decimal';
  if (DATE.test(s)) return 'date';
  if (DATETIME.test(s)) return 'datetime';
  return 'string';
}

/** The narrowest type holding both: integers widen to decimals, dates to date-times, anything else to string. */
function widen(a: GuessedType, b: GuessedType): GuessedType {
  if (a === b || b === 'empty') return a;
  if (a === 'empty') return b;
  const pair = new Set([a, b]);
  if (pair.has('integer') && pair.has('decimal')) return 'decimal';
  if (pair.has('date') && pair.has('datetime')) return 'datetime';
  return 'string';
}

/** ZIP (XLSX) by its magic bytes; JSON by its first character; anything else is read as CSV. */
export async function detectFormat(path: string): Promise<UploadFormat> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    if (buf.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return 'xlsx';
  } finally {
    await fh.close();
  }
  return (await jsonShape(path)) ? 'json' : 'csv';
}

const SAMPLE_ROWS = 10;
const MAX_COLUMNS = 1000;

/** Reads the whole file once: columns in first-seen order with their guessed types, a sample, the counts. */
export async function scanUpload(path: string, opts: Pick<ReadOptions, 'signal' | 'xlsxLimits'> = {}): Promise<Scan> {
  const format = await detectFormat(path);
  const delimiter = format === 'csv' ? await sniffDelimiter(path) : null;
  const columns = new Map<string, { type: GuessedType; filled: number }>();
  // A CSV header names its columns even when they are empty throughout.
  if (delimiter) for (const name of await csvHeader(path, delimiter)) columns.set(name, { type: 'empty', filled: 0 });
  const sampleRows: Array<Record<string, unknown>> = [];
  let rowCount = 0;
  let problems = 0;
  for await (const rec of readRecords(format, path, { ...opts, delimiter })) {
    if (rec.error !== undefined) {
      problems++;
      continue;
    }
    rowCount++;
    if (sampleRows.length < SAMPLE_ROWS) sampleRows.push(rec.values);
    for (const [name, value] of Object.entries(rec.values)) {
      let c = columns.get(name);
      if (!c) {
        if (columns.size >= MAX_COLUMNS) continue;
        columns.set(name, (c = { type: 'empty', filled: 0 }));
      }
      const t = typeOf(value);
      if (t !== 'empty') c.filled++;
      c.type = widen(c.type, t);
    }
  }
  return {
    format,
    delimiter,
    columns: [...columns].map(([name, c]) => ({ name, type: c.type, empty: rowCount - c.filled })),
    sampleRows,
    rowCount,
    problems,
  };
}
