import { sql, type RawBuilder } from 'kysely';
import type { Column } from '../../schema/model.js';

/*
 * The wire value of a column as text, computed by PostgreSQL itself, for bulk paths that never
 * see a row in JavaScript (COPY … TO STDOUT). The text is what a file cell holds for the wire
 * value `postgresRows.toWire` gives: strings as they are, numbers and booleans as their JSON
 * text, dates and date-times as the README's forms (microseconds without trailing zeros, UTC
 * with `Z` for timestamptz), binary as base64 on one line, JSON as its text, `other` as
 * PostgreSQL's text form. NULL stays NULL.
 */

const withZone = (c: Column) => /with time zone/.test(c.nativeType);

/**
 * The settings the expressions below rely on, for `SET LOCAL` in the reading transaction: ISO
 * dates (`2024-01-31 10:00:00.5`, fraction without trailing zeros) and timestamptz in UTC
 * (`…+00`). Casting to text under them costs far less than to_char for every value.
 */
export const POSTGRES_WIRE_TEXT_SETTINGS = ["set local datestyle = 'ISO, YMD'", "set local timezone = 'UTC'"] as const;

/** Types whose text can be '' (the rest never can). */
const MAY_BE_EMPTY = new Set<Column['type']>(['string', 'text', 'enum', 'other']);

export function postgresWireText(c: Column): RawBuilder<string | null> {
  const col = sql.id(c.name);
  const asText = sql<string>`cast(${col} as text)`;
  switch (c.type) {
    case 'datetime':
      return withZone(c)
        ? sql`case when isfinite(${col}) then replace(left(${asText}, -3), ' ', 'T') || 'Z' else ${asText} end`
        : sql`case when isfinite(${col}) then replace(${asText}, ' ', 'T') else ${asText} end`;
    case 'binary':
      // encode() breaks base64 every 76 characters.
      return sql`translate(encode(${col}, 'base64'), chr(10), '')`;
    default:
      // bool → true/false, date → YYYY-MM-DD, char(n) without its padding, numeric and int8 exact, json as written.
      return asText;
  }
}

/** True when the column's text can be the empty string (so a file may need to tell it from NULL). */
export const wireTextMayBeEmpty = (c: Column): boolean => MAY_BE_EMPTY.has(c.type);
