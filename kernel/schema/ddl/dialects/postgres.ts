import { sql } from 'kysely';
import type { DdlDialect } from '../types.js';
import { decimalArgs, enumCheck, nullAndDefault } from './shared.js';

/**
 * PostgreSQL. An enum is a text column with CHECK (col IN (…)), not an enum type: a type is a
 * schema object of its own, outlives the table and needs ALTER TYPE to grow. Introspection reads
 * that CHECK back as `enum`.
 */
export const postgresDdl: DdlDialect = {
  name: 'postgres',
  transactional: true,
  dataType(c) {
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
        return `numeric(${precision}, ${scale})`;
      }
      case 'float':
        return 'double precision';
      case 'boolean':
        return 'boolean';
      case 'date':
        return 'date';
      case 'datetime':
        return 'timestamptz';
      case 'time':
        return 'time';
      case 'json':
        return 'jsonb';
      case 'uuid':
        return 'uuid';
      case 'binary':
        return 'bytea';
    }
  },
  modifiers(b, c, { inlinePrimaryKey }) {
    let out = b;
    if (inlinePrimaryKey) out = out.primaryKey();
    if (c.autoIncrement) out = out.generatedByDefaultAsIdentity();
    out = nullAndDefault(out, c, postgresDdl.now);
    if (c.type === 'enum') out = out.check(enumCheck(c));
    return out;
  },
  now(type) {
    // localtime: a `time` column holds no zone; current_time would be timetz.
    return type === 'date' ? sql`current_date` : type === 'time' ? sql`localtime` : sql`now()`;
  },
  async retype(db, table, c, server) {
    const type = postgresDdl.dataType(c, server);
    await db.schema
      .alterTable(table)
      .alterColumn(c.name, (ac) => ac.setDataType(typeof type === 'string' ? sql.raw(type) : type))
      .execute();
  },
  async dropIndex(db, _table, index) {
    await db.schema.dropIndex(index).ifExists().execute();
  },
};
