import { describe, expect, it } from 'vitest';
import { col, idCol, tbl } from './testing.js';
import { isoDatetime, normaliseDatetime, padScale, parseText, parseWire } from './codec.js';
import { TokenSigner } from '../../kernel/crypto.js';
import { decodeRowCursor, encodeRowCursor } from './cursor.js';
import { rowDialect } from './dialects/index.js';
import { likePattern, parseListParams } from './query-params.js';
import { parseRecordId, recordIdOf } from './record-id.js';
import { RowInputError } from './types.js';

const issuesOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof RowInputError) return err.issues;
    throw err;
  }
  throw new Error('expected a RowInputError');
};

describe('wire values', () => {
  it('keeps bigints and decimals exact, as strings', () => {
    expect(parseWire(col('n', 'bigint'), '9007199254740993', 'p')).toBe('9007199254740993');
    expect(parseWire(col('n', 'bigint'), 42, 'p')).toBe('42');
    expect(() => parseWire(col('n', 'bigint'), 2 ** 60, 'p')).toThrow(RowInputError);
    expect(parseWire(col('d', 'decimal'), '12345678901234567890.123456789', 'p')).toBe('12345678901234567890.123456789');
    expect(parseWire(col('d', 'decimal'), 1.5, 'p')).toBe('1.5');
    expect(() => parseWire(col('d', 'decimal'), '1e5', 'p')).toThrow(RowInputError);
  });

  it('checks booleans, dates, times, enums, lengths and binary', () => {
    expect(parseWire(col('b', 'boolean'), false, 'p')).toBe(false);
    expect(() => parseWire(col('b', 'boolean'), 0, 'p')).toThrow(RowInputError);
    expect(parseWire(col('d', 'date'), '2024-02-29', 'p')).toBe('2024-02-29');
    expect(() => parseWire(col('d', 'date'), '2023-02-29', 'p')).toThrow(RowInputError);
    expect(parseWire(col('t', 'time'), '07:30:00', 'p')).toBe('07:30:00');
    expect(issuesOf(() => parseWire(col('s', 'enum', { enumValues: ['a', 'b'] }), 'c', 'body.values.s'))).toEqual([
      { path: 'body.values.s', message: 'Expected one of a, b.' },
    ]);
    expect(() => parseWire(col('s', 'string', { maxLength: 3 }), 'größe', 'p')).toThrow(RowInputError);
    expect(parseWire(col('s', 'string', { maxLength: 5 }), 'größe', 'p')).toBe('größe');
    expect(parseWire(col('bin', 'binary'), { $binary: Buffer.from([0, 255]).toString('base64') }, 'p')).toEqual(Buffer.from([0, 255]));
    expect(() => parseWire(col('bin', 'binary'), 'AP8=', 'p')).toThrow(RowInputError);
    expect(parseWire(col('j', 'json'), { a: [1, null] }, 'p')).toBe('{"a":[1,null]}');
    expect(parseWire(col('j', 'json'), null, 'p')).toBeNull();
  });

  it('takes date-times with or without a zone and stores them as naive UTC', () => {
    expect(normaliseDatetime('2024-03-01T10:00:00+02:00')).toBe('2024-03-01 08:00:00');
    expect(normaliseDatetime('2024-03-01T00:30:00.120-01:30')).toBe('2024-03-01 02:00:00.12');
    expect(normaliseDatetime('2024-03-01 10:00')).toBe('2024-03-01 10:00:00');
    expect(normaliseDatetime('2024-03-01')).toBe('2024-03-01 00:00:00');
    expect(normaliseDatetime('2024-03-01T24:00:00')).toBeNull();
    expect(isoDatetime('2024-03-01 08:00:00.120000')).toBe('2024-03-01T08:00:00.12');
    expect(isoDatetime('2024-03-01T08:00:00.000000Z')).toBe('2024-03-01T08:00:00Z');
    expect(padScale('5', 2)).toBe('5.00');
    expect(padScale('12.3', 2)).toBe('12.30');
  });

  it('reads query-string values by type', () => {
    expect(parseText(col('b', 'boolean'), 'true', 'p')).toBe(true);
    expect(parseText(col('b', 'boolean'), '0', 'p')).toBe(false);
    expect(parseText(col('n', 'integer'), '17', 'p')).toBe(17);
    expect(() => parseText(col('j', 'json'), '{}', 'p')).toThrow(RowInputError);
  });

  it('binds per dialect: SQLite 0/1 and BigInt, PostgreSQL timestamptz in UTC', () => {
    expect(rowDialect('sqlite').bind(col('b', 'boolean'), true)).toBe(1);
    expect(rowDialect('sqlite').bind(col('n', 'bigint'), '9007199254740993')).toBe(9007199254740993n);
    expect(rowDialect('postgres').bind(col('t', 'datetime', { nativeType: 'timestamp with time zone' }), '2024-03-01 08:00:00')).toBe('2024-03-01T08:00:00Z');
    expect(rowDialect('mysql').toWire(col('b', 'boolean'), 1)).toBe(true);
    expect(rowDialect('mysql').toWire(col('j', 'json'), '"text"')).toBe('text');
    expect(rowDialect('sqlite').toWire(col('d', 'decimal', { scale: 2 }), '5')).toBe('5.00');
    expect(rowDialect('postgres').toWire(col('bin', 'binary'), Buffer.from('hi'))).toEqual({ $binary: 'aGk=' });
  });
});

describe('record ids', () => {
  const single = tbl('t', [idCol(), col('name')]);
  const composite = tbl('oi', [col('order_id', 'integer', { nullable: false }), col('line_no', 'integer', { nullable: false })], {
    primaryKey: { name: null, columns: ['order_id', 'line_no'] },
  });

  it('is the value itself for a single-column key and base64url JSON for a composite one', () => {
    expect(recordIdOf(single, { id: 42, name: 'x' })).toBe('42');
    expect(parseRecordId(single, '42', 'params.recordId')).toEqual([42]);
    const id = recordIdOf(composite, { order_id: 7, line_no: 2 })!;
    expect(JSON.parse(Buffer.from(id, 'base64url').toString())).toEqual([7, 2]);
    expect(parseRecordId(composite, id, 'params.recordId')).toEqual([7, 2]);
    expect(issuesOf(() => parseRecordId(composite, '7', 'params.recordId'))[0]!.path).toBe('params.recordId');
    expect(() => parseRecordId(single, 'abc', 'params.recordId')).toThrow(RowInputError);
    expect(recordIdOf(tbl('v', [col('a')]), { a: 1 })).toBeNull();
  });
});

describe('list parameters', () => {
  const table = tbl('p', [idCol(), col('name'), col('stock', 'integer'), col('secret'), col('doc', 'json')]);
  const readable = new Set(['id', 'name', 'stock', 'doc']);
  const parse = (q: Record<string, unknown>) => parseListParams(q, { table, readable });

  it('reads filters, sort, fields, search and limit', () => {
    const p = parse({
      'filter[name][like]': 'a\\%b%',
      'filter[stock]': '3',
      'filter[stock][in]': '1,2',
      sort: '-stock,name',
      fields: 'name',
      search: 'x',
      limit: '10',
    });
    expect(p.filters.map((f) => f.op)).toEqual(['like', 'eq', 'in']);
    expect(p.filters[0]).toMatchObject({ pattern: 'a!%b%' });
    expect(p.sort.map((k) => [k.column.name, k.desc])).toEqual([
      ['stock', true],
      ['name', false],
    ]);
    expect(p.fields!.map((c) => c.name)).toEqual(['name']);
    expect(p.limit).toBe(10);
  });

  it('refuses, naming the parameter, what the caller may not read and what makes no sense', () => {
    const issues = issuesOf(() =>
      parse({
        'filter[secret][eq]': 'x',
        sort: 'secret',
        'filter[stock][like]': '1',
        'filter[doc][eq]': '{}',
        'filter[name][has]': 'x',
        limit: '501',
        other: '1',
      }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(
      [
        'query.filter[doc][eq]',
        'query.filter[name][has]',
        'query.filter[secret][eq]',
        'query.filter[stock][like]',
        'query.limit',
        'query.other',
        'query.sort',
      ].sort(),
    );
    expect(parse({ 'filter[doc][null]': 'true' }).filters[0]).toMatchObject({ op: 'null', isNull: true });
  });

  it('turns like escapes into the ! escape', () => {
    expect(likePattern('50\\% off!')).toBe('50!% off!!');
    expect(likePattern('a_b')).toBe('a_b');
  });
});

describe('cursors', () => {
  const signing = { signer: new TokenSigner('s'.repeat(40), 'test.cursor'), context: 'shop.products' };
  it('round-trips raw values, Buffers and BigInts included, and refuses another sort or a forged one', () => {
    const c = encodeRowCursor({ sort: '-name', keys: ['x', null, Buffer.from([1, 2]), 9223372036854775807n] }, signing);
    expect(decodeRowCursor(c, '-name', 4, 'query.cursor', signing)).toEqual({ sort: '-name', keys: ['x', null, Buffer.from([1, 2]), 9223372036854775807n] });
    expect(issuesOf(() => decodeRowCursor(c, 'name', 4, 'query.cursor', signing))[0]!.path).toBe('query.cursor');
    expect(() => decodeRowCursor('bm90IGpzb24', '', 1, 'query.cursor', signing)).toThrow(RowInputError);
    expect(() => decodeRowCursor(c, '-name', 2, 'query.cursor', signing)).toThrow(RowInputError);
    expect(() => decodeRowCursor(c, '-name', 4, 'query.cursor', { ...signing, context: 'shop.orders' })).toThrow(RowInputError);
    const unsigned = c.split('.')[0]!;
    expect(() => decodeRowCursor(unsigned, '-name', 4, 'query.cursor', signing)).toThrow(RowInputError);
  });
  it('refuses, even when signed, a value no database select gives back', () => {
    const raw = (k: unknown[]) => signing.signer.sign(Buffer.from(JSON.stringify({ s: '', k })).toString('base64url'), signing.context);
    for (const bad of [[{ a: 1 }], [[1]], [{ $b: 'AA', x: 1 }], [{ $n: '1e5' }]])
      expect(() => decodeRowCursor(raw(bad), '', 1, 'query.cursor', signing)).toThrow(RowInputError);
  });
  it('hands out a kept cursor only for the same signer, context, sort and key, of the same type', () => {
    const other = { signer: new TokenSigner('t'.repeat(40), 'test.cursor'), context: 'shop.products' };
    const made = new Set<string>();
    for (const [sort, key, using] of [
      ['', 7, signing],
      ['', '7', signing],
      ['-name', 7, signing],
      ['', 7, { ...signing, context: 'shop.orders' }],
      ['', 7, other],
    ] as const) {
      const first = encodeRowCursor({ sort, keys: [key] }, using);
      // Asked again (kept now), the same cursor, which opens as the key it was made for, with its type.
      expect(encodeRowCursor({ sort, keys: [key] }, using)).toBe(first);
      expect(decodeRowCursor(first, sort, 1, 'query.cursor', using)).toEqual({ sort, keys: [key] });
      made.add(first);
    }
    expect(made.size).toBe(5);
  });
});
