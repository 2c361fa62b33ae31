/**
 * The little SQLite keeps only in the CREATE statement text (sqlite_master.sql): CHECK
 * constraints, generated-column expressions, and the expressions of expression indexes.
 * No pragma reports them, so we tokenize the statement; this is not a full SQL parser, it only
 * needs to find balanced parentheses and top-level commas while respecting quotes and comments.
 */

export interface Token {
  kind: 'word' | 'ident' | 'string' | 'number' | 'punct' | 'op';
  /** Unquoted text for identifiers and strings, the raw text otherwise. */
  value: string;
  start: number;
  end: number;
}

const CLOSING: Record<string, string> = { '"': '"', '`': '`', '[': ']', "'": "'" };

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? text.length : close + 2;
    } else if (ch in CLOSING) {
      const close = CLOSING[ch] as string;
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= text.length) break;
        if (text[j] === close) {
          // A doubled quote is an escaped quote ([…] has no escape).
          if (close !== ']' && text[j + 1] === close) {
            value += close;
            j += 2;
            continue;
          }
          break;
        }
        value += text[j];
        j++;
      }
      out.push({ kind: ch === "'" ? 'string' : 'ident', value, start: i, end: Math.min(j + 1, text.length) });
      i = j + 1;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(text[j] as string)) j++;
      out.push({ kind: 'word', value: text.slice(i, j), start: i, end: j });
      i = j;
    } else if (/[0-9.]/.test(ch) && /[0-9]/.test(text[ch === '.' ? i + 1 : i] ?? '')) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE]/.test(text[j] as string)) j++;
      out.push({ kind: 'number', value: text.slice(i, j), start: i, end: j });
      i = j;
    } else if ('(),;.'.includes(ch)) {
      out.push({ kind: 'punct', value: ch, start: i, end: i + 1 });
      i++;
    } else {
      out.push({ kind: 'op', value: ch, start: i, end: i + 1 });
      i++;
    }
  }
  return out;
}

const isWord = (t: Token | undefined, w: string) => t?.kind === 'word' && t.value.toLowerCase() === w;
const isPunct = (t: Token | undefined, p: string) => t?.kind === 'punct' && t.value === p;

/** Index of the `)` closing the `(` at `open`, or -1. */
function matching(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (isPunct(tokens[i], '(')) depth++;
    else if (isPunct(tokens[i], ')') && --depth === 0) return i;
  }
  return -1;
}

/** The comma-separated items inside the parentheses opening at `open`, as token index ranges. */
function items(tokens: Token[], open: number): Token[][] {
  const close = matching(tokens, open);
  if (close < 0) return [];
  const out: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  for (let i = open + 1; i < close; i++) {
    const t = tokens[i] as Token;
    if (isPunct(t, '(')) depth++;
    else if (isPunct(t, ')')) depth--;
    if (depth === 0 && isPunct(t, ',')) {
      out.push(current);
      current = [];
    } else current.push(t);
  }
  if (current.length > 0) out.push(current);
  return out;
}

export interface CreateTableDetails {
  checks: { name: string | null; expression: string }[];
  /** Generated-column expression by column name (lower case: SQLite names are case-insensitive). */
  generated: Map<string, string>;
}

const TABLE_CONSTRAINT = new Set(['constraint', 'primary', 'unique', 'check', 'foreign']);

export function parseCreateTable(text: string | null): CreateTableDetails {
  const details: CreateTableDetails = { checks: [], generated: new Map() };
  if (!text) return details;
  const tokens = tokenize(text);
  const open = tokens.findIndex((t) => isPunct(t, '('));
  // CREATE TABLE … AS SELECT has no column list of its own.
  if (open < 0 || tokens.slice(0, open).some((t) => isWord(t, 'as'))) return details;
  const slice = (a: Token, b: Token) => text.slice(a.end, b.start).trim();
  for (const item of items(tokens, open)) {
    const first = item[0];
    if (!first) continue;
    const column = first.kind === 'word' && TABLE_CONSTRAINT.has(first.value.toLowerCase()) ? null : first.value;
    let name: string | null = null;
    for (let i = column === null ? 0 : 1; i < item.length; i++) {
      const t = item[i] as Token;
      if (isWord(t, 'constraint')) {
        name = item[i + 1]?.value ?? null;
        i++;
        continue;
      }
      if (!isPunct(t, '(')) continue;
      const close = matching(item, i);
      if (close < 0) break;
      const expression = slice(t, item[close] as Token);
      const before = item[i - 1];
      if (isWord(before, 'check')) {
        details.checks.push({ name, expression });
        name = null;
      } else if (isWord(before, 'as') && column !== null) {
        details.generated.set(column.toLowerCase(), expression);
      }
      i = close;
    }
  }
  return details;
}

/** The key expressions of CREATE INDEX … ON t (k1, k2): one source text per key position. */
export function parseIndexKeys(text: string | null): string[] {
  if (!text) return [];
  const tokens = tokenize(text);
  const on = tokens.findIndex((t) => isWord(t, 'on'));
  const open = tokens.findIndex((t, i) => i > on && isPunct(t, '('));
  if (on < 0 || open < 0) return [];
  return items(tokens, open).map((item) => {
    // Drop a trailing ASC/DESC and COLLATE name: the model keeps only what is indexed.
    let end = item.length;
    if (isWord(item[end - 1], 'asc') || isWord(item[end - 1], 'desc')) end--;
    if (end >= 2 && isWord(item[end - 2], 'collate')) end -= 2;
    const first = item[0];
    const last = item[end - 1];
    return first && last ? text.slice(first.start, last.end) : '';
  });
}

/**
 * `status IN ('draft', 'active')`: SQLite has no enum type, and this CHECK is how schemas spell
 * one. Answers the column and the allowed values, or null for any other expression.
 */
export function enumCheck(expression: string): { column: string; values: string[] } | null {
  const t = tokenize(expression);
  const col = t[0];
  if (!col || (col.kind !== 'word' && col.kind !== 'ident') || !isWord(t[1], 'in') || !isPunct(t[2], '(') || !isPunct(t.at(-1), ')')) return null;
  // Only string literals separated by commas, up to the closing parenthesis.
  const values: string[] = [];
  for (let i = 3; i < t.length; i += 2) {
    const v = t[i];
    const sep = t[i + 1];
    if (v?.kind !== 'string') return null;
    values.push(v.value);
    if (i + 1 === t.length - 1) return { column: col.value, values };
    if (!isPunct(sep, ',')) return null;
  }
  return null;
}
