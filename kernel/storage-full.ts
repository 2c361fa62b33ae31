/**
 * Whether an error says the storage being written is full (decisions K44), whichever layer
 * raised it: SQLite (meta store or source: SQLITE_FULL), the file system (ENOSPC, EDQUOT),
 * PostgreSQL (53100 disk_full) or MySQL/MariaDB (1114 ER_RECORD_FILE_FULL, 1021 ER_DISK_FULL,
 * or the storage engine's errno 28, ENOSPC, in "Got error 28 from storage engine").
 */
export function isStorageFull(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code.startsWith('SQLITE_FULL') || FULL_CODES.has(code)) return true;
      if (MYSQL_ERRNO_CODES.has(code) && ERRNO_28.test(String((e as { message?: unknown }).message ?? ''))) return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** A file write that failed for room (as opposed to a database's own report of it). */
export function isFileSystemFull(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', '53100', 'ER_RECORD_FILE_FULL', 'ER_DISK_FULL', 'ER_DISK_FULL_NOWAIT']);
/** mysql2 codes whose message carries the OS errno: "Got error 28 from storage engine", "(errno: 28 - No space left on device)". */
const MYSQL_ERRNO_CODES = new Set(['ER_GET_ERRNO', 'ER_ERROR_ON_WRITE', 'ER_GET_ERRMSG']);
const ERRNO_28 = /\b(error|errno|errcode):? 28\b/i;
