import type { PortableType } from '../../../engine/schema/model.js';
import { mysqlType, postgresType, splitTypeArgs, sqliteType } from '../../../engine/schema/introspect/types.js';

/**
 * A native type as a file spells it, read the way introspection reads the same column from the
 * database: the spelling is canonicalised to what the catalog reports (PostgreSQL
 * `format_type`, MySQL `COLUMN_TYPE`, SQLite the declared type), and the portable type comes
 * from introspection's own mapping (engine/schema/introspect/types.ts), so an imported file
 * and the database it creates describe a column alike.
 */
export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';

export interface NativeTypeInfo {
  /** Canonical lower-case spelling (`character varying(255)`, `int unsigned`, `enum('a','b')`). */
  nativeType: string;
  type: PortableType;
  /** As introspection fills them: maxLength for string types, precision and scale for decimals. */
  maxLength: number | null;
  precision: number | null;
  scale: number | null;
  enumValues: string[] | null;
  /** The spelling itself means "filled by the database" (serial, bigserial, MySQL SERIAL). */
  autoIncrement: boolean;
}

export interface DescribeOptions {
  /** Values of a named enum type (PostgreSQL `CREATE TYPE … AS ENUM`), or null when the name is not one. */
  enumValues?: (name: string) => string[] | null;
  /** The base type of a named domain (PostgreSQL `CREATE DOMAIN`), or null. */
  domainBase?: (name: string) => string | null;
}

interface Spelling {
  /** Type words without arguments, lower-cased unless they were quoted. */
  words: string[];
  /** Arguments of the first parenthesised group: numbers as written, strings unquoted. */
  args: string[];
  hasArgs: boolean;
  array: boolean;
  quoted: boolean;
}

/** Splits `timestamp(3) with time zone`, `enum('a','it''s')`, `"Role"[]`, `int(11) unsigned`. */
function readSpelling(text: string): Spelling {
  const out: Spelling = { words: [], args: [], hasArgs: false, array: false, quoted: false };
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (/\s/.test(c) || c === ',') {
      i++;
    } else if (c === '"' || c === '`') {
      let j = i + 1;
      let word = '';
      while (j < n) {
        if (text[j] === c) {
          if (text[j + 1] === c) {
            word += c;
            j += 2;
            continue;
          }
          break;
        }
        word += text[j++];
      }
      out.words.push(word);
      out.quoted = true;
      i = j + 1;
    } else if (c === '(') {
      let j = i + 1;
      const args: string[] = [];
      let current = '';
      let depth = 1;
      while (j < n && depth > 0) {
        const d = text[j]!;
        if (d === "'") {
          let k = j + 1;
          let s = '';
          while (k < n) {
            if (text[k] === '\\' && k + 1 < n) {
              s += text[k + 1];
              k += 2;
              continue;
            }
            if (text[k] === "'") {
              if (text[k + 1] === "'") {
                s += "'";
                k += 2;
                continue;
              }
              break;
            }
            s += text[k++];
          }
          current += '\u0000' + s;
          j = k + 1;
          continue;
        }
        if (d === '(') depth++;
        if (d === ')') depth--;
        if (depth === 0) break;
        if (d === ',' && depth === 1) {
          args.push(current.trim());
          current = '';
        } else current += d;
        j++;
      }
      if (current.trim() !== '') args.push(current.trim());
      if (!out.hasArgs) {
        out.hasArgs = true;
        out.args = args.map((a) => (a.startsWith('\u0000') ? a.slice(1) : a));
      }
      i = j + 1;
    } else if (c === '[') {
      const close = text.indexOf(']', i);
      out.array = true;
      i = close < 0 ? n : close + 1;
    } else {
      let j = i;
      while (j < n && !/[\s(,[\]"`]/.test(text[j]!)) j++;
      const word = text.slice(i, j).toLowerCase();
      if (word === 'array') out.array = true;
      else out.words.push(word);
      i = j;
    }
  }
  return out;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined || !/^\d+$/.test(s.trim())) return null;
  return Number(s.trim());
};

const quoteString = (s: string) => `'${s.replace(/'/g, "''")}'`;

interface Canonical {
  nativeType: string;
  /** What the catalog calls the type, for the portable mapping (pg typname, MySQL DATA_TYPE). */
  catalogName: string;
  maxLength?: number | null;
  precision?: number | null;
  scale?: number | null;
  enumValues?: string[] | null;
  autoIncrement?: boolean;
  isEnum?: boolean;
}

function postgresCanonical(sp: Spelling, raw: string, opts: DescribeOptions, depth: number): Canonical {
  const name = sp.words.join(' ');
  const first = sp.words[0] ?? '';
  const a0 = num(sp.args[0]);
  const a1 = num(sp.args[1]);
  const p = sp.hasArgs ? `(${sp.args.join(',')})` : '';
  const zone = / with time zone$/.test(name) ? ' with time zone' : ' without time zone';
  const simple: Record<string, [string, string]> = {
    int: ['integer', 'int4'],
    int4: ['integer', 'int4'],
    integer: ['integer', 'int4'],
    int2: ['smallint', 'int2'],
    smallint: ['smallint', 'int2'],
    int8: ['bigint', 'int8'],
    bigint: ['bigint', 'int8'],
    float4: ['real', 'float4'],
    real: ['real', 'float4'],
    float8: ['double precision', 'float8'],
    'double precision': ['double precision', 'float8'],
    bool: ['boolean', 'bool'],
    boolean: ['boolean', 'bool'],
    text: ['text', 'text'],
    citext: ['citext', 'citext'],
    name: ['name', 'name'],
    date: ['date', 'date'],
    json: ['json', 'json'],
    jsonb: ['jsonb', 'jsonb'],
    uuid: ['uuid', 'uuid'],
    bytea: ['bytea', 'bytea'],
    money: ['money', 'money'],
  };
  const serials: Record<string, [string, string]> = {
    serial: ['integer', 'int4'],
    serial4: ['integer', 'int4'],
    smallserial: ['smallint', 'int2'],
    serial2: ['smallint', 'int2'],
    bigserial: ['bigint', 'int8'],
    serial8: ['bigint', 'int8'],
  };
  if (simple[name]) return { nativeType: simple[name][0], catalogName: simple[name][1] };
  if (serials[name]) return { nativeType: serials[name][0], catalogName: serials[name][1], autoIncrement: true };
  if (name === 'float')
    return a0 !== null && a0 <= 24 ? { nativeType: 'real', catalogName: 'float4' } : { nativeType: 'double precision', catalogName: 'float8' };
  if (name === 'numeric' || name === 'decimal') {
    if (a0 === null) return { nativeType: 'numeric', catalogName: 'numeric' };
    return { nativeType: `numeric(${a0},${a1 ?? 0})`, catalogName: 'numeric', precision: a0, scale: a1 ?? 0 };
  }
  if (['varchar', 'character varying', 'char varying', 'national character varying'].includes(name)) {
    return { nativeType: a0 === null ? 'character varying' : `character varying(${a0})`, catalogName: 'varchar', maxLength: a0 };
  }
  if (['char', 'character', 'national character', 'nchar'].includes(name)) {
    // CHAR without a length is CHAR(1).
    return { nativeType: `character(${a0 ?? 1})`, catalogName: 'bpchar', maxLength: a0 ?? 1 };
  }
  if (name === 'bpchar') return { nativeType: a0 === null ? 'bpchar' : `character(${a0})`, catalogName: 'bpchar', maxLength: a0 };
  if (first === 'timestamptz') return { nativeType: `timestamp${p} with time zone`, catalogName: 'timestamptz' };
  if (first === 'timestamp' && (name === 'timestamp' || name.startsWith('timestamp with'))) {
    return { nativeType: `timestamp${p}${zone}`, catalogName: zone === ' with time zone' ? 'timestamptz' : 'timestamp' };
  }
  if (first === 'timetz') return { nativeType: `time${p} with time zone`, catalogName: 'timetz' };
  if (first === 'time' && (name === 'time' || name.startsWith('time with')))
    return { nativeType: `time${p}${zone}`, catalogName: zone === ' with time zone' ? 'timetz' : 'time' };
  if (first === 'interval') return { nativeType: raw.trim().toLowerCase().replace(/\s+/g, ' '), catalogName: 'interval' };
  if (name === 'bit varying' || name === 'varbit') return { nativeType: `bit varying${p}`, catalogName: 'varbit' };
  if (name === 'bit') return { nativeType: `bit(${a0 ?? 1})`, catalogName: 'bit' };
  // A user type, possibly schema-qualified (`public.status`, `public."Role"`): looked up by its own name.
  const own = (sp.words[sp.words.length - 1] ?? raw).split('.').filter(Boolean).pop() ?? raw;
  const values = opts.enumValues?.(own) ?? null;
  if (values) return { nativeType: own, catalogName: own, enumValues: [...values], isEnum: true };
  const base = depth < 8 ? (opts.domainBase?.(own) ?? null) : null;
  if (base) return { ...postgresCanonical(readSpelling(base), base, opts, depth + 1), nativeType: own };
  return { nativeType: own === name ? `${name}${p}` : `${own}${p}`, catalogName: own };
}

function mysqlCanonical(sp: Spelling, raw: string): Canonical {
  const attrs = sp.words.filter((w) => w === 'unsigned' || w === 'zerofill');
  const words = sp.words.filter((w) => w !== 'unsigned' && w !== 'zerofill' && w !== 'signed');
  const name = words.join(' ');
  const suffix = attrs.length ? ' ' + attrs.join(' ') : '';
  const a0 = num(sp.args[0]);
  const a1 = num(sp.args[1]);
  const width = sp.hasArgs ? `(${sp.args.join(',')})` : '';
  const ints: Record<string, string> = {
    int: 'int',
    integer: 'int',
    int4: 'int',
    tinyint: 'tinyint',
    int1: 'tinyint',
    smallint: 'smallint',
    int2: 'smallint',
    mediumint: 'mediumint',
    int3: 'mediumint',
    middleint: 'mediumint',
    bigint: 'bigint',
    int8: 'bigint',
  };
  if (name === 'bool' || name === 'boolean') return { nativeType: 'tinyint(1)', catalogName: 'tinyint' };
  if (ints[name]) return { nativeType: `${ints[name]}${width}${suffix}`, catalogName: ints[name] };
  if (name === 'serial') return { nativeType: 'bigint unsigned', catalogName: 'bigint', autoIncrement: true };
  if (['decimal', 'dec', 'numeric', 'fixed'].includes(name)) {
    const p = a0 ?? 10;
    const s = a1 ?? 0;
    return { nativeType: `decimal(${p},${s})${suffix}`, catalogName: 'decimal', precision: p, scale: s };
  }
  if (name === 'float' && a0 !== null && sp.args.length === 1)
    return a0 <= 24 ? { nativeType: `float${suffix}`, catalogName: 'float' } : { nativeType: `double${suffix}`, catalogName: 'double' };
  if (name === 'float' || name === 'float4') return { nativeType: `float${name === 'float' ? width : ''}${suffix}`, catalogName: 'float' };
  if (['double', 'double precision', 'real', 'float8'].includes(name)) return { nativeType: `double${width}${suffix}`, catalogName: 'double' };
  if (['varchar', 'character varying', 'char varying', 'nvarchar', 'national varchar', 'national character varying'].includes(name)) {
    return { nativeType: a0 === null ? 'varchar' : `varchar(${a0})`, catalogName: 'varchar', maxLength: a0 };
  }
  if (['char', 'character', 'nchar', 'national char', 'national character'].includes(name))
    return { nativeType: `char(${a0 ?? 1})`, catalogName: 'char', maxLength: a0 ?? 1 };
  if (['tinytext', 'text', 'mediumtext', 'longtext'].includes(name)) return { nativeType: name, catalogName: name };
  if (name === 'long varchar' || name === 'long') return { nativeType: 'mediumtext', catalogName: 'mediumtext' };
  if (name === 'binary' || name === 'varbinary') {
    const len = a0 ?? (name === 'binary' ? 1 : null);
    return { nativeType: len === null ? name : `${name}(${len})`, catalogName: name };
  }
  if (name === 'long varbinary') return { nativeType: 'mediumblob', catalogName: 'mediumblob' };
  if (name === 'bit') return { nativeType: `bit(${a0 ?? 1})`, catalogName: 'bit' };
  if (name === 'datetime' || name === 'timestamp' || name === 'time') return { nativeType: `${name}${width}`, catalogName: name };
  if (name === 'enum') return { nativeType: `enum(${sp.args.map(quoteString).join(',')})`, catalogName: 'enum', enumValues: [...sp.args], isEnum: true };
  if (name === 'set') return { nativeType: `set(${sp.args.map(quoteString).join(',')})`, catalogName: 'set' };
  const spelled = raw
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/\s*\(\s*/g, '(')
    .replace(/\s*,\s*/g, ',')
    .replace(/\s*\)/g, ')');
  return { nativeType: spelled, catalogName: words[0] ?? spelled };
}

/** Reads a native type spelling (`VARCHAR(255)`, `int4`, `serial`, `enum('a','b')`) into its model form. */
export function describeNativeType(dialect: SqlDialect, spelled: string, opts: DescribeOptions = {}): NativeTypeInfo {
  const sp = readSpelling(spelled);
  if (dialect === 'sqlite') {
    // SQLite keeps the declared spelling; introspection reports it lower-cased.
    const declared = spelled.trim().toLowerCase();
    const type = sqliteType(declared);
    const { args } = splitTypeArgs(declared);
    return {
      nativeType: declared,
      type,
      maxLength: type === 'string' ? (args[0] ?? null) : null,
      precision: type === 'decimal' ? (args[0] ?? null) : null,
      scale: type === 'decimal' ? (args[1] ?? (args[0] === undefined ? null : 0)) : null,
      enumValues: null,
      autoIncrement: false,
    };
  }
  const c = dialect === 'postgres' ? postgresCanonical(sp, spelled, opts, 0) : mysqlCanonical(sp, spelled);
  if (dialect === 'postgres' && sp.array) {
    return {
      nativeType: `${c.nativeType}[]`,
      type: postgresType(`_${c.catalogName}`, 'b'),
      maxLength: null,
      precision: null,
      scale: null,
      enumValues: null,
      autoIncrement: false,
    };
  }
  const type = dialect === 'postgres' ? postgresType(c.catalogName, c.isEnum ? 'e' : 'b') : mysqlType(c.catalogName, c.nativeType);
  return {
    nativeType: c.nativeType,
    type,
    maxLength: type === 'string' ? (c.maxLength ?? null) : null,
    precision: type === 'decimal' ? (c.precision ?? null) : null,
    scale: type === 'decimal' ? (c.scale ?? null) : null,
    enumValues: type === 'enum' ? (c.enumValues ?? []) : null,
    autoIncrement: c.autoIncrement ?? false,
  };
}
