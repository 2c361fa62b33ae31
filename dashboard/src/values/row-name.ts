import { base64Size, binaryOf, exactText } from './format';

/**
 * Naming a row to a person. A record id (engine/rows/record-id.ts) is the key's value itself for
 * a single-column key, and base64url of the JSON array of the key's values for a composite or
 * binary key: fine in a URL, unreadable on a screen. These turn it back into the values.
 */

/** Whether a table's record ids are encoded: a composite key, or one binary or JSON column (as record-id.ts decides). */
export const encodedIds = (keyTypes: readonly string[]) => keyTypes.length > 1 || keyTypes[0] === 'binary' || keyTypes[0] === 'json';

/** The key values an encoded record id stands for, in key order; null when it is not one. */
export function recordIdValues(recordId: string, keyColumns: number): unknown[] | null {
  try {
    const b64 = recordId.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (ch) => ch.charCodeAt(0));
    const parts: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return Array.isArray(parts) && parts.length === keyColumns ? parts : null;
  } catch {
    return null;
  }
}

/** One key value in a name: a binary part by its size, anything else as its text. */
function partText(v: unknown): string {
  const b64 = binaryOf(v);
  return b64 !== null ? `${base64Size(b64)} B` : exactText(v);
}

/**
 * A record id as a person reads it: `7` stays `7`; a composite key's `WzEsMl0` becomes `1 · 2`.
 * `keyTypes` are the portable types of the table's primary key columns, in key order.
 */
export function recordIdText(recordId: string, keyTypes: readonly string[]): string {
  if (!encodedIds(keyTypes)) return recordId;
  const parts = recordIdValues(recordId, keyTypes.length);
  return parts ? parts.map(partText).join(' · ') : recordId;
}

/**
 * A row's name: its display column's value when the row has one, else its key's values. A table
 * without key or display column answers null.
 */
export function rowName(row: Readonly<Record<string, unknown>>, displayColumn: string | null, keyColumns: readonly string[]): string | null {
  const shown = displayColumn !== null ? row[displayColumn] : undefined;
  if (shown !== null && shown !== undefined && exactText(shown) !== '') return exactText(shown);
  if (keyColumns.length === 0) return null;
  return keyColumns.map((c) => partText(row[c])).join(' · ');
}
