import type { SourceDialect } from '../connections/provides.js';

/** Why the database refused one row, for the error report; null when the error is not about the row (the database went away). */
export function rowRefusal(dialect: SourceDialect, err: unknown): string | null {
  const e = err as { code?: string; errno?: number; constraint?: string; column?: string; message?: string };
  const msg = String(e?.message ?? '').slice(0, 300);
  if (dialect === 'postgres') {
    const code = String(e?.code ?? '');
    const name = e.constraint ? ` (${e.constraint})` : '';
    if (code === '23505') return `duplicate key${name}`;
    if (code === '23503') return `foreign key violation${name}`;
    if (code === '23502') return `missing required value${e.column ? ` in ${e.column}` : ''}`;
    if (code === '23514') return `check constraint violation${name}`;
    if (code.startsWith('22') || code === '23P01') return `invalid value: ${msg}`;
    return null;
  }
  if (dialect === 'mysql') {
    const n = Number(e?.errno);
    if (n === 1062 || n === 1586) return `duplicate key: ${msg}`;
    if (n === 1451 || n === 1452 || n === 1216 || n === 1217) return 'foreign key violation';
    if (n === 1048 || n === 1364) return `missing required value: ${msg}`;
    if (n === 3819 || n === 4025) return `check constraint violation: ${msg}`;
    if ([1264, 1265, 1292, 1366, 1406, 1367, 1411, 3140, 4078].includes(n)) return `invalid value: ${msg}`;
    return null;
  }
  const code = String(e?.code ?? '');
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') return `duplicate key: ${msg}`;
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign key violation';
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') return `missing required value: ${msg}`;
  if (code === 'SQLITE_CONSTRAINT_CHECK') return `check constraint violation: ${msg}`;
  if (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH') return `refused: ${msg}`;
  return null;
}
