/**
 * Positions inside JSON text, found without building a second tree: JSON.parse gives the
 * values but no positions, so a failed parse or a failed validation is located by scanning
 * the text again, only as far as needed.
 */

const isWs = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

function ws(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}

/** The end of the string starting at `i` (a `"`), or -1 when it never ends. */
function stringEnd(text: string, i: number): number {
  for (let p = i + 1; p < text.length; p++) {
    const c = text.charCodeAt(p);
    if (c === 92) p++;
    else if (c === 34) return p + 1;
  }
  return -1;
}

/** The end of the (valid) value starting at `i`. */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c !== '{' && c !== '[') {
    let p = i;
    while (p < text.length && !/[\s,\]}]/.test(text[p]!)) p++;
    return p;
  }
  let depth = 0;
  for (let p = i; p < text.length; p++) {
    const d = text[p];
    if (d === '"') p = stringEnd(text, p) - 1;
    else if (d === '{' || d === '[') depth++;
    else if (d === '}' || d === ']') {
      depth--;
      if (depth === 0) return p + 1;
    }
  }
  return text.length;
}

/** Offset of the value at `path` in valid JSON; the deepest ancestor that exists when the path runs out. */
export function locatePath(text: string, path: ReadonlyArray<PropertyKey>): number {
  let i = ws(text, 0);
  for (const key of path) {
    const open = text[i];
    if (open === '{' && typeof key === 'string') {
      let p = ws(text, i + 1);
      let found = -1;
      while (text[p] === '"') {
        const end = stringEnd(text, p);
        const name = JSON.parse(text.slice(p, end)) as string;
        p = ws(text, end);
        p = ws(text, p + 1); // the colon
        if (name === key) {
          found = p;
          break;
        }
        p = ws(text, valueEnd(text, p));
        if (text[p] === ',') p = ws(text, p + 1);
      }
      if (found < 0) return i;
      i = found;
    } else if (open === '[' && typeof key === 'number') {
      let p = ws(text, i + 1);
      for (let k = 0; k < key && text[p] !== ']'; k++) {
        p = ws(text, valueEnd(text, p));
        if (text[p] === ',') p = ws(text, p + 1);
      }
      if (text[p] === ']') return i;
      i = p;
    } else return i;
  }
  return i;
}

/** Offsets of the elements of the array at `path` (one pass). */
export function elementOffsets(text: string, path: ReadonlyArray<PropertyKey>): number[] {
  const start = locatePath(text, path);
  if (text[start] !== '[') return [];
  const out: number[] = [];
  let p = ws(text, start + 1);
  while (p < text.length && text[p] !== ']') {
    out.push(p);
    p = ws(text, valueEnd(text, p));
    if (text[p] === ',') p = ws(text, p + 1);
    else break;
  }
  return out;
}

/** Where JSON text stops being valid, and why; null when it is valid. */
export function findSyntaxError(text: string): { offset: number; message: string } | null {
  const stack: string[] = [];
  let i = ws(text, 0);
  const err = (offset: number, message: string) => ({ offset, message });
  const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/;
  // Expecting a value; after it, a comma or the end of the container.
  for (;;) {
    i = ws(text, i);
    if (i >= text.length) return err(i, 'unexpected end of the JSON text');
    const c = text[i]!;
    if (c === '{') {
      i = ws(text, i + 1);
      if (text[i] === '}') i++;
      else {
        stack.push('}');
        if (text[i] !== '"') return err(i, 'expected a property name in double quotes');
        const end = stringEnd(text, i);
        if (end < 0) return err(i, 'unterminated string');
        i = ws(text, end);
        if (text[i] !== ':') return err(i, 'expected `:` after the property name');
        i++;
        continue;
      }
    } else if (c === '[') {
      i = ws(text, i + 1);
      if (text[i] === ']') i++;
      else {
        stack.push(']');
        continue;
      }
    } else if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return err(i, 'unterminated string');
      const bad = /[\u0000-\u001f]/.exec(text.slice(i, end));
      if (bad) return err(i + bad.index, 'control character inside a string');
      i = end;
    } else {
      const m = literal.exec(text.slice(i, i + 400));
      if (!m) return err(i, `unexpected ${JSON.stringify(c)}`);
      i += m[0].length;
    }
    // After a value.
    for (;;) {
      i = ws(text, i);
      const close = stack[stack.length - 1];
      if (!close) return i < text.length ? err(i, 'unexpected text after the JSON value') : null;
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ',') return err(i, i >= text.length ? 'unexpected end of the JSON text' : `expected \`,\` or \`${close}\``);
      i = ws(text, i + 1);
      if (close === '}') {
        if (text[i] !== '"') return err(i, 'expected a property name in double quotes');
        const end = stringEnd(text, i);
        if (end < 0) return err(i, 'unterminated string');
        i = ws(text, end);
        if (text[i] !== ':') return err(i, 'expected `:` after the property name');
        i++;
      }
      break;
    }
  }
}
