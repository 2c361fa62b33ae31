import { join } from 'node:path';

/** Keys in the kernel's file store (K45): what every replica reads. */
export const uploadKey = (id: string) => `imports/uploads/${id}`;
export const UPLOADS_PREFIX = 'imports/uploads/';
export const REPORTS_PREFIX = 'imports/reports/';
/** Everything kept of an import's error report, whichever attempt wrote it. */
export const reportPrefix = (importId: string) => `${REPORTS_PREFIX}${importId}/`;
/**
 * One claim's error report (IM9): segments, each the bytes a checkpoint added, named by where
 * they start. The folder is the attempt and a token of the claim's own: a claim that a shutdown
 * handed back does not count, so the next one runs under the same attempt number. The import's
 * row names the report to read (`report_key`, this prefix); segments stored before IM9 lie
 * directly under the import's prefix, and a row without `report_key` names them.
 */
export const attemptReportKey = (importId: string, attempt: number, token: string) => `${reportPrefix(importId)}${attempt}.${token}/`;
export const reportSegmentKey = (reportKey: string, offset: number) => `${reportKey}${String(offset).padStart(15, '0')}`;
export const segmentOffset = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1));
/** The attempt whose report holds the segment; null for a segment stored before IM9. */
export function segmentAttempt(importId: string, key: string): number | null {
  const rest = key.slice(reportPrefix(importId).length);
  const slash = rest.indexOf('/');
  return slash < 0 ? null : Number(rest.slice(0, slash).split('.')[0]);
}

/** This machine's scratch files: an upload while it is scanned, a copy being imported, a report being appended. */
export const workDir = (dataDir: string) => join(dataDir, 'imports', 'work');
