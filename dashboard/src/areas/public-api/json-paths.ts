/**
 * Where each value of a JSON text is, by path (`booking.capacity`, `filters.0.value`), so the
 * definition editor can put the server's message at the text it is about. A small tolerant scan:
 * it records spans while the text parses and stops quietly where it does not.
 */
export type Spans = Map<string, { start: number; end: number }>;

export function jsonSpans(text: string): Spans {
  const spans: Spans = new Map();
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (): never => {
    throw new Error('stop');
  };
  const str = () => {
    if (text[i] !== '"') fail();
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          const keyStart = i;
          const key = str();
          ws();
          if (text[i] !== ':') fail();
          i++;
          const child = path ? `${path}.${key}` : key;
          value(child);
          // The key's own text is the clearer thing to select for a key the server refuses.
          const span = spans.get(child);
          if (span) spans.set(child, { start: keyStart, end: span.end });
          ws();
          if (text[i] === ',') i++;
          else if (text[i] === '}') {
            i++;
            break;
          } else fail();
        }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else
        for (let n = 0; ; n++) {
          value(path ? `${path}.${n}` : String(n));
          ws();
          if (text[i] === ',') i++;
          else if (text[i] === ']') {
            i++;
            break;
          } else fail();
        }
    } else if (c === '"') str();
    else {
      const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
      if (!m) fail();
      i += m![0].length;
    }
    spans.set(path, { start, end: i });
  };
  try {
    value('');
  } catch {
    // What was read so far is still useful.
  }
  return spans;
}

/** The span of `path`, else of its nearest ancestor that is in the text (a missing key's object). */
export function spanOf(spans: Spans, path: string): { start: number; end: number } | null {
  for (let p = path; ;) {
    const hit = spans.get(p);
    if (hit) return hit;
    if (p === '') return null;
    const dot = p.lastIndexOf('.');
    p = dot < 0 ? '' : p.slice(0, dot);
  }
}

/** The 1-based line of a character offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text[k] === '\n') line++;
  return line;
}
