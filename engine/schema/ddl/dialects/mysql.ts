import { sql, type Expression } from 'kysely';
import type { DdlDialect } from '../types.js';
import { decimalArgs, nullAndDefault } from './shared.js';

/**
 * MySQL and MariaDB. DDL commits itself, so a failed apply is undone by compensation only.
 * text is LONGTEXT and binary LONGBLOB (PostgreSQL's text and bytea have no small limit either);
 * datetime is DATETIME(6) holding UTC, as the row layer writes it; uuid is MariaDB's native
 * UUID (10.7+) or CHAR(36) on MySQL (which reads back as `string`).
 */
export const mysqlDdl: DdlDialect = {
  name: 'mysql',
  transactional: false,
  dataType(c, server) {
    switch (c.type) {
      case 'string':
        return `varchar(${c.maxLength ?? 255})`;
      case 'text':
        return sql`longtext`;
      case 'enum':
        return sql`enum(${sql.join((c.values ?? []).map((v) => sql.lit(v)))})`;
      case 'integer':
        return 'integer';
      case 'bigint':
        return 'bigint';
      case 'decimal': {
        const { precision, scale } = decimalArgs(c);
        return `decimal(${precision}, ${scale})`;
      }
      case 'float':
        return sql`double`;
      case 'boolean':
        return 'boolean';
      case 'date':
        return 'date';
      case 'datetime':
        return 'datetime(6)';
      case 'time':
        return 'time';
      case 'json':
        return 'json';
      case 'uuid':
        return server.nativeUuid ? 'uuid' : 'char(36)';
      case 'binary':
        return sql`longblob`;
    }
  },
  modifiers(b, c, { inlinePrimaryKey }) {
    let out = b;
    if (inlinePrimaryKey) out = out.primaryKey();
    if (c.autoIncrement) out = out.autoIncrement();
    // Literal defaults of TEXT/BLOB/JSON columns must be expressions on MySQL 8: `default ('x')`.
    const wrap = c.type === 'text' || c.type === 'json' || c.type === 'binary' ? (e: Expression<unknown>) => sql`(${e})` : undefined;
    return nullAndDefault(out, c, mysqlDdl.now, (v) => sql.lit(v ? 1 : 0), wrap);
  },
  now(type) {
    return type === 'date' ? sql`(curdate())` : type === 'time' ? sql`(curtime())` : sql`current_timestamp(6)`;
  },
  async retype(db, table, c, server) {
    const type = mysqlDdl.dataType(c, server);
    await db.schema
      .alterTable(table)
      .modifyColumn(c.name, typeof type === 'string' ? sql.raw(type) : type, (b) => mysqlDdl.modifiers(b, c, { inlinePrimaryKey: false, server }))
      .execute();
  },
  async dropIndex(db, table, index) {
    await db.schema.dropIndex(index).on(table).execute();
  },
};
