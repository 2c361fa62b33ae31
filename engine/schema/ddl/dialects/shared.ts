import { sql, type ColumnDefinitionBuilder, type Expression } from 'kysely';
import type { DdlColumn } from '../types.js';

/** `col IN ('a', 'b')`: values as escaped literals, the column as a quoted identifier. */
export function enumCheck(c: DdlColumn): Expression<unknown> {
  return sql`${sql.ref(c.name)} in (${sql.join((c.values ?? []).map((v) => sql.lit(v)))})`;
}

/**
 * NOT NULL and a literal default, the parts every dialect spells alike. `now()` goes through the
 * dialect; booleans through `bool` (SQLite stores 0/1, the others take true/false).
 */
export function nullAndDefault(
  b: ColumnDefinitionBuilder,
  c: DdlColumn,
  now: (type: 'date' | 'datetime' | 'time') => Expression<unknown>,
  bool: (v: boolean) => Expression<unknown> = (v) => sql.lit(v),
  wrap: (e: Expression<unknown>) => Expression<unknown> = (e) => e,
): ColumnDefinitionBuilder {
  let out = b;
  if (!c.nullable) out = out.notNull();
  const d = c.default;
  if (d === undefined) return out;
  if (d === 'now()' && (c.type === 'date' || c.type === 'datetime' || c.type === 'time')) return out.defaultTo(now(c.type));
  if (d === null) return out.defaultTo(null);
  if (typeof d === 'boolean') return out.defaultTo(bool(d));
  return out.defaultTo(wrap(sql.lit(d)));
}

export const decimalArgs = (c: DdlColumn) => ({ precision: c.precision ?? 12, scale: c.scale ?? 2 });
