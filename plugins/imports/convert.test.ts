import { describe, expect, it } from 'vitest';
import type { Column } from '../../engine/schema/model.js';
import type { SourceDialect } from '../connections/provides.js';
import { converterFor, recordConverter } from './convert.js';

const column = (type: string, nativeType: string, more: Partial<Column> = {}): Column =>
  ({ name: 'c', type, nativeType, nullable: true, default: null, autoIncrement: false, maxLength: null, enumValues: null, ...more }) as unknown as Column;

const outcome = (dialect: SourceDialect, col: Column, v: unknown) => {
  try {
    return converterFor(dialect, col)(v);
  } catch (err) {
    return `! ${(err as Error).message}`;
  }
};

describe('converters', () => {
  it('read date-times the same on the quick path as through the pattern', () => {
    const plain = column('datetime', 'timestamp without time zone');
    const zoned = column('datetime', 'timestamp with time zone');
    const cases: Array<[string, SourceDialect, Column, string]> = [
      ['2024-02-29 10:00:00', 'postgres', plain, '2024-02-29 10:00:00'],
      ['2024-02-29T10:00:00', 'postgres', plain, '2024-02-29 10:00:00'],
      ['2024-02-29T10:00:00', 'sqlite', plain, '2024-02-29T10:00:00'],
      ['2023-02-29 10:00:00', 'postgres', plain, '! not a date that exists'],
      ['2024-13-01 10:00:00', 'mysql', plain, '! not a date that exists'],
      ['0050-01-01 10:00:00', 'postgres', plain, '! not a date that exists'],
      ['2024-0a-01 10:00:00', 'postgres', plain, '! not a date-time (YYYY-MM-DD HH:MM[:SS])'],
      [' 2024-01-01 10:00:00 ', 'postgres', plain, '2024-01-01 10:00:00'],
      ['2024-01-01 10:00', 'postgres', plain, '2024-01-01 10:00'],
      ['2024-01-01T10:00:00+02:00', 'postgres', plain, '2024-01-01 08:00:00.000'],
      // A zoned column keeps the offset the file gave.
      ['2024-01-01T10:00:00+02:00', 'postgres', zoned, '2024-01-01 10:00:00+02:00'],
      ['2024-01-01 10:00:00Z', 'postgres', zoned, '2024-01-01 10:00:00Z'],
    ];
    for (const [text, dialect, col, expected] of cases) expect(outcome(dialect, col, text), `${text} (${dialect})`).toBe(expected);
  });

  it('counts a length limit in characters, not UTF-16 units', () => {
    const short = column('string', 'varchar(3)', { maxLength: 3 });
    expect(outcome('postgres', short, '😀😀😀')).toBe('😀😀😀');
    expect(outcome('postgres', short, 'abcd')).toBe('! longer than 3 characters');
  });

  it('converts a record, naming the first column it refuses', () => {
    const convert = recordConverter(
      'postgres',
      [
        { at: 1, column: column('integer', 'integer', { name: 'n' }) },
        { at: 0, column: column('boolean', 'boolean', { name: 'b', nullable: false, default: 'true' }) },
      ],
      'DEFAULT',
    );
    expect(convert(['yes', ' 42 '])).toEqual([42, true]);
    expect(convert(['', '1'])).toEqual([1, 'DEFAULT']);
    expect(convert(['maybe', 'x'])).toBe('n: not a whole number');
  });
});
