import { describe, expect, it } from 'vitest';
import { describeNativeType } from './native-types.js';

const d = describeNativeType;

describe('native types read like introspection reads them', () => {
  it('canonicalises PostgreSQL spellings to format_type', () => {
    expect(d('postgres', 'VARCHAR(255)')).toMatchObject({ nativeType: 'character varying(255)', type: 'string', maxLength: 255 });
    expect(d('postgres', 'int4')).toMatchObject({ nativeType: 'integer', type: 'integer' });
    expect(d('postgres', 'int8')).toMatchObject({ nativeType: 'bigint', type: 'bigint' });
    expect(d('postgres', 'serial')).toMatchObject({ nativeType: 'integer', type: 'integer', autoIncrement: true });
    expect(d('postgres', 'bigserial')).toMatchObject({ nativeType: 'bigint', autoIncrement: true });
    expect(d('postgres', 'timestamptz(3)')).toMatchObject({ nativeType: 'timestamp(3) with time zone', type: 'datetime' });
    expect(d('postgres', 'timestamp')).toMatchObject({ nativeType: 'timestamp without time zone', type: 'datetime' });
    expect(d('postgres', 'time with time zone')).toMatchObject({ nativeType: 'time with time zone', type: 'time' });
    expect(d('postgres', 'decimal(10, 2)')).toMatchObject({ nativeType: 'numeric(10,2)', type: 'decimal', precision: 10, scale: 2 });
    expect(d('postgres', 'numeric')).toMatchObject({ nativeType: 'numeric', precision: null, scale: null });
    expect(d('postgres', 'char')).toMatchObject({ nativeType: 'character(1)', maxLength: 1 });
    expect(d('postgres', 'float8')).toMatchObject({ nativeType: 'double precision', type: 'float' });
    expect(d('postgres', 'bool')).toMatchObject({ nativeType: 'boolean', type: 'boolean' });
    expect(d('postgres', 'jsonb')).toMatchObject({ type: 'json' });
    expect(d('postgres', 'bytea')).toMatchObject({ type: 'binary' });
    expect(d('postgres', 'integer[]')).toMatchObject({ nativeType: 'integer[]', type: 'other' });
    expect(d('postgres', 'money')).toMatchObject({ type: 'other' });
    expect(d('postgres', 'inet')).toMatchObject({ nativeType: 'inet', type: 'other' });
  });

  it('resolves PostgreSQL enums and domains by name, qualified or quoted', () => {
    const opts = { enumValues: (n: string) => (n === 'Role' ? ['A', 'B'] : null), domainBase: (n: string) => (n === 'email' ? 'citext' : null) };
    expect(d('postgres', 'public."Role"', opts)).toMatchObject({ nativeType: 'Role', type: 'enum', enumValues: ['A', 'B'] });
    expect(d('postgres', 'public.email', opts)).toMatchObject({ nativeType: 'email', type: 'text' });
  });

  it('canonicalises MySQL spellings to COLUMN_TYPE', () => {
    expect(d('mysql', 'BOOLEAN')).toMatchObject({ nativeType: 'tinyint(1)', type: 'boolean' });
    expect(d('mysql', 'int(11) unsigned')).toMatchObject({ nativeType: 'int(11) unsigned', type: 'integer' });
    expect(d('mysql', 'INTEGER')).toMatchObject({ nativeType: 'int', type: 'integer' });
    expect(d('mysql', 'numeric')).toMatchObject({ nativeType: 'decimal(10,0)', precision: 10, scale: 0 });
    expect(d('mysql', "ENUM('a','it''s')")).toMatchObject({ nativeType: "enum('a','it''s')", type: 'enum', enumValues: ['a', "it's"] });
    expect(d('mysql', 'serial')).toMatchObject({ nativeType: 'bigint unsigned', autoIncrement: true });
    expect(d('mysql', 'bit(1)')).toMatchObject({ type: 'boolean' });
    expect(d('mysql', 'longtext')).toMatchObject({ type: 'text' });
    expect(d('mysql', 'varbinary(16)')).toMatchObject({ type: 'binary', maxLength: null });
    expect(d('mysql', 'datetime(3)')).toMatchObject({ nativeType: 'datetime(3)', type: 'datetime' });
    expect(d('mysql', 'year')).toMatchObject({ type: 'other' });
  });

  it('keeps the SQLite declared type and follows its affinity rules', () => {
    expect(d('sqlite', 'VARCHAR(40)')).toMatchObject({ nativeType: 'varchar(40)', type: 'string', maxLength: 40 });
    expect(d('sqlite', 'INTEGER')).toMatchObject({ nativeType: 'integer', type: 'integer' });
    expect(d('sqlite', 'decimal(10, 2)')).toMatchObject({ type: 'decimal', precision: 10, scale: 2 });
    expect(d('sqlite', 'FLOATING POINT')).toMatchObject({ type: 'integer' });
    expect(d('sqlite', '')).toMatchObject({ nativeType: '', type: 'other' });
  });
});
