import { sql } from 'kysely';
import type { DdlDialect } from '../types.js';
import { decimalArgs, enumCheck, nullAndDefault } from './shared.js';

/**
 * SQLite keeps any declared type name; these are the names introspection (types.ts sqliteType)
 * maps back to the declared portable type. datetime holds `YYYY-MM-DD HH:MM:SS[.fff]` UTC text
 * (as engine/rows/codec.ts writes it); booleans are 0/1; an enum is text with CHECK (col IN (…)).
 * An auto-numbered key must be spelled `integer primary key autoincrement`, so a `bigint` one
 * reads back as `integer` (SQLite integers are 64-bit either way).
 */
export const sqliteDdl: DdlDialect = {
  name: 'sqlite',
  transactional: true,
  dataType(c) {
    if (c.autoIncrement) return 'integer';
    switch (c.type) {
      case 'string':
        return `varchar(${c.maxLength ?? 255})`;
      case 'text':
      case 'enum':
        return 'text';
      case 'integer':
        return 'integer';
      case 'bigint':
        return 'bigint';
      case 'decimal': {
        const { precision, scale } = decimalArgs(c);
        return `decimal(${precision}, ${scale})`;
      }
      case 'float':
        return 'real';
      case 'boolean':
        return 'boolean';
      case 'date':
        return 'date';
      case 'datetime':
        return 'datetime';
      case 'time':
        return 'time';
      case 'json':
        return 'json';
      case 'uuid':
        return 'uuid';
      case 'binary':
        return 'blob';
    }
  },
  modifiers(b, c, { inlinePrimaryKey }) {
    let out = b;
    if (inlinePrimaryKey) out = out.primaryKey();
    if (c.autoIncrement) out = out.autoIncrement();
    out = nullAndDefault(out, c, sqliteDdl.now, (v) => sql.lit(v ? 1 : 0));
    if (c.type === 'enum') out = out.check(enumCheck(c));
    return out;
  },
  now(type) {
    // A default expression must be parenthesised unless it is one of the CURRENT_* keywords.
    return type === 'date' ? sql`current_date` : type === 'time' ? sql`current_time` : sql`(strftime('%Y-%m-%d %H:%M:%f', 'now'))`;
  },
  // SQLite has no ALTER COLUMN: a retype would mean rebuilding the table.
  retype: null,
  async dropIndex(db, _table, index) {
    await db.schema.dropIndex(index).ifExists().execute();
  },
};
