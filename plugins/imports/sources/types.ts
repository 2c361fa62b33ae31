import type { XlsxLimits } from './xlsx-read.js';

/** One record of an uploaded file: its values by source column, or why it could not be read. */
export type SourceRecord =
  { line: number; values: Record<string, unknown>; error?: undefined } | { line: number; error: string; raw: string[] | Record<string, unknown> | null };

/** One record as cells aligned with the upload's columns (what an import reads), or why it could not be read. */
export type SourceRow = { line: number; cells: unknown[]; error?: undefined } | { line: number; error: string; raw: string[] | Record<string, unknown> | null };

export type UploadFormat = 'csv' | 'json' | 'xlsx';

export interface ReadOptions {
  /** CSV: the delimiter found by the scan. */
  delimiter?: string | null;
  signal?: AbortSignal;
  /** XLSX: what the file may unpack to; DEFAULT_XLSX_LIMITS when not given. */
  xlsxLimits?: XlsxLimits;
}
