import { stripOuterParens } from '../../../../engine/schema/introspect/build.js';
import type { Column, ForeignKey, Table } from '../../../../engine/schema/model.js';
import type { Position } from '../diagnostics.js';
import { newColumn } from '../model.js';
import { Cursor, type QualifiedName } from './cursor.js';
import { referentialAction, unparenthesisedExpression } from './expressions.js';
import type { SqlState } from './state.js';
import type { Token } from './tokenizer.js';

/** Words that end a column's type and start its constraints or attributes. */
const TYPE_STOP = new Set([
  'CONSTRAINT',
  'NOT',
  'NULL',
  'DEFAULT',
  'PRIMARY',
  'UNIQUE',
  'CHECK',
  'REFERENCES',
  'GENERATED',
  'AS',
  'AUTO_INCREMENT',
  'AUTOINCREMENT',
  'COLLATE',
  'CHARSET',
  'COMMENT',
  'ON',
  'KEY',
  'IDENTITY',
  'VISIBLE',
  'INVISIBLE',
  'COLUMN_FORMAT',
  'STORAGE',
  'SRID',
  'COMPRESSION',
  'ENCODE',
  'ENGINE_ATTRIBUTE',
  'SECONDARY_ENGINE_ATTRIBUTE',
  'DEFERRABLE',
  'INITIALLY',
]);

/** Things a column may carry that the model has no place for; read and dropped without a warning. */
const IGNORED_WITH_VALUE = new Set([
  'COLLATE',
  'CHARSET',
  'COLUMN_FORMAT',
  'STORAGE',
  'SRID',
  'COMPRESSION',
  'ENCODE',
  'ENGINE_ATTRIBUTE',
  'SECONDARY_ENGINE_ATTRIBUTE',
]);

/** Pending `REFERENCES t` without columns: they mean t's primary key, which may be declared later. */
export interface PendingReference {
  fk: ForeignKey;
  target: QualifiedName;
}

export interface TableContext {
  state: SqlState;
  table: Table;
  /** Foreign keys whose referenced columns are the target's primary key. */
  pendingRefs: PendingReference[];
}

const u = (t: Token | undefined) => (t && t.kind === 'word' ? t.value.toUpperCase() : '');

/** `ON CONFLICT ROLLBACK|ABORT|FAIL|IGNORE|REPLACE` (SQLite) after a constraint. */
function conflictClause(c: Cursor): void {
  if (c.acceptWord('ON', 'CONFLICT')) c.i++;
}

/** `REFERENCES t [(cols)] [MATCH …] [ON DELETE …] [ON UPDATE …] [DEFERRABLE …]`, after REFERENCES. */
export function references(c: Cursor, ctx: TableContext, columns: string[], name: string | null): ForeignKey {
  const target = c.qualifiedName('the referenced table');
  const fk: ForeignKey = {
    name,
    columns,
    referencedSchema: ctx.state.schemaOf(target.schema),
    referencedTable: target.name,
    referencedColumns: [],
    onDelete: 'no action',
    onUpdate: 'no action',
  };
  if (c.isPunct('(')) {
    const list = c.columnList();
    if (list.expressions || list.columns.length === 0) c.fail('expected the referenced column names');
    fk.referencedColumns = list.columns;
  } else ctx.pendingRefs.push({ fk, target });
  for (;;) {
    if (c.acceptWord('MATCH')) c.i++;
    else if (c.acceptWord('ON', 'DELETE')) fk.onDelete = referentialAction(c);
    else if (c.acceptWord('ON', 'UPDATE')) fk.onUpdate = referentialAction(c);
    else if (c.acceptWord('NOT', 'DEFERRABLE') || c.acceptWord('DEFERRABLE')) continue;
    else if (c.acceptWord('INITIALLY')) c.i++;
    else if (c.acceptWord('NOT', 'VALID') || c.acceptWord('NOT', 'ENFORCED') || c.acceptWord('ENFORCED')) continue;
    else break;
  }
  return fk;
}

/** `GENERATED ALWAYS AS (expr) [STORED|VIRTUAL]`, `AS (expr) …`, or `GENERATED … AS IDENTITY [(…)]`. */
function generated(c: Cursor, column: Column): void {
  if (c.acceptWord('GENERATED')) {
    if (!c.acceptWord('ALWAYS')) c.expectWord('BY', 'DEFAULT');
    c.expectWord('AS');
    if (c.acceptWord('IDENTITY')) {
      column.autoIncrement = true;
      if (c.isPunct('(')) c.group();
      return;
    }
  } else c.expectWord('AS');
  const expr = c.group();
  let kind: 'stored' | 'virtual' = 'virtual';
  if (c.acceptWord('STORED') || c.acceptWord('PERSISTENT')) kind = 'stored';
  else c.acceptWord('VIRTUAL');
  column.generated = { kind, expression: c.text(expr) };
}

/** A type as written: a possibly qualified name, more words (`double precision`), arguments, `[]`; '' when absent (SQLite). */
export function typeSpelling(c: Cursor): string {
  const typeStart = c.i;
  if (c.isIdentifier() && !TYPE_STOP.has(u(c.peek()))) {
    c.qualifiedName('a type');
    for (;;) {
      const t = c.peek();
      if (!t) break;
      if (t.kind === 'punct' && t.value === '(') c.group();
      else if (t.kind === 'punct' && t.value === '[') c.i = c.closing(c.i) + 1;
      else if (t.kind === 'word' && !TYPE_STOP.has(t.value.toUpperCase()) && !c.isWord('CHARACTER', 'SET')) c.i++;
      else break;
    }
  }
  return c.text(c.tokens.slice(typeStart, c.i));
}

/** One column definition: name, type, then its constraints in any order. */
export function columnDefinition(c: Cursor, ctx: TableContext): Column {
  const { state, table } = ctx;
  const column = newColumn(c.identifier('a column name'));

  const typeText = typeSpelling(c);
  state.typeLater(column, typeText);

  let constraintName: string | null = null;
  while (!c.atEnd()) {
    const t = c.peek()!;
    if (c.acceptWord('CONSTRAINT')) {
      constraintName = c.identifier('a constraint name');
      continue;
    }
    if (c.acceptWord('NOT', 'NULL')) {
      column.nullable = false;
      conflictClause(c);
    } else if (c.acceptWord('NULL')) column.nullable = true;
    else if (c.acceptWord('DEFAULT')) {
      const expr = unparenthesisedExpression(c);
      const text = c.text(expr);
      if (/^nextval\s*\(/i.test(text)) {
        // A sequence default is how PostgreSQL spells serial: the database fills the column.
        column.autoIncrement = true;
        column.default = null;
      } else column.default = /^null$/i.test(text) ? null : text;
    } else if (c.acceptWord('PRIMARY', 'KEY') || (state.dialect === 'mysql' && c.acceptWord('KEY'))) {
      // SQLite lets key columns hold NULL unless they say NOT NULL (its introspection says so too).
      if (state.dialect !== 'sqlite') column.nullable = false;
      if (c.acceptWord('DESC')) state.descendingKey.add(table);
      else c.acceptWord('ASC');
      conflictClause(c);
      if (c.acceptWord('AUTOINCREMENT')) column.autoIncrement = true;
      table.primaryKey = { name: constraintName, columns: [column.name] };
      state.origins.set(table.primaryKey, c.position(t));
    } else if (c.acceptWord('UNIQUE')) {
      if (!c.acceptWord('KEY')) c.acceptWord('INDEX');
      if (c.acceptWord('NULLS')) c.acceptWord('NOT') && c.acceptWord('DISTINCT');
      conflictClause(c);
      addUnique(state, table, constraintName, [column.name], c.position(t));
    } else if (c.acceptWord('CHECK')) {
      const expr = c.group();
      table.checks.push({ name: constraintName, expression: stripOuterParens(c.text(expr)) });
      c.acceptWord('NO', 'INHERIT');
      if (!c.acceptWord('NOT', 'ENFORCED')) c.acceptWord('ENFORCED');
    } else if (c.acceptWord('REFERENCES')) {
      const fk = references(c, ctx, [column.name], constraintName);
      table.foreignKeys.push(fk);
      state.origins.set(fk, c.position(t));
    } else if (c.isWord('GENERATED') || c.isWord('AS')) generated(c, column);
    else if (c.acceptWord('AUTO_INCREMENT') || c.acceptWord('AUTOINCREMENT')) column.autoIncrement = true;
    else if (c.acceptWord('IDENTITY')) {
      column.autoIncrement = true;
      if (c.isPunct('(')) c.group();
    } else if (c.acceptWord('COMMENT')) {
      const s = c.peek();
      if (s?.kind !== 'string') c.fail('expected the comment text');
      column.comment = s.value;
      c.i++;
    } else if (c.acceptWord('CHARACTER', 'SET') || IGNORED_WITH_VALUE.has(u(t))) {
      if (IGNORED_WITH_VALUE.has(u(t))) c.i++;
      c.acceptPunct('=');
      c.i++;
    } else if (c.acceptWord('ON', 'UPDATE')) {
      // MySQL's ON UPDATE CURRENT_TIMESTAMP: the model has no place for it.
      unparenthesisedExpression(c);
    } else if (c.acceptWord('VISIBLE') || c.acceptWord('INVISIBLE') || c.acceptWord('NOT', 'DEFERRABLE') || c.acceptWord('DEFERRABLE')) {
      continue;
    } else if (c.acceptWord('INITIALLY')) c.i++;
    else {
      state.warnings.add(c.position(t), `ignored ${c.describe(t)} in the definition of column ${column.name}`);
      c.i++;
      if (c.isPunct('(')) c.group();
      continue;
    }
    constraintName = null;
  }
  return column;
}

/** `CONSTRAINT x PRIMARY KEY (…)`, `UNIQUE`, `CHECK`, `FOREIGN KEY`, MySQL `KEY`/`INDEX`; false when the element is a column. */
export function isTableConstraint(c: Cursor): boolean {
  if (c.isWord('CONSTRAINT') || c.isWord('PRIMARY', 'KEY') || c.isWord('FOREIGN', 'KEY') || c.isWord('EXCLUDE') || c.isWord('LIKE')) return true;
  if (c.isWord('CHECK') && c.isPunct('(', 1)) return true;
  if (
    c.isWord('UNIQUE') &&
    (c.isPunct('(', 1) ||
      c.isWord('UNIQUE', 'KEY') ||
      c.isWord('UNIQUE', 'INDEX') ||
      c.isWord('UNIQUE', 'NULLS') ||
      (c.dialect === 'mysql' && c.isPunct('(', 2)))
  )
    return true;
  if (c.dialect === 'mysql' && (c.isWord('KEY') || c.isWord('INDEX') || c.isWord('FULLTEXT') || c.isWord('SPATIAL'))) return true;
  return false;
}

/** Index options MySQL and PostgreSQL write around a key's column list. */
function indexOptions(c: Cursor): void {
  for (;;) {
    if (c.acceptWord('USING')) {
      if (c.isWord('INDEX', 'TABLESPACE')) c.i += 3;
      else c.i++;
    } else if (c.acceptWord('INCLUDE') || c.acceptWord('WITH')) {
      if (c.isPunct('(')) c.group();
    } else if (c.acceptWord('COMMENT')) c.i++;
    else if (c.acceptWord('KEY_BLOCK_SIZE') || c.acceptWord('WITH', 'PARSER')) {
      c.acceptPunct('=');
      c.i++;
    } else if (
      c.acceptWord('VISIBLE') ||
      c.acceptWord('INVISIBLE') ||
      c.acceptWord('NOT', 'DEFERRABLE') ||
      c.acceptWord('DEFERRABLE') ||
      c.acceptWord('NOT', 'VALID')
    )
      continue;
    else if (c.acceptWord('INITIALLY')) c.i++;
    else if (c.isWord('ON', 'CONFLICT')) conflictClause(c);
    else return;
  }
}

/** A named key's column list; expression keys are refused with a warning (the model holds column names only). */
function keyColumns(c: Cursor, ctx: TableContext, what: string): string[] | null {
  const at = c.peek();
  const list = c.columnList();
  if (list.expressions) {
    ctx.state.warnings.add(
      c.position(at),
      `${what} on table ${ctx.table.name} uses an expression; the schema model holds column names only, so it is left out`,
    );
    return null;
  }
  if (list.columns.length === 0) c.fail(`expected the columns of the ${what}`, at);
  return list.columns;
}

/**
 * A uniqueness, listed the way introspection lists it: in `uniques`, and as the unique index
 * every dialect builds for it in `indexes`.
 */
export function addUnique(state: SqlState, table: Table, name: string | null, columns: string[], at: Position): void {
  const unique = { name, columns };
  table.uniques.push(unique);
  state.origins.set(unique, at);
  const index = { name, columns: [...columns], unique: true };
  table.indexes.push(index);
  state.origins.set(index, at);
}

/**
 * An index's keys: column names, and expressions as their text, the way introspection lists
 * them (MySQL wraps a functional key part in parentheses).
 */
export function indexKeys(c: Cursor): string[] {
  const at = c.peek();
  const inner = c.group();
  const keys: string[] = [];
  for (const part of Cursor.splitCommas(inner)) {
    const k = c.sub(part);
    if (k.isIdentifier() && (part.length === 1 || plainKeyTail(k))) {
      keys.push(k.nameOf(part[0]!));
      continue;
    }
    let end = part.length;
    // Ordering, collation and operator class after an expression are not part of it.
    while (end > 0 && part[end - 1]!.kind === 'word' && ['ASC', 'DESC', 'FIRST', 'LAST', 'NULLS'].includes(part[end - 1]!.value.toUpperCase())) end--;
    let text = c.text(part.slice(0, end));
    if (c.dialect === 'mysql' && text.startsWith('(') && text.endsWith(')')) text = stripOuterParens(text);
    keys.push(c.dialect === 'mysql' ? `(${text})` : stripOuterParens(text));
  }
  if (keys.length === 0) c.fail('expected the indexed columns', at);
  return keys;
}

/** After a key's column name: a MySQL prefix length, ASC/DESC, NULLS FIRST/LAST, COLLATE x, an opclass. */
function plainKeyTail(k: Cursor): boolean {
  k.i = 1;
  if (k.isPunct('(') && k.peek(1)?.kind === 'number' && k.isPunct(')', 2)) k.i += 3;
  if (k.acceptWord('COLLATE')) k.i++;
  if (k.peek()?.kind === 'word' && !['ASC', 'DESC', 'NULLS'].includes(k.peek()!.value.toUpperCase())) k.i++;
  if (!k.acceptWord('ASC')) k.acceptWord('DESC');
  if (k.acceptWord('NULLS')) k.i++;
  const plain = k.atEnd();
  k.i = 0;
  return plain;
}

/** One table-level constraint (the cursor is on its first word). */
export function tableConstraint(c: Cursor, ctx: TableContext): void {
  const { state, table } = ctx;
  const at = c.position();
  let name: string | null = null;
  if (c.acceptWord('CONSTRAINT')) {
    // MySQL allows `CONSTRAINT PRIMARY KEY` without a name.
    if (!c.isWord('PRIMARY', 'KEY') && !c.isWord('UNIQUE') && !c.isWord('CHECK') && !c.isWord('FOREIGN', 'KEY')) name = c.identifier('a constraint name');
  }
  const optionalName = (): string | null => (c.isIdentifier() && !c.isWord('USING') ? c.identifier('an index name') : null);
  if (c.acceptWord('PRIMARY', 'KEY')) {
    indexOptions(c);
    const columns = keyColumns(c, ctx, 'primary key');
    indexOptions(c);
    if (!columns) return;
    table.primaryKey = { name, columns };
    state.origins.set(table.primaryKey, at);
    return;
  }
  if (c.acceptWord('UNIQUE')) {
    if (!c.acceptWord('KEY')) c.acceptWord('INDEX');
    if (c.acceptWord('NULLS')) c.acceptWord('NOT') && c.acceptWord('DISTINCT');
    const indexName = optionalName() ?? name;
    indexOptions(c);
    const columns = keyColumns(c, ctx, 'unique key');
    indexOptions(c);
    if (!columns) return;
    addUnique(state, table, indexName, columns, at);
    return;
  }
  if (c.acceptWord('CHECK')) {
    const expr = c.group();
    table.checks.push({ name, expression: stripOuterParens(c.text(expr)) });
    c.acceptWord('NO', 'INHERIT');
    if (!c.acceptWord('NOT', 'ENFORCED')) c.acceptWord('ENFORCED');
    c.acceptWord('NOT', 'VALID');
    return;
  }
  if (c.acceptWord('FOREIGN', 'KEY')) {
    const fkName = optionalName() ?? name;
    const list = c.columnList();
    if (list.expressions || list.columns.length === 0) c.fail('expected the foreign key columns');
    c.expectWord('REFERENCES');
    const fk = references(c, ctx, list.columns, fkName);
    table.foreignKeys.push(fk);
    state.origins.set(fk, at);
    return;
  }
  if (c.acceptWord('KEY') || c.acceptWord('INDEX') || c.acceptWord('FULLTEXT') || c.acceptWord('SPATIAL')) {
    if (!c.acceptWord('KEY')) c.acceptWord('INDEX');
    const indexName = optionalName();
    indexOptions(c);
    const columns = indexKeys(c);
    indexOptions(c);
    const index = { name: indexName, columns, unique: false };
    table.indexes.push(index);
    state.origins.set(index, at);
    return;
  }
  state.warnings.add(at, `${c.isWord('LIKE') ? 'LIKE' : 'EXCLUDE'} in table ${table.name} is not supported by the schema model; left out`);
  c.i = c.tokens.length;
}

/** The parenthesised body of CREATE TABLE: columns and table constraints. */
export function tableElements(c: Cursor, ctx: TableContext): void {
  const inner = c.group();
  for (const part of Cursor.splitCommas(inner)) {
    if (part.length === 0) c.fail('expected a column or constraint between commas', inner[0]);
    const e = c.sub(part);
    if (isTableConstraint(e)) tableConstraint(e, ctx);
    else {
      const column = columnDefinition(e, ctx);
      if (ctx.table.columns.some((x) => x.name === column.name)) e.fail(`column ${column.name} is declared twice`, part[0]);
      ctx.table.columns.push(column);
    }
    if (!e.atEnd()) e.fail('unexpected text in the table definition');
  }
}
