import { sql } from 'kysely';
import type { Column } from '../../schema/model.js';
import { booleanWire, commonWire, isoDatetime, jsonWire, padScale } from '../codec.js';
import type { RowDialect, WriteFailure } from '../dialect.js';
import type { PortableValue } from '../types.js';

/**
 * better-sqlite3 reads every INTEGER as a JS number, so BIGINT is cast to text (exact to 2^63);
 * DECIMAL too, so the text is SQLite's own (15 significant digits: SQLite keeps decimals as
 * REAL, see decisions).
 */
function select(c: Column) {
  const col = sql.id(c.name);
  return c.type === 'bigint' || c.type === 'decimal' ? sql`cast(${col} as text)` : col;
}

function toWire(c: Column, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (c.type) {
    case 'bigint':
      return String(raw);
    case 'decimal':
      return padScale(String(raw), c.scale);
    case 'boolean':
      return booleanWire(raw);
    case 'datetime':
      return typeof raw === 'string' ? isoDatetime(raw) : raw;
    case 'json':
      return jsonWire(raw);
    default:
      return commonWire(c, raw);
  }
}

/**
 * SQLite binds no booleans (0/1, as its own `true`/`false` keywords store); bigints bind as
 * BigInt so the 64-bit value arrives exactly; date-times in SQLite's own text format
 * (`CURRENT_TIMESTAMP` writes `YYYY-MM-DD HH:MM:SS`), so text comparison orders them.
 */
function bind(c: Column, v: PortableValue): unknown {
  if (v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (c.type === 'bigint' && typeof v === 'string') return BigInt(v);
  return v;
}

function writeFailure(err: unknown): WriteFailure | null {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  const text = String(e?.message ?? '');
  const constraint = /constraint failed: (.+)$/.exec(text)?.[1]?.trim() ?? null;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return { reason: 'unique', constraint };
  // ON DELETE RESTRICT fails as SQLITE_CONSTRAINT_TRIGGER, with the foreign key's own message.
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || (code.startsWith('SQLITE_CONSTRAINT') && /FOREIGN KEY constraint failed/.test(text)))
    return { reason: 'foreign-key', constraint: null };
  // "NOT NULL constraint failed: t.col": the column, as PostgreSQL and MySQL name it.
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') return { reason: 'not-null', constraint: constraint?.split('.').pop() ?? null };
  if (code === 'SQLITE_CONSTRAINT_CHECK') return { reason: 'check', constraint };
  if (code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG' || code === 'SQLITE_CONSTRAINT_DATATYPE') return { reason: 'invalid', constraint };
  return null;
}

export const sqliteRows: RowDialect = {
  name: 'sqlite',
  table: (t) => sql.id(t.name),
  select,
  toWire,
  bind,
  order: (c) => sql.id(c.name),
  nullsLargest: false,
  // SQLite's LIKE folds ASCII case only; LOWER does the same, so non-ASCII letters match their own case.
  ilike: (c, pattern) => sql`lower(${sql.id(c.name)}) like lower(${pattern}) escape '!'`,
  returning: true,
  forUpdate: false,
  insertModifier: () => null,
  defaultValues: (t) => sql`insert into ${sql.id(t.name)} default values`,
  explainRows: async () => null,
  writeFailure,
  missingObject: (err) => /^no such (table|column)/.test(String((err as { message?: unknown })?.message)),
};
