import type { PortableType } from '../model.js';

/** PostgreSQL, by pg_type.typname of the column's type (its base type for a domain). */
const POSTGRES: Record<string, PortableType> = {
  varchar: 'string',
  bpchar: 'string',
  char: 'string',
  name: 'string',
  text: 'text',
  citext: 'text',
  int2: 'integer',
  int4: 'integer',
  int8: 'bigint',
  numeric: 'decimal',
  float4: 'float',
  float8: 'float',
  bool: 'boolean',
  date: 'date',
  timestamp: 'datetime',
  timestamptz: 'datetime',
  time: 'time',
  timetz: 'time',
  json: 'json',
  jsonb: 'json',
  uuid: 'uuid',
  bytea: 'binary',
};

/** `typtype` 'e' is an enum type; arrays (`_int4`) and everything unlisted are 'other'. */
export function postgresType(typname: string, typtype: string): PortableType {
  if (typtype === 'e') return 'enum';
  return POSTGRES[typname] ?? 'other';
}

/** MySQL and MariaDB, by information_schema.COLUMNS.DATA_TYPE (and COLUMN_TYPE for tinyint(1), bit(1)). */
const MYSQL: Record<string, PortableType> = {
  char: 'string',
  varchar: 'string',
  tinytext: 'text',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  tinyint: 'integer',
  smallint: 'integer',
  mediumint: 'integer',
  int: 'integer',
  integer: 'integer',
  bigint: 'bigint',
  decimal: 'decimal',
  numeric: 'decimal',
  float: 'float',
  double: 'float',
  real: 'float',
  bool: 'boolean',
  boolean: 'boolean',
  date: 'date',
  datetime: 'datetime',
  timestamp: 'datetime',
  time: 'time',
  json: 'json',
  uuid: 'uuid', // MariaDB 10.7+
  binary: 'binary',
  varbinary: 'binary',
  tinyblob: 'binary',
  blob: 'binary',
  mediumblob: 'binary',
  longblob: 'binary',
  enum: 'enum',
};

export function mysqlType(dataType: string, columnType: string): PortableType {
  const ct = columnType.toLowerCase();
  // BOOLEAN is stored as tinyint(1); MySQL 8.0.19+ drops every other display width but keeps this one.
  if (/^tinyint\(1\)/.test(ct) || /^bit\(1\)$/.test(ct)) return 'boolean';
  return MYSQL[dataType.toLowerCase()] ?? 'other';
}

/** SQLite declared type names that name a portable type outright, before the affinity rules. */
const SQLITE_NAMES: Record<string, PortableType> = {
  boolean: 'boolean',
  bool: 'boolean',
  date: 'date',
  datetime: 'datetime',
  timestamp: 'datetime',
  timestamptz: 'datetime',
  'timestamp with time zone': 'datetime',
  'timestamp without time zone': 'datetime',
  time: 'time',
  json: 'json',
  jsonb: 'json',
  uuid: 'uuid',
  guid: 'uuid',
  bigint: 'bigint',
  int8: 'bigint',
  'unsigned big int': 'bigint',
  decimal: 'decimal',
  numeric: 'decimal',
  float: 'float',
  double: 'float',
  'double precision': 'float',
  real: 'float',
  blob: 'binary',
  bytea: 'binary',
  binary: 'binary',
  varbinary: 'binary',
  text: 'text',
  clob: 'text',
};

/**
 * SQLite stores any declared type name; map well-known names first, then follow SQLite's own
 * affinity rules (https://sqlite.org/datatype3.html §3.1) so an unknown name lands where SQLite
 * would put its values.
 */
export function sqliteType(declared: string): PortableType {
  const base = splitTypeArgs(declared).base;
  if (base === '') return 'other';
  const named = SQLITE_NAMES[base];
  if (named) return named;
  if (base.includes('int')) return 'integer';
  if (base.includes('char')) return 'string';
  if (base.includes('clob') || base.includes('text')) return 'text';
  if (base.includes('blob')) return 'binary';
  if (base.includes('real') || base.includes('floa') || base.includes('doub')) return 'float';
  return 'other';
}

/** `VARCHAR(255)` → { base: 'varchar', args: [255] }; `decimal( 10, 2 )` → { base: 'decimal', args: [10, 2] }. */
export function splitTypeArgs(declared: string): { base: string; args: number[] } {
  const m = /^([^(]*?)\s*(?:\(([^)]*)\))?\s*$/.exec(declared.trim().toLowerCase());
  if (!m) return { base: declared.trim().toLowerCase().replace(/\s+/g, ' '), args: [] };
  const args = (m[2] ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map(Number)
    .filter((n) => Number.isInteger(n));
  return { base: (m[1] ?? '').replace(/\s+/g, ' '), args };
}
