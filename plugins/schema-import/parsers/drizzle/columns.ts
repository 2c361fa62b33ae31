import ts from 'typescript';
import type { Column, ForeignKey } from '../../../../engine/schema/model.js';
import { addUniqueness, newColumn } from '../model.js';
import { describeNativeType } from '../native-types.js';
import { chainOf, literal, propertyName, sqlString, UNKNOWN, unwrap, type MethodCall } from './ast.js';
import { builderType, isColumnBuilder } from './builders.js';
import { referentialAction } from './actions.js';
import type { DrizzleReader, DrizzleTable } from './reader.js';

/** Column builders (`varchar('email', { length: 255 }).notNull().unique()`) read into columns. */

export function readColumns(r: DrizzleReader, info: DrizzleTable, obj: ts.ObjectLiteralExpression, builderParam: string | null, depth: number): void {
  for (const p of obj.properties) {
    if (ts.isSpreadAssignment(p)) {
      const target = unwrap(p.expression);
      const shared = ts.isIdentifier(target) ? r.objects.get(target.text) : undefined;
      if (shared && depth < 8) readColumns(r, info, shared, builderParam, depth + 1);
      else r.warn(p, `...${r.snippet(p.expression)} is not an object declared in this file; its columns are unknown`);
      continue;
    }
    if (!ts.isPropertyAssignment(p)) {
      r.warn(p, `${r.snippet(p)} is not read: a column is written key: builder(…)`);
      continue;
    }
    const key = propertyName(p.name);
    if (key === null) {
      r.warn(p, 'a computed column key cannot be read without running code');
      continue;
    }
    const read = column(r, info, key, p.initializer, builderParam);
    if (!read) continue;
    if (info.table.columns.some((c) => c.name === read.name)) r.fail(p, `column ${read.name} is declared twice in table ${info.table.name}`);
    info.table.columns.push(read);
    info.columnOf.set(key, read.name);
  }
}

export function column(r: DrizzleReader, info: DrizzleTable, key: string, expr: ts.Expression, builderParam: string | null): Column | null {
  const { base, calls } = chainOf(expr);
  if (!ts.isCallExpression(base)) {
    r.warn(expr, `column ${key}: ${r.snippet(expr)} is not a column builder call`);
    return null;
  }
  const callee = unwrap(base.expression);
  let builder = r.drizzleName(callee);
  if (!builder && builderParam && ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === builderParam)
    builder = callee.name.text;
  const enumDef = ts.isIdentifier(callee) ? r.enums.get(callee.text) : undefined;
  const custom = ts.isIdentifier(callee) ? r.customTypes.get(callee.text) : undefined;
  const nameArg = base.arguments[0] && literal(base.arguments[0]);
  const dbName = typeof nameArg === 'string' ? nameArg : key;
  const configArg = base.arguments.find((a) => ts.isObjectLiteralExpression(unwrap(a)));
  const column = newColumn(dbName);
  let spelled: string | null = null;
  if (enumDef) {
    column.type = 'enum';
    column.nativeType = enumDef.name;
    column.enumValues = [...enumDef.values];
  } else if (custom !== undefined) spelled = custom;
  else if (builder === 'mysqlEnum') {
    const values = base.arguments.map((a) => literal(a)).find((v) => Array.isArray(v));
    if (!Array.isArray(values)) r.fail(base, `mysqlEnum ${key} needs its values as a literal array`);
    spelled = `enum(${(values as string[]).map((v) => sqlString(String(v))).join(',')})`;
  } else if (builder && isColumnBuilder(r.spelling, builder)) spelled = builderType(r.spelling, builder, r.config(configArg));
  else {
    r.warn(base, `column ${key} is skipped: ${r.unknownCall(callee)}`);
    return null;
  }
  if (spelled !== null) {
    const t = describeNativeType(r.spelling, spelled);
    Object.assign(column, {
      type: t.type,
      nativeType: t.nativeType,
      maxLength: t.maxLength,
      precision: t.precision,
      scale: t.scale,
      enumValues: t.enumValues,
      autoIncrement: t.autoIncrement,
    });
    if (t.autoIncrement || builder === 'serial') column.nullable = false;
    if (r.spelling === 'mysql' && builder === 'serial') {
      // MySQL's SERIAL is BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE.
      addUniqueness(info.table, null, [dbName], r.origins, r.pos(base));
    }
  }
  for (const call of calls) modifier(r, info, column, call);
  return column;
}

export function modifier(r: DrizzleReader, info: DrizzleTable, column: Column, call: MethodCall): void {
  const { table } = info;
  const [a0, a1] = call.args;
  switch (call.name) {
    case 'notNull':
      column.nullable = false;
      return;
    case 'primaryKey': {
      column.nullable = false;
      const cfg = r.config(a0);
      if (cfg.autoIncrement === true) column.autoIncrement = true;
      if (table.primaryKey) r.fail(call.node, `table ${table.name} has more than one primaryKey()`);
      table.primaryKey = { name: r.spelling === 'mysql' ? 'PRIMARY' : r.spelling === 'postgres' ? `${table.name}_pkey` : null, columns: [column.name] };
      r.origins.set(table.primaryKey, r.pos(call.node));
      return;
    }
    case 'unique': {
      const n = a0 && literal(a0);
      addUniqueness(table, typeof n === 'string' ? n : `${table.name}_${column.name}_unique`, [column.name], r.origins, r.pos(call.node));
      return;
    }
    case 'default': {
      if (!a0) r.fail(call.node, '.default() needs a value');
      const sql = r.sqlText(a0, info, null);
      const v = sql === null ? literal(a0) : UNKNOWN;
      if (sql !== null) column.default = sql;
      else if (v === null) column.default = null;
      else if (typeof v === 'string') column.default = sqlString(v);
      else if (typeof v === 'number' || typeof v === 'boolean') column.default = String(v);
      else if (v !== UNKNOWN) column.default = sqlString(JSON.stringify(v));
      else r.warn(a0, `.default(${r.snippet(a0)}) cannot be read without running code; the default is left empty`);
      return;
    }
    case 'defaultNow':
      column.default = 'now()';
      return;
    case 'defaultRandom':
      column.default = 'gen_random_uuid()';
      return;
    case '$defaultFn':
    case '$default':
    case '$onUpdate':
    case '$onUpdateFn':
      r.warn(call.node, `.${call.name}() on ${column.name} runs in the application, not the database; it is not part of the schema`);
      return;
    case 'references': {
      const fn = a0 && unwrap(a0);
      if (!fn || !(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) r.fail(call.node, '.references() needs a function such as () => users.id');
      const body = ts.isBlock(fn.body) ? fn.body.statements.find(ts.isReturnStatement)?.expression : fn.body;
      if (!body) r.fail(fn, '.references() must return a column');
      const cfg = r.config(a1);
      const fk: ForeignKey = {
        name: typeof cfg.name === 'string' ? cfg.name : null,
        columns: [column.name],
        referencedSchema: null,
        referencedTable: '',
        referencedColumns: [],
        onDelete: referentialAction(r, cfg.onDelete, a1),
        onUpdate: referentialAction(r, cfg.onUpdate, a1),
      };
      table.foreignKeys.push(fk);
      r.origins.set(fk, r.pos(call.node));
      r.pendingFks.push({ owner: info, fk, targets: [body], at: call.node });
      return;
    }
    case 'array':
      column.nativeType = `${column.nativeType}[]`;
      column.type = 'other';
      column.enumValues = null;
      return;
    case 'generatedAlwaysAs': {
      const cfg = r.config(a1);
      const expr = a0 ? (r.sqlText(a0, info, null) ?? (typeof literal(a0) === 'string' ? (literal(a0) as string) : null)) : null;
      if (a0 && expr === null) r.warn(a0, 'the generated expression cannot be read without running code');
      const kind = r.spelling === 'postgres' || cfg.mode === 'stored' ? 'stored' : 'virtual';
      column.generated = { kind, expression: expr };
      return;
    }
    case 'generatedAlwaysAsIdentity':
    case 'generatedByDefaultAsIdentity':
    case 'autoincrement':
      column.autoIncrement = true;
      if (call.name !== 'autoincrement') column.nullable = false;
      return;
    case '$type':
    case 'onUpdateNow':
    case '$onUpdateNow':
      return;
    default:
      r.warn(call.node, `.${call.name}() on column ${column.name} is not read`);
  }
}
