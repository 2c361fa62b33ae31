import { describe, expect, it } from 'vitest';
import { postgresEnumCheck } from './postgres-enum.js';

describe('postgresEnumCheck', () => {
  it('reads the ANY (ARRAY[…]) spelling, quotes and all', () => {
    expect(postgresEnumCheck(`c_enum = ANY (ARRAY['draft'::text, 'it''s'::text])`)).toEqual({ column: 'c_enum', values: ['draft', "it's"] });
    expect(postgresEnumCheck(`"group" = ANY (ARRAY['a, b'::text, 'c'::text])`)).toEqual({ column: 'group', values: ['a, b', 'c'] });
  });
  it('reads the one-value spelling', () => {
    expect(postgresEnumCheck(`status = 'x'::text`)).toEqual({ column: 'status', values: ['x'] });
  });
  it('answers null for any other check', () => {
    for (const e of [
      'price >= (0)::numeric',
      `(u)::text = ANY ((ARRAY['p'::character varying, 'q'::character varying])::text[])`,
      `s = ANY (ARRAY['a'::text, lower('B'::text)])`,
      `s = ANY (ARRAY['a'::text]) OR t > 1`,
      `s <> 'x'::text`,
    ]) {
      expect(postgresEnumCheck(e), e).toBeNull();
    }
  });
});
