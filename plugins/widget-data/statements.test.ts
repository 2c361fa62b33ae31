import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { EffectiveTable } from '../schema/provides.js';
import { StatementMemo } from './statements.js';

/** Stand-ins for the schema plugin's effective tables: the memo only tells them apart by identity. */
const table = (ref: string) => Object.freeze({ ref }) as unknown as EffectiveTable;

describe('StatementMemo (WD8)', () => {
  it('compiles a plan key once per table object, and again for the table a schema change made', () => {
    const memo = new StatementMemo();
    let compiled = 0;
    const compile = (text: string) => () => {
      compiled++;
      return CompiledQuery.raw(text, [compiled]);
    };
    const before = table('public.orders');
    const first = memo.get(before, 'postgres value k1', compile('select 1'));
    expect(memo.get(before, 'postgres value k1', compile('select 1'))).toBe(first);
    expect(compiled).toBe(1);
    // Another key (another filter value, part or dialect) is another statement.
    expect(memo.get(before, 'postgres value k2', compile('select 2')).sql).toBe('select 2');
    expect(memo.get(before, 'mysql value k1', compile('select 3')).sql).toBe('select 3');
    expect(compiled).toBe(3);
    // The same ref after a schema change is a new table object: nothing of the old one is used.
    const after = table('public.orders');
    const recompiled = memo.get(after, 'postgres value k1', compile('select 4'));
    expect(recompiled).not.toBe(first);
    expect(recompiled.sql).toBe('select 4');
  });

  it('keeps at most its bound a table, the oldest going first', () => {
    const memo = new StatementMemo(2);
    const t = table('t');
    let compiled = 0;
    const compile = () => {
      compiled++;
      return CompiledQuery.raw('select 1', []);
    };
    memo.get(t, 'a', compile);
    memo.get(t, 'b', compile);
    memo.get(t, 'c', compile);
    expect(compiled).toBe(3);
    memo.get(t, 'c', compile);
    memo.get(t, 'b', compile);
    expect(compiled).toBe(3);
    memo.get(t, 'a', compile);
    expect(compiled).toBe(4);
  });
});
