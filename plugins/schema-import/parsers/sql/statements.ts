import { SchemaParseError } from '../diagnostics.js';
import type { SqlLexer, Token } from './tokenizer.js';

export interface Statement {
  tokens: Token[];
  /** False when the statement is of a kind the parser skips: only its first tokens are kept. */
  complete: boolean;
}

/** Statements the parser reads; the rest are only named in a warning, so their tokens are not kept. */
const READ = new Set(['CREATE', 'ALTER', 'COMMENT', 'SET', 'SELECT', 'DROP']);
const KEEP_OF_SKIPPED = 12;
/** A statement this long is not DDL a person or a dump tool writes; refusing it bounds memory. */
export const MAX_STATEMENT_TOKENS = 1_000_000;
const BODY_OWNERS = new Set(['TRIGGER', 'FUNCTION', 'PROCEDURE', 'EVENT']);

const upper = (t: Token | undefined) => (t && t.kind === 'word' ? t.value.toUpperCase() : '');

/**
 * Splits the token stream into statements at the terminator. Handles what dump files put
 * between statements: psql meta-commands, MySQL `DELIMITER` lines, `COPY … FROM stdin` data,
 * and trigger bodies (`BEGIN … END`) whose inner semicolons do not end the statement.
 */
export function* splitStatements(lexer: SqlLexer, keepAll = false): Generator<Statement> {
  for (;;) {
    const first = lexer.next();
    if (!first) return;
    if (first.kind === 'end') continue;
    if (first.kind === 'meta') {
      yield { tokens: [first], complete: true };
      continue;
    }
    if (upper(first) === 'DELIMITER' && lexer.dialect === 'mysql') {
      const d = lexer.restOfLine().trim();
      if (d === '') throw SchemaParseError.at(lexer.lines.at(first.end), 'DELIMITER needs a delimiter');
      lexer.setDelimiter(d);
      continue;
    }
    const tokens: Token[] = [first];
    const keep = keepAll || READ.has(upper(first));
    let complete = keep;
    let bodyDepth = 0;
    let tracksBody = false;
    let count = 1;
    let copyData = false;
    let meta: Token | null = null;
    let prev = first;
    const isCopy = upper(first) === 'COPY';
    for (;;) {
      const t = lexer.next();
      if (!t) break;
      if (t.kind === 'end' && bodyDepth === 0) break;
      if (t.kind === 'meta') {
        // A meta-command inside a statement ends it (psql would run the buffer first).
        meta = t;
        break;
      }
      count++;
      if (isCopy && upper(t) === 'STDIN' && upper(prev) === 'FROM') copyData = true;
      prev = t;
      if (count <= 8 && keep && BODY_OWNERS.has(upper(t))) tracksBody = true;
      if (tracksBody) {
        const u = upper(t);
        if (u === 'BEGIN' || u === 'CASE') bodyDepth++;
        else if (u === 'END' && bodyDepth > 0) bodyDepth--;
      }
      if (keep) {
        if (tokens.length >= MAX_STATEMENT_TOKENS) {
          throw SchemaParseError.at(
            lexer.lines.at(first.offset),
            `statement longer than ${MAX_STATEMENT_TOKENS} tokens; split it or remove data from the file`,
          );
        }
        tokens.push(t);
      } else if (tokens.length < KEEP_OF_SKIPPED) tokens.push(t);
      else complete = false;
    }
    yield { tokens, complete };
    if (meta) yield { tokens: [meta], complete: true };
    if (copyData) lexer.skipCopyData();
  }
}
