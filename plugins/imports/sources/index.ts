import { readCsv, readCsvRows } from './csv.js';
import { readJson } from './json.js';
import type { ReadOptions, SourceRecord, SourceRow, UploadFormat } from './types.js';
import { readXlsx } from './xlsx.js';

export type { ReadOptions, SourceRecord, SourceRow, UploadFormat } from './types.js';
export const UPLOAD_FORMATS = ['csv', 'json', 'xlsx'] as const satisfies readonly UploadFormat[];

export function readRecords(format: UploadFormat, path: string, opts: ReadOptions = {}): AsyncGenerator<SourceRecord> {
  if (format === 'csv') return readCsv(path, opts);
  if (format === 'json') return readJson(path, opts);
  return readXlsx(path, opts);
}

/** Records grouped into this many for the formats read a record at a time. */
const GROUP = 500;

/**
 * Records as cells aligned with `columns` (the upload's columns), in groups: an import awaits
 * once per group, not once per record.
 */
export async function* readRows(format: UploadFormat, path: string, columns: string[], opts: ReadOptions = {}): AsyncGenerator<SourceRow[]> {
  if (format === 'csv') {
    yield* readCsvRows(path, columns, opts);
    return;
  }
  let rows: SourceRow[] = [];
  for await (const rec of readRecords(format, path, opts)) {
    rows.push(rec.error !== undefined ? rec : { line: rec.line, cells: columns.map((c) => rec.values[c]) });
    if (rows.length >= GROUP) {
      yield rows;
      rows = [];
    }
  }
  if (rows.length) yield rows;
}
