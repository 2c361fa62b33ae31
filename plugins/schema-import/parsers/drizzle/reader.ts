import ts from 'typescript';
import type { ForeignKey, SchemaModel, Table } from '../../../../engine/schema/model.js';
import { SchemaParseError, Warnings, type Position } from '../diagnostics.js';
import { newTable, type Origins } from '../model.js';
import type { SqlDialect } from '../native-types.js';
import { CORE_MODULES, ORM_ONLY, SCHEMA_BUILDERS, TABLE_BUILDERS, TABLE_CREATORS, VIEW_BUILDERS, type BuilderConfig } from './builders.js';
import { readColumns } from './columns.js';
import { literal, propertyName, sqlString, UNKNOWN, unwrap } from './ast.js';
import { readTableOptions } from './table-options.js';

/**
 * Reads a Drizzle schema file with the TypeScript parser only: the syntax tree is walked and
 * literal values are read from it. Nothing is type-checked, imported, evaluated or run, so an
 * import of other code or a call of anything unknown is reported, never followed.
 */

export interface DrizzleTable {
  table: Table;
  /** Property key in the columns object → database column name. */
  columnOf: Map<string, string>;
}

export interface PendingForeignKey {
  owner: DrizzleTable;
  fk: ForeignKey;
  targets: ts.Expression[];
  at: ts.Node;
}

export class DrizzleReader {
  readonly warnings = new Warnings();
  readonly origins: Origins = new Map();
  dialect: SqlDialect | null = null;
  spelling: SqlDialect = 'postgres';
  /** Local name → [module, imported name]. */
  readonly imports = new Map<string, { module: string; name: string }>();
  /** `import * as p from 'drizzle-orm/pg-core'`: local namespace → module. */
  readonly namespaces = new Map<string, string>();
  readonly tables = new Map<string, DrizzleTable>();
  private readonly tableList: DrizzleTable[] = [];
  readonly enums = new Map<string, { schema: string | null; name: string; values: string[] }>();
  readonly schemas = new Map<string, string>();
  readonly creators = new Map<string, { head: string; tail: string }>();
  readonly objects = new Map<string, ts.ObjectLiteralExpression>();
  readonly customTypes = new Map<string, string>();
  readonly pendingFks: PendingForeignKey[] = [];

  constructor(private readonly sf: ts.SourceFile) {}

  pos(node: ts.Node): Position {
    const lc = this.sf.getLineAndCharacterOfPosition(node.getStart(this.sf));
    return { line: lc.line + 1, column: lc.character + 1 };
  }

  warn(node: ts.Node, message: string): void {
    this.warnings.add(this.pos(node), message);
  }

  fail(node: ts.Node, message: string): never {
    throw SchemaParseError.at(this.pos(node), message);
  }

  snippet(node: ts.Node): string {
    const text = node.getText(this.sf).replace(/\s+/g, ' ');
    return text.length > 60 ? text.slice(0, 57) + '…' : text;
  }

  /** The drizzle-orm export an expression names (`pgTable`, `p.integer`), or null. */
  drizzleName(e: ts.Expression): string | null {
    e = unwrap(e);
    if (ts.isIdentifier(e)) {
      const imp = this.imports.get(e.text);
      return imp && (imp.module === 'drizzle-orm' || imp.module.startsWith('drizzle-orm/')) ? imp.name : null;
    }
    if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression)) {
      const mod = this.namespaces.get(e.expression.text);
      return mod && (mod === 'drizzle-orm' || mod.startsWith('drizzle-orm/')) ? e.name.text : null;
    }
    return null;
  }

  /** Why a call cannot be read: names the import it comes from when there is one. */
  unknownCall(callee: ts.Expression): string {
    const root = ts.isPropertyAccessExpression(callee) ? callee.expression : callee;
    const imp = ts.isIdentifier(root)
      ? (this.imports.get(root.text) ?? (this.namespaces.has(root.text) ? { module: this.namespaces.get(root.text)!, name: '*' } : null))
      : null;
    const what = this.snippet(callee);
    return imp
      ? `${what} comes from '${imp.module}', which is not followed (nothing is imported or run)`
      : `${what} is not a Drizzle builder this reader knows (nothing is run)`;
  }

  /** An object literal's readable properties; the rest are named in warnings. */
  config(e: ts.Expression | undefined): BuilderConfig {
    if (!e) return {};
    const v = literal(e);
    if (v !== UNKNOWN && typeof v === 'object' && v !== null && !Array.isArray(v)) return v as BuilderConfig;
    const out: BuilderConfig = {};
    const obj = unwrap(e);
    if (!ts.isObjectLiteralExpression(obj)) return out;
    for (const p of obj.properties) {
      if (!ts.isPropertyAssignment(p)) continue;
      const key = propertyName(p.name);
      const value = literal(p.initializer);
      if (key !== null && value !== UNKNOWN) out[key] = value;
      else if (key !== null && key !== 'mode') this.warn(p, `option ${key} is not a literal; it is not read`);
    }
    return out;
  }

  quote(name: string): string {
    return this.spelling === 'mysql' ? `\`${name}\`` : `"${name}"`;
  }

  /** A column a callback or table variable names: `t.email`, `users.id`, with `.asc()`-style calls dropped. */
  columnRef(e: ts.Expression, own: DrizzleTable | null, param: string | null): { table: DrizzleTable; column: string } | null {
    e = unwrap(e);
    while (
      ts.isCallExpression(e) &&
      ts.isPropertyAccessExpression(e.expression) &&
      ['asc', 'desc', 'nullsFirst', 'nullsLast', 'op'].includes(e.expression.name.text)
    )
      e = unwrap(e.expression.expression);
    if (!ts.isPropertyAccessExpression(e) || !ts.isIdentifier(e.expression)) return null;
    const holder = e.expression.text;
    const table = holder === param ? own : (this.tables.get(holder) ?? null);
    if (!table) return null;
    const column = table.columnOf.get(e.name.text);
    return column === undefined ? null : { table, column };
  }

  /** sql`…` as SQL text: column references become quoted names; anything else interpolated is unknown. */
  sqlText(e: ts.Expression, own: DrizzleTable | null, param: string | null): string | null {
    e = unwrap(e);
    if (ts.isArrowFunction(e) && !ts.isBlock(e.body)) return this.sqlText(e.body, own, param);
    if (!ts.isTaggedTemplateExpression(e) || this.drizzleName(e.tag) !== 'sql') return null;
    const t = e.template;
    if (ts.isNoSubstitutionTemplateLiteral(t)) return t.text;
    let out = t.head.text;
    for (const span of t.templateSpans) {
      const ref = this.columnRef(span.expression, own, param);
      const lit = literal(span.expression);
      if (ref) out += this.quote(ref.column);
      else if (typeof lit === 'string') out += sqlString(lit);
      else if (typeof lit === 'number') out += String(lit);
      else {
        this.warn(span.expression, `\${${this.snippet(span.expression)}} in sql\`…\` cannot be read without running code; left as ?`);
        out += '?';
      }
      out += span.literal.text;
    }
    return out;
  }

  importDeclaration(node: ts.ImportDeclaration): void {
    const module = ts.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : '';
    const clause = node.importClause;
    const isDrizzle = module === 'drizzle-orm' || module.startsWith('drizzle-orm/');
    if (!isDrizzle) {
      if (!clause?.isTypeOnly) this.warn(node, `import from '${module}' is not followed: nothing is imported or run, so what it defines is unknown here`);
    } else if (CORE_MODULES[module]) {
      const d = CORE_MODULES[module]!;
      if (this.dialect && this.dialect !== d) this.warn(node, `the file imports both ${this.dialect} and ${d} builders; read as ${this.dialect}`);
      else this.dialect = d;
    }
    if (!clause) return;
    if (clause.name) this.imports.set(clause.name.text, { module, name: 'default' });
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) this.namespaces.set(bindings.name.text, module);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) this.imports.set(el.name.text, { module, name: (el.propertyName ?? el.name).text });
    }
  }

  variable(decl: ts.VariableDeclaration): void {
    if (!decl.initializer || !ts.isIdentifier(decl.name)) {
      if (decl.initializer) this.warn(decl, 'a destructuring declaration is not read');
      return;
    }
    const varName = decl.name.text;
    const init = unwrap(decl.initializer);
    if (ts.isObjectLiteralExpression(init)) {
      // Shared column sets (`...timestamps`) are spread into tables.
      this.objects.set(varName, init);
      return;
    }
    if (!ts.isCallExpression(init)) {
      if (literal(init) === UNKNOWN) this.warn(decl, `${varName} = ${this.snippet(init)} is not read`);
      return;
    }
    const callee = unwrap(init.expression);
    const name = this.drizzleName(callee);
    if (name && TABLE_BUILDERS.has(name)) return this.tableCall(varName, init, null, null);
    if (name && VIEW_BUILDERS.has(name)) return this.viewCall(varName, init, null);
    if (name === 'pgEnum') return this.enumCall(varName, init, null);
    if (name && SCHEMA_BUILDERS.has(name)) {
      const s = init.arguments[0] && literal(init.arguments[0]);
      if (typeof s !== 'string') this.fail(init, `${name} needs the schema name as a string`);
      this.schemas.set(varName, s);
      return;
    }
    if (name && TABLE_CREATORS.has(name)) return this.creator(varName, init);
    if (name === 'customType') return this.customType(varName, init);
    if (name && ORM_ONLY.has(name)) return;
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)) {
      const schema = this.schemas.get(callee.expression.text);
      if (schema !== undefined && callee.name.text === 'table') return this.tableCall(varName, init, schema, null);
      if (schema !== undefined && callee.name.text === 'enum') return this.enumCall(varName, init, schema);
      if (schema !== undefined && (callee.name.text === 'view' || callee.name.text === 'materializedView')) return this.viewCall(varName, init, schema);
    }
    if (ts.isIdentifier(callee) && this.creators.has(callee.text)) return this.tableCall(varName, init, null, this.creators.get(callee.text)!);
    this.warn(init, `${varName} is skipped: ${this.unknownCall(callee)}`);
  }

  /** `pgTableCreator((name) => \`prefix_${name}\`)`: only that literal shape can be read. */
  creator(varName: string, call: ts.CallExpression): void {
    const fn = call.arguments[0] && unwrap(call.arguments[0]);
    if (fn && ts.isArrowFunction(fn) && fn.parameters.length === 1 && ts.isIdentifier(fn.parameters[0]!.name) && !ts.isBlock(fn.body)) {
      const body = unwrap(fn.body);
      const p = (fn.parameters[0]!.name as ts.Identifier).text;
      if (
        ts.isTemplateExpression(body) &&
        body.templateSpans.length === 1 &&
        ts.isIdentifier(body.templateSpans[0]!.expression) &&
        body.templateSpans[0]!.expression.text === p
      ) {
        this.creators.set(varName, { head: body.head.text, tail: body.templateSpans[0]!.literal.text });
        return;
      }
      if (ts.isIdentifier(body) && body.text === p) {
        this.creators.set(varName, { head: '', tail: '' });
        return;
      }
    }
    this.warn(call, `${varName}: a table-name function other than (name) => \`prefix_\${name}\` cannot be read without running it; its tables are skipped`);
  }

  /** `customType({ dataType() { return 'bytea' } })`: the literal SQL type is read, nothing is run. */
  customType(varName: string, call: ts.CallExpression): void {
    const obj = call.arguments[0] && unwrap(call.arguments[0]);
    if (obj && ts.isObjectLiteralExpression(obj)) {
      for (const p of obj.properties) {
        if (!p.name || propertyName(p.name) !== 'dataType') continue;
        const body = ts.isMethodDeclaration(p)
          ? p.body
          : ts.isPropertyAssignment(p) && (ts.isArrowFunction(p.initializer) || ts.isFunctionExpression(p.initializer))
            ? p.initializer.body
            : undefined;
        let value: unknown = UNKNOWN;
        if (body && ts.isBlock(body) && body.statements.length === 1 && ts.isReturnStatement(body.statements[0]!) && body.statements[0]!.expression)
          value = literal(body.statements[0]!.expression);
        else if (body && !ts.isBlock(body)) value = literal(body);
        if (typeof value === 'string') {
          this.customTypes.set(varName, value);
          return;
        }
      }
    }
    this.warn(call, `custom type ${varName} does not return a literal SQL type from dataType(); its columns get type other`);
    this.customTypes.set(varName, '');
  }

  enumCall(varName: string, call: ts.CallExpression, schema: string | null): void {
    const [nameArg, valuesArg] = call.arguments;
    const name = nameArg && literal(nameArg);
    const values = valuesArg && literal(valuesArg);
    if (typeof name !== 'string') this.fail(call, 'an enum needs its name as a string');
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string'))
      this.fail(valuesArg ?? call, `enum ${name} needs its values as a literal array of strings`);
    this.enums.set(varName, { schema: schema ?? (this.spelling === 'postgres' ? 'public' : null), name, values: values as string[] });
  }

  viewCall(varName: string, call: ts.CallExpression, schema: string | null): void {
    const name = call.arguments[0] && literal(call.arguments[0]);
    if (typeof name !== 'string') this.fail(call, 'a view needs its name as a string');
    const table = newTable(this.spelling === 'postgres' ? (schema ?? 'public') : null, name, 'view');
    this.origins.set(table, this.pos(call));
    const info = { table, columnOf: new Map<string, string>() };
    this.tables.set(varName, info);
    this.tableList.push(info);
  }

  tableCall(varName: string, call: ts.CallExpression, schema: string | null, creator: { head: string; tail: string } | null): void {
    const [nameArg, columnsArg, extraArg] = call.arguments;
    const raw = nameArg && literal(nameArg);
    if (typeof raw !== 'string') this.fail(nameArg ?? call, 'a table needs its name as a string literal');
    const name = creator ? creator.head + raw + creator.tail : raw;
    const table = newTable(this.spelling === 'postgres' ? (schema ?? 'public') : null, name);
    this.origins.set(table, this.pos(call));
    const info: DrizzleTable = { table, columnOf: new Map() };
    if (!columnsArg) this.fail(call, `table ${name} needs its columns`);
    let cols = unwrap(columnsArg);
    let builderParam: string | null = null;
    // drizzle ≥ 0.36: `pgTable('t', (t) => ({ id: t.integer() }))`.
    if (ts.isArrowFunction(cols) && !ts.isBlock(cols.body)) {
      const p = cols.parameters[0];
      builderParam = p && ts.isIdentifier(p.name) ? p.name.text : null;
      cols = unwrap(cols.body);
    }
    if (!ts.isObjectLiteralExpression(cols)) this.fail(columnsArg, `the columns of table ${name} must be an object literal`);
    readColumns(this, info, cols, builderParam, 0);
    this.tables.set(varName, info);
    this.tableList.push(info);
    if (extraArg) readTableOptions(this, info, extraArg);
  }

  /** Foreign keys point at tables that may be declared later in the file, so they are settled last. */
  resolveForeignKeys(): void {
    for (const p of this.pendingFks) {
      const refs = p.targets.map((t) => this.columnRef(t, null, null));
      const first = refs[0];
      if (!first || refs.some((r) => !r || r.table !== first.table)) {
        this.warn(
          p.at,
          `foreign key of table ${p.owner.table.name} points at ${p.targets.map((t) => this.snippet(t)).join(', ')}, which is not a column of a table in this file; left out`,
        );
        p.owner.table.foreignKeys = p.owner.table.foreignKeys.filter((f) => f !== p.fk);
        continue;
      }
      p.fk.referencedTable = first.table.table.name;
      p.fk.referencedSchema = first.table.table.schema;
      p.fk.referencedColumns = refs.map((r) => r!.column);
      // drizzle-kit's naming convention, which is what the database ends up holding.
      p.fk.name ??= `${p.owner.table.name}_${p.fk.columns.join('_')}_${p.fk.referencedTable}_${p.fk.referencedColumns.join('_')}_fk`;
    }
  }

  read(): SchemaModel {
    // Imports first: a dialect decides how every builder is spelled.
    for (const st of this.sf.statements) if (ts.isImportDeclaration(st)) this.importDeclaration(st);
    if (this.dialect) this.spelling = this.dialect;
    for (const st of this.sf.statements) {
      if (ts.isImportDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isEmptyStatement(st)) continue;
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) this.variable(d);
      } else if (ts.isExportDeclaration(st)) {
        if (st.moduleSpecifier) this.warn(st, `re-export from ${st.moduleSpecifier.getText(this.sf)} is not followed: nothing is imported or run`);
      } else if (ts.isExportAssignment(st)) continue;
      else this.warn(st, `${this.snippet(st)} is not read (only declarations of tables, enums and schemas are; nothing is run)`);
    }
    this.resolveForeignKeys();
    const enums = this.spelling === 'postgres' ? [...this.enums.values()] : [];
    return { dialect: this.dialect, tables: this.tableList.map((t) => t.table), enums };
  }
}
