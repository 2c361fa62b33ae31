import type { Writable } from 'node:stream';
import type { OutColumn } from './cells.js';
import { writeCsv } from './csv.js';
import { writeJsonl } from './jsonl.js';
import { writeXlsx } from './xlsx.js';

export type { OutColumn } from './cells.js';
export type ExportFormat = 'csv' | 'jsonl' | 'xlsx';
export const EXPORT_FORMATS = ['csv', 'jsonl', 'xlsx'] as const satisfies readonly ExportFormat[];

export const FORMAT_INFO: Record<ExportFormat, { extension: string; contentType: string }> = {
  csv: { extension: 'csv', contentType: 'text/csv; charset=utf-8' },
  jsonl: { extension: 'jsonl', contentType: 'application/x-ndjson; charset=utf-8' },
  xlsx: { extension: 'xlsx', contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
};

/** Chunks of rows (arrays in column order, wire values). */
export type RowChunks = AsyncIterable<unknown[][]>;

/**
 * Streams chunks of rows into `out` in the format; resolves once `out` has finished.
 * `formulaSafe` (EX3) changes CSV only: XLSX text is always a text cell, never a formula.
 */
export function writeFormat(
  format: ExportFormat,
  rows: RowChunks,
  columns: OutColumn[],
  out: Writable,
  signal: AbortSignal,
  formulaSafe = false,
): Promise<void> {
  if (format === 'csv') return writeCsv(rows, columns, out, signal, formulaSafe);
  if (format === 'jsonl') return writeJsonl(rows, columns, out, signal);
  return writeXlsx(rows, columns, out, signal);
}
