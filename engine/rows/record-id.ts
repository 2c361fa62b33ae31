import type { Column } from '../schema/model.js';
import { parseText, parseWire } from './codec.js';
import { primaryKeyColumns, refuse, type PortableValue, type RowTable } from './types.js';

/**
 * How a row is addressed in a URL. A single-column key that reads as a string or number is the
 * value itself; a composite or binary key is base64url(JSON array of its wire values, in key
 * order), which survives any characters and any number of columns.
 */
function encoded(pk: readonly Column[]): boolean {
  return pk.length > 1 || pk[0]!.type === 'binary' || pk[0]!.type === 'json';
}

/** The record id of a row in wire form, or null when the table has no primary key. */
export function recordIdOf(table: RowTable, wireRow: Record<string, unknown>): string | null {
  return idOfRow(primaryKeyColumns(table), wireRow);
}

/** The record ids of a page's rows in wire form: the key looked up once for the page. */
export function recordIdsOf(table: RowTable, wireRows: readonly Record<string, unknown>[]): Array<string | null> {
  const pk = primaryKeyColumns(table);
  return wireRows.map((row) => idOfRow(pk, row));
}

function idOfRow(pk: readonly Column[], wireRow: Record<string, unknown>): string | null {
  if (pk.length === 0) return null;
  if (!encoded(pk)) return String(wireRow[pk[0]!.name]);
  return Buffer.from(JSON.stringify(pk.map((c) => wireRow[c.name] ?? null)), 'utf8').toString('base64url');
}

/** A record id → the key's portable values, in key order; throws RowInputError at `path`. */
export function parseRecordId(table: RowTable, recordId: string, path: string): PortableValue[] {
  const pk = primaryKeyColumns(table);
  if (pk.length === 0) refuse(path, 'This table has no primary key, so its rows cannot be addressed.');
  if (!encoded(pk)) return [parseText(pk[0]!, recordId, path)];
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(recordId, 'base64url').toString('utf8'));
  } catch {
    refuse(path, 'Expected base64url of a JSON array of the primary key values.');
  }
  if (!Array.isArray(parts) || parts.length !== pk.length)
    refuse(path, `Expected base64url of a JSON array of ${pk.length} primary key values (${pk.map((c) => c.name).join(', ')}).`);
  return pk.map((c, i) => {
    const v = parseWire(c, parts[i], path);
    if (v === null) refuse(path, 'A primary key value cannot be null.');
    return v;
  });
}
