import { SchemaParseError, type LineIndex } from '../diagnostics.js';

export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';

export type TokenKind =
  /** An unquoted word: a keyword or an identifier. */
  | 'word'
  /** A quoted identifier ("x", `x`, [x]); `value` is unescaped. */
  | 'quoted'
  /** A string literal (also $$…$$); `value` is unescaped. */
  | 'string'
  | 'number'
  /** ( ) , ; . [ ] */
  | 'punct'
  /** Operators, `::`, and anything else that is neither. */
  | 'op'
  /** The statement terminator: `;`, or what a MySQL DELIMITER line chose. */
  | 'end'
  /** A psql meta-command line (`\connect`, `\restrict`), as one token. */
  | 'meta';

export interface Token {
  kind: TokenKind;
  value: string;
  /** Offsets into the source: the raw text is `source.slice(offset, end)`. */
  offset: number;
  end: number;
}

const isWordStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c > 127;
const isWordChar = (c: number) => isWordStart(c) || (c >= 48 && c <= 57) || c === 36;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
const OP_CHARS = new Set('+-*/<>=~!@#%^&|?:');

/**
 * A streaming lexer: tokens are produced one at a time so a 10 MB dump is never held as one
 * token array. Whitespace and comments are dropped; MySQL's executable comments
 * (`/*!40101 … *\/`, `/*M! … *\/`) are read as code, as the server does.
 */
export class SqlLexer {
  pos = 0;
  private delimiter = ';';
  /** Inside `/*! … *\/`: the next `*\/` closes it rather than being an operator. */
  private conditionalDepth = 0;

  /**
   * `start` and `end` bound the lexer to part of the source (the body of a DO block), so
   * offsets, and with them lines and columns, stay those of the whole file.
   */
  constructor(
    readonly source: string,
    readonly dialect: SqlDialect,
    readonly lines: LineIndex,
    start = 0,
    readonly end = source.length,
  ) {
    this.pos = start;
  }

  private fail(offset: number, message: string): never {
    throw SchemaParseError.at(this.lines.at(offset), message);
  }

  setDelimiter(d: string): void {
    this.delimiter = d;
  }

  /** The rest of the current line (for DELIMITER), consumed. */
  restOfLine(): string {
    const nl = this.source.indexOf('\n', this.pos);
    const end = nl < 0 ? this.source.length : nl;
    const text = this.source.slice(this.pos, end);
    this.pos = end;
    return text;
  }

  /** After `COPY … FROM stdin;`: skips the data rows up to the `\.` line. */
  skipCopyData(): void {
    const re = /(^|\n)\\\.[ \t]*(\r?\n|$)/g;
    re.lastIndex = this.pos;
    const m = re.exec(this.source);
    this.pos = m ? m.index + m[0].length : this.source.length;
  }

  /** True when only spaces and tabs precede `offset` on its line. */
  private atLineStart(offset: number): boolean {
    for (let i = offset - 1; i >= 0; i--) {
      const c = this.source.charCodeAt(i);
      if (c === 10) return true;
      if (c !== 32 && c !== 9 && c !== 13) return false;
    }
    return true;
  }

  private skipTrivia(): void {
    const s = this.source;
    const n = this.end;
    for (;;) {
      if (this.pos >= n) return;
      const c = s.charCodeAt(this.pos);
      if (isSpace(c)) {
        this.pos++;
        continue;
      }
      if (c === 45 && s.charCodeAt(this.pos + 1) === 45) {
        const nl = s.indexOf('\n', this.pos);
        this.pos = nl < 0 ? n : nl + 1;
        continue;
      }
      if (c === 35 && this.dialect === 'mysql') {
        const nl = s.indexOf('\n', this.pos);
        this.pos = nl < 0 ? n : nl + 1;
        continue;
      }
      if (c === 47 && s.charCodeAt(this.pos + 1) === 42) {
        const third = s.charCodeAt(this.pos + 2);
        if (this.dialect === 'mysql' && (third === 33 || (third === 77 && s.charCodeAt(this.pos + 3) === 33))) {
          // Executable comment: drop the opener and its version number, keep the content; a
          // version no server reaches (MariaDB's /*M!999999 sandbox marker) stays a comment.
          let p = this.pos + (third === 33 ? 3 : 4);
          const digits = p;
          while (isDigit(s.charCodeAt(p))) p++;
          if (p > digits && Number(s.slice(digits, p)) < 990000) {
            this.pos = p;
            this.conditionalDepth++;
            continue;
          }
          if (p === digits) {
            this.pos = p;
            this.conditionalDepth++;
            continue;
          }
        }
        this.skipBlockComment();
        continue;
      }
      if (c === 42 && s.charCodeAt(this.pos + 1) === 47 && this.conditionalDepth > 0) {
        this.conditionalDepth--;
        this.pos += 2;
        continue;
      }
      return;
    }
  }

  private skipBlockComment(): void {
    const s = this.source;
    const start = this.pos;
    // PostgreSQL nests block comments; MySQL and SQLite end at the first `*/`.
    const nests = this.dialect === 'postgres';
    let depth = 0;
    let p = this.pos;
    for (;;) {
      const open = nests ? s.indexOf('/*', p) : -1;
      const close = s.indexOf('*/', p);
      if (close < 0) this.fail(start, 'unterminated /* comment');
      if (open >= 0 && open < close) {
        depth++;
        p = open + 2;
        continue;
      }
      depth--;
      p = close + 2;
      if (depth <= 0) break;
    }
    this.pos = p;
  }

  /** Reads a quoted run ending with `quote`; a doubled quote is one quote; backslash escapes when asked. */
  private readQuoted(quote: number, backslash: boolean, what: string): string {
    const s = this.source;
    const start = this.pos;
    let p = this.pos + 1;
    let out = '';
    let chunk = p;
    for (;;) {
      const c = s.charCodeAt(p);
      if (Number.isNaN(c)) this.fail(start, `unterminated ${what}`);
      if (backslash && c === 92) {
        out += s.slice(chunk, p);
        const e = s[p + 1] ?? '';
        out += ({ n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', Z: '\x1a' } as Record<string, string>)[e] ?? e;
        p += 2;
        chunk = p;
        continue;
      }
      if (c === quote) {
        if (s.charCodeAt(p + 1) === quote) {
          out += s.slice(chunk, p + 1);
          p += 2;
          chunk = p;
          continue;
        }
        out += s.slice(chunk, p);
        this.pos = p + 1;
        return out;
      }
      p++;
    }
  }

  next(): Token | null {
    this.skipTrivia();
    const s = this.source;
    const start = this.pos;
    if (start >= this.end) return null;
    const c = s.charCodeAt(start);
    const tok = (kind: TokenKind, value: string): Token => ({ kind, value, offset: start, end: this.pos });

    if (this.delimiter !== ';' && s.startsWith(this.delimiter, start)) {
      this.pos += this.delimiter.length;
      return tok('end', this.delimiter);
    }
    if (c === 59 && this.delimiter === ';') {
      this.pos++;
      return tok('end', ';');
    }
    if (c === 92 && this.atLineStart(start)) {
      this.restOfLine();
      return tok('meta', s.slice(start, this.pos).trim());
    }
    if (c === 39) {
      const value = this.readQuoted(39, this.dialect === 'mysql', 'string');
      return tok('string', value);
    }
    if ((c === 69 || c === 101) && s.charCodeAt(start + 1) === 39 && this.dialect === 'postgres') {
      this.pos++;
      const value = this.readQuoted(39, true, 'string');
      return { kind: 'string', value, offset: start, end: this.pos };
    }
    if (c === 34) {
      if (this.dialect === 'mysql') return tok('string', this.readQuoted(34, true, 'string'));
      return tok('quoted', this.readQuoted(34, false, 'quoted identifier'));
    }
    if (c === 96) return tok('quoted', this.readQuoted(96, false, 'quoted identifier'));
    if (c === 91 && this.dialect === 'sqlite') {
      const close = s.indexOf(']', start);
      if (close < 0) this.fail(start, 'unterminated [identifier]');
      this.pos = close + 1;
      return tok('quoted', s.slice(start + 1, close));
    }
    if (c === 36 && this.dialect === 'postgres') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(s.slice(start, start + 80));
      if (m) {
        const close = s.indexOf(m[0], start + m[0].length);
        if (close < 0) this.fail(start, `unterminated dollar-quoted string ${m[0]}`);
        this.pos = close + m[0].length;
        return tok('string', s.slice(start + m[0].length, close));
      }
    }
    if (isDigit(c) || (c === 46 && isDigit(s.charCodeAt(start + 1)))) {
      let p = start;
      if (c === 48 && (s[p + 1] === 'x' || s[p + 1] === 'X' || s[p + 1] === 'b' || s[p + 1] === 'B')) {
        p += 2;
        while (isWordChar(s.charCodeAt(p))) p++;
      } else {
        while (isDigit(s.charCodeAt(p)) || s.charCodeAt(p) === 95) p++;
        if (s.charCodeAt(p) === 46) {
          p++;
          while (isDigit(s.charCodeAt(p))) p++;
        }
        if ((s[p] === 'e' || s[p] === 'E') && (isDigit(s.charCodeAt(p + 1)) || ((s[p + 1] === '+' || s[p + 1] === '-') && isDigit(s.charCodeAt(p + 2))))) {
          p += 2;
          while (isDigit(s.charCodeAt(p))) p++;
        }
      }
      // `1abc` is one word to MySQL (identifiers may start with digits).
      if (this.dialect === 'mysql' && isWordStart(s.charCodeAt(p))) {
        while (isWordChar(s.charCodeAt(p))) p++;
        this.pos = p;
        return tok('word', s.slice(start, p));
      }
      this.pos = p;
      return tok('number', s.slice(start, p));
    }
    if (isWordStart(c)) {
      let p = start + 1;
      while (isWordChar(s.charCodeAt(p))) p++;
      this.pos = p;
      return tok('word', s.slice(start, p));
    }
    if (c === 40 || c === 41 || c === 44 || c === 46 || c === 91 || c === 93) {
      this.pos++;
      return tok('punct', s[start]!);
    }
    if (c === 58 && s.charCodeAt(start + 1) === 58) {
      this.pos += 2;
      return tok('op', '::');
    }
    if (OP_CHARS.has(s[start]!)) {
      let p = start + 1;
      // Comment openers end an operator run; `*/` may close a conditional comment.
      while (p < s.length && OP_CHARS.has(s[p]!) && !s.startsWith('--', p) && !s.startsWith('/*', p) && !(this.conditionalDepth > 0 && s.startsWith('*/', p)))
        p++;
      this.pos = p;
      return tok('op', s.slice(start, p));
    }
    this.pos++;
    return tok('op', s[start]!);
  }
}
