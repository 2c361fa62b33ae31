import type { SqlDialect } from '../native-types.js';

/**
 * Drizzle column builders and the SQL type drizzle-kit writes for each, by dialect. The
 * spelling is then read by the shared native-type mapping like any DDL type.
 */
export type BuilderConfig = Record<string, unknown>;

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) ? v : null);
const args = (...xs: Array<number | null>) => {
  const present = xs.filter((x): x is number => x !== null);
  return present.length ? `(${present.join(',')})` : '';
};

type Spell = (config: BuilderConfig) => string;

const PG: Record<string, Spell> = {
  integer: () => 'integer',
  smallint: () => 'smallint',
  bigint: () => 'bigint',
  serial: () => 'serial',
  smallserial: () => 'smallserial',
  bigserial: () => 'bigserial',
  boolean: () => 'boolean',
  text: () => 'text',
  varchar: (c) => `varchar${args(num(c.length))}`,
  char: (c) => `char${args(num(c.length))}`,
  numeric: (c) => `numeric${args(num(c.precision), num(c.precision) === null ? null : num(c.scale))}`,
  decimal: (c) => `numeric${args(num(c.precision), num(c.precision) === null ? null : num(c.scale))}`,
  real: () => 'real',
  doublePrecision: () => 'double precision',
  json: () => 'json',
  jsonb: () => 'jsonb',
  uuid: () => 'uuid',
  date: () => 'date',
  time: (c) => `time${args(num(c.precision))}${c.withTimezone === true ? ' with time zone' : ''}`,
  timestamp: (c) => `timestamp${args(num(c.precision))}${c.withTimezone === true ? ' with time zone' : ''}`,
  interval: () => 'interval',
  inet: () => 'inet',
  cidr: () => 'cidr',
  macaddr: () => 'macaddr',
  macaddr8: () => 'macaddr8',
  point: () => 'point',
  line: () => 'line',
  geometry: (c) => `geometry${typeof c.type === 'string' ? `(${c.type})` : ''}`,
  vector: (c) => `vector${args(num(c.dimensions))}`,
  halfvec: (c) => `halfvec${args(num(c.dimensions))}`,
  sparsevec: (c) => `sparsevec${args(num(c.dimensions))}`,
  bit: (c) => `bit${args(num(c.dimensions))}`,
};

const unsigned = (c: BuilderConfig) => (c.unsigned === true ? ' unsigned' : '');

const MYSQL: Record<string, Spell> = {
  int: (c) => `int${unsigned(c)}`,
  tinyint: (c) => `tinyint${unsigned(c)}`,
  smallint: (c) => `smallint${unsigned(c)}`,
  mediumint: (c) => `mediumint${unsigned(c)}`,
  bigint: (c) => `bigint${unsigned(c)}`,
  serial: () => 'serial',
  boolean: () => 'boolean',
  text: () => 'text',
  tinytext: () => 'tinytext',
  mediumtext: () => 'mediumtext',
  longtext: () => 'longtext',
  varchar: (c) => `varchar${args(num(c.length))}`,
  char: (c) => `char${args(num(c.length))}`,
  decimal: (c) => `decimal${args(num(c.precision), num(c.precision) === null ? null : num(c.scale))}${unsigned(c)}`,
  double: (c) => `double${args(num(c.precision), num(c.precision) === null ? null : num(c.scale))}${unsigned(c)}`,
  float: (c) => `float${args(num(c.precision), num(c.precision) === null ? null : num(c.scale))}${unsigned(c)}`,
  real: (c) => `real${args(num(c.precision), num(c.precision) === null ? null : num(c.scale))}`,
  date: () => 'date',
  datetime: (c) => `datetime${args(num(c.fsp))}`,
  timestamp: (c) => `timestamp${args(num(c.fsp))}`,
  time: (c) => `time${args(num(c.fsp))}`,
  year: () => 'year',
  json: () => 'json',
  binary: (c) => `binary${args(num(c.length))}`,
  varbinary: (c) => `varbinary${args(num(c.length))}`,
};

const SQLITE: Record<string, Spell> = {
  integer: () => 'integer',
  int: () => 'integer',
  text: (c) => `text${args(num(c.length))}`,
  real: () => 'real',
  blob: () => 'blob',
  numeric: () => 'numeric',
};

const BUILDERS: Record<SqlDialect, Record<string, Spell>> = { postgres: PG, mysql: MYSQL, sqlite: SQLITE };

/** The SQL type of a builder call, or null when the builder is not one of the dialect's. */
export function builderType(dialect: SqlDialect, builder: string, config: BuilderConfig): string | null {
  const spell = BUILDERS[dialect][builder];
  return spell ? spell(config) : null;
}

export function isColumnBuilder(dialect: SqlDialect, builder: string): boolean {
  return builder in BUILDERS[dialect] || builder === 'mysqlEnum';
}

/** Which dialect a drizzle-orm core module belongs to. */
export const CORE_MODULES: Record<string, SqlDialect> = {
  'drizzle-orm/pg-core': 'postgres',
  'drizzle-orm/mysql-core': 'mysql',
  'drizzle-orm/sqlite-core': 'sqlite',
  'drizzle-orm/singlestore-core': 'mysql',
};

export const TABLE_BUILDERS = new Set(['pgTable', 'mysqlTable', 'sqliteTable', 'singlestoreTable']);
export const TABLE_CREATORS = new Set(['pgTableCreator', 'mysqlTableCreator', 'sqliteTableCreator']);
export const VIEW_BUILDERS = new Set(['pgView', 'pgMaterializedView', 'mysqlView', 'sqliteView']);
export const SCHEMA_BUILDERS = new Set(['pgSchema', 'mysqlSchema']);
/** drizzle-orm names that describe the ORM, not the database: read past without a warning. */
export const ORM_ONLY = new Set(['relations']);
