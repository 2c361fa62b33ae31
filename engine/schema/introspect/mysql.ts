import { sql, type Kysely } from 'kysely';
import type { Column, PortableType, SchemaModel, Table } from '../model.js';
import { groupBy, newColumn, newTable, QueryRunner, referentialAction, stripOuterParens } from './build.js';
import { mysqlType } from './types.js';

/**
 * MySQL 8 and MariaDB 10.11 through information_schema. Six queries, whatever the number of
 * tables: server, tables, columns, index columns, foreign-key columns, checks.
 * Tables of the connection's current database get schema null; tables of any other database
 * named in `schemas` get that database's name.
 */

interface ServerRow {
  version: string;
  db: string | null;
}

interface TableRow {
  db: string;
  name: string;
  type: string;
  row_estimate: number | string | null;
  comment: string | null;
}

interface ColumnRow {
  db: string;
  tbl: string;
  name: string;
  default_value: string | null;
  is_nullable: string;
  data_type: string;
  column_type: string;
  max_length: number | string | null;
  num_precision: number | string | null;
  num_scale: number | string | null;
  extra: string;
  generation_expression: string | null;
  comment: string | null;
}

interface IndexRow {
  db: string;
  tbl: string;
  name: string;
  non_unique: number | string;
  col: string | null;
  expression?: string | null;
}

interface ForeignKeyRow {
  db: string;
  tbl: string;
  name: string;
  col: string;
  ref_db: string;
  ref_table: string;
  ref_col: string;
  on_update: string;
  on_delete: string;
}

interface CheckRow {
  db: string;
  tbl: string;
  name: string;
  clause: string;
}

const key = (db: string, table: string) => `${db}\u0000${table}`;
const num = (v: number | string | null) => (v === null || v === '' ? null : Number(v));

export async function introspectMysql(db: Kysely<any>, schemas: string[] | undefined): Promise<{ model: SchemaModel; queries: number }> {
  const q = new QueryRunner(db);
  const [server] = await q.rows<ServerRow>(sql`select version() as version, database() as db`);
  const current = server?.db ?? null;
  const dbs = schemas ?? (current ? [current] : []);
  if (dbs.length === 0) throw new Error('introspect(mysql): the connection has no current database; pass opts.schemas');
  const flavour = serverFlavour(server?.version ?? '');
  const inDbs = (col: string) => sql`${sql.raw(col)} in (${sql.join(dbs)})`;

  const tables = await q.rows<TableRow>(sql`
    select TABLE_SCHEMA as db, TABLE_NAME as name, TABLE_TYPE as type, TABLE_ROWS as row_estimate, TABLE_COMMENT as comment
    from information_schema.TABLES
    where ${inDbs('TABLE_SCHEMA')} and TABLE_TYPE in ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')`);

  const columns = await q.rows<ColumnRow>(sql`
    select TABLE_SCHEMA as db, TABLE_NAME as tbl, COLUMN_NAME as name, COLUMN_DEFAULT as default_value,
      IS_NULLABLE as is_nullable, DATA_TYPE as data_type, COLUMN_TYPE as column_type,
      CHARACTER_MAXIMUM_LENGTH as max_length, NUMERIC_PRECISION as num_precision, NUMERIC_SCALE as num_scale,
      EXTRA as extra, GENERATION_EXPRESSION as generation_expression, COLUMN_COMMENT as comment
    from information_schema.COLUMNS
    where ${inDbs('TABLE_SCHEMA')}
    order by TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`);

  // MySQL 8.0.13+ functional key parts have no COLUMN_NAME but an EXPRESSION (a column MariaDB lacks).
  const indexRows = await q.rows<IndexRow>(sql`
    select TABLE_SCHEMA as db, TABLE_NAME as tbl, INDEX_NAME as name, NON_UNIQUE as non_unique, COLUMN_NAME as col
      ${flavour.functionalIndexes ? sql`, EXPRESSION as expression` : sql``}
    from information_schema.STATISTICS
    where ${inDbs('TABLE_SCHEMA')}
    order by TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`);

  const fkRows = await q.rows<ForeignKeyRow>(sql`
    select k.TABLE_SCHEMA as db, k.TABLE_NAME as tbl, k.CONSTRAINT_NAME as name, k.COLUMN_NAME as col,
      k.REFERENCED_TABLE_SCHEMA as ref_db, k.REFERENCED_TABLE_NAME as ref_table, k.REFERENCED_COLUMN_NAME as ref_col,
      r.UPDATE_RULE as on_update, r.DELETE_RULE as on_delete
    from information_schema.KEY_COLUMN_USAGE k
      join information_schema.REFERENTIAL_CONSTRAINTS r
        on r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA and r.TABLE_NAME = k.TABLE_NAME and r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
    where ${inDbs('k.TABLE_SCHEMA')} and k.REFERENCED_TABLE_NAME is not null
    order by k.TABLE_SCHEMA, k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`);

  // CHECK_CONSTRAINTS: MariaDB has TABLE_NAME in it; MySQL (8.0.16+) needs TABLE_CONSTRAINTS for it.
  const checkRows = !flavour.checks
    ? []
    : await q.rows<CheckRow>(
        flavour.mariadb
          ? sql`select CONSTRAINT_SCHEMA as db, TABLE_NAME as tbl, CONSTRAINT_NAME as name, CHECK_CLAUSE as clause
              from information_schema.CHECK_CONSTRAINTS where ${inDbs('CONSTRAINT_SCHEMA')}`
          : sql`select tc.TABLE_SCHEMA as db, tc.TABLE_NAME as tbl, cc.CONSTRAINT_NAME as name, cc.CHECK_CLAUSE as clause
              from information_schema.TABLE_CONSTRAINTS tc
                join information_schema.CHECK_CONSTRAINTS cc on cc.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA and cc.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
              where tc.CONSTRAINT_TYPE = 'CHECK' and ${inDbs('tc.TABLE_SCHEMA')}`,
      );

  const label = (name: string) => (name === current ? null : name);
  const columnsOf = groupBy(columns, (c) => key(c.db, c.tbl));
  const indexesOf = groupBy(indexRows, (r) => key(r.db, r.tbl));
  const fksOf = groupBy(fkRows, (r) => key(r.db, r.tbl));
  const checksOf = groupBy(checkRows, (r) => key(r.db, r.tbl));

  const model: SchemaModel = {
    dialect: 'mysql',
    enums: [],
    tables: tables.map((t) => {
      const k = key(t.db, t.name);
      const view = t.type === 'VIEW';
      const checks = checksOf.get(k) ?? [];
      const jsonColumns = flavour.mariadb ? mariadbJsonColumns(checks) : new Set<string>();
      const table = newTable({
        schema: label(t.db),
        name: t.name,
        kind: view ? 'view' : 'table',
        // InnoDB's estimate; MySQL 8 caches it for information_schema_stats_expiry (24 h by default).
        rowEstimate: view ? null : num(t.row_estimate),
        // Views carry the literal comment 'VIEW'.
        comment: view || !t.comment ? null : t.comment,
        columns: (columnsOf.get(k) ?? []).map((c) => toColumn(c, flavour.mariadb, jsonColumns.has(c.name))),
        checks: checks.filter((c) => !isMariadbJsonCheck(c.clause, jsonColumns)).map((c) => ({ name: c.name, expression: stripOuterParens(c.clause) })),
      });
      addIndexes(table, indexesOf.get(k) ?? []);
      addForeignKeys(table, fksOf.get(k) ?? [], label);
      return table;
    }),
  };
  return { model, queries: q.count };
}

function serverFlavour(version: string): { mariadb: boolean; checks: boolean; functionalIndexes: boolean } {
  const mariadb = /mariadb/i.test(version);
  const [major = 0, minor = 0, patch = 0] = version.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const atLeast = (a: number, b: number, c: number) => major > a || (major === a && (minor > b || (minor === b && patch >= c)));
  return { mariadb, checks: mariadb ? atLeast(10, 2, 22) : atLeast(8, 0, 16), functionalIndexes: !mariadb && atLeast(8, 0, 13) };
}

/** MariaDB stores JSON as LONGTEXT plus an implicit CHECK (json_valid(`col`)) named after the column. */
const JSON_VALID = /^\s*json_valid\(\s*`((?:[^`]|``)+)`\s*\)\s*$/i;

function mariadbJsonColumns(checks: CheckRow[]): Set<string> {
  const out = new Set<string>();
  for (const c of checks) {
    const m = JSON_VALID.exec(stripOuterParens(c.clause));
    if (m?.[1] !== undefined) out.add(m[1].replace(/``/g, '`'));
  }
  return out;
}

function isMariadbJsonCheck(clause: string, jsonColumns: Set<string>): boolean {
  const m = JSON_VALID.exec(stripOuterParens(clause));
  return m?.[1] !== undefined && jsonColumns.has(m[1].replace(/``/g, '`'));
}

const NUMERIC = new Set<PortableType>(['integer', 'bigint', 'decimal', 'float', 'boolean']);

/**
 * A default as an SQL expression. MariaDB (10.2.7+) already answers one: quoted literals,
 * `current_timestamp()`, and the word NULL for "default null". MySQL answers the bare literal
 * value, and flags expressions with DEFAULT_GENERATED in EXTRA.
 */
function defaultExpression(c: ColumnRow, mariadb: boolean, type: PortableType): string | null {
  const raw = c.default_value;
  if (raw === null) return null;
  if (mariadb) return raw === 'NULL' ? null : raw;
  if (/DEFAULT_GENERATED/i.test(c.extra) || /^current_timestamp(\(\d*\))?$/i.test(raw)) return raw;
  if (NUMERIC.has(type) || c.data_type.toLowerCase() === 'bit') return raw;
  return `'${raw.replace(/'/g, "''")}'`;
}

function toColumn(c: ColumnRow, mariadb: boolean, json: boolean): Column {
  const type = json ? 'json' : mysqlType(c.data_type, c.column_type);
  const extra = c.extra.toLowerCase();
  const generated = /virtual generated/.test(extra) ? 'virtual' : /(stored|persistent) generated/.test(extra) ? 'stored' : null;
  const autoIncrement = extra.includes('auto_increment');
  return newColumn({
    name: c.name,
    type,
    nativeType: c.column_type.toLowerCase(),
    nullable: c.is_nullable === 'YES',
    default: generated || autoIncrement ? null : defaultExpression(c, mariadb, type),
    autoIncrement,
    generated: generated ? { kind: generated, expression: c.generation_expression || null } : null,
    maxLength: type === 'string' ? num(c.max_length) : null,
    precision: type === 'decimal' ? num(c.num_precision) : null,
    scale: type === 'decimal' ? num(c.num_scale) : null,
    enumValues: type === 'enum' ? enumValues(c.column_type) : null,
    comment: c.comment || null,
  });
}

/** `enum('a','it''s')` → ['a', "it's"]. */
export function enumValues(columnType: string): string[] {
  const out: string[] = [];
  const re = /'((?:[^']|'')*)'/g;
  for (let m = re.exec(columnType); m; m = re.exec(columnType)) out.push((m[1] ?? '').replace(/''/g, "'").replace(/\\\\/g, '\\'));
  return out;
}

function addIndexes(table: Table, rows: IndexRow[]): void {
  for (const [name, parts] of groupBy(rows, (r) => r.name)) {
    const columns = parts.map((p) => p.col ?? (p.expression ? `(${p.expression})` : '')).filter((c) => c !== '');
    if (columns.length === 0) continue;
    const unique = Number(parts[0]?.non_unique) === 0;
    if (name === 'PRIMARY') {
      table.primaryKey = { name, columns };
      continue;
    }
    table.indexes.push({ name, columns, unique });
    if (unique) table.uniques.push({ name, columns });
  }
}

function addForeignKeys(table: Table, rows: ForeignKeyRow[], label: (db: string) => string | null): void {
  for (const [name, parts] of groupBy(rows, (r) => r.name)) {
    const first = parts[0];
    if (!first) continue;
    table.foreignKeys.push({
      name,
      columns: parts.map((p) => p.col),
      referencedSchema: label(first.ref_db),
      referencedTable: first.ref_table,
      referencedColumns: parts.map((p) => p.ref_col),
      onDelete: referentialAction(first.on_delete),
      onUpdate: referentialAction(first.on_update),
    });
  }
}
