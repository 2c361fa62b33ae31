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
  /**
   * Drops the column's own CHECKs (an enum's value list), converts the values with a cast (USING),
   * then adds the new enum's CHECK. Runs inside applyTables' transaction.
   */
  async retype(db, table, c, server) {
    const type = postgresDdl.dataType(c, server);
    const typeSql = typeof type === 'string' ? sql.raw(type) : type;
    const { rows } = await sql<{ name: string }>`
      select con.conname as name
      from pg_constraint con join pg_attribute a on a.attrelid = con.conrelid and a.attnum = con.conkey[1]
      where con.contype = 'c' and con.conrelid = to_regclass(quote_ident(${table})) and cardinality(con.conkey) = 1 and a.attname = ${c.name}`.execute(db);
    for (const r of rows) await db.schema.alterTable(table).dropConstraint(r.name).execute();
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(c.name)} type ${typeSql} using ${sql.ref(c.name)}::${typeSql}`.execute(db);
    if (c.type === 'enum') await db.schema.alterTable(table).addCheckConstraint(checkName(table, c.name), enumCheck(c)).execute();
  },
  async dropIndex(db, _table, index) {
    await db.schema.dropIndex(index).ifExists().execute();
  },
};

/** PostgreSQL's own spelling of a column CHECK's name, kept within 63 characters. */
function checkName(table: string, column: string): string {
  return `${table.slice(0, 40)}_${column.slice(0, 16)}_check`;
}
