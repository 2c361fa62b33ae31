import ts from 'typescript';
import type { ForeignKey } from '../../../../engine/schema/model.js';
import { addUniqueness } from '../model.js';
import { chainOf, literal, objectArray, prop, unwrap } from './ast.js';
import { referentialAction } from './actions.js';
import type { DrizzleReader, DrizzleTable } from './reader.js';

/** A table's third argument, `(t) => [primaryKey(…), index(…).on(…), unique(…), foreignKey(…), check(…)]`. */

/** The third argument: `(t) => ({ … })` or `(t) => [ … ]` with primaryKey, index, unique, foreignKey, check. */
export function readTableOptions(r: DrizzleReader, info: DrizzleTable, arg: ts.Expression): void {
  const fn = unwrap(arg);
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return r.warn(arg, 'the table options must be a function such as (t) => [...]');
  const p = fn.parameters[0];
  const param = p && ts.isIdentifier(p.name) ? p.name.text : null;
  let body: ts.Expression | undefined = ts.isBlock(fn.body) ? fn.body.statements.find(ts.isReturnStatement)?.expression : fn.body;
  if (!body) return r.warn(fn, 'the table options function returns nothing readable');
  body = unwrap(body);
  const entries = ts.isArrayLiteralExpression(body)
    ? [...body.elements]
    : ts.isObjectLiteralExpression(body)
      ? body.properties.map((x) => (ts.isPropertyAssignment(x) ? x.initializer : null))
      : null;
  if (!entries) return r.warn(body, 'the table options must return an object or an array literal');
  for (const e of entries) {
    if (!e) r.warn(body, 'a table option that is not key: value is not read');
    else tableOption(r, info, e, param);
  }
}

export function refs(r: DrizzleReader, list: readonly ts.Expression[], info: DrizzleTable, param: string | null, what: string): string[] | null {
  const out: string[] = [];
  for (const x of list) {
    const ref = r.columnRef(x, info, param);
    if (!ref) {
      r.warn(x, `${what}: ${r.snippet(x)} is not a column of this table (expressions are not part of the schema model); left out`);
      return null;
    }
    out.push(ref.column);
  }
  return out;
}

export function tableOption(r: DrizzleReader, info: DrizzleTable, expr: ts.Expression, param: string | null): void {
  const { table } = info;
  const { base, calls } = chainOf(expr);
  if (!ts.isCallExpression(base)) return r.warn(expr, `${r.snippet(expr)} is not a table option this reader knows`);
  const kind = r.drizzleName(base.expression);
  const at = r.pos(expr);
  const [a0] = base.arguments;
  const nameArg = a0 && literal(a0);
  const explicitName = typeof nameArg === 'string' ? nameArg : null;
  const method = (n: string) => calls.find((c) => c.name === n);
  const onColumns = () => {
    const on = method('on') ?? method('onOnly');
    const using = method('using');
    if (on) return on.args;
    if (using) return using.args.slice(1);
    return null;
  };
  switch (kind) {
    case 'primaryKey': {
      const cfg = a0 && unwrap(a0);
      const list = cfg && ts.isObjectLiteralExpression(cfg) ? objectArray(cfg, 'columns') : base.arguments;
      const cols = list && refs(r, list, info, param, 'primaryKey');
      if (!cols) return;
      const n = cfg && ts.isObjectLiteralExpression(cfg) ? prop(cfg, 'name') : undefined;
      if (table.primaryKey) r.warn(expr, `table ${table.name} already has a primary key; this one replaces it`);
      table.primaryKey = { name: typeof n === 'string' ? n : r.spelling === 'mysql' ? 'PRIMARY' : `${table.name}_${cols.join('_')}_pk`, columns: cols };
      for (const c of table.columns) if (cols.includes(c.name)) c.nullable = false;
      r.origins.set(table.primaryKey, at);
      return;
    }
    case 'index':
    case 'uniqueIndex': {
      const list = onColumns();
      if (!list) return r.warn(expr, `${kind} ${explicitName ?? ''} has no .on(…) columns; left out`);
      const cols = refs(r, list, info, param, kind);
      if (!cols) return;
      const partial = method('where') !== undefined;
      const unique = kind === 'uniqueIndex';
      const ix = { name: explicitName, columns: cols, unique };
      table.indexes.push(ix);
      r.origins.set(ix, at);
      // A partial unique index constrains only some rows: it is not a uniqueness of the columns.
      if (unique && !partial) table.uniques.push({ name: explicitName, columns: cols });
      return;
    }
    case 'unique': {
      const list = onColumns();
      if (!list) return r.warn(expr, 'unique() has no .on(…) columns; left out');
      const cols = refs(r, list, info, param, 'unique');
      if (!cols) return;
      addUniqueness(table, explicitName ?? `${table.name}_${cols.join('_')}_unique`, cols, r.origins, at);
      return;
    }
    case 'foreignKey': {
      const cfg = a0 && unwrap(a0);
      if (!cfg || !ts.isObjectLiteralExpression(cfg)) return r.warn(expr, 'foreignKey() needs { columns, foreignColumns }');
      const cols = refs(r, objectArray(cfg, 'columns') ?? [], info, param, 'foreignKey');
      const targets = objectArray(cfg, 'foreignColumns');
      if (!cols || !cols.length || !targets?.length) return r.warn(expr, 'foreignKey() needs literal columns and foreignColumns arrays; left out');
      const n = prop(cfg, 'name');
      const onDelete = method('onDelete');
      const onUpdate = method('onUpdate');
      const fk: ForeignKey = {
        name: typeof n === 'string' ? n : null,
        columns: cols,
        referencedSchema: null,
        referencedTable: '',
        referencedColumns: [],
        onDelete: onDelete ? referentialAction(r, literal(onDelete.args[0]!), onDelete.node) : 'no action',
        onUpdate: onUpdate ? referentialAction(r, literal(onUpdate.args[0]!), onUpdate.node) : 'no action',
      };
      table.foreignKeys.push(fk);
      r.origins.set(fk, at);
      r.pendingFks.push({ owner: info, fk, targets, at: expr });
      return;
    }
    case 'check': {
      const sql = base.arguments[1] ? r.sqlText(base.arguments[1], info, param) : null;
      if (sql === null) return r.warn(expr, 'check() needs sql`…` as its second argument; left out');
      table.checks.push({ name: explicitName, expression: sql });
      return;
    }
    default:
      r.warn(expr, `${r.snippet(expr)} is not a table option this reader knows; left out`);
  }
}
