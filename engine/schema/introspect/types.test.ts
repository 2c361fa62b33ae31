import { describe, expect, it } from 'vitest';
import { enumValues } from './mysql.js';
import { mysqlType, postgresType, splitTypeArgs, sqliteType } from './types.js';
import { referentialAction, stripOuterParens } from './build.js';

describe('portable types', () => {
  it('maps PostgreSQL type names, enums and arrays', () => {
    expect(postgresType('varchar', 'b')).toBe('string');
    expect(postgresType('int8', 'b')).toBe('bigint');
    expect(postgresType('timestamptz', 'b')).toBe('datetime');
    expect(postgresType('jsonb', 'b')).toBe('json');
    expect(postgresType('mood', 'e')).toBe('enum');
    expect(postgresType('_int4', 'b')).toBe('other');
    expect(postgresType('interval', 'b')).toBe('other');
  });

  it('maps MySQL types, with tinyint(1) and bit(1) as booleans', () => {
    expect(mysqlType('tinyint', 'tinyint(1)')).toBe('boolean');
    expect(mysqlType('tinyint', 'tinyint(4)')).toBe('integer');
    expect(mysqlType('tinyint', 'tinyint(1) unsigned')).toBe('boolean');
    expect(mysqlType('bit', 'bit(1)')).toBe('boolean');
    expect(mysqlType('bit', 'bit(8)')).toBe('other');
    expect(mysqlType('BIGINT', 'bigint(20) unsigned')).toBe('bigint');
    expect(mysqlType('longblob', 'longblob')).toBe('binary');
    expect(mysqlType('set', "set('a')")).toBe('other');
  });

  it('maps SQLite declared types by name, then by affinity', () => {
    expect(sqliteType('INTEGER')).toBe('integer');
    expect(sqliteType('BIGINT')).toBe('bigint');
    expect(sqliteType('VARCHAR(255)')).toBe('string');
    expect(sqliteType('NATIVE CHARACTER(70)')).toBe('string');
    expect(sqliteType('TEXT')).toBe('text');
    expect(sqliteType('datetime')).toBe('datetime');
    expect(sqliteType('boolean')).toBe('boolean');
    expect(sqliteType('json')).toBe('json');
    expect(sqliteType('double precision')).toBe('float');
    expect(sqliteType('FLOATING POINT')).toBe('integer'); // "INT" wins, as in SQLite
    expect(sqliteType('decimal(10, 2)')).toBe('decimal');
    expect(sqliteType('')).toBe('other');
    expect(sqliteType('whatever')).toBe('other');
  });

  it('splits type arguments', () => {
    expect(splitTypeArgs('DECIMAL( 10 , 2 )')).toEqual({ base: 'decimal', args: [10, 2] });
    expect(splitTypeArgs('double  precision')).toEqual({ base: 'double precision', args: [] });
  });

  it('reads MySQL enum values with escaped quotes', () => {
    expect(enumValues(`enum('a','it''s','')`)).toEqual(['a', "it's", '']);
  });

  it('normalises referential actions and outer parentheses', () => {
    expect(referentialAction('SET NULL')).toBe('set null');
    expect(referentialAction('c')).toBe('cascade');
    expect(referentialAction('NO ACTION')).toBe('no action');
    expect(stripOuterParens('((a > 0))')).toBe('a > 0');
    expect(stripOuterParens('(a) and (b)')).toBe('(a) and (b)');
  });
});
