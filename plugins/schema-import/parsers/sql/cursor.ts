import { SchemaParseError, type LineIndex, type Position } from '../diagnostics.js';
import type { SqlDialect, Token } from './tokenizer.js';

export interface QualifiedName {
  /** The qualifier as written (PostgreSQL schema, MySQL database, SQLite attached database), or null. */
  schema: string | null;
  name: string;
  at: Token;
}

/** Reads one statement's tokens: keyword matching, identifiers, balanced groups, expression text. */
export class Cursor {
  i = 0;

  constructor(
    readonly tokens: Token[],
    readonly source: string,
    readonly dialect: SqlDialect,
    readonly lines: LineIndex,
  ) {}

  peek(k = 0): Token | undefined {
    return this.tokens[this.i + k];
  }

  atEnd(): boolean {
    return this.i >= this.tokens.length;
  }

  position(t: Token | undefined = this.peek()): Position {
    if (t) return this.lines.at(t.offset);
    const last = this.tokens[this.tokens.length - 1];
    return this.lines.at(last ? last.end : 0);
  }

  fail(message: string, t: Token | undefined = this.peek()): never {
    const got = t ? ` (found ${this.describe(t)})` : ' (found the end of the statement)';
    throw SchemaParseError.at(this.position(t), message + got);
  }

  describe(t: Token): string {
    const raw = this.source.slice(t.offset, Math.min(t.end, t.offset + 40));
    return t.kind === 'string' ? 'a string' : `\`${raw}\``;
  }

  /** True when the next tokens are these keywords (case-insensitive), without consuming them. */
  isWord(...words: string[]): boolean {
    return words.every((w, k) => {
      const t = this.peek(k);
      return t !== undefined && t.kind === 'word' && t.value.toUpperCase() === w;
    });
  }

  isPunct(p: string, k = 0): boolean {
    const t = this.peek(k);
    return t !== undefined && (t.kind === 'punct' || t.kind === 'op') && t.value === p;
  }

  acceptWord(...words: string[]): boolean {
    if (!this.isWord(...words)) return false;
    this.i += words.length;
    return true;
  }

  expectWord(...words: string[]): void {
    if (!this.acceptWord(...words)) this.fail(`expected ${words.join(' ')}`);
  }

  acceptPunct(p: string): boolean {
    if (!this.isPunct(p)) return false;
    this.i++;
    return true;
  }

  expectPunct(p: string): Token {
    const t = this.peek();
    if (!this.acceptPunct(p)) this.fail(`expected \`${p}\``);
    return t!;
  }

  isIdentifier(k = 0): boolean {
    const t = this.peek(k);
    return t !== undefined && (t.kind === 'word' || t.kind === 'quoted');
  }

  /** An identifier's name: PostgreSQL folds unquoted names to lower case; MySQL and SQLite keep them. */
  nameOf(t: Token): string {
    if (t.kind === 'word' && this.dialect === 'postgres') return t.value.toLowerCase();
    return t.value;
  }

  identifier(what = 'a name'): string {
    const t = this.peek();
    // SQLite and MySQL accept a string where a name is expected in some places ('t').
    if (t && (t.kind === 'word' || t.kind === 'quoted' || (t.kind === 'string' && this.dialect === 'sqlite'))) {
      this.i++;
      return this.nameOf(t);
    }
    return this.fail(`expected ${what}`);
  }

  /** `name`, `schema.name` or `db.schema.name` (the last two parts are kept). */
  qualifiedName(what = 'a name'): QualifiedName {
    const at = this.peek()!;
    const parts = [this.identifier(what)];
    while (this.isPunct('.')) {
      this.i++;
      parts.push(this.identifier(what));
    }
    const name = parts[parts.length - 1]!;
    const schema = parts.length > 1 ? parts[parts.length - 2]! : null;
    return { schema, name, at };
  }

  /** Index of the token that closes the group opened at `start` (a `(` or `[`). */
  closing(start: number): number {
    let depth = 0;
    for (let k = start; k < this.tokens.length; k++) {
      const t = this.tokens[k]!;
      if (t.kind !== 'punct') continue;
      if (t.value === '(' || t.value === '[') depth++;
      else if (t.value === ')' || t.value === ']') {
        depth--;
        if (depth === 0) return k;
      }
    }
    return this.fail('unbalanced parenthesis: this group is never closed', this.tokens[start]);
  }

  /** Consumes a balanced `( … )` and answers the tokens between the parentheses. */
  group(): Token[] {
    const open = this.i;
    if (!this.isPunct('(')) this.fail('expected `(`');
    const close = this.closing(open);
    this.i = close + 1;
    return this.tokens.slice(open + 1, close);
  }

  /** Splits tokens at top-level commas. */
  static splitCommas(tokens: Token[]): Token[][] {
    const parts: Token[][] = [];
    let current: Token[] = [];
    let depth = 0;
    for (const t of tokens) {
      if (t.kind === 'punct' && (t.value === '(' || t.value === '[')) depth++;
      if (t.kind === 'punct' && (t.value === ')' || t.value === ']')) depth--;
      if (depth === 0 && t.kind === 'punct' && t.value === ',') {
        parts.push(current);
        current = [];
      } else current.push(t);
    }
    if (current.length > 0 || parts.length > 0) parts.push(current);
    return parts;
  }

  /** A sub-cursor over some tokens of this statement. */
  sub(tokens: Token[]): Cursor {
    return new Cursor(tokens, this.source, this.dialect, this.lines);
  }

  /**
   * The tokens as SQL text: each token as written, one space where the source had whitespace
   * or a comment between two tokens, so comments and line breaks do not leak into defaults.
   */
  text(tokens: Token[]): string {
    let out = '';
    let prevEnd = -1;
    for (const t of tokens) {
      if (prevEnd >= 0 && t.offset > prevEnd) out += ' ';
      out += this.source.slice(t.offset, t.end);
      prevEnd = t.end;
    }
    return out;
  }

  /** `(a, b DESC, c(10))`: the plain column names, or null when a part is an expression. */
  columnList(): { columns: string[]; expressions: boolean } {
    const inner = this.group();
    const columns: string[] = [];
    let expressions = false;
    for (const part of Cursor.splitCommas(inner)) {
      const c = this.sub(part);
      if (!c.isIdentifier()) {
        expressions = true;
        continue;
      }
      const name = c.identifier();
      // What may follow a plain column in an index or key: a prefix length, ordering, collation, opclass.
      if (c.isPunct('(')) {
        const t = c.peek(1);
        if (t?.kind === 'number') c.group();
        else {
          expressions = true;
          continue;
        }
      }
      if (c.isPunct('.') || c.peek()?.kind === 'op') {
        expressions = true;
        continue;
      }
      columns.push(name);
    }
    return { columns, expressions };
  }
}
