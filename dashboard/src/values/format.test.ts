import { describe, expect, it } from 'vitest';
import {
  base64Size,
  exactText,
  formatBytes,
  formatDate,
  formatDatetime,
  formatDecimalText,
  formatNumber,
  formatTime,
  jsonPreview,
  shortUuid,
  showValue,
  type ValueColumn,
} from './format';
import { recordIdText, recordIdValues, rowName } from './row-name';

const BERLIN = { locale: 'de-DE', timeZone: 'Europe/Berlin' };
const NEW_YORK = { locale: 'en-US', timeZone: 'America/New_York' };
const YES_NO = { yes: 'Yes', no: 'No' };
const col = (type: ValueColumn['type'], nativeType = type as string, extra: Partial<ValueColumn> = {}): ValueColumn => ({
  name: 'c',
  type,
  nativeType,
  scale: null,
  ...extra,
});
/** base64url of a JSON array, as engine/rows/record-id.ts encodes a composite key. */
const encodedId = (parts: unknown[]) => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

describe('decimals are grouped exactly, never through a float', () => {
  it('keeps every digit of a value no double can hold', () => {
    expect(formatDecimalText('12345678901234567890.123456789012345678', 'en-US')).toBe('12,345,678,901,234,567,890.123456789012345678');
    expect(formatDecimalText('0.1', 'en-US')).toBe('0.1');
    expect(formatDecimalText('9007199254740993', 'en-US')).toBe('9,007,199,254,740,993');
  });

  it('uses the locale’s separators, grouping, minus sign and digits', () => {
    expect(formatDecimalText('-1234567.50', 'de-DE')).toBe('-1.234.567,50');
    expect(formatDecimalText('1234567.05', 'en-IN')).toBe('12,34,567.05');
    expect(formatDecimalText('12345.6', 'ar-EG')).toBe('١٢٬٣٤٥٫٦');
    expect(formatDecimalText('-0.00', 'en-US')).toBe('0.00');
    expect(formatDecimalText('+5', 'en-US')).toBe('5');
  });

  it('answers text that is not a decimal as it is', () => {
    expect(formatDecimalText('NaN', 'en-US')).toBe('NaN');
    expect(formatDecimalText('1e5', 'en-US')).toBe('1e5');
  });

  it('shows a float by its shortest text, not as 17 digits', () => {
    expect(formatNumber(0.1 + 0.2, 'en-US')).toBe('0.30000000000000004');
    expect(formatNumber(1234.5, 'de-DE')).toBe('1.234,5');
    expect(formatNumber(1e21, 'en-US')).toBe('1,000,000,000,000,000,000,000');
  });
});

describe('times in the person’s zone and locale', () => {
  it('shows an instant in the person’s zone, with the zone’s name', () => {
    expect(formatDatetime('2026-11-27T20:14:36.747208Z', BERLIN)).toBe('27. Nov. 2026, 21:14:36 MEZ');
    expect(formatDatetime('2026-11-27T20:14:36.747208Z', NEW_YORK)).toBe('Nov 27, 2026, 3:14:36 PM EST');
    expect(formatDatetime('2026-07-01T12:00:00+02:00', BERLIN)).toBe('1. Juli 2026, 12:00:00 MESZ');
  });

  it('shows a wall time without zone as written, in the locale’s words', () => {
    expect(formatDatetime('2026-11-27T20:14:36', NEW_YORK)).toBe('Nov 27, 2026, 8:14:36 PM');
    expect(formatDatetime('2026-11-27 20:14', BERLIN)).toBe('27. Nov. 2026, 20:14:00');
  });

  it('answers what is not a date-time as it is', () => {
    expect(formatDatetime('infinity', BERLIN)).toBe('infinity');
  });

  it('shows a date as the same day in every zone, and a time in the locale’s clock', () => {
    expect(formatDate('2026-01-31', 'en-US')).toBe('Jan 31, 2026');
    expect(formatDate('2026-01-31', 'de-DE')).toBe('31.01.2026');
    expect(formatTime('14:05:09', 'en-US')).toBe('2:05:09 PM');
    expect(formatTime('14:05:09.5', 'de-DE')).toBe('14:05:09');
  });
});

describe('the other types', () => {
  it('counts bytes from base64 and says the size in the locale', () => {
    expect(base64Size('AAECAw==')).toBe(4);
    expect(base64Size('AAECAwQ')).toBe(5);
    expect(formatBytes(4, 'en-US')).toBe('4 bytes');
    expect(formatBytes(1_500, 'en-US')).toBe('1.5 kB');
    expect(formatBytes(2_500_000, 'de-DE')).toBe('2,5 MB');
  });

  it('shortens a UUID and keeps other text whole', () => {
    expect(shortUuid('0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a')).toBe('0b9a4d3e…');
    expect(shortUuid('not-a-uuid')).toBe('not-a-uuid');
  });

  it('previews JSON on one line, cut at the length given', () => {
    expect(jsonPreview({ a: 1, b: [true, null] })).toBe('{"a":1,"b":[true,null]}');
    expect(jsonPreview({ text: 'x'.repeat(100) }, 20)).toBe('{"text":"xxxxxxxxxx…');
  });

  it('keeps the exact stored value for the tooltip and copy', () => {
    expect(exactText('2026-11-27T20:14:36.747208Z')).toBe('2026-11-27T20:14:36.747208Z');
    expect(exactText({ $binary: 'AAEC' })).toBe('AAEC');
    expect(exactText({ a: 1 })).toBe('{"a":1}');
    expect(exactText(12.5)).toBe('12.5');
    expect(exactText(null)).toBe('');
  });
});

describe('showValue: one reading per column type', () => {
  it('reads each type of a row as a person would', () => {
    const show = (c: ValueColumn, v: unknown) => showValue(c, v, BERLIN, YES_NO);
    expect(show(col('decimal', 'numeric(12,2)'), '1234.50')).toEqual({ kind: 'number', text: '1.234,50', exact: '1234.50', alignEnd: true });
    expect(show(col('bigint'), '9223372036854775807').text).toBe('9.223.372.036.854.775.807');
    expect(show(col('integer'), 42000).text).toBe('42.000');
    expect(show(col('decimal', 'numeric', { display: { format: 'percent' } }), '12.5').text).toBe('12,5 %');
    expect(show(col('boolean'), true)).toMatchObject({ kind: 'boolean', text: 'Yes', alignEnd: false });
    expect(show(col('boolean'), false).text).toBe('No');
    expect(show(col('datetime', 'timestamp with time zone'), '2026-11-27T20:14:36Z')).toMatchObject({
      kind: 'datetime',
      text: '27. Nov. 2026, 21:14:36 MEZ',
      exact: '2026-11-27T20:14:36Z',
    });
    expect(show(col('datetime', 'timestamptz'), '2026-11-27T20:14:36').text).toBe('27. Nov. 2026, 21:14:36 MEZ');
    expect(show(col('datetime', 'datetime'), '2026-11-27T20:14:36').text).toBe('27. Nov. 2026, 20:14:36');
    expect(show(col('enum', 'mood'), 'happy')).toMatchObject({ kind: 'enum', text: 'happy' });
    expect(show(col('json', 'jsonb'), { n: 1 })).toMatchObject({ kind: 'json', text: '{"n":1}', exact: '{"n":1}' });
    expect(show(col('binary', 'bytea'), { $binary: 'AAECAw==' })).toMatchObject({ kind: 'binary', text: '4 Byte', exact: 'AAECAw==' });
    expect(show(col('uuid'), '0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a')).toMatchObject({ kind: 'uuid', text: '0b9a4d3e…' });
    expect(show(col('other', 'bit(8)'), { $binary: 'AQ==' }).kind).toBe('binary');
    expect(show(col('string', 'text'), 'plain')).toEqual({ kind: 'text', text: 'plain', exact: 'plain', alignEnd: false });
    expect(show(col('string'), null).kind).toBe('null');
  });
});

describe('rows named by their values', () => {
  it('turns a composite key’s record id back into its values', () => {
    expect(recordIdValues(encodedId([7, 'de']), 2)).toEqual([7, 'de']);
    expect(recordIdText(encodedId([7, 'de']), ['integer', 'string'])).toBe('7 · de');
    expect(recordIdText(encodedId([{ $binary: 'AAEC' }]), ['binary'])).toBe('3 B');
  });

  it('leaves a plain key, and an id that does not decode, as they are', () => {
    expect(recordIdText('WzFd', ['string'])).toBe('WzFd');
    expect(recordIdText('42', ['integer'])).toBe('42');
    expect(recordIdText('not base64!', ['integer', 'string'])).toBe('not base64!');
    expect(recordIdText(encodedId([1, 2, 3]), ['integer', 'integer'])).toBe(encodedId([1, 2, 3]));
  });

  it('names a row by its display column, else by its key values', () => {
    expect(rowName({ id: 3, full_name: 'Ada Lovelace' }, 'full_name', ['id'])).toBe('Ada Lovelace');
    expect(rowName({ order_id: 7, line: 2, full_name: null }, 'full_name', ['order_id', 'line'])).toBe('7 · 2');
    expect(rowName({ a: 1 }, null, [])).toBeNull();
  });
});
