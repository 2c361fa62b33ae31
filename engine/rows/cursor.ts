import type { TokenSigner } from '../../kernel/crypto.js';
import { RecentAnswers } from '../../kernel/memo/recent.js';
import type { SortKey } from './query-params.js';
import { refuse, type RowTable } from './types.js';

/**
 * A list cursor: the sort it was made for, and either the last row's raw key values (keyset)
 * or an offset (tables without a primary key). Raw values are what the database returned
 * through the dialect's select, so they bind back unchanged and compare exactly.
 *
 * Because they bind back unchanged, a cursor is signed (decisions DA8): only values this
 * instance read from that table, for that sort, ever reach a statement. A value of a type the
 * column does not have (a binary marker for an integer key) never gets to the database.
 */
export type RowCursor = { sort: string; keys: unknown[] } | { sort: string; offset: number };

const NOT_OURS = 'Not a cursor this list issued; pass nextCursor from a previous page.';

/** Buffers and BigInts have no JSON form of their own. */
function toSafe(v: unknown): unknown {
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { $b: Buffer.from(v).toString('base64') };
  if (typeof v === 'bigint') return { $n: v.toString() };
  if (v instanceof Date) return v.toISOString();
  return v;
}

/** A raw value back from its JSON form; undefined for anything toSafe never writes. */
function fromSafe(v: unknown): unknown {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length !== 1) return undefined;
    if (typeof o.$b === 'string') return Buffer.from(o.$b, 'base64');
    if (typeof o.$n === 'string' && /^-?\d{1,20}$/.test(o.$n)) return BigInt(o.$n);
  }
  return undefined;
}

const contexts = new WeakMap<RowTable, Map<string, string>>();

/**
 * What a cursor is bound to besides its sort text: the table, and the order it pages in (each
 * key column with its direction and types). A cursor of another table, of another order (the
 * public API's default is newest first, /data's oldest first), or of this table before a key
 * column changed type, does not open. Kept per table object (the schema plugin hands out one
 * object per table) and order.
 */
export function cursorContext(table: RowTable, keys: readonly SortKey[]): string {
  let order = '';
  for (const k of keys) order += `${k.desc ? '-' : '+'}${k.column.name.length}:${k.column.name}`;
  let byOrder = contexts.get(table);
  const hit = byOrder?.get(order);
  if (hit !== undefined) return hit;
  const context = JSON.stringify([table.schema, table.name, keys.map((k) => [k.column.name, k.desc, k.column.type, k.column.nativeType])]);
  if (!byOrder) contexts.set(table, (byOrder = new Map()));
  if (byOrder.size < 64) byOrder.set(order, context);
  return context;
}

export interface CursorSigning {
  signer: TokenSigner;
  context: string;
}

/**
 * Next cursors lately handed out, by signer, context, sort and last key: a list's first page
 * (a shop's product list) hands out the same one on every request, made once (JSON, base64, MAC).
 * Kept only for one key that is a number or a short string, whose memo key is its text.
 */
const recent = new WeakMap<TokenSigner, Map<string, RecentAnswers<string>>>();
const MAX_CONTEXTS = 256;

function recentFor(signing: CursorSigning): RecentAnswers<string> {
  let byContext = recent.get(signing.signer);
  if (!byContext) recent.set(signing.signer, (byContext = new Map()));
  let answers = byContext.get(signing.context);
  if (!answers) {
    if (byContext.size >= MAX_CONTEXTS) byContext.clear();
    byContext.set(signing.context, (answers = new RecentAnswers<string>(256)));
  }
  return answers;
}

function memoKey(c: RowCursor): string | null {
  if (!('keys' in c) || c.keys.length !== 1) return null;
  const k = c.keys[0];
  if (typeof k === 'number') return `${c.sort}\u0000n${k}`;
  return typeof k === 'string' && k.length <= 64 ? `${c.sort}\u0000s${k}` : null;
}

function makeRowCursor(c: RowCursor, signing: CursorSigning): string {
  const body = 'keys' in c ? { s: c.sort, k: c.keys.map(toSafe) } : { s: c.sort, o: c.offset };
  return signing.signer.sign(Buffer.from(JSON.stringify(body), 'utf8').toString('base64url'), signing.context);
}

export function encodeRowCursor(c: RowCursor, signing: CursorSigning): string {
  const key = memoKey(c);
  if (key === null) return makeRowCursor(c, signing);
  const answers = recentFor(signing);
  let cursor = answers.get(key);
  if (cursor === undefined) answers.set(key, (cursor = makeRowCursor(c, signing)));
  return cursor;
}

/** Decodes a cursor made for `sort` with `keyCount` key values; throws RowInputError at `path`. */
export function decodeRowCursor(raw: string, sort: string, keyCount: number | null, path: string, signing: CursorSigning): RowCursor {
  const payload = signing.signer.open(raw, signing.context);
  if (payload === null) refuse(path, NOT_OURS);
  let body: { s?: unknown; k?: unknown; o?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof body;
  } catch {
    refuse(path, NOT_OURS);
  }
  if (body === null || typeof body !== 'object' || typeof body.s !== 'string') refuse(path, NOT_OURS);
  if (body.s !== sort) refuse(path, 'This cursor belongs to another sort order; start again without a cursor.');
  if (keyCount === null) {
    if (typeof body.o !== 'number' || !Number.isSafeInteger(body.o) || body.o < 0) refuse(path, NOT_OURS);
    return { sort, offset: body.o };
  }
  if (!Array.isArray(body.k) || body.k.length !== keyCount) refuse(path, NOT_OURS);
  const keys = body.k.map(fromSafe);
  if (keys.includes(undefined)) refuse(path, NOT_OURS);
  return { sort, keys };
}
