/** 1-based position in the source text. */
export interface Position {
  line: number;
  column: number;
}

export interface ParseWarning extends Position {
  message: string;
}

/** The one failure every parser throws; the route answers it as 400 SCHEMA_PARSE_FAILED. */
export class SchemaParseError extends Error {
  override name = 'SchemaParseError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly detail: string,
  ) {
    super(`line ${line}, column ${column}: ${detail}`);
  }

  static at(pos: Position, detail: string): SchemaParseError {
    return new SchemaParseError(pos.line, pos.column, detail);
  }
}

/** A dump can hold thousands of skipped statements; past this many the rest are counted, not listed. */
export const MAX_WARNINGS = 500;

export class Warnings {
  private readonly list: ParseWarning[] = [];
  private dropped = 0;

  add(pos: Position, message: string): void {
    if (this.list.length < MAX_WARNINGS) this.list.push({ line: pos.line, column: pos.column, message });
    else this.dropped++;
  }

  get count(): number {
    return this.list.length + this.dropped;
  }

  done(): ParseWarning[] {
    if (this.dropped === 0) return this.list;
    return [...this.list, { line: 1, column: 1, message: `${this.dropped} more warnings not listed` }];
  }
}

/** Maps offsets to lines and columns; built once per source, answered by binary search. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.starts.push(i + 1);
  }

  at(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

export const START: Position = { line: 1, column: 1 };
