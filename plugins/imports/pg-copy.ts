import { finished } from 'node:stream/promises';
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { USE_DEFAULT, type PendingRow, type WriteTarget } from './write.js';
import { pgIdentifier } from '../../engine/sources/pg-client.js';

/*
 * Inserts on PostgreSQL through `COPY … FROM STDIN` (text format): the server parses plain rows
 * instead of planning and running an INSERT over unnest arrays, and the driver sends one string
 * per batch instead of serialising an array parameter per column. Every value is the text the
 * INSERT path would have bound for it, read by the same input function of the column's type,
 * so both paths store the same thing.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

/**
 * A kysely instance over one client: the savepoints, the per-row fallback and the import's
 * transaction run on the very connection the COPYs go through. The client is the caller's
 * (withPgClient): kysely never releases it.
 */
export function clientDb(client: pg.PoolClient): Db {
  const one = {
    query: (text: string, params: readonly unknown[]) => client.query(text, params as unknown[]),
    release: () => undefined,
  } as unknown as PostgresPoolClient;
  const pool: PostgresPool = { connect: async () => one, end: async () => undefined };
  return new Kysely({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Whether COPY into the table does what INSERT does: a table or partitioned table (COPY cannot
 * go into a view) without rules (COPY FROM ignores them), without row-level security (COPY
 * FROM refuses it), and no `GENERATED ALWAYS AS IDENTITY` column among `columns` (COPY writes
 * the file's value where INSERT refuses it).
 */
export async function copyable(db: Db, target: Pick<WriteTarget, 'table' | 'columns'>): Promise<boolean> {
  const res = await sql<{ relkind: string; relrowsecurity: boolean; relhasrules: boolean; always: boolean }>`
    select c.relkind, c.relrowsecurity, c.relhasrules,
      exists (select 1 from pg_catalog.pg_attribute a where a.attrelid = c.oid and a.attname = any(${target.columns}::text[]) and a.attidentity = 'a') as always
    from pg_catalog.pg_class c where c.oid = to_regclass(${quotedName(target.table)})`.execute(db);
  const rel = res.rows[0];
  return !!rel && (rel.relkind === 'r' || rel.relkind === 'p') && !rel.relrowsecurity && !rel.relhasrules && !rel.always;
}

const quotedName = (t: WriteTarget['table']) => (t.schema ? pgIdentifier(t.schema, t.name) : pgIdentifier(t.name));

const SPECIAL = /[\\\n\r\t\0]/;
const SPECIALS = /[\\\n\r\t\0]/g;
// NUL as a three-digit octal escape, so a digit after it is not read as part of it; PostgreSQL
// refuses the NUL (invalid byte sequence), as it does a NUL in a bound parameter.
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\\000' };
const escapeText = (s: string) => (SPECIAL.test(s) ? s.replace(SPECIALS, (ch) => ESCAPES[ch]!) : s);

/**
 * One value as a field of COPY's text format, or undefined for a value this path does not
 * write (the batch then goes the INSERT way). The texts are those node-postgres binds:
 * String() of a number, `\x…` hex for bytes; booleans as t/f.
 */
export function copyField(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return escapeText(v);
    case 'number':
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'undefined':
      return '\\N';
    case 'object':
      if (v === null) return '\\N';
      // The bytea input `\x…`, its backslash escaped for COPY.
      if (v instanceof Uint8Array) return `\\\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
      return undefined;
    default:
      return undefined;
  }
}

/**
 * One row as a line of COPY's text format over every column (no newline), or null when a value
 * has no COPY text or is left to its default (the row then goes as values, the copyRows way).
 */
export function copyLine(values: unknown[]): string | null {
  if (values.length === 0) return null;
  const fields: string[] = new Array(values.length);
  for (let j = 0; j < values.length; j++) {
    const v = values[j];
    if (v === USE_DEFAULT) return null;
    const field = copyField(v);
    if (field === undefined) return null;
    fields[j] = field;
  }
  return fields.join('\t');
}

/** Lines gathered before they are written into the Buffer: one native write per this many rows. */
const SPILL_LINES = 256;

/**
 * A unit's COPY text kept off the JS heap. Rows held as values until their COPY ends live
 * through two scavenges and fill V8's old generation (bench/README.md, import-memory); a row's
 * line goes into this Buffer a few hundred rows after it was read, so nothing of it outlives
 * the young generation. `seqs` are the rows' places in the file (the nth record read), so a
 * unit the database refuses can be read again (IM7).
 */
export class CopyLines {
  private buf = Buffer.allocUnsafe(1 << 18);
  private length = 0;
  private readonly pending: string[] = [];
  readonly seqs: number[] = [];

  get size(): number {
    return this.seqs.length;
  }

  add(seq: number, line: string): void {
    this.seqs.push(seq);
    this.pending.push(line);
    if (this.pending.length >= SPILL_LINES) this.spill();
  }

  private spill(): void {
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending.length = 0;
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    const need = this.length + text.length * 3;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    this.length += this.buf.write(text, this.length, 'utf8');
  }

  /** The COPY text of every line added. */
  text(): Buffer {
    this.spill();
    return this.buf.subarray(0, this.length);
  }
}

/** Writes the lines with one COPY over every column, all or nothing as copyRows: a refusal undoes them and rejects with the server's error. */
export async function copyLines(client: pg.ClientBase, target: WriteTarget, lines: CopyLines): Promise<void> {
  try {
    await copyIn(
      client,
      target,
      target.columns.map((_, j) => j),
      lines.text(),
      'savepoint svc_copy; ',
      '; release savepoint svc_copy',
    );
  } catch (err) {
    await client.query('rollback to savepoint svc_copy; release savepoint svc_copy');
    throw err;
  }
}

/** COPY text for the rows' values at `at` (positions in WriteTarget.columns), or null when a value has no COPY text. */
export function copyText(rows: PendingRow[], at: number[]): string | null {
  // A line per row joined once, rather than one long string grown field by field.
  const lines: string[] = new Array(rows.length + 1);
  const fields: string[] = new Array(at.length);
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r]!.values;
    for (let j = 0; j < at.length; j++) {
      const field = copyField(values[at[j]!]);
      if (field === undefined) return null;
      fields[j] = field;
    }
    lines[r] = fields.join('\t');
  }
  lines[rows.length] = '';
  return lines.join('\n');
}

export interface CopyGroup {
  /** Positions in WriteTarget.columns that the rows give (the others take their defaults). */
  at: number[];
  rows: PendingRow[];
}

/** Rows leaving different columns to their defaults cannot share one column list: one group per set, in order of first appearance. */
export function copyGroups(target: WriteTarget, rows: PendingRow[]): CopyGroup[] {
  const all = target.columns.map((_, i) => i);
  if (!rows.some((r) => r.values.includes(USE_DEFAULT))) return [{ at: all, rows }];
  const groups = new Map<string, CopyGroup>();
  for (const row of rows) {
    const at = all.filter((i) => row.values[i] !== USE_DEFAULT);
    const sig = at.join(',');
    let g = groups.get(sig);
    if (!g) groups.set(sig, (g = { at, rows: [] }));
    g.rows.push(row);
  }
  return [...groups.values()];
}

/** Runs one COPY of `text`; `before` and `after` are statements sent in the same message. */
async function copyIn(client: pg.ClientBase, target: WriteTarget, at: number[], text: string | Buffer, before: string, after: string): Promise<void> {
  const columns = at.map((j) => pgIdentifier(target.columns[j]!)).join(', ');
  const { from: copyFrom } = await import('pg-copy-streams');
  const stream = client.query(copyFrom(`${before}copy ${quotedName(target.table)} (${columns}) from stdin${after}`));
  const done = finished(stream);
  stream.end(text);
  await done;
}

/**
 * Writes the rows with one COPY per column set, all or nothing, under a savepoint of its own.
 * The savepoint, the COPY and the release go as one simple-query message (the data following),
 * so the server goes from one to the next without a round trip through this process, which
 * meanwhile converts the next rows. After a refusal the server skips the rest of the message.
 * Resolves false, having written nothing, when a value has no COPY text (the caller then
 * inserts); when the server refuses a row, undoes the rows copied and rejects with its error.
 */
export async function copyRows(client: pg.ClientBase, target: WriteTarget, rows: PendingRow[]): Promise<boolean> {
  const groups = copyGroups(target, rows);
  const texts: string[] = [];
  for (const g of groups) {
    // Rows that leave every column to its default have no line to give COPY.
    const text = g.at.length ? copyText(g.rows, g.at) : null;
    if (text === null) return false;
    texts.push(text);
  }
  const last = groups.length - 1;
  try {
    for (let i = 0; i <= last; i++) {
      await copyIn(client, target, groups[i]!.at, texts[i]!, i === 0 ? 'savepoint svc_copy; ' : '', i === last ? '; release savepoint svc_copy' : '');
    }
  } catch (err) {
    await client.query('rollback to savepoint svc_copy; release savepoint svc_copy');
    throw err;
  }
  return true;
}
