import type { Column, SchemaModel, Table } from '../../../../engine/schema/model.js';
import { stripOuterParens } from '../../../../engine/schema/introspect/build.js';
import { enumCheck } from '../../../../engine/schema/introspect/sqlite-ddl.js';
import type { PortableType } from '../../../../engine/schema/model.js';
import { describeNativeType } from '../native-types.js';
import { nameLikeTheDatabase } from './naming.js';

const NUMERIC = new Set<PortableType>(['integer', 'bigint', 'decimal', 'float', 'boolean']);
const JSON_VALID = /^\s*json_valid\(\s*`((?:[^`]|``)+)`\s*\)\s*$/i;
import type { Position, Warnings } from '../diagnostics.js';
import { dedupeUniques, newTable, type Origins } from '../model.js';
import type { QualifiedName } from './cursor.js';
import type { SqlDialect } from './tokenizer.js';

interface PendingType {
  column: Column;
  /** The type as written (`varchar(255)`, `public."Role"`, `int unsigned`). */
  spelled: string;
}

/**
 * What the statements have declared so far. Column types are resolved at the end, because a
 * file may use an enum or domain before it declares it.
 */
export class SqlState {
  private readonly tables = new Map<string, Table>();
  private readonly enums = new Map<string, { schema: string | null; name: string; values: string[] }>();
  private readonly domains = new Map<string, string>();
  private readonly pending: PendingType[] = [];
  readonly origins: Origins = new Map();
  /** SQLite tables declared WITHOUT ROWID, whose integer keys the database does not assign. */
  readonly withoutRowid = new WeakSet<Table>();
  /** SQLite tables whose INTEGER PRIMARY KEY is DESC, which makes it an ordinary column. */
  readonly descendingKey = new WeakSet<Table>();
  /** PostgreSQL: where unqualified names live (`SET search_path`); null elsewhere. */
  defaultSchema: string | null;

  constructor(
    readonly dialect: SqlDialect,
    readonly warnings: Warnings,
  ) {
    this.defaultSchema = dialect === 'postgres' ? 'public' : null;
  }

  /** SQLite and MySQL (on most systems) compare table names without case. */
  fold(name: string): string {
    return this.dialect === 'postgres' ? name : name.toLowerCase();
  }

  /** MySQL's qualifier is a database and SQLite's an attached file: neither is a model schema. */
  schemaOf(qualifier: string | null): string | null {
    return this.dialect === 'postgres' ? (qualifier ?? this.defaultSchema) : null;
  }

  private key(schema: string | null, name: string): string {
    return `${schema ?? ''}\u0000${this.fold(name)}`;
  }

  find(qn: QualifiedName): Table | undefined {
    return this.tables.get(this.key(this.schemaOf(qn.schema), qn.name));
  }

  /** A later CREATE of the same name replaces the earlier one (dumps re-create view placeholders). */
  create(qn: QualifiedName, kind: 'table' | 'view', at: Position): Table {
    const schema = this.schemaOf(qn.schema);
    const key = this.key(schema, qn.name);
    const existing = this.tables.get(key);
    if (existing && !(existing.kind === 'table' && kind === 'view')) {
      this.warnings.add(at, `${kind} ${qn.name} is declared again; the later declaration replaces the earlier one`);
    }
    if (existing) this.tables.delete(key);
    const table = newTable(schema, qn.name, kind);
    this.tables.set(key, table);
    this.origins.set(table, at);
    return table;
  }

  drop(qn: QualifiedName): boolean {
    return this.tables.delete(this.key(this.schemaOf(qn.schema), qn.name));
  }

  addEnum(qn: QualifiedName, values: string[], at: Position): void {
    const schema = this.schemaOf(qn.schema);
    if (this.enums.has(qn.name)) this.warnings.add(at, `type ${qn.name} is declared again; the later declaration replaces the earlier one`);
    this.enums.set(qn.name, { schema, name: qn.name, values });
  }

  enumValues(name: string): string[] | undefined {
    return this.enums.get(name)?.values;
  }

  addDomain(name: string, base: string): void {
    this.domains.set(name, base);
  }

  typeLater(column: Column, spelled: string): void {
    this.pending.push({ column, spelled });
  }

  private finishSqlite(t: Table): void {
    // A lone INTEGER PRIMARY KEY is the rowid, which the database assigns and which is never NULL.
    if (t.primaryKey?.columns.length === 1 && !this.withoutRowid.has(t) && !this.descendingKey.has(t)) {
      const key = t.columns.find((c) => c.name === t.primaryKey!.columns[0]);
      if (key && key.nativeType === 'integer') {
        key.autoIncrement = true;
        key.nullable = false;
      }
    }
    // SQLite has no enum type; a text column limited by CHECK (col IN ('a', 'b')) is one in all but name.
    for (const check of t.checks) {
      const e = enumCheck(check.expression);
      const col = e && t.columns.find((c) => c.name.toLowerCase() === e.column.toLowerCase());
      if (col && (col.type === 'string' || col.type === 'text')) {
        col.type = 'enum';
        col.enumValues = e.values;
        col.maxLength = null;
      }
    }
  }

  /**
   * MariaDB stores JSON as LONGTEXT with a CHECK (json_valid(`col`)); its introspection reads
   * such a column as json and drops the check, and so does this.
   */
  private finishMariadbJson(t: Table): void {
    t.checks = t.checks.filter((check) => {
      const m = JSON_VALID.exec(stripOuterParens(check.expression));
      const col = m && t.columns.find((c) => c.name === m[1]!.replace(/``/g, '`'));
      if (!col || col.nativeType !== 'longtext') return true;
      col.type = 'json';
      return false;
    });
  }

  finish(): SchemaModel {
    const opts = {
      enumValues: (name: string) => this.enums.get(name)?.values ?? null,
      domainBase: (name: string) => this.domains.get(name) ?? null,
    };
    for (const p of this.pending) {
      const info = describeNativeType(this.dialect, p.spelled, opts);
      const c = p.column;
      c.type = info.type;
      c.nativeType = info.nativeType;
      c.maxLength = info.maxLength;
      c.precision = info.precision;
      c.scale = info.scale;
      c.enumValues = info.enumValues;
      if (info.autoIncrement) c.autoIncrement = true;
    }
    const tables = [...this.tables.values()];
    for (const t of tables) {
      dedupeUniques(t);
      if (this.dialect === 'sqlite') this.finishSqlite(t);
      if (this.dialect === 'mysql') this.finishMariadbJson(t);
      // Key columns are NOT NULL in PostgreSQL and MySQL.
      else if (t.primaryKey) for (const c of t.columns) if (t.primaryKey.columns.includes(c.name)) c.nullable = false;
      for (const c of t.columns) {
        // serial and identity columns are NOT NULL in PostgreSQL.
        if (this.dialect === 'postgres' && c.autoIncrement) c.nullable = false;
        // MySQL reports a numeric default bare, however the file quoted it.
        if (this.dialect === 'mysql' && c.default !== null && NUMERIC.has(c.type)) c.default = c.default.replace(/^'(-?\d+(?:\.\d+)?)'$/, '$1');
      }
    }
    nameLikeTheDatabase(this.dialect, tables);
    return { dialect: this.dialect, tables, enums: [...this.enums.values()] };
  }
}
