import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { cellText, type OutColumn } from './cells.js';

/** RFC 4180 CSV, UTF-8 without BOM, a header row of column names, CRLF line ends; NULL is an empty field. */
export async function writeCsv(rows: Readable, columns: OutColumn[], out: Writable, signal: AbortSignal): Promise<void> {
  const types = columns.map((c) => c.type);
  const csv = stringify({
    header: true,
    columns: columns.map((c) => c.name),
    record_delimiter: 'windows',
  });
  async function* cells(source: AsyncIterable<unknown[]>) {
    for await (const row of source) yield row.map((v, i) => cellText(v, types[i]!) ?? '');
  }
  await pipeline(rows, cells, csv, out, { signal });
}
