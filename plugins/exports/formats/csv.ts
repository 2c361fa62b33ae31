import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { cellText, type OutColumn } from './cells.js';
import type { RowChunks } from './index.js';

// csv-stringify quotes only its own record delimiter (CRLF); a lone CR or LF must be quoted too,
// or readers that end records on either would split the value.
const OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

/**
 * RFC 4180 CSV, UTF-8 without BOM, a header row of column names, CRLF line ends; NULL is an
 * empty field. Each chunk of rows becomes one string (csv-stringify's sync form): one write per
 * chunk, not a stream step per row.
 */
export async function writeCsv(rows: RowChunks, columns: OutColumn[], out: Writable, signal: AbortSignal): Promise<void> {
  const types = columns.map((c) => c.type);
  async function* text() {
    yield stringify([columns.map((c) => c.name)], OPTIONS);
    for await (const chunk of rows) {
      if (chunk.length) yield stringify(chunk.map((row) => row.map((v, i) => cellText(v, types[i]!) ?? '')), OPTIONS);
    }
  }
  await pipeline(text, out, { signal });
}
