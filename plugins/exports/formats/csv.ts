import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { cellText, FORMULA_PRONE, formulaSafe, type OutColumn } from './cells.js';
import type { RowChunks } from './index.js';

// csv-stringify quotes only its own record delimiter (CRLF); a lone CR or LF must be quoted too,
// or readers that end records on either would split the value.
const OPTIONS = { record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

/**
 * RFC 4180 CSV, UTF-8 without BOM, a header row of column names, CRLF line ends; NULL is an
 * empty field. Each chunk of rows becomes one string (csv-stringify's sync form): one write per
 * chunk, not a stream step per row. `safe`: text a spreadsheet would run as a formula gets a
 * leading apostrophe (EX3).
 */
export async function writeCsv(rows: RowChunks, columns: OutColumn[], out: Writable, signal: AbortSignal, safe = false): Promise<void> {
  const cell = columns.map((c) => {
    const type = c.type;
    if (!safe || !FORMULA_PRONE.has(type)) return (v: unknown) => cellText(v, type) ?? '';
    return (v: unknown) => formulaSafe(cellText(v, type) ?? '');
  });
  async function* text() {
    yield stringify([columns.map((c) => c.name)], OPTIONS);
    for await (const chunk of rows) {
      if (chunk.length)
        yield stringify(
          chunk.map((row) => row.map((v, i) => cell[i]!(v))),
          OPTIONS,
        );
    }
  }
  await pipeline(text, out, { signal });
}
