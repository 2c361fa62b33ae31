import type { Table } from '../../../../engine/schema/model.js';
import { Cursor, type QualifiedName } from './cursor.js';
import {
  columnDefinition,
  indexKeys,
  isTableConstraint,
  tableConstraint,
  tableElements,
  typeSpelling,
  type PendingReference,
  type TableContext,
} from './create-table.js';
import { unparenthesisedExpression } from './expressions.js';
import type { SqlState } from './state.js';

/** What every statement handler gets. */
export interface DdlContext {
  state: SqlState;
  pendingRefs: PendingReference[];
}

/** The first words of a statement as written, for "skipped …" warnings: `CREATE SEQUENCE`, `LOCK TABLES`. */
export function headline(c: Cursor, from = 0, max = 3): string {
  const words: string[] = [];
  for (let k = from; k < c.tokens.length && words.length < max; k++) {
    const t = c.tokens[k]!;
    if (t.kind !== 'word') break;
    words.push(t.value);
  }
  return words.join(' ') || c.describe(c.tokens[from]!);
}

function skipped(c: Cursor, ctx: DdlContext, what: string, why = 'not part of the schema model'): void {
  ctx.state.warnings.add(c.position(c.tokens[0]), `skipped ${what}: ${why}`);
}

function tableFor(c: Cursor, ctx: DdlContext, qn: QualifiedName, doing: string): Table | null {
  const table = ctx.state.find(qn);
  if (!table) ctx.state.warnings.add(c.position(qn.at), `${doing} names table ${qn.name}, which is not declared before it; skipped`);
  return table ?? null;
}

/** After `CREATE [TEMPORARY|UNLOGGED] TABLE`. */
export function createTable(c: Cursor, ctx: DdlContext): void {
  c.acceptWord('IF', 'NOT', 'EXISTS');
  const qn = c.qualifiedName('a table name');
  if (c.isWord('PARTITION', 'OF') || c.isWord('OF') || c.isWord('AS') || c.isWord('LIKE') || c.isWord('SELECT')) {
    return skipped(c, ctx, `CREATE TABLE ${qn.name} ${headline(c, c.i, 2)}`, 'the columns are not written in the file');
  }
  if (!c.isPunct('(')) c.fail('expected `(` and the column definitions');
  // sqlite_sequence and sqlite_stat* belong to SQLite itself (its introspection leaves them out).
  if (ctx.state.dialect === 'sqlite' && qn.name.toLowerCase().startsWith('sqlite_'))
    return skipped(c, ctx, `CREATE TABLE ${qn.name}`, 'an internal SQLite table');
  const table = ctx.state.create(qn, 'table', c.position(qn.at));
  const tctx: TableContext = { state: ctx.state, table, pendingRefs: ctx.pendingRefs };
  tableElements(c, tctx);
  while (!c.atEnd()) {
    if (c.acceptWord('COMMENT')) {
      c.acceptPunct('=');
      const s = c.peek();
      if (s?.kind !== 'string') c.fail('expected the table comment text');
      table.comment = s.value;
      c.i++;
    } else if (c.isWord('INHERITS')) {
      ctx.state.warnings.add(c.position(), `table ${table.name} inherits columns from another table; only the columns written here are read`);
      c.i++;
      if (c.isPunct('(')) c.group();
    } else if (c.acceptWord('WITHOUT', 'ROWID')) ctx.state.withoutRowid.add(table);
    else if (c.isPunct('(')) c.group();
    else c.i++;
  }
}

/** After `CREATE [OR REPLACE] [MATERIALIZED] VIEW`: the name only; the query is not read. */
export function createView(c: Cursor, ctx: DdlContext): void {
  c.acceptWord('IF', 'NOT', 'EXISTS');
  const qn = c.qualifiedName('a view name');
  ctx.state.create(qn, 'view', c.position(qn.at));
}

/** After `CREATE [UNIQUE] INDEX`. */
export function createIndex(c: Cursor, ctx: DdlContext, unique: boolean): void {
  c.acceptWord('CONCURRENTLY');
  c.acceptWord('IF', 'NOT', 'EXISTS');
  let name: string | null = null;
  if (!c.isWord('ON')) name = c.qualifiedName('an index name').name;
  if (c.acceptWord('USING')) c.i++;
  c.expectWord('ON');
  c.acceptWord('ONLY');
  const qn = c.qualifiedName('a table name');
  if (c.acceptWord('USING')) c.i++;
  const columns = indexKeys(c);
  let partial = false;
  while (!c.atEnd()) {
    if (c.isWord('WHERE')) {
      partial = true;
      ctx.state.warnings.add(c.position(), `index ${name ?? ''} on ${qn.name} is partial; its WHERE clause is not part of the schema model`.replace('  ', ' '));
      break;
    }
    c.i++;
  }
  const table = tableFor(c, ctx, qn, `CREATE INDEX ${name ?? ''}`.trim());
  if (!table) return;
  const index = { name, columns, unique };
  table.indexes.push(index);
  ctx.state.origins.set(index, c.position(c.tokens[0]));
  // A partial unique index constrains only some rows: it is not a uniqueness of the columns.
  if (unique && !partial) table.uniques.push({ name, columns });
}

/** After `CREATE TYPE`: enums are kept; composite, range and base types are skipped. */
export function createType(c: Cursor, ctx: DdlContext): void {
  const qn = c.qualifiedName('a type name');
  if (!c.acceptWord('AS', 'ENUM')) return skipped(c, ctx, `CREATE TYPE ${qn.name}`, 'only enum types are part of the schema model');
  const values: string[] = [];
  const inner = c.group();
  for (const part of Cursor.splitCommas(inner)) {
    if (part.length === 0 && inner.length === 0) break;
    if (part.length !== 1 || part[0]!.kind !== 'string') c.fail('expected enum labels as quoted strings', part[0] ?? inner[0]);
    values.push(part[0]!.value);
  }
  ctx.state.addEnum(qn, values, c.position(qn.at));
}

/** After `CREATE DOMAIN`: columns of the domain get its base type's portable type. */
export function createDomain(c: Cursor, ctx: DdlContext): void {
  const qn = c.qualifiedName('a domain name');
  c.acceptWord('AS');
  const base = typeSpelling(c);
  if (base === '') c.fail('expected the base type of the domain');
  ctx.state.addDomain(qn.name, base);
}

/** `ALTER TYPE x ADD VALUE 'v' [BEFORE|AFTER 'w']`, as later migrations write it. */
export function alterType(c: Cursor, ctx: DdlContext): void {
  const qn = c.qualifiedName('a type name');
  const values = ctx.state.enumValues(qn.name);
  if (!c.acceptWord('ADD', 'VALUE') || !values) return skipped(c, ctx, `ALTER TYPE ${qn.name} ${headline(c, c.i, 2)}`.trim());
  c.acceptWord('IF', 'NOT', 'EXISTS');
  const v = c.peek();
  if (v?.kind !== 'string') c.fail('expected the new enum label');
  c.i++;
  if (values.includes(v.value)) return;
  const before = c.acceptWord('BEFORE');
  const after = !before && c.acceptWord('AFTER');
  const anchor = c.peek();
  const idx = anchor?.kind === 'string' ? values.indexOf(anchor.value) : -1;
  if ((before || after) && idx >= 0) values.splice(before ? idx : idx + 1, 0, v.value);
  else values.push(v.value);
}

/** One `ALTER TABLE` action, or a warning naming it. */
function alterAction(c: Cursor, ctx: DdlContext, table: Table, whole: Cursor): void {
  const tctx: TableContext = { state: ctx.state, table, pendingRefs: ctx.pendingRefs };
  const at = c.peek();
  if (c.acceptWord('ADD')) {
    if (isTableConstraint(c)) return tableConstraint(c, tctx);
    c.acceptWord('COLUMN');
    c.acceptWord('IF', 'NOT', 'EXISTS');
    const column = columnDefinition(c, tctx);
    if (table.columns.some((x) => x.name === column.name)) c.fail(`column ${column.name} already exists in table ${table.name}`, at);
    table.columns.push(column);
    return;
  }
  if (c.acceptWord('ALTER')) {
    c.acceptWord('COLUMN');
    const name = c.identifier('a column name');
    const column = table.columns.find((x) => x.name === name);
    if (!column) return void ctx.state.warnings.add(c.position(at), `ALTER COLUMN names column ${name}, which table ${table.name} does not have; skipped`);
    if (c.acceptWord('SET', 'DEFAULT')) {
      const text = c.text(unparenthesisedExpression(c));
      if (/^nextval\s*\(/i.test(text)) column.autoIncrement = true;
      else column.default = /^null$/i.test(text) ? null : text;
    } else if (c.acceptWord('DROP', 'DEFAULT')) column.default = null;
    else if (c.acceptWord('SET', 'NOT', 'NULL')) column.nullable = false;
    else if (c.acceptWord('DROP', 'NOT', 'NULL')) column.nullable = true;
    else if (c.acceptWord('ADD', 'GENERATED')) {
      column.autoIncrement = true;
      c.i = c.tokens.length;
    } else skipped(whole, ctx, `ALTER TABLE ${table.name} ALTER COLUMN ${name} ${headline(c, c.i, 3)}`.trim());
    c.i = c.tokens.length;
    return;
  }
  skipped(whole, ctx, `ALTER TABLE ${table.name} ${headline(c, c.i, 3)}`.trim());
  c.i = c.tokens.length;
}

/** After `ALTER TABLE`. */
export function alterTable(c: Cursor, ctx: DdlContext): void {
  c.acceptWord('IF', 'EXISTS');
  c.acceptWord('ONLY');
  const qn = c.qualifiedName('a table name');
  c.acceptPunct('*');
  if (c.isWord('OWNER', 'TO')) return skipped(c, ctx, `ALTER TABLE ${qn.name} OWNER TO`);
  const table = tableFor(c, ctx, qn, 'ALTER TABLE');
  if (!table) return;
  for (const part of Cursor.splitCommas(c.tokens.slice(c.i))) {
    if (part.length === 0) c.fail('expected an ALTER TABLE action');
    const a = c.sub(part);
    alterAction(a, ctx, table, c);
    if (!a.atEnd()) a.fail('unexpected text after the ALTER TABLE action');
  }
}

/** `COMMENT ON TABLE|VIEW|COLUMN x IS 'text'`. */
export function commentOn(c: Cursor, ctx: DdlContext): void {
  c.expectWord('ON');
  const kind = c.acceptWord('TABLE')
    ? 'table'
    : c.acceptWord('COLUMN')
      ? 'column'
      : c.acceptWord('VIEW') || c.acceptWord('MATERIALIZED', 'VIEW')
        ? 'table'
        : null;
  if (!kind) return skipped(c, ctx, headline(c, 0, 3));
  const at = c.peek();
  const parts = [c.identifier('a name')];
  while (c.acceptPunct('.')) parts.push(c.identifier('a name'));
  c.expectWord('IS');
  const v = c.peek();
  const text = v?.kind === 'string' ? v.value : c.acceptWord('NULL') ? null : c.fail('expected the comment text or NULL');
  if (v?.kind === 'string') c.i++;
  const column = kind === 'column' ? parts.pop()! : null;
  if (parts.length === 0) c.fail('expected table.column', at);
  const qn: QualifiedName = { schema: parts.length > 1 ? parts[parts.length - 2]! : null, name: parts[parts.length - 1]!, at: at! };
  const table = tableFor(c, ctx, qn, 'COMMENT ON');
  if (!table) return;
  if (column === null) table.comment = text;
  else {
    const col = table.columns.find((x) => x.name === column);
    if (col) col.comment = text;
    else ctx.state.warnings.add(c.position(at), `COMMENT ON COLUMN names column ${column}, which table ${table.name} does not have; skipped`);
  }
}

/** `DROP TABLE|VIEW [IF EXISTS] a, b`: removes what the file declared above (dumps drop view placeholders). */
export function drop(c: Cursor, ctx: DdlContext): void {
  const kind = c.acceptWord('TABLE') ? 'TABLE' : c.acceptWord('VIEW') ? 'VIEW' : c.acceptWord('MATERIALIZED', 'VIEW') ? 'VIEW' : null;
  if (!kind) return skipped(c, ctx, headline(c, 0, 2));
  c.acceptWord('IF', 'EXISTS');
  const removed: string[] = [];
  do {
    const qn = c.qualifiedName('a name');
    if (ctx.state.drop(qn)) removed.push(qn.name);
  } while (c.acceptPunct(','));
  if (removed.length) ctx.state.warnings.add(c.position(c.tokens[0]), `DROP ${kind} removes ${removed.join(', ')}, declared above`);
  else skipped(c, ctx, `DROP ${kind}`, 'nothing declared above it to drop');
}

/** `SET search_path …` sets where unqualified PostgreSQL names live; other SET statements are skipped. */
export function setStatement(c: Cursor, ctx: DdlContext): void {
  c.acceptWord('SESSION') || c.acceptWord('LOCAL');
  if (ctx.state.dialect === 'postgres' && (c.acceptWord('SEARCH_PATH') || c.acceptWord('SCHEMA'))) {
    if (!c.acceptWord('TO')) c.acceptPunct('=');
    const names = c.tokens
      .slice(c.i)
      .filter((t) => t.kind === 'word' || t.kind === 'quoted' || t.kind === 'string')
      .flatMap((t) => (t.kind === 'string' ? t.value.split(',').map((x) => x.trim()) : [c.nameOf(t)]));
    const first = names.find((n) => n !== '' && n !== '$user' && n !== 'pg_catalog' && n.toUpperCase() !== 'DEFAULT');
    if (first) ctx.state.defaultSchema = first;
    return;
  }
  skipped(c, ctx, 'SET', 'session settings are not part of the schema model');
}

/** pg_dump's `SELECT pg_catalog.set_config('search_path', '', false)`; any other SELECT is skipped. */
export function selectStatement(c: Cursor, ctx: DdlContext): void {
  const t = c.tokens;
  const call = t.findIndex((x) => x.kind === 'word' && x.value.toLowerCase() === 'set_config');
  if (call > 0 && t[call + 2]?.kind === 'string' && t[call + 2]!.value === 'search_path') {
    const value = t[call + 4];
    if (value?.kind === 'string' && value.value.trim() !== '') ctx.state.defaultSchema = value.value.split(',')[0]!.trim().replace(/^"|"$/g, '');
    return;
  }
  skipped(c, ctx, 'SELECT');
}
