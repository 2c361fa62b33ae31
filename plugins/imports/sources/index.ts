import { readCsv } from './csv.js';
import { readJson } from './json.js';
import type { ReadOptions, SourceRecord, UploadFormat } from './types.js';
import { readXlsx } from './xlsx.js';

export type { ReadOptions, SourceRecord, UploadFormat } from './types.js';
export const UPLOAD_FORMATS = ['csv', 'json', 'xlsx'] as const satisfies readonly UploadFormat[];

export function readRecords(format: UploadFormat, path: string, opts: ReadOptions = {}): AsyncGenerator<SourceRecord> {
  if (format === 'csv') return readCsv(path, opts);
  if (format === 'json') return readJson(path, opts);
  return readXlsx(path, opts);
}
