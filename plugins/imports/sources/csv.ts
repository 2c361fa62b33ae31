import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse, type CsvError } from 'csv-parse';
import type { ReadOptions, SourceRecord } from './types.js';

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

/**
 * RFC 4180 records (UTF-8, BOM dropped, CRLF or LF), the first being the header. A record
 * with the wrong number of fields, or one the parser cannot read (a stray quote), comes back
 * as an error with its line, and reading goes on with the next one.
 */
export async function* readCsv(path: string, opts: ReadOptions): AsyncGenerator<SourceRecord> {
  const skipped: SourceRecord[] = [];
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      delimiter: opts.delimiter ?? ',',
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      info: true,
      on_skip: (err: CsvError | undefined, raw?: string) => {
        if (err) skipped.push({ line: Number(err.lines ?? 0), error: `malformed CSV: ${err.message}`, raw: raw === undefined ? null : [raw] });
        return undefined;
      },
    }),
  );
  let header: string[] | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      opts.signal?.throwIfAborted();
      while (skipped.length) yield skipped.shift()!;
      if (!header) {
        header = record.map((h) => h.trim());
        continue;
      }
      if (record.length !== header.length) {
        yield { line: info.lines, error: `malformed CSV: expected ${header.length} fields, found ${record.length}`, raw: record };
        continue;
      }
      const values: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) values[header[i]!] = record[i];
      yield { line: info.lines, values };
    }
    while (skipped.length) yield skipped.shift()!;
  } finally {
    parser.destroy();
  }
}

/** The header of a CSV file. */
export async function csvHeader(path: string, delimiter: string): Promise<string[]> {
  const parser = createReadStream(path).pipe(parse({ bom: true, delimiter, relax_column_count: true, skip_empty_lines: true, to_line: 1 }));
  for await (const record of parser as AsyncIterable<string[]>) {
    parser.destroy();
    return record.map((h) => h.trim());
  }
  return [];
}
