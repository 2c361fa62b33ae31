import { join } from 'node:path';
import { FORMAT_INFO, type ExportFormat } from './formats/index.js';

/**
 * Keys in the kernel's file store (K45). Each claim of an export's job writes a file of its own,
 * `exports/<id>/<attempt>.<token>.<ext>`; the row names the one that made it ready (EX7). The
 * token is the claim's: a claim a shutdown handed back does not count, so the next one has the
 * same attempt number, and a number alone would let the abandoned handler delete its file.
 */
export const EXPORTS_PREFIX = 'exports/';
export const attemptKey = (id: string, attempt: number, token: string, format: ExportFormat) =>
  `${EXPORTS_PREFIX}${id}/${attempt}.${token}.${FORMAT_INFO[format].extension}`;
export const exportIdOfKey = (key: string) => key.slice(EXPORTS_PREFIX.length).split('/')[0]!;

/** An id as kernel/ids makes them: nothing else ever reaches a path. */
const EXPORT_ID = /^[0-9a-z]{26}$/;

/**
 * Where an export made ready before the file store (EX7) left its file: `$SVC_DATA_DIR/exports/
 * <id>.<ext>`, on the replica that wrote it. Such a row has no `file_key`. Built from the stored
 * row's id and format only; null for an id kernel/ids would not have made.
 */
export function legacyFile(dataDir: string, id: string, format: ExportFormat): string | null {
  return EXPORT_ID.test(id) ? join(dataDir, 'exports', `${id}.${FORMAT_INFO[format].extension}`) : null;
}

/** `orders-20240131-1530.csv`: the table and the finish time, reduced to characters every file system takes. */
export function downloadName(tableRef: string, finishedAt: number, format: ExportFormat): string {
  const stamp = new Date(finishedAt).toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-');
  const base =
    tableRef
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'export';
  return `${base}-${stamp}.${FORMAT_INFO[format].extension}`;
}

/** RFC 6266: an ASCII fallback plus the UTF-8 name, so a non-ASCII table name survives. */
export function contentDisposition(name: string, utf8Name: string): string {
  return `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(utf8Name)}`;
}
