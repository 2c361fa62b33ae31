import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { cellJson, type OutColumn } from './cells.js';

/** JSON lines: one object per row, keys in column order, the kernel's wire values (binary as base64). */
export async function writeJsonl(rows: Readable, columns: OutColumn[], out: Writable, signal: AbortSignal): Promise<void> {
  const names = columns.map((c) => c.name);
  async function* lines(source: AsyncIterable<unknown[]>) {
    // Lines are batched into one string per chunk of rows: a write per row costs more than the JSON.
    let buf = '';
    let n = 0;
    for await (const row of source) {
      const obj: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) obj[names[i]!] = cellJson(row[i]);
      buf += JSON.stringify(obj) + '\n';
      if (++n === 500) {
        yield buf;
        buf = '';
        n = 0;
      }
    }
    if (buf) yield buf;
  }
  await pipeline(rows, lines, out, { signal });
}
