import type { ReferentialAction } from '../../../../engine/schema/model.js';
import type { Cursor } from './cursor.js';
import type { Token } from './tokenizer.js';

/** Words that may continue a type name after a cast (`::character varying`, `::timestamp with time zone`). */
const TYPE_TAIL = new Set(['VARYING', 'PRECISION', 'WITH', 'WITHOUT', 'TIME', 'ZONE']);

/** Consumes a type after `::`: a possibly qualified name, its arguments, array brackets. */
function castType(c: Cursor): void {
  if (!c.isIdentifier()) c.fail('expected a type after `::`');
  c.qualifiedName('a type');
  const tail = () => {
    while (c.peek()?.kind === 'word' && TYPE_TAIL.has(c.peek()!.value.toUpperCase())) c.i++;
  };
  tail();
  if (c.isPunct('(')) c.group();
  tail();
  while (c.isPunct('[')) c.i = c.closing(c.i) + 1;
}

/** One operand: a literal, a name or call, a parenthesised expression, ARRAY[…], CASE … END. */
function operand(c: Cursor): void {
  const t = c.peek();
  if (!t) c.fail('expected an expression');
  if (t.kind === 'op' && ['-', '+', '~', '!'].includes(t.value)) {
    c.i++;
    operand(c);
    return;
  }
  if (t.kind === 'punct' && t.value === '(') {
    c.group();
    return;
  }
  if (t.kind === 'string' || t.kind === 'number') {
    c.i++;
    // MySQL concatenates adjacent strings.
    while (c.peek()?.kind === 'string') c.i++;
    return;
  }
  if (t.kind === 'word' && t.value.toUpperCase() === 'NOT') {
    c.i++;
    operand(c);
    return;
  }
  if (t.kind === 'word' && t.value.toUpperCase() === 'CASE') {
    let depth = 0;
    while (!c.atEnd()) {
      const u = c.peek()!.kind === 'word' ? c.peek()!.value.toUpperCase() : '';
      c.i++;
      if (u === 'CASE') depth++;
      if (u === 'END' && --depth === 0) return;
    }
    c.fail('CASE without END');
  }
  if (t.kind === 'word' && t.value.toUpperCase() === 'ARRAY' && c.isPunct('[', 1)) {
    c.i++;
    c.i = c.closing(c.i) + 1;
    return;
  }
  if (t.kind === 'word' || t.kind === 'quoted') {
    c.qualifiedName();
    if (c.isPunct('(')) c.group();
    // Typed literals: DATE '2024-01-01', INTERVAL '1 day', _utf8mb4'x', b'01', x'ff'.
    else if (c.peek()?.kind === 'string') c.i++;
    return;
  }
  c.fail('expected an expression');
}

/**
 * Consumes an expression that is not parenthesised (a column DEFAULT) and answers its tokens.
 * It stops at the first token that cannot continue the expression, so `DEFAULT 0 NOT NULL`
 * reads `0`.
 */
export function unparenthesisedExpression(c: Cursor): Token[] {
  const start = c.i;
  operand(c);
  for (;;) {
    const t = c.peek();
    if (!t) break;
    if (t.kind === 'op' && t.value === '::') {
      c.i++;
      castType(c);
      continue;
    }
    if (t.kind === 'punct' && t.value === '[') {
      c.i = c.closing(c.i) + 1;
      continue;
    }
    if (t.kind === 'op' && t.value !== '::') {
      c.i++;
      operand(c);
      continue;
    }
    if (c.isWord('AT', 'TIME', 'ZONE')) {
      c.i += 3;
      operand(c);
      continue;
    }
    break;
  }
  return c.tokens.slice(start, c.i);
}

/** `CASCADE`, `SET NULL`, `NO ACTION`…; SET NULL/DEFAULT may name columns (PostgreSQL 15), which are read and dropped. */
export function referentialAction(c: Cursor): ReferentialAction {
  if (c.acceptWord('CASCADE')) return 'cascade';
  if (c.acceptWord('RESTRICT')) return 'restrict';
  if (c.acceptWord('NO', 'ACTION')) return 'no action';
  if (c.acceptWord('SET', 'NULL')) {
    if (c.isPunct('(')) c.group();
    return 'set null';
  }
  if (c.acceptWord('SET', 'DEFAULT')) {
    if (c.isPunct('(')) c.group();
    return 'set default';
  }
  return c.fail('expected CASCADE, RESTRICT, SET NULL, SET DEFAULT or NO ACTION');
}
