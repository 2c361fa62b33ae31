import type { Column, ForeignKey, ReferentialAction, SchemaModel, Table } from '../../../engine/schema/model.js';
import { describeNativeType, type SqlDialect } from './native-types.js';
import { SchemaParseError, START, Warnings, type ParseWarning, type Position } from './diagnostics.js';
import { addUniqueness, checkReferences, newColumn, newTable, type Origins } from './model.js';
import { readPrismaSchema, type PrismaArg, type PrismaAttribute, type PrismaBlock, type PrismaField, type PrismaValue } from './prisma-syntax.js';

const PROVIDERS: Record<string, SqlDialect> = { postgresql: 'postgres', postgres: 'postgres', cockroachdb: 'postgres', mysql: 'mysql', sqlite: 'sqlite' };

/** The column types Prisma Migrate creates for each scalar when no `@db.*` attribute says otherwise. */
const DEFAULT_NATIVE: Record<SqlDialect, Record<string, string>> = {
  postgres: {
    String: 'text',
    Int: 'integer',
    BigInt: 'bigint',
    Float: 'double precision',
    Decimal: 'decimal(65,30)',
    Boolean: 'boolean',
    DateTime: 'timestamp(3)',
    Json: 'jsonb',
    Bytes: 'bytea',
  },
  mysql: {
    String: 'varchar(191)',
    Int: 'int',
    BigInt: 'bigint',
    Float: 'double',
    Decimal: 'decimal(65,30)',
    Boolean: 'tinyint(1)',
    DateTime: 'datetime(3)',
    Json: 'json',
    Bytes: 'longblob',
  },
  sqlite: {
    String: 'text',
    Int: 'integer',
    BigInt: 'bigint',
    Float: 'real',
    Decimal: 'decimal',
    Boolean: 'boolean',
    DateTime: 'datetime',
    Json: 'jsonb',
    Bytes: 'blob',
  },
};

/** `@db.*` names whose SQL spelling is not just the lower-cased name. */
const DB_SPELLING: Record<string, string> = {
  DoublePrecision: 'double precision',
  JsonB: 'jsonb',
  ByteA: 'bytea',
  Timestamptz: 'timestamptz',
  Timetz: 'timetz',
  VarBit: 'bit varying',
};

const ACTIONS: Record<string, ReferentialAction> = {
  Cascade: 'cascade',
  Restrict: 'restrict',
  NoAction: 'no action',
  SetNull: 'set null',
  SetDefault: 'set default',
};

/** Defaults Prisma Client fills before the insert: the database has no default for them. */
const CLIENT_DEFAULTS = new Set(['uuid', 'cuid', 'nanoid', 'ulid']);

const arg = (args: PrismaArg[], name: string, positional = 0): PrismaValue | undefined =>
  (args.find((a) => a.name === name) ?? args.filter((a) => a.name === null)[positional])?.value;
const attr = (list: PrismaAttribute[], name: string) => list.find((a) => a.name === name);
const str = (v: PrismaValue | undefined): string | null => (v?.kind === 'string' ? v.value : null);
const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;

interface ModelInfo {
  block: PrismaBlock;
  table: Table;
  /** Field name → column name (after @map), for scalar fields only. */
  columnOf: Map<string, string>;
}

class PrismaReader {
  readonly warnings = new Warnings();
  readonly origins: Origins = new Map();
  dialect: SqlDialect | null = null;
  /** Native types are spelled for this dialect; PostgreSQL when the file names none. */
  spelling: SqlDialect = 'postgres';
  relationModePrisma = false;
  enums = new Map<string, { dbName: string; schema: string; values: string[]; valueOf: Map<string, string> }>();
  models = new Map<string, ModelInfo>();
  composite = new Set<string>();

  constructor(private readonly blocks: PrismaBlock[]) {}

  warn(at: Position, message: string): void {
    this.warnings.add(at, message);
  }

  fail(at: Position, message: string): never {
    throw SchemaParseError.at(at, message);
  }

  /** `field` or `field(sort: Desc, length: 10)` in @@id/@@unique/@@index lists, as column names. */
  columns(info: ModelInfo, v: PrismaValue | undefined, where: Position, what: string): string[] {
    if (!v || v.kind !== 'list' || v.items.length === 0) this.fail(v?.at ?? where, `${what} needs a list of fields, like [a, b]`);
    return v.items.map((item) => {
      const fieldName = item.kind === 'name' ? item.value : item.kind === 'call' ? item.name : null;
      if (!fieldName) this.fail(item.at, `${what} lists something that is not a field name`);
      const column = info.columnOf.get(fieldName);
      if (!column) this.fail(item.at, `${what} names ${fieldName}, which is not a scalar field of ${info.block.name}`);
      return column;
    });
  }

  datasource(block: PrismaBlock): void {
    const provider = block.settings.get('provider');
    const p = str(provider);
    if (!p) this.fail(provider?.at ?? block.at, 'the datasource needs provider = "postgresql", "mysql" or "sqlite"');
    const dialect = PROVIDERS[p];
    if (!dialect) this.fail(provider!.at, `provider ${p} is not supported; schema import reads postgresql, mysql and sqlite schemas`);
    if (p === 'cockroachdb') this.warn(provider!.at, 'cockroachdb is read as PostgreSQL');
    this.dialect = dialect;
    this.spelling = dialect;
    if (str(block.settings.get('relationMode')) === 'prisma' || str(block.settings.get('referentialIntegrity')) === 'prisma') {
      this.relationModePrisma = true;
      this.warn(
        block.settings.get('relationMode')?.at ?? block.at,
        'relationMode = "prisma": the database holds no foreign keys, so relations are not listed as foreign keys',
      );
    }
  }

  enumBlock(block: PrismaBlock): void {
    const valueOf = new Map<string, string>();
    for (const f of block.fields) valueOf.set(f.name, str(arg(attr(f.attributes, 'map')?.args ?? [], 'name')) ?? f.name);
    const dbName = str(arg(attr(block.attributes, 'map')?.args ?? [], 'name')) ?? block.name;
    const schema = str(arg(attr(block.attributes, 'schema')?.args ?? [], 'name')) ?? 'public';
    this.enums.set(block.name, { dbName, schema, values: [...valueOf.values()], valueOf });
  }

  /** The native type a scalar field gets, before mapping. */
  nativeSpelling(field: PrismaField): string | null {
    const db = field.attributes.find((a) => a.name.startsWith('db.'));
    if (db) {
      const raw = db.name.slice(3);
      let base = DB_SPELLING[raw] ?? raw.toLowerCase();
      let suffix = '';
      if (raw.startsWith('Unsigned')) {
        base = raw.slice('Unsigned'.length).toLowerCase();
        suffix = ' unsigned';
      }
      const params = db.args.map((a) =>
        a.value.kind === 'number' || a.value.kind === 'name' ? a.value.value : a.value.kind === 'string' ? a.value.value : '',
      );
      return `${base}${params.length ? `(${params.join(',')})` : ''}${suffix}`;
    }
    if (field.type === 'Unsupported') return str(arg(field.typeArgs, 'value')) ?? 'unsupported';
    return DEFAULT_NATIVE[this.spelling][field.type] ?? null;
  }

  column(info: ModelInfo, field: PrismaField): Column {
    const name = str(arg(attr(field.attributes, 'map')?.args ?? [], 'name')) ?? field.name;
    const column = newColumn(name, { nullable: field.optional });
    const enumDef = this.enums.get(field.type);
    if (enumDef) {
      column.type = 'enum';
      column.enumValues = [...enumDef.values];
      column.nativeType =
        this.spelling === 'postgres' ? enumDef.dbName : this.spelling === 'mysql' ? `enum(${enumDef.values.map(sqlString).join(',')})` : 'text';
    } else {
      const spelled = this.nativeSpelling(field);
      if (spelled === null) this.fail(field.at, `field ${field.name} has type ${field.type}, which is neither a scalar type, an enum nor a model`);
      const t = describeNativeType(this.spelling, spelled);
      Object.assign(column, {
        type: t.type,
        nativeType: t.nativeType,
        maxLength: t.maxLength,
        precision: t.precision,
        scale: t.scale,
        enumValues: t.enumValues,
      });
      if (t.autoIncrement) column.autoIncrement = true;
    }
    if (field.list) {
      if (this.spelling !== 'postgres') this.warn(field.at, `field ${field.name} is a list, which only PostgreSQL stores (as an array)`);
      column.type = 'other';
      column.nativeType = `${column.nativeType}[]`;
      column.enumValues = null;
      // Prisma Migrate creates list columns without NOT NULL (`text[]`), even though the field is not optional.
      column.nullable = true;
    }
    const def = attr(field.attributes, 'default');
    if (def) this.defaultOf(column, field, def, enumDef?.valueOf);
    return column;
  }

  defaultOf(column: Column, field: PrismaField, def: PrismaAttribute, enumValueOf?: Map<string, string>): void {
    const v = arg(def.args, 'value');
    if (!v) this.fail(def.at, '@default needs a value');
    const literal = (x: PrismaValue): string => {
      if (x.kind === 'string') return sqlString(x.value);
      if (x.kind === 'number') return x.value;
      if (x.kind === 'name') {
        if (x.value === 'true' || x.value === 'false') return x.value;
        if (enumValueOf) {
          const mapped = enumValueOf.get(x.value);
          if (mapped === undefined) this.fail(x.at, `${x.value} is not a value of enum ${field.type}`);
          return sqlString(mapped);
        }
        return this.fail(x.at, `@default(${x.value}) is not a value Prisma accepts here`);
      }
      if (x.kind === 'list') return `ARRAY[${x.items.map(literal).join(', ')}]`;
      return this.fail(x.at, `${x.name}() cannot be used inside a list default`);
    };
    if (v.kind === 'call') {
      if (v.name === 'autoincrement' || v.name === 'sequence') column.autoIncrement = true;
      else if (v.name === 'now') column.default = 'CURRENT_TIMESTAMP';
      else if (v.name === 'dbgenerated') column.default = str(arg(v.args, 'value'));
      else if (CLIENT_DEFAULTS.has(v.name))
        this.warn(v.at, `@default(${v.name}()) on ${field.name} is filled by Prisma Client, not by the database; the column has no database default`);
      else this.fail(v.at, `@default(${v.name}()) is not a function Prisma knows`);
      return;
    }
    column.default = literal(v);
  }

  keyName(explicit: string | null, table: string, columns: string[], suffix: string): string {
    // Prisma Migrate's own naming convention, so the names match the database it creates.
    return explicit ?? `${table}_${columns.join('_')}_${suffix}`;
  }

  /** MySQL calls every primary key PRIMARY; SQLite keeps no name for it. */
  pkName(explicit: string | null, table: string): string | null {
    if (this.spelling === 'mysql') return 'PRIMARY';
    if (this.spelling === 'sqlite') return explicit;
    return explicit ?? `${table}_pkey`;
  }

  model(block: PrismaBlock): void {
    const dbName = str(arg(attr(block.attributes, 'map')?.args ?? [], 'name')) ?? block.name;
    const schemaAttr = str(arg(attr(block.attributes, 'schema')?.args ?? [], 'name'));
    const schema = this.spelling === 'postgres' ? (schemaAttr ?? 'public') : null;
    const table = newTable(schema, dbName, block.keyword === 'view' ? 'view' : 'table');
    this.origins.set(table, block.at);
    const info: ModelInfo = { block, table, columnOf: new Map() };
    for (const field of block.fields) {
      if (this.models.has(field.type) || this.composite.has(field.type)) continue;
      if (attr(field.attributes, 'ignore')) this.warn(field.at, `field ${field.name} is @ignore'd by Prisma but still a column of the table`);
      const column = this.column(info, field);
      if (info.columnOf.has(field.name)) this.fail(field.at, `field ${field.name} is declared twice in ${block.name}`);
      info.columnOf.set(field.name, column.name);
      table.columns.push(column);
    }
    this.models.set(block.name, info);
  }

  /** Keys, uniques and indexes; relations need every model's columns, so they come after. */
  keys(info: ModelInfo): void {
    const { block, table } = info;
    for (const field of block.fields) {
      const column = info.columnOf.get(field.name);
      if (column === undefined) continue;
      const id = attr(field.attributes, 'id');
      if (id) {
        if (table.primaryKey) this.fail(id.at, `${block.name} has more than one @id`);
        table.primaryKey = { name: this.pkName(str(arg(id.args, 'map')), table.name), columns: [column] };
        this.origins.set(table.primaryKey, id.at);
      }
      const unique = attr(field.attributes, 'unique');
      if (unique) {
        addUniqueness(table, this.keyName(str(arg(unique.args, 'map')), table.name, [column], 'key'), [column], this.origins, unique.at);
      }
      for (const a of field.attributes) {
        const known = ['id', 'unique', 'default', 'map', 'relation', 'updatedAt', 'ignore'];
        if (!known.includes(a.name) && !a.name.startsWith('db.')) this.warn(a.at, `@${a.name} on ${block.name}.${field.name} is not read`);
      }
    }
    for (const a of block.attributes) {
      if (a.name === 'id') {
        if (table.primaryKey) this.fail(a.at, `${block.name} has both @id and @@id`);
        const columns = this.columns(info, arg(a.args, 'fields'), a.at, '@@id');
        table.primaryKey = { name: this.pkName(str(arg(a.args, 'map')), table.name), columns };
        this.origins.set(table.primaryKey, a.at);
      } else if (a.name === 'unique') {
        const columns = this.columns(info, arg(a.args, 'fields'), a.at, '@@unique');
        addUniqueness(table, this.keyName(str(arg(a.args, 'map')), table.name, columns, 'key'), columns, this.origins, a.at);
      } else if (a.name === 'index') {
        const columns = this.columns(info, arg(a.args, 'fields'), a.at, '@@index');
        const ix = { name: this.keyName(str(arg(a.args, 'map')) ?? str(arg(a.args, 'name', 99)), table.name, columns, 'idx'), columns, unique: false };
        table.indexes.push(ix);
        this.origins.set(ix, a.at);
      } else if (a.name === 'fulltext') {
        const columns = this.columns(info, arg(a.args, 'fields'), a.at, '@@fulltext');
        table.indexes.push({ name: this.keyName(str(arg(a.args, 'map')), table.name, columns, 'idx'), columns, unique: false });
      } else if (!['map', 'schema', 'ignore'].includes(a.name)) this.warn(a.at, `@@${a.name} on ${block.name} is not read`);
    }
  }

  relations(info: ModelInfo): void {
    const { block, table } = info;
    for (const field of block.fields) {
      const target = this.models.get(field.type);
      if (!target) continue;
      const rel = attr(field.attributes, 'relation');
      const fields = rel && arg(rel.args, 'fields', 99);
      if (!rel || !fields) continue; // the other side of the relation holds the key
      const references = arg(rel.args, 'references', 99);
      const columns = this.columns(info, fields, rel.at, '@relation fields');
      const referencedColumns = this.columns(target, references, rel.at, '@relation references');
      if (columns.length !== referencedColumns.length) this.fail(rel.at, '@relation fields and references must name as many fields');
      const action = (key: 'onDelete' | 'onUpdate', fallback: ReferentialAction): ReferentialAction => {
        const v = arg(rel.args, key, 99);
        if (!v) return fallback;
        if (v.kind !== 'name' || !ACTIONS[v.value]) this.fail(v.at, `${key} must be Cascade, Restrict, NoAction, SetNull or SetDefault`);
        return ACTIONS[v.value]!;
      };
      const optional = block.fields.some((f) => info.columnOf.has(f.name) && columns.includes(info.columnOf.get(f.name)!) && f.optional);
      const fk: ForeignKey = {
        name: this.keyName(str(arg(rel.args, 'map', 99)), table.name, columns, 'fkey'),
        columns,
        referencedSchema: target.table.schema,
        referencedTable: target.table.name,
        referencedColumns,
        // Prisma's defaults for a relation that names no actions.
        onDelete: action('onDelete', optional ? 'set null' : 'restrict'),
        onUpdate: action('onUpdate', 'cascade'),
      };
      if (!this.relationModePrisma) {
        table.foreignKeys.push(fk);
        this.origins.set(fk, rel.at);
      }
    }
  }

  read(): SchemaModel {
    const sources = this.blocks.filter((b) => b.keyword === 'datasource');
    if (sources.length > 1) this.fail(sources[1]!.at, 'a schema has one datasource');
    if (sources[0]) this.datasource(sources[0]);
    for (const b of this.blocks) {
      if (b.keyword === 'type') {
        this.composite.add(b.name);
        this.warn(b.at, `type ${b.name} is a MongoDB composite type; it is not a table`);
      }
    }
    const names = new Set<string>();
    for (const b of this.blocks) {
      if (b.keyword === 'datasource' || b.keyword === 'generator') continue;
      if (names.has(b.name)) this.fail(b.at, `${b.name} is declared twice`);
      names.add(b.name);
    }
    for (const b of this.blocks) if (b.keyword === 'enum') this.enumBlock(b);
    // Relation fields are recognised by their type, so every model name is known first.
    for (const b of this.blocks) if (b.keyword === 'model' || b.keyword === 'view') this.models.set(b.name, null as unknown as ModelInfo);
    for (const b of this.blocks) if (b.keyword === 'model' || b.keyword === 'view') this.model(b);
    for (const info of this.models.values()) this.keys(info);
    for (const info of this.models.values()) this.relations(info);
    for (const info of this.models.values()) {
      if (info.table.kind === 'table' && !info.table.primaryKey && !info.table.uniques.length) {
        this.warn(info.block.at, `model ${info.block.name} has no @id, @@id or @unique; Prisma refuses such models`);
      }
    }
    const enums = this.spelling === 'postgres' ? [...this.enums.values()].map((e) => ({ schema: e.schema, name: e.dbName, values: e.values })) : [];
    return { dialect: this.dialect, tables: [...this.models.values()].map((m) => m.table), enums };
  }
}

/** Reads a Prisma schema statically: the file is parsed, never handed to Prisma. */
export function parsePrisma(source: string, requested?: SqlDialect): { model: SchemaModel; warnings: ParseWarning[] } {
  const reader = new PrismaReader(readPrismaSchema(source));
  if (requested) reader.spelling = requested;
  const model = reader.read();
  if (!model.dialect && !requested) reader.warn(START, 'no datasource block: native types are spelled as PostgreSQL would store them');
  checkReferences(model, reader.warnings, reader.origins);
  return { model, warnings: reader.warnings.done() };
}
