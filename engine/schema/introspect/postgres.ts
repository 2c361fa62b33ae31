import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Column, SchemaModel, Table } from '../model.js';
import { groupBy, newColumn, newTable, QueryRunner, referentialAction, stripOuterParens } from './build.js';
import { postgresEnumCheck } from './postgres-enum.js';
import { postgresType } from './types.js';

/**
 * PostgreSQL ≥ 12 through pg_catalog (information_schema is a stack of views with privilege
 * checks and is several times slower on thousands of columns). Five queries, whatever the
 * number of schemas or tables: relations, columns, constraints, indexes, enum types.
 */

interface RelationRow {
  oid: number;
  schema: string;
  name: string;
  kind: string;
  row_estimate: number | null;
  comment: string | null;
}

interface ColumnRow {
  rel: number;
  name: string;
  native_type: string;
  typname: string;
  typtype: string;
  type_oid: number;
  typmod: number;
  not_null: boolean;
  identity: string;
  generated: string;
  default_expr: string | null;
  comment: string | null;
}

interface ConstraintRow {
  rel: number;
  name: string;
  type: 'p' | 'u' | 'f' | 'c';
  columns: string[];
  ref_schema: string | null;
  ref_table: string | null;
  ref_columns: string[] | null;
  on_delete: string;
  on_update: string;
  expression: string | null;
  index_oid: number;
}

interface IndexRow {
  rel: number;
  oid: number;
  name: string;
  is_unique: boolean;
  is_primary: boolean;
  is_partial: boolean;
  columns: string[];
}

interface EnumRow {
  oid: number;
  schema: string;
  name: string;
  in_scope: boolean;
  values: string[];
}

const RELKINDS = sql.raw(`('r', 'p', 'v', 'm', 'f')`);

function schemaFilter(column: string, schemas: string[] | undefined): RawBuilder<unknown> {
  const col = sql.raw(column);
  if (schemas) return sql`${col} = any(${schemas}::text[])`;
  return sql`${col} not in ('pg_catalog', 'information_schema') and ${col} not like 'pg\\_toast%' and ${col} not like 'pg\\_temp%'`;
}

export async function introspectPostgres(db: Kysely<any>, schemas: string[] | undefined): Promise<{ model: SchemaModel; queries: number }> {
  const q = new QueryRunner(db);
  const inScope = schemaFilter('n.nspname', schemas);

  const relations = await q.rows<RelationRow>(sql`
    select c.oid, n.nspname as schema, c.relname as name, c.relkind as kind,
      -- -1: never vacuumed or analysed (PostgreSQL 14+), so no estimate at all
      case when c.relkind in ('v') or c.reltuples < 0 then null else c.reltuples::float8 end as row_estimate,
      obj_description(c.oid, 'pg_class') as comment
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ${RELKINDS} and ${inScope}`);

  const columns = await q.rows<ColumnRow>(sql`
    select a.attrelid as rel, a.attname as name,
      format_type(a.atttypid, a.atttypmod) as native_type,
      coalesce(bt.typname, t.typname) as typname,
      coalesce(bt.typtype, t.typtype) as typtype,
      coalesce(bt.oid, t.oid) as type_oid,
      case when t.typtype = 'd' then t.typtypmod else a.atttypmod end as typmod,
      a.attnotnull or t.typnotnull as not_null,
      a.attidentity as identity, a.attgenerated as generated,
      pg_get_expr(d.adbin, d.adrelid) as default_expr,
      col_description(a.attrelid, a.attnum) as comment
    from pg_attribute a
      join pg_class c on c.oid = a.attrelid
      join pg_namespace n on n.oid = c.relnamespace
      join pg_type t on t.oid = a.atttypid
      left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attnum > 0 and not a.attisdropped and c.relkind in ${RELKINDS} and ${inScope}
    order by a.attrelid, a.attnum`);

  // conkey/confkey hold column numbers in constraint order; resolve them here, including for
  // referenced tables outside the introspected schemas.
  const constraints = await q.rows<ConstraintRow>(sql`
    select con.conrelid as rel, con.conname as name, con.contype as type,
      array(select a.attname::text from unnest(con.conkey) with ordinality k(n, i)
        join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.i) as columns,
      fn.nspname as ref_schema, fc.relname as ref_table,
      case when con.contype = 'f' then array(select a.attname::text from unnest(con.confkey) with ordinality k(n, i)
        join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.i) end as ref_columns,
      con.confdeltype as on_delete, con.confupdtype as on_update,
      case when con.contype = 'c' then pg_get_expr(con.conbin, con.conrelid) end as expression,
      con.conindid as index_oid
    from pg_constraint con
      join pg_class c on c.oid = con.conrelid
      join pg_namespace n on n.oid = c.relnamespace
      left join pg_class fc on fc.oid = con.confrelid
      left join pg_namespace fn on fn.oid = fc.relnamespace
    where con.contype in ('p', 'u', 'f', 'c') and ${inScope}`);

  // Key columns only (not INCLUDE ones); 0 marks an expression, spelled by pg_get_indexdef.
  const indexes = await q.rows<IndexRow>(sql`
    select i.indrelid as rel, i.indexrelid as oid, ic.relname as name, i.indisunique as is_unique,
      i.indisprimary as is_primary, i.indpred is not null as is_partial,
      array(select case when k.n = 0 then pg_get_indexdef(i.indexrelid, k.i::int, true) else a.attname::text end
        from unnest(i.indkey::int2[]) with ordinality k(n, i)
        left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n
        where k.i <= i.indnkeyatts order by k.i) as columns
    from pg_index i
      join pg_class ic on ic.oid = i.indexrelid
      join pg_class c on c.oid = i.indrelid
      join pg_namespace n on n.oid = c.relnamespace
    where ${inScope}`);

  // Every enum type, not only the introspected schemas': a column may use one from elsewhere.
  const enums = await q.rows<EnumRow>(sql`
    select t.oid, n.nspname as schema, t.typname as name, (${inScope}) as in_scope,
      array(select e.enumlabel::text from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) as values
    from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where t.typtype = 'e'`);

  const enumValues = new Map(enums.map((e) => [e.oid, e.values]));
  const columnsOf = groupBy(columns, (c) => c.rel);
  const constraintsOf = groupBy(constraints, (c) => c.rel);
  const indexesOf = groupBy(indexes, (i) => i.rel);

  const tables = relations.map((r) => {
    const table = newTable({
      schema: r.schema,
      name: r.name,
      kind: r.kind === 'v' || r.kind === 'm' ? 'view' : 'table',
      rowEstimate: r.row_estimate,
      comment: r.comment,
      columns: (columnsOf.get(r.oid) ?? []).map((c) => toColumn(c, enumValues)),
    });
    addConstraints(table, constraintsOf.get(r.oid) ?? [], indexesOf.get(r.oid) ?? []);
    checkEnums(table, columnsOf.get(r.oid) ?? []);
    return table;
  });

  return {
    model: { dialect: 'postgres', tables, enums: enums.filter((e) => e.in_scope).map((e) => ({ schema: e.schema, name: e.name, values: e.values })) },
    queries: q.count,
  };
}

function toColumn(c: ColumnRow, enumValues: Map<number, string[]>): Column {
  const type = postgresType(c.typname, c.typtype);
  const generated = c.generated === 's' ? 'stored' : c.generated === 'v' ? 'virtual' : null;
  // serial is a nextval() default; identity columns have no default at all. Both are "filled by the database".
  const serial = c.default_expr !== null && /^nextval\(/i.test(c.default_expr);
  const explicitNull = c.default_expr !== null && /^null(::.*)?$/i.test(c.default_expr);
  const mod = c.typmod > 0 ? c.typmod - 4 : null; // typmod carries the 4-byte varlena header
  return newColumn({
    name: c.name,
    type,
    nativeType: c.native_type.toLowerCase(),
    nullable: !c.not_null,
    default: generated || serial || explicitNull ? null : c.default_expr,
    autoIncrement: c.identity === 'a' || c.identity === 'd' || serial,
    generated: generated ? { kind: generated, expression: c.default_expr } : null,
    maxLength: type === 'string' && mod !== null && (c.typname === 'varchar' || c.typname === 'bpchar') ? mod : null,
    precision: type === 'decimal' && mod !== null ? (mod >> 16) & 0xffff : null,
    scale: type === 'decimal' && mod !== null ? mod & 0xffff : null,
    enumValues: type === 'enum' ? (enumValues.get(c.type_oid) ?? []) : null,
    comment: c.comment,
  });
}

/**
 * A `text` column whose CHECK only lists allowed values reads as an enum (postgres-enum.ts), as
 * on SQLite: it is how declared tables (engine/schema/ddl) spell an enum without an enum type.
 */
function checkEnums(table: Table, rows: ColumnRow[]): void {
  for (const check of table.checks) {
    const e = postgresEnumCheck(check.expression);
    if (!e) continue;
    const i = table.columns.findIndex((c) => c.name === e.column);
    const column = table.columns[i];
    if (!column || rows[i]?.typname !== 'text') continue;
    table.columns[i] = { ...column, type: 'enum', enumValues: e.values };
  }
}

function addConstraints(table: Table, constraints: ConstraintRow[], indexes: IndexRow[]): void {
  for (const c of constraints) {
    if (c.type === 'p') table.primaryKey = { name: c.name, columns: c.columns };
    else if (c.type === 'u') table.uniques.push({ name: c.name, columns: c.columns });
    else if (c.type === 'c') table.checks.push({ name: c.name, expression: stripOuterParens(c.expression ?? '') });
    else if (c.type === 'f' && c.ref_table !== null) {
      table.foreignKeys.push({
        name: c.name,
        columns: c.columns,
        referencedSchema: c.ref_schema,
        referencedTable: c.ref_table,
        referencedColumns: c.ref_columns ?? [],
        onDelete: referentialAction(c.on_delete),
        onUpdate: referentialAction(c.on_update),
      });
    }
  }
  const constraintIndexes = new Set(constraints.filter((c) => c.type === 'u' || c.type === 'p').map((c) => c.index_oid));
  for (const i of indexes) {
    if (i.is_primary || i.columns.length === 0) continue;
    table.indexes.push({ name: i.name, columns: i.columns, unique: i.is_unique });
    // A partial unique index only constrains some rows: not a uniqueness of the columns.
    if (i.is_unique && !i.is_partial && !constraintIndexes.has(i.oid)) table.uniques.push({ name: i.name, columns: i.columns });
  }
}
