import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { CsvParser, type CsvRecord } from './csv-parser.js';
import type { ReadOptions, SourceRecord, SourceRow } from './types.js';

const CANDIDATES = [',', ';', '\t', '|'];

/** The delimiter of the first line (quoted parts skipped): the candidate found most often, comma when none. */
export async function sniffDelimiter(path: string): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const counts = new Map(CANDIDATES.map((c) => [c, 0]));
    let quoted = false;
    for (const ch of text) {
      if (ch === '"') quoted = !quoted;
      else if (!quoted && (ch === '\n' || ch === '\r')) break;
      else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
    }
    const [best, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    return n > 0 ? best : ',';
  } finally {
    await fh.close();
  }
}

/** The file's records through CsvParser, a chunk's worth at a time (64 KiB of text: a few hundred records). */
async function* csvChunks(path: string, opts: ReadOptions, toLine = Infinity): AsyncGenerator<CsvRecord[]> {
  const parser = new CsvParser(opts.delimiter ?? ',');
  const stream = createReadStream(path, { encoding: 'utf8' });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      opts.signal?.throwIfAborted();
      const out: CsvRecord[] = [];
      parser.push(chunk, out);
      if (out.length) yield out;
      if (out.length && out[out.length - 1]!.line >= toLine) return;
    }
    const out: CsvRecord[] = [];
    parser.end(out);
    if (out.length) yield out;
  } finally {
    stream.destroy();
  }
}

const wrongWidth = (expected: number, found: number) => `malformed CSV: expected ${expected} fields, found ${found}`;

/**
 * RFC 4180 records (UTF-8, BOM dropped, CRLF, LF or CR), the first being the header. A record
 * with the wrong number of fields, or one that cannot be read (a stray quote), comes back as an
 * error with its line, and reading goes on with the next one. Values by header name, one record
 * at a time: for the upload's scan.
 */
export async function* readCsv(path: string, opts: ReadOptions): AsyncGenerator<SourceRecord> {
  let header: string[] | null = null;
  for await (const records of csvChunks(path, opts)) {
    for (const rec of records) {
      if (rec.error !== undefined) {
        yield rec;
        continue;
      }
      if (!header) {
        header = rec.cells.map((h) => h.trim());
        continue;
      }
      if (rec.cells.length !== header.length) {
        yield { line: rec.line, error: wrongWidth(header.length, rec.cells.length), raw: rec.cells };
        continue;
      }
      const values: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) values[header[i]!] = rec.cells[i];
      yield { line: rec.line, values };
    }
  }
}

/**
 * The same records as cells aligned with `columns` (the upload's columns), a chunk at a time, so
 * an import awaits once per few hundred records rather than once per record. A header naming
 * a column twice gives the last one, as `readCsv` does.
 */
export async function* readCsvRows(path: string, columns: string[], opts: ReadOptions): AsyncGenerator<SourceRow[]> {
  let width = -1;
  // Where each of `columns` is in a record; null when the header is `columns` itself.
  let pick: number[] | null = null;
  for await (const records of csvChunks(path, opts)) {
    const rows: SourceRow[] = [];
    for (const rec of records) {
      if (rec.error !== undefined) rows.push(rec);
      else if (width < 0) {
        const header = rec.cells.map((h) => h.trim());
        width = header.length;
        const at = columns.map((c) => header.lastIndexOf(c));
        pick = at.length === width && at.every((p, i) => p === i) ? null : at;
      } else if (rec.cells.length !== width) rows.push({ line: rec.line, error: wrongWidth(width, rec.cells.length), raw: rec.cells });
      else if (pick) {
        const cells = rec.cells;
        rows.push({ line: rec.line, cells: pick.map((p) => (p < 0 ? undefined : cells[p])) });
      } else rows.push(rec);
    }
    if (rows.length) yield rows;
  }
}

/** The header of a CSV file. */
export async function csvHeader(path: string, delimiter: string): Promise<string[]> {
  for await (const records of csvChunks(path, { delimiter }, 1)) {
    const first = records[0]!;
    return first.error === undefined ? first.cells.map((h) => h.trim()) : [];
  }
  return [];
}
