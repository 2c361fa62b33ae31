import { CompiledQuery, sql } from 'kysely';
import type { Column } from '../../schema/model.js';
import { booleanWire, commonWire, isoDatetime, jsonWire } from '../codec.js';
import type { RowDialect, WriteFailure } from '../dialect.js';
import type { PortableValue } from '../types.js';

/**
 * Dates as the server's text (a zero date or a DATETIME(6) fraction survives, which a JS Date
 * would not); JSON as text because MySQL 8 sends a JSON column parsed and MariaDB (LONGTEXT)
 * does not, and a JSON string value would otherwise be indistinguishable from JSON text.
 * BIGINT and DECIMAL already arrive as strings (the source pool sets bigNumberStrings).
 */
function select(c: Column) {
  const col = sql.id(c.name);
  switch (c.type) {
    case 'date':
    case 'datetime':
    case 'json':
      return sql`cast(${col} as char)`;
    default:
      return col;
  }
}

function toWire(c: Column, raw: unknown): unknown {
  if (raw === null || raw === undefined) return null;
  switch (c.type) {
    case 'bigint':
    case 'decimal':
      return String(raw);
    case 'boolean':
      return booleanWire(raw);
    case 'datetime':
      return typeof raw === 'string' ? isoDatetime(raw) : commonWire(c, raw);
    case 'json':
      return jsonWire(raw);
    default:
      return commonWire(c, raw);
  }
}

function bind(_c: Column, v: PortableValue): unknown {
  return v;
}

// Server error numbers (https://dev.mysql.com/doc/mysql-errors/8.0/en/server-error-reference.html, MariaDB's match).
const UNIQUE = new Set([1062, 1586]);
const FOREIGN_KEY = new Set([1451, 1452, 1216, 1217]);
const NOT_NULL = new Set([1048, 1364]);
const CHECK = new Set([3819, 4025]);
const INVALID = new Set([1264, 1265, 1292, 1366, 1406, 1411, 1367, 3140, 1690, 4078]);

function writeFailure(err: unknown): WriteFailure | null {
  const e = err as { errno?: unknown; sqlMessage?: unknown; message?: unknown };
  const errno = typeof e?.errno === 'number' ? e.errno : -1;
  const text = String(e?.sqlMessage ?? e?.message ?? '');
  // 1364 names the column as "Field 'x' doesn't have a default value", 1048 as "Column 'x' cannot be null".
  const named = /for key '([^']+)'|constraint [`']([^`']+)[`']|(?:column|field) '([^']+)'/i.exec(text);
  const constraint = named ? (named[1] ?? named[2] ?? named[3] ?? null) : null;
  if (UNIQUE.has(errno)) return { reason: 'unique', constraint };
  if (FOREIGN_KEY.has(errno)) return { reason: 'foreign-key', constraint: /CONSTRAINT `([^`]+)`/.exec(text)?.[1] ?? constraint };
  if (NOT_NULL.has(errno)) return { reason: 'not-null', constraint };
  if (CHECK.has(errno)) return { reason: 'check', constraint };
  if (INVALID.has(errno)) return { reason: 'invalid', constraint };
  return null;
}

export const mysqlRows: RowDialect = {
  name: 'mysql',
  table: (t) => sql.id(t.name),
  select,
  toWire,
  bind,
  // ORDER BY sorts an ENUM by its index but `>` compares its text: the keyset needs one order, the text's.
  order: (c) => (c.type === 'enum' ? sql`cast(${sql.id(c.name)} as char)` : sql.id(c.name)),
  nullsLargest: false,
  // LOWER on both sides: the column's collation may be binary (case-sensitive LIKE).
  ilike: (c, pattern) => sql`lower(${sql.id(c.name)}) like lower(${pattern}) escape '!'`,
  returning: false,
  forUpdate: true,
  insertModifier: () => null,
  defaultValues: (t) => sql`insert into ${sql.id(t.name)} () values ()`,
  async explainRows(db, q) {
    const res = await db.executeQuery<{ rows?: unknown; filtered?: unknown }>(CompiledQuery.raw(`explain ${q.sql}`, [...q.parameters]));
    const first = res.rows[0];
    if (!first || first.rows === null || first.rows === undefined) return null;
    const filtered = first.filtered === null || first.filtered === undefined ? 100 : Number(first.filtered);
    return Math.round((Number(first.rows) * filtered) / 100);
  },
  writeFailure,
  missingObject: (err) => [1054, 1146].includes(Number((err as { errno?: unknown })?.errno)),
};
