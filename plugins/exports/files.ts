import { join } from 'node:path';
import { FORMAT_INFO, type ExportFormat } from './formats/index.js';

/** Finished files; a `.part` beside one is an export being written (or one a crash left behind). */
export const exportsDir = (dataDir: string) => join(dataDir, 'exports');
export const exportFile = (dataDir: string, id: string, format: ExportFormat) => join(exportsDir(dataDir), `${id}.${FORMAT_INFO[format].extension}`);
export const partFile = (file: string) => `${file}.part`;

/** `orders-20240131-1530.csv`: the table and the finish time, reduced to characters every file system takes. */
export function downloadName(tableRef: string, finishedAt: number, format: ExportFormat): string {
  const stamp = new Date(finishedAt).toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const base = tableRef.normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'export';
  return `${base}-${stamp}.${FORMAT_INFO[format].extension}`;
}

/** RFC 6266: an ASCII fallback plus the UTF-8 name, so a non-ASCII table name survives. */
export function contentDisposition(name: string, utf8Name: string): string {
  return `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(utf8Name)}`;
}
