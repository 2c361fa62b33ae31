import { describe, expect, it } from 'vitest';
import { isFileSystemFull, isStorageFull } from './storage-full.js';

/** Errors shaped as each driver raises them for a full disk (the engines' own codes and texts). */
const err = (code: string, message = 'x', cause?: unknown) => Object.assign(new Error(message, cause ? { cause } : undefined), { code });

describe('what counts as a full storage (decisions K44)', () => {
  it('knows each engine and the file system', () => {
    expect(isStorageFull(err('SQLITE_FULL', 'database or disk is full'))).toBe(true);
    expect(isStorageFull(err('ENOSPC', 'no space left on device'))).toBe(true);
    expect(isStorageFull(err('EDQUOT', 'disk quota exceeded'))).toBe(true);
    expect(isStorageFull(err('53100', 'could not extend file "base/16384/16385": No space left on device'))).toBe(true);
    expect(isStorageFull(err('ER_RECORD_FILE_FULL', "The table 't' is full"))).toBe(true);
    expect(isStorageFull(err('ER_GET_ERRNO', 'Got error 28 "No space left on device" from storage engine InnoDB'))).toBe(true);
    expect(isStorageFull(err('ER_ERROR_ON_WRITE', 'Error writing file \'./t.frm\' (Errcode: 28 "No space left on device")'))).toBe(true);
    // Wrapped, as kysely or our own layers may wrap it.
    expect(isStorageFull(new Error('wrapped', { cause: err('SQLITE_FULL') }))).toBe(true);
  });

  it('does not take other failures for it', () => {
    expect(isStorageFull(err('SQLITE_CONSTRAINT_UNIQUE'))).toBe(false);
    expect(isStorageFull(err('ER_GET_ERRNO', 'Got error 168 from storage engine'))).toBe(false);
    expect(isStorageFull(err('53200', 'out of memory'))).toBe(false);
    expect(isStorageFull(err('ECONNRESET'))).toBe(false);
    expect(isStorageFull(null)).toBe(false);
    expect(isFileSystemFull(err('ENOSPC'))).toBe(true);
    expect(isFileSystemFull(err('SQLITE_FULL'))).toBe(false);
  });
});
