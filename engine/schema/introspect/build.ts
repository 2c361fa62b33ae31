import type { RawBuilder } from 'kysely';
import type { Kysely } from 'kysely';
import type { Column, ReferentialAction, Table } from '../model.js';

/** Runs the introspection queries and counts them: the count must not grow with the number of tables. */
export class QueryRunner {
  count = 0;
  constructor(private readonly db: Kysely<any>) {}

  async rows<R>(query: RawBuilder<R>): Promise<R[]> {
    this.count++;
    const result = await query.execute(this.db);
    return result.rows;
  }
}

type ColumnStart = Pick<Column, 'name' | 'type' | 'nativeType'> & Partial<Column>;

// Keys in the model's declared order, so serialised models of any origin read (and hash) alike.
export function newColumn(c: ColumnStart): Column {
  return {
    name: c.name,
    type: c.type,
    nativeType: c.nativeType,
    nullable: c.nullable ?? true,
    default: c.default ?? null,
    autoIncrement: c.autoIncrement ?? false,
    generated: c.generated ?? null,
    maxLength: c.maxLength ?? null,
    precision: c.precision ?? null,
    scale: c.scale ?? null,
    enumValues: c.enumValues ?? null,
    comment: c.comment ?? null,
  };
}

export function newTable(t: Pick<Table, 'schema' | 'name' | 'kind'> & Partial<Table>): Table {
  return {
    schema: t.schema,
    name: t.name,
    kind: t.kind,
    columns: t.columns ?? [],
    primaryKey: t.primaryKey ?? null,
    foreignKeys: t.foreignKeys ?? [],
    uniques: t.uniques ?? [],
    indexes: t.indexes ?? [],
    checks: t.checks ?? [],
    rowEstimate: t.rowEstimate ?? null,
    comment: t.comment ?? null,
  };
}

const ACTIONS: Record<string, ReferentialAction> = {
  cascade: 'cascade',
  restrict: 'restrict',
  'set null': 'set null',
  'set default': 'set default',
  'no action': 'no action',
  // PostgreSQL's pg_constraint.confdeltype / confupdtype codes
  c: 'cascade',
  r: 'restrict',
  n: 'set null',
  d: 'set default',
  a: 'no action',
};

/** Each dialect spells the actions its own way (`SET NULL`, `n`, `set_null`); unknown ones read as the default. */
export function referentialAction(raw: string | null | undefined): ReferentialAction {
  return (
    ACTIONS[
      (raw ?? '')
        .trim()
        .toLowerCase()
        .replace(/[_\s]+/g, ' ')
    ] ?? 'no action'
  );
}

/** `((a > 0))` → `a > 0`: only parentheses that wrap the whole expression. */
export function stripOuterParens(expr: string): string {
  let e = expr.trim();
  while (e.startsWith('(') && e.endsWith(')') && closingParen(e, 0) === e.length - 1) e = e.slice(1, -1).trim();
  return e;
}

/** Index of the parenthesis closing the one at `open`, skipping quoted text; -1 when unbalanced. */
function closingParen(s: string, open: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < s.length; i++) {
    const ch = s[i];
    if (quote) {
      if (ch === quote) quote = null;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Groups rows by a key, keeping their order (queries return them sorted). */
export function groupBy<R, K>(rows: readonly R[], key: (r: R) => K): Map<K, R[]> {
  const out = new Map<K, R[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}
