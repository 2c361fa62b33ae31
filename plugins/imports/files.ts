import { join } from 'node:path';

/** Keys in the kernel's file store (K45): what every replica reads. */
export const uploadKey = (id: string) => `imports/uploads/${id}`;
export const UPLOADS_PREFIX = 'imports/uploads/';
export const REPORTS_PREFIX = 'imports/reports/';
/** An error report is kept as segments, each the bytes a checkpoint added, named by where it starts. */
export const reportPrefix = (importId: string) => `${REPORTS_PREFIX}${importId}/`;
export const reportSegmentKey = (importId: string, offset: number) => `${reportPrefix(importId)}${String(offset).padStart(15, '0')}`;
export const segmentOffset = (key: string) => Number(key.slice(key.lastIndexOf('/') + 1));

/** This machine's scratch files: an upload while it is scanned, a copy being imported, a report being appended. */
export const workDir = (dataDir: string) => join(dataDir, 'imports', 'work');
