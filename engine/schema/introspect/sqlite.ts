import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Column, SchemaModel, Table } from '../model.js';
import { groupBy, newColumn, newTable, QueryRunner, referentialAction } from './build.js';
import { enumCheck, parseCreateTable, parseIndexKeys } from './sqlite-ddl.js';
import { splitTypeArgs, sqliteType } from './types.js';

/**
 * SQLite through sqlite_master joined with the table-valued pragma functions, so each kind of
 * fact is one query for all tables: columns, foreign keys, indexes (three per schema). CHECKs and
 * generated expressions exist only in the CREATE text, read by sqlite-ddl.ts.
 * `schemas` are attached database names; `main` is reported as schema null.
 */

interface ColumnRow {
  kind: 'table' | 'view';
  tbl: string;
  ddl: string | null;
  name: string;
  declared: string;
  not_null: number;
  default_value: string | null;
  pk: number;
  hidden: number;
}

interface ForeignKeyRow {
  tbl: string;
  id: number;
  ref_table: string;
  col: string;
  ref_col: string | null;
  on_update: string;
  on_delete: string;
}

interface IndexRow {
  tbl: string;
  idx: string;
  is_unique: number;
  origin: 'c' | 'u' | 'pk';
  partial: number;
  seqno: number;
  cid: number;
  col: string | null;
  idx_sql: string | null;
}

export async function introspectSqlite(db: Kysely<any>, schemas: string[] | undefined): Promise<{ model: SchemaModel; queries: number }> {
  const q = new QueryRunner(db);
  const tables: Table[] = [];
  for (const schema of schemas ?? ['main']) tables.push(...(await introspectSchema(q, schema)));
  return { model: { dialect: 'sqlite', tables, enums: [] }, queries: q.count };
}

async function introspectSchema(q: QueryRunner, schema: string): Promise<Table[]> {
  const master = sql`${sql.id(schema)}.sqlite_master`;
  const columns = await readColumns(q, schema, master);

  const fkRows = await q.rows<ForeignKeyRow>(sql`
    select m.name as tbl, f.id as id, f."table" as ref_table, f."from" as col, f."to" as ref_col,
      f.on_update as on_update, f.on_delete as on_delete
    from ${master} m join pragma_foreign_key_list(m.name, ${schema}) f
    where m.type = 'table'
    order by m.name, f.id, f.seq`);

  // key = 1 drops the trailing rowid/PK columns index_xinfo appends to every index.
  const indexRows = await q.rows<IndexRow>(sql`
    select m.name as tbl, il.name as idx, il."unique" as is_unique, il.origin as origin, il.partial as partial,
      ii.seqno as seqno, ii.cid as cid, ii.name as col, s.sql as idx_sql
    from ${master} m
      join pragma_index_list(m.name, ${schema}) il
      join pragma_index_xinfo(il.name, ${schema}) ii
      left join ${master} s on s.type = 'index' and s.name = il.name
    where m.type = 'table' and ii.key = 1
    order by m.name, il.name, ii.seqno`);

  const fksOf = groupBy(fkRows, (r) => r.tbl);
  const indexesOf = groupBy(indexRows, (r) => r.tbl);
  const label = schema === 'main' ? null : schema;
  const tables = [...groupBy(columns, (c) => c.tbl)].map(([name, cols]) => {
    const first = cols[0] as ColumnRow;
    return buildTable(label, name, first.kind, first.ddl, cols, indexesOf.get(name) ?? []);
  });
  for (const t of tables) addForeignKeys(t, fksOf.get(t.name) ?? [], tables);
  return tables;
}

function columnsQuery(schema: string, master: RawBuilder<unknown>, where: RawBuilder<unknown>): RawBuilder<ColumnRow> {
  return sql<ColumnRow>`
    select m.type as kind, m.name as tbl, m.sql as ddl, c.name as name, c.type as declared, c."notnull" as not_null,
      c.dflt_value as default_value, c.pk as pk, c.hidden as hidden
    from ${master} m join pragma_table_xinfo(m.name, ${schema}) c
    where ${where} and substr(m.name, 1, 7) <> 'sqlite_' and c.hidden <> 1
    order by m.name, c.cid`;
}

/**
 * One query for tables and views. A view that no longer compiles (it names a dropped table or
 * column) makes pragma_table_xinfo, and with it that whole query, fail; only then read tables in
 * one query and views one by one, leaving out the broken ones.
 */
async function readColumns(q: QueryRunner, schema: string, master: RawBuilder<unknown>): Promise<ColumnRow[]> {
  try {
    return await q.rows(columnsQuery(schema, master, sql`m.type in ('table', 'view')`));
  } catch {
    const rows = await q.rows(columnsQuery(schema, master, sql`m.type = 'table'`));
    const views = await q.rows<{ name: string }>(sql`select name from ${master} where type = 'view'`);
    for (const v of views) {
      try {
        rows.push(...(await q.rows(columnsQuery(schema, master, sql`m.type = 'view' and m.name = ${v.name}`))));
      } catch {
        // broken view: it has no columns to show
      }
    }
    return rows;
  }
}

function buildTable(schema: string | null, name: string, kind: 'table' | 'view', ddl: string | null, rows: ColumnRow[], indexRows: IndexRow[]): Table {
  const details = parseCreateTable(kind === 'table' ? ddl : null);
  const pkRows = rows.filter((r) => r.pk > 0).sort((a, b) => a.pk - b.pk);
  const hasPkIndex = indexRows.some((r) => r.origin === 'pk');
  // INTEGER PRIMARY KEY aliases the rowid (and so is filled in) unless the table is WITHOUT
  // ROWID or the key is declared DESC; both of those give the key an index of its own.
  const rowidAlias = pkRows.length === 1 && !hasPkIndex && pkRows[0]?.declared.toLowerCase() === 'integer' ? pkRows[0].name : null;
  const enums = new Map<string, string[]>();
  for (const check of details.checks) {
    const e = enumCheck(check.expression);
    if (e) enums.set(e.column.toLowerCase(), e.values);
  }

  const table = newTable({
    schema,
    name,
    kind,
    columns: rows.map((r) => toColumn(r, r.name === rowidAlias, details.generated.get(r.name.toLowerCase()) ?? null, enums.get(r.name.toLowerCase()) ?? null)),
    primaryKey: kind === 'table' && pkRows.length > 0 ? { name: null, columns: pkRows.map((r) => r.name) } : null,
    checks: details.checks,
  });
  addIndexes(table, indexRows);
  return table;
}

function toColumn(r: ColumnRow, rowidAlias: boolean, generatedExpr: string | null, enumValues: string[] | null): Column {
  const declaredType = sqliteType(r.declared);
  // SQLite has no enum type; a text column constrained by CHECK (col IN (…)) is one in all but name.
  const type = enumValues && (declaredType === 'string' || declaredType === 'text') ? 'enum' : declaredType;
  const { args } = splitTypeArgs(r.declared);
  const generated = r.hidden === 2 ? 'virtual' : r.hidden === 3 ? 'stored' : null;
  return newColumn({
    name: r.name,
    type,
    nativeType: r.declared.toLowerCase(),
    // A rowid alias can never hold NULL (inserting NULL assigns the next rowid).
    nullable: !rowidAlias && r.not_null === 0,
    default: r.default_value,
    autoIncrement: rowidAlias,
    generated: generated ? { kind: generated, expression: generatedExpr } : null,
    maxLength: type === 'string' ? (args[0] ?? null) : null,
    precision: type === 'decimal' ? (args[0] ?? null) : null,
    scale: type === 'decimal' ? (args[1] ?? (args[0] === undefined ? null : 0)) : null,
    enumValues: type === 'enum' ? enumValues : null,
  });
}

function addIndexes(table: Table, rows: IndexRow[]): void {
  for (const [name, parts] of groupBy(rows, (r) => r.idx)) {
    const first = parts[0];
    if (!first || first.origin === 'pk') continue;
    const keys = parseIndexKeys(first.idx_sql);
    // cid -2 is an expression key: its text is only in the CREATE INDEX statement.
    const columns = parts.map((p) => p.col ?? keys[p.seqno] ?? '').filter((c) => c !== '');
    if (columns.length === 0) continue;
    const unique = first.is_unique === 1;
    table.indexes.push({ name, columns, unique });
    if (unique && first.partial === 0) table.uniques.push({ name: first.origin === 'u' ? null : name, columns });
  }
}

/**
 * SQLite keeps the referenced table and columns as written in the REFERENCES clause: any case,
 * and no columns at all when they mean the referenced table's primary key. Resolve both
 * against the tables we read, case-insensitively as SQLite does.
 */
function addForeignKeys(table: Table, rows: ForeignKeyRow[], tables: Table[]): void {
  for (const parts of groupBy(rows, (r) => r.id).values()) {
    const first = parts[0];
    if (!first) continue;
    const target = tables.find((t) => t.name === first.ref_table) ?? tables.find((t) => t.name.toLowerCase() === first.ref_table.toLowerCase());
    const resolve = (c: string) =>
      target?.columns.find((tc) => tc.name === c)?.name ?? target?.columns.find((tc) => tc.name.toLowerCase() === c.toLowerCase())?.name ?? c;
    const refColumns = parts.every((p) => p.ref_col !== null) ? parts.map((p) => resolve(p.ref_col as string)) : (target?.primaryKey?.columns ?? []);
    table.foreignKeys.push({
      name: null,
      columns: parts.map((p) => p.col),
      referencedSchema: table.schema,
      referencedTable: target?.name ?? first.ref_table,
      referencedColumns: refColumns.length > 0 ? refColumns : parts.map(() => 'rowid'),
      onDelete: referentialAction(first.on_delete),
      onUpdate: referentialAction(first.on_update),
    });
  }
}
