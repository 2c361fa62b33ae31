import { refuse } from './types.js';

/**
 * A list cursor: the sort it was made for, and either the last row's raw key values (keyset)
 * or an offset (tables without a primary key). Raw values are what the database returned
 * through the dialect's select, so they bind back unchanged and compare exactly.
 */
export type RowCursor = { sort: string; keys: unknown[] } | { sort: string; offset: number };

/** Buffers and BigInts have no JSON form of their own. */
function toSafe(v: unknown): unknown {
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { $b: Buffer.from(v).toString('base64') };
  if (typeof v === 'bigint') return { $n: v.toString() };
  if (v instanceof Date) return v.toISOString();
  return v;
}

function fromSafe(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.$b === 'string') return Buffer.from(o.$b, 'base64');
    if (typeof o.$n === 'string' && /^-?\d+$/.test(o.$n)) return BigInt(o.$n);
  }
  return v;
}

export function encodeRowCursor(c: RowCursor): string {
  const body = 'keys' in c ? { s: c.sort, k: c.keys.map(toSafe) } : { s: c.sort, o: c.offset };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/** Decodes a cursor made for `sort` with `keyCount` key values; throws RowInputError at `path`. */
export function decodeRowCursor(raw: string, sort: string, keyCount: number | null, path: string): RowCursor {
  let body: { s?: unknown; k?: unknown; o?: unknown };
  try {
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as typeof body;
  } catch {
    refuse(path, 'Not a cursor this list issued; pass nextCursor from a previous page.');
  }
  if (body === null || typeof body !== 'object' || typeof body.s !== 'string')
    refuse(path, 'Not a cursor this list issued; pass nextCursor from a previous page.');
  if (body.s !== sort) refuse(path, 'This cursor belongs to another sort order; start again without a cursor.');
  if (keyCount === null) {
    if (typeof body.o !== 'number' || !Number.isSafeInteger(body.o) || body.o < 0) refuse(path, 'Not a cursor this list issued.');
    return { sort, offset: body.o };
  }
  if (!Array.isArray(body.k) || body.k.length !== keyCount) refuse(path, 'Not a cursor this list issued.');
  return { sort, keys: body.k.map(fromSafe) };
}
