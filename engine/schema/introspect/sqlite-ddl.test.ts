import { describe, expect, it } from 'vitest';
import { enumCheck, parseCreateTable, parseIndexKeys, tokenize } from './sqlite-ddl.js';

describe('sqlite-ddl', () => {
  it('tokenizes quoted identifiers, strings and comments', () => {
    const t = tokenize(`"it""s" [a b] \`c\` 'x''y' -- comment (
      /* ( */ 1.5 )`);
    expect(t.map((x) => [x.kind, x.value])).toEqual([
      ['ident', 'it"s'],
      ['ident', 'a b'],
      ['ident', 'c'],
      ['string', "x'y"],
      ['number', '1.5'],
      ['punct', ')'],
    ]);
  });

  it('finds column and table checks, with their names, and generated expressions', () => {
    const d = parseCreateTable(`CREATE TABLE "t (1)" (
      "first name" varchar(10) not null default ('a,b') check (length("first name") > 0),
      qty int constraint qty_positive check (qty > 0), -- a comment, with a comma
      total numeric(10, 2) GENERATED ALWAYS AS (qty * 2) STORED,
      v int as (qty + 1),
      CONSTRAINT "both" CHECK (qty < 100 AND "first name" <> ')'),
      check (v in (1, 2)),
      primary key (qty),
      foreign key (v) references other (id)
    )`);
    expect(d.checks).toEqual([
      { name: null, expression: 'length("first name") > 0' },
      { name: 'qty_positive', expression: 'qty > 0' },
      { name: 'both', expression: `qty < 100 AND "first name" <> ')'` },
      { name: null, expression: 'v in (1, 2)' },
    ]);
    expect(Object.fromEntries(d.generated)).toEqual({ total: 'qty * 2', v: 'qty + 1' });
  });

  it('ignores CREATE TABLE … AS SELECT', () => {
    expect(parseCreateTable('create table x as select (1) as a')).toEqual({ checks: [], generated: new Map() });
  });

  it('reads index keys without their order and collation', () => {
    expect(parseIndexKeys('CREATE INDEX "i on" ON "t" (lower("a, b") COLLATE nocase DESC, b ASC, (c + 1)) WHERE d = 0')).toEqual([
      'lower("a, b")',
      'b',
      '(c + 1)',
    ]);
  });

  it('recognises an enum-like check and nothing else', () => {
    expect(enumCheck(`"status" IN ('draft', 'it''s')`)).toEqual({ column: 'status', values: ['draft', "it's"] });
    expect(enumCheck(`status in ('a')`)).toEqual({ column: 'status', values: ['a'] });
    expect(enumCheck(`status not in ('a')`)).toBeNull();
    expect(enumCheck(`status in ('a') or status in ('b')`)).toBeNull();
    expect(enumCheck(`status in (1, 2)`)).toBeNull();
    expect(enumCheck(`status in ('a',)`)).toBeNull();
  });
});
