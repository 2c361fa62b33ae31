/**
 * How much a row read through `ctx.db` weighs against DB_READ_BYTES, one measure for the SQLite
 * worker (raw values as better-sqlite3 gives them) and for the host's check of wire rows: a
 * text's length, a blob's bytes, a wire object (JSON value, `{$binary}`) its JSON's length, 8
 * anything else, plus each column's name.
 */
export const DB_READ_BYTES = 1024 * 1024;

export function valueBytes(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array) return v.byteLength;
  if (v !== null && typeof v === 'object') return JSON.stringify(v)?.length ?? 8;
  return 8;
}

export function rowBytes(row: Record<string, unknown>): number {
  let bytes = 0;
  for (const k in row) bytes += k.length + valueBytes(row[k]);
  return bytes;
}
