import { LineIndex, START, Warnings, type ParseWarning } from '../diagnostics.js';
import { checkReferences } from '../model.js';
import type { SchemaModel } from '../../../../engine/schema/model.js';
import { Cursor } from './cursor.js';
import {
  alterTable,
  alterType,
  commentOn,
  createDomain,
  createIndex,
  createTable,
  createType,
  createView,
  drop,
  headline,
  selectStatement,
  setStatement,
  type DdlContext,
} from './ddl.js';
import { detectDialect } from './detect.js';
import { SqlState } from './state.js';
import { splitStatements, type Statement } from './statements.js';
import { SqlLexer, type SqlDialect } from './tokenizer.js';

export type { SqlDialect } from './tokenizer.js';

/** Words between CREATE and the object kind that do not change what is declared. */
const CREATE_MODIFIERS = new Set([
  'OR',
  'REPLACE',
  'TEMP',
  'TEMPORARY',
  'UNLOGGED',
  'GLOBAL',
  'LOCAL',
  'MATERIALIZED',
  'RECURSIVE',
  'SECURE',
  'FORCE',
  'NOFORCE',
  'EDITIONABLE',
]);

function createStatement(c: Cursor, ctx: DdlContext): void {
  c.expectWord('CREATE');
  let unique = false;
  for (;;) {
    if (c.peek()?.kind === 'word' && CREATE_MODIFIERS.has(c.peek()!.value.toUpperCase())) c.i++;
    else if (c.acceptWord('UNIQUE') || c.acceptWord('FULLTEXT') || c.acceptWord('SPATIAL'))
      unique = unique || c.tokens[c.i - 1]!.value.toUpperCase() === 'UNIQUE';
    // MySQL view options: ALGORITHM=…, DEFINER=`u`@`h`, SQL SECURITY …
    else if (c.acceptWord('ALGORITHM')) {
      c.acceptPunct('=');
      c.i++;
    } else if (c.acceptWord('DEFINER')) {
      c.acceptPunct('=');
      while (
        !c.atEnd() &&
        !c.isWord('SQL') &&
        !c.isWord('VIEW') &&
        !c.isWord('TRIGGER') &&
        !c.isWord('PROCEDURE') &&
        !c.isWord('FUNCTION') &&
        !c.isWord('EVENT')
      )
        c.i++;
    } else if (c.acceptWord('SQL', 'SECURITY')) c.i++;
    else break;
  }
  if (c.acceptWord('TABLE')) return createTable(c, ctx);
  if (c.acceptWord('VIEW')) return createView(c, ctx);
  if (c.acceptWord('INDEX')) return createIndex(c, ctx, unique);
  if (c.acceptWord('TYPE')) return createType(c, ctx);
  if (c.acceptWord('DOMAIN')) return createDomain(c, ctx);
  ctx.state.warnings.add(c.position(c.tokens[0]), `skipped CREATE ${headline(c, c.i, 2)}: not part of the schema model`);
}

function statement(st: Statement, source: string, lines: LineIndex, ctx: DdlContext): void {
  const first = st.tokens[0]!;
  if (first.kind === 'meta') {
    ctx.state.warnings.add(lines.at(first.offset), `skipped psql meta-command ${first.value.split(/\s/)[0]}`);
    return;
  }
  const c = new Cursor(st.tokens, source, ctx.state.dialect, lines);
  const word = first.kind === 'word' ? first.value.toUpperCase() : '';
  if (word === 'DO' && doBlock(st, source, lines, ctx)) return;
  if (!st.complete || !['CREATE', 'ALTER', 'COMMENT', 'SET', 'SELECT', 'DROP'].includes(word)) {
    ctx.state.warnings.add(lines.at(first.offset), `skipped ${headline(c)}: not part of the schema model`);
    return;
  }
  if (word === 'CREATE') createStatement(c, ctx);
  else if (word === 'ALTER') {
    c.i++;
    if (c.acceptWord('TABLE')) alterTable(c, ctx);
    else if (c.acceptWord('TYPE')) alterType(c, ctx);
    else ctx.state.warnings.add(lines.at(first.offset), `skipped ${headline(c)}: not part of the schema model`);
  } else if (word === 'COMMENT') {
    c.i++;
    commentOn(c, ctx);
  } else if (word === 'SET') {
    c.i++;
    setStatement(c, ctx);
  } else if (word === 'SELECT') selectStatement(c, ctx);
  else {
    c.i++;
    drop(c, ctx);
  }
}

/**
 * `DO $$ BEGIN ALTER TABLE … ; EXCEPTION WHEN duplicate_object THEN null; END $$;` is how
 * drizzle-kit and hand-written migrations add constraints idempotently: the DDL statements in
 * the block are read (never run); its control flow is not. False when there is nothing to read.
 */
function doBlock(st: Statement, source: string, lines: LineIndex, ctx: DdlContext): boolean {
  const body = st.tokens.find((t) => t.kind === 'string' && source.startsWith('$', t.offset));
  if (!body || ctx.state.dialect !== 'postgres') return false;
  const tag = source.indexOf('$', body.offset + 1) + 1 - body.offset;
  const inner = new SqlLexer(source, 'postgres', lines, body.offset + tag, body.end - tag);
  let read = false;
  for (const s of splitStatements(inner, true)) {
    const tokens = s.tokens[0]?.kind === 'word' && s.tokens[0].value.toUpperCase() === 'BEGIN' ? s.tokens.slice(1) : s.tokens;
    const head = tokens[0]?.kind === 'word' ? tokens[0].value.toUpperCase() : '';
    if (!['CREATE', 'ALTER', 'COMMENT'].includes(head)) continue;
    statement({ tokens, complete: true }, source, lines, ctx);
    read = true;
  }
  return read;
}

/** Yields to the event loop now and then, so a 10 MB file does not stall other requests. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads SQL DDL statically: statements are recognised, never run. CREATE TABLE, TYPE … AS
 * ENUM, DOMAIN, [UNIQUE] INDEX, VIEW, ALTER TABLE (constraints, defaults, identity), ALTER TYPE
 * … ADD VALUE and COMMENT ON build the model; anything else is skipped with a warning.
 */
export async function parseSql(source: string, requested?: SqlDialect): Promise<{ model: SchemaModel; warnings: ParseWarning[] }> {
  const warnings = new Warnings();
  let dialect = requested ?? detectDialect(source);
  if (!dialect) {
    dialect = 'postgres';
    warnings.add(START, 'the SQL dialect could not be told from the file; read as PostgreSQL (pass dialect to choose)');
  }
  const lines = new LineIndex(source);
  const lexer = new SqlLexer(source, dialect, lines);
  const state = new SqlState(dialect, warnings);
  const ctx: DdlContext = { state, pendingRefs: [] };
  let last = Date.now();
  let n = 0;
  for (const st of splitStatements(lexer)) {
    statement(st, source, lines, ctx);
    if (++n % 256 === 0 && Date.now() - last > 25) {
      await breathe();
      last = Date.now();
    }
  }
  const model = state.finish();
  for (const { fk, target } of ctx.pendingRefs) {
    // `REFERENCES t` without columns means t's primary key.
    const table = state.find(target);
    if (table?.primaryKey) fk.referencedColumns = [...table.primaryKey.columns];
    else {
      fk.referencedColumns = [...fk.columns];
      warnings.add(
        lines.at(target.at.offset),
        `REFERENCES ${target.name} names no columns and ${target.name} has no primary key in this file; assumed ${fk.columns.join(', ')}`,
      );
    }
  }
  checkReferences(model, warnings, state.origins, (name) => state.fold(name));
  return { model, warnings: warnings.done() };
}
