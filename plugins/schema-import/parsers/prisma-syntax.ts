import { LineIndex, SchemaParseError, type Position } from './diagnostics.js';

/** The Prisma schema language as a tree: blocks, fields, attributes and their arguments. */

export type PrismaValue =
  | { kind: 'string'; value: string; at: Position }
  | { kind: 'number'; value: string; at: Position }
  | { kind: 'name'; value: string; at: Position }
  | { kind: 'call'; name: string; args: PrismaArg[]; at: Position }
  | { kind: 'list'; items: PrismaValue[]; at: Position };

export interface PrismaArg {
  /** Null for a positional argument. */
  name: string | null;
  value: PrismaValue;
}

export interface PrismaAttribute {
  /** `id`, `default`, `db.VarChar`, `relation`. */
  name: string;
  args: PrismaArg[];
  at: Position;
}

export interface PrismaField {
  name: string;
  type: string;
  /** Arguments of `Unsupported("…")`. */
  typeArgs: PrismaArg[];
  optional: boolean;
  list: boolean;
  attributes: PrismaAttribute[];
  at: Position;
}

export interface PrismaBlock {
  keyword: 'datasource' | 'generator' | 'model' | 'enum' | 'view' | 'type';
  name: string;
  at: Position;
  /** model, view, type: fields; enum: values (as fields without a type). */
  fields: PrismaField[];
  /** `@@id`, `@@map`, … */
  attributes: PrismaAttribute[];
  /** datasource and generator: `key = value`. */
  settings: Map<string, PrismaValue>;
}

type Kind = 'name' | 'string' | 'number' | 'punct' | 'newline' | 'eof';
interface Tok {
  kind: Kind;
  value: string;
  offset: number;
}

const BLOCKS = new Set(['datasource', 'generator', 'model', 'enum', 'view', 'type']);

function lex(source: string, lines: LineIndex): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const n = source.length;
  while (i < n) {
    const c = source[i]!;
    if (c === '\n') {
      toks.push({ kind: 'newline', value: '\n', offset: i });
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\ufeff') i++;
    else if (c === '/' && source[i + 1] === '/') {
      const nl = source.indexOf('\n', i);
      i = nl < 0 ? n : nl;
    } else if (c === '"') {
      let j = i + 1;
      let value = '';
      for (;;) {
        if (j >= n || source[j] === '\n') throw SchemaParseError.at(lines.at(i), 'unterminated string');
        const d = source[j]!;
        if (d === '\\') {
          const e = source[j + 1] ?? '';
          value += ({ n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' } as Record<string, string>)[e] ?? e;
          j += 2;
          continue;
        }
        if (d === '"') break;
        value += d;
        j++;
      }
      toks.push({ kind: 'string', value, offset: i });
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(source.slice(i, i + 64))!;
      toks.push({ kind: 'number', value: m[0], offset: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_-]/.test(source[j]!)) j++;
      toks.push({ kind: 'name', value: source.slice(i, j), offset: i });
      i = j;
    } else if (c === '@' && source[i + 1] === '@') {
      toks.push({ kind: 'punct', value: '@@', offset: i });
      i += 2;
    } else if ('{}()[],:=?@.'.includes(c)) {
      toks.push({ kind: 'punct', value: c, offset: i });
      i++;
    } else throw SchemaParseError.at(lines.at(i), `unexpected character ${JSON.stringify(c)}`);
  }
  toks.push({ kind: 'eof', value: '', offset: n });
  return toks;
}

/** Reads a Prisma schema into blocks; any syntax error is thrown with its line and column. */
export function readPrismaSchema(source: string): PrismaBlock[] {
  const lines = new LineIndex(source);
  const toks = lex(source, lines);
  let i = 0;
  const at = (t: Tok) => lines.at(t.offset);
  const peek = () => toks[i]!;
  const show = (t: Tok) => (t.kind === 'eof' ? 'the end of the file' : t.kind === 'newline' ? 'the end of the line' : `\`${t.value}\``);
  const fail = (message: string, t: Tok = peek()): never => {
    throw SchemaParseError.at(at(t), `${message} (found ${show(t)})`);
  };
  const isPunct = (p: string) => peek().kind === 'punct' && peek().value === p;
  const expectPunct = (p: string) => {
    if (!isPunct(p)) fail(`expected \`${p}\``);
    return toks[i++]!;
  };
  const name = (what: string) => {
    if (peek().kind !== 'name') fail(`expected ${what}`);
    return toks[i++]!.value;
  };
  const skipNewlines = () => {
    while (peek().kind === 'newline') i++;
  };
  // Inside (…) and […] line breaks do not matter.
  const skipNewlinesInGroup = skipNewlines;

  const value = (): PrismaValue => {
    skipNewlinesInGroup();
    const t = peek();
    if (t.kind === 'string') return (i++, { kind: 'string', value: t.value, at: at(t) });
    if (t.kind === 'number') return (i++, { kind: 'number', value: t.value, at: at(t) });
    if (isPunct('[')) {
      i++;
      const items: PrismaValue[] = [];
      skipNewlinesInGroup();
      while (!isPunct(']')) {
        items.push(value());
        skipNewlinesInGroup();
        if (!isPunct(']')) expectPunct(',');
        skipNewlinesInGroup();
      }
      i++;
      return { kind: 'list', items, at: at(t) };
    }
    if (t.kind === 'name') {
      i++;
      let full = t.value;
      while (isPunct('.') && toks[i + 1]?.kind === 'name') {
        full += '.' + toks[i + 1]!.value;
        i += 2;
      }
      if (isPunct('(')) return { kind: 'call', name: full, args: args(), at: at(t) };
      return { kind: 'name', value: full, at: at(t) };
    }
    return fail('expected a value');
  };

  function args(): PrismaArg[] {
    expectPunct('(');
    const out: PrismaArg[] = [];
    skipNewlinesInGroup();
    while (!isPunct(')')) {
      let argName: string | null = null;
      if (peek().kind === 'name' && toks[i + 1]?.kind === 'punct' && toks[i + 1]!.value === ':') {
        argName = toks[i]!.value;
        i += 2;
      }
      out.push({ name: argName, value: value() });
      skipNewlinesInGroup();
      if (!isPunct(')')) expectPunct(',');
      skipNewlinesInGroup();
    }
    i++;
    return out;
  }

  const attribute = (): PrismaAttribute => {
    const start = toks[i - 1]!;
    let full = name('an attribute name');
    while (isPunct('.')) {
      i++;
      full += '.' + name('an attribute name');
    }
    return { name: full, args: isPunct('(') ? args() : [], at: at(start) };
  };

  const endOfLine = (what: string) => {
    const t = peek();
    if (t.kind === 'newline') return void i++;
    if (t.kind === 'punct' && t.value === '}') return;
    fail(`unexpected text after ${what}`);
  };

  const blocks: PrismaBlock[] = [];
  for (;;) {
    skipNewlines();
    const head = peek();
    if (head.kind === 'eof') break;
    if (head.kind !== 'name' || !BLOCKS.has(head.value)) fail('expected a block: model, enum, view, type, datasource or generator');
    i++;
    const block: PrismaBlock = {
      keyword: head.value as PrismaBlock['keyword'],
      name: name(`a ${head.value} name`),
      at: at(head),
      fields: [],
      attributes: [],
      settings: new Map(),
    };
    const open = peek();
    expectPunct('{');
    for (;;) {
      skipNewlines();
      const t = peek();
      if (t.kind === 'eof') fail(`the ${block.keyword} ${block.name} block opened here is never closed`, open);
      if (isPunct('}')) {
        i++;
        break;
      }
      if (isPunct('@@')) {
        i++;
        block.attributes.push(attribute());
        endOfLine('a block attribute');
        continue;
      }
      const fieldName = name(block.keyword === 'enum' ? 'an enum value' : 'a field name');
      if (block.keyword === 'datasource' || block.keyword === 'generator') {
        expectPunct('=');
        block.settings.set(fieldName, value());
        endOfLine('a setting');
        continue;
      }
      const field: PrismaField = { name: fieldName, type: '', typeArgs: [], optional: false, list: false, attributes: [], at: at(t) };
      if (block.keyword !== 'enum') {
        if (peek().kind !== 'name') fail(`expected the type of field ${fieldName}`);
        field.type = toks[i++]!.value;
        if (field.type === 'Unsupported' && isPunct('(')) field.typeArgs = args();
        if (isPunct('[')) {
          i++;
          expectPunct(']');
          field.list = true;
        }
        if (isPunct('?')) {
          i++;
          field.optional = true;
        }
      }
      while (isPunct('@')) {
        i++;
        field.attributes.push(attribute());
      }
      endOfLine(block.keyword === 'enum' ? `enum value ${fieldName}` : `field ${fieldName}`);
      block.fields.push(field);
    }
    blocks.push(block);
  }
  return blocks;
}
