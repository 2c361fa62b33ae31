import { sql, type RawBuilder } from 'kysely';
import type { Column } from '../../schema/model.js';
import { padded, withZone } from './postgres.js';

/*
 * What a file cell holds for a column's wire value (`postgresRows.toWire`), produced by
 * PostgreSQL itself, for bulk paths that never see a row in JavaScript (COPY … TO STDOUT):
 * strings as they are, numbers and booleans as their JSON text, dates and date-times as the
 * README's forms (microseconds without trailing zeros, UTC with `Z` for timestamptz), binary as
 * base64 on one line, JSON as its text, `other` as PostgreSQL's text form. NULL stays NULL, and
 * so does '' (a file cannot tell them apart, EX2).
 *
 * Where a type's own output already is that text (numbers, dates under ISO, json, uuid, time),
 * the column is selected as it is: every expression costs the server time per value, and COPY
 * writes each column through its type's output function anyway.
 */

/**
 * The settings the expressions below rely on, for `SET LOCAL` in the reading transaction: ISO
 * dates (`2024-01-31 10:00:00.5`, fraction without trailing zeros) and timestamptz in UTC
 * (`…+00`). Their output costs far less than to_char for every value.
 */
export const POSTGRES_WIRE_TEXT_SETTINGS = ["set local datestyle = 'ISO, YMD'", "set local timezone = 'UTC'"] as const;

export function postgresCellText(c: Column): RawBuilder<unknown> {
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
    case 'boolean':
      // COPY writes t/f; the text cast writes true/false.
      return asText;
    case 'string':
    case 'text':
      // char(n) loses its padding in the cast to text.
      return padded(c) ? sql`nullif(${asText}, '')` : sql`nullif(${col}, '')`;
    case 'enum':
    case 'other':
      // '' is not a value of an enum or of most other types: compare as text.
      return sql`nullif(${asText}, '')`;
    default:
      return col;
  }
}
