/**
 * A text column with CHECK (col IN ('a', 'b')) is an enum in all but name (it is how add-on tables
 * declare one: no enum type to outlive the table). PostgreSQL keeps that CHECK rewritten as
 * `col = ANY (ARRAY['a'::text, 'b'::text])`, or `col = 'a'::text` for one value: this reads both
 * spellings back into the column and its values, and answers null for anything else.
 */
const IDENT = String.raw`("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)`;
const LITERAL = String.raw`'((?:[^']|'')*)'::text`;
const ANY = new RegExp(String.raw`^${IDENT} = ANY \(ARRAY\[(.*)\]\)$`);
const ONE = new RegExp(String.raw`^${IDENT} = ${LITERAL}$`);
const LIST = new RegExp(String.raw`^${LITERAL}(?:, |$)`);

export function postgresEnumCheck(expression: string): { column: string; values: string[] } | null {
  const one = ONE.exec(expression);
  if (one) return { column: unquote(one[1] as string), values: [unescape(one[2] as string)] };
  const any = ANY.exec(expression);
  if (!any) return null;
  const values: string[] = [];
  let rest = any[2] as string;
  while (rest !== '') {
    const m = LIST.exec(rest);
    if (!m) return null;
    values.push(unescape(m[1] as string));
    rest = rest.slice(m[0].length);
  }
  return values.length > 0 ? { column: unquote(any[1] as string), values } : null;
}

const unquote = (id: string) => (id.startsWith('"') ? id.slice(1, -1).replace(/""/g, '"') : id);
const unescape = (s: string) => s.replace(/''/g, "'");
