import { closeSync, existsSync, ftruncateSync, openSync, statSync, writeSync } from 'node:fs';
import { stringify } from 'csv-stringify/sync';

const isList = (v: readonly unknown[] | Record<string, unknown>): v is readonly unknown[] => Array.isArray(v);

/**
 * The error report: a CSV of refused rows, `line,reason,<source columns…>`, one row per refusal,
 * the source values as the file had them. Appended as rows are refused, so a run that dies
 * leaves what it found; a retry truncates it back to its last checkpoint.
 */
export class ErrorReport {
  private fd: number;

  constructor(
    readonly path: string,
    private readonly columns: string[],
    resumeAt: number,
  ) {
    this.fd = openSync(path, existsSync(path) ? 'r+' : 'w+');
    ftruncateSync(this.fd, resumeAt);
    if (resumeAt === 0) this.write(['line', 'reason', ...columns]);
  }

  private write(fields: unknown[]): void {
    const text = stringify([fields.map((v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)))], {
      record_delimiter: 'windows',
    });
    writeSync(this.fd, text, statSync(this.path).size);
  }

  add(line: number, reason: string, raw: readonly unknown[] | Record<string, unknown> | null): void {
    const values: unknown[] = raw === null ? [] : isList(raw) ? [...raw] : this.columns.map((c) => raw[c]);
    // Every row as wide as the header, so the report opens as a table even for a short line.
    while (values.length < this.columns.length) values.push('');
    this.write([line, reason, ...values]);
  }

  get bytes(): number {
    return statSync(this.path).size;
  }

  close(): void {
    closeSync(this.fd);
  }
}
