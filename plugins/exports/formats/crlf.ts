import { Transform, type TransformCallback } from 'node:stream';

const QUOTE = 0x22;
const LF = 0x0a;
const CRLF = Buffer.from('\r\n');

/**
 * PostgreSQL's COPY ends CSV records with LF; EX2 promises CRLF. This turns each record end (a
 * LF outside quotes) into CRLF and counts the records, leaving line breaks inside quoted fields
 * as they are. Quotes inside a field come in pairs (`""`), so the quote state is the parity of
 * the quotes seen so far, and it carries across chunk boundaries.
 */
export class CsvRecordEnds extends Transform {
  records = 0;
  private quoted = false;

  constructor(private readonly onRecords?: (records: number) => void) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const parts: Buffer[] = [];
    let start = 0;
    let quote = chunk.indexOf(QUOTE);
    let lf = chunk.indexOf(LF);
    const before = this.records;
    while (lf !== -1) {
      if (quote !== -1 && quote < lf) {
        this.quoted = !this.quoted;
        quote = chunk.indexOf(QUOTE, quote + 1);
        continue;
      }
      if (!this.quoted) {
        parts.push(chunk.subarray(start, lf), CRLF);
        start = lf + 1;
        this.records++;
      }
      lf = chunk.indexOf(LF, lf + 1);
    }
    // Quotes after the last line break still flip the state for the next chunk.
    for (; quote !== -1; quote = chunk.indexOf(QUOTE, quote + 1)) this.quoted = !this.quoted;
    if (start === 0) {
      done(null, chunk);
    } else {
      if (start < chunk.length) parts.push(chunk.subarray(start));
      done(null, Buffer.concat(parts));
    }
    if (this.records !== before) this.onRecords?.(this.records);
  }
}
