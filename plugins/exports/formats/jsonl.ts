import type { Writable } from 'node:stream';
import { setField } from '../../../engine/rows/index.js';
import { pipeline } from 'node:stream/promises';
import { cellJson, type OutColumn } from './cells.js';
import type { RowChunks } from './index.js';

/** JSON lines: one object per row, keys in column order, the kernel's wire values (binary as base64). */
export async function writeJsonl(rows: RowChunks, columns: OutColumn[], out: Writable, signal: AbortSignal): Promise<void> {
  const names = columns.map((c) => c.name);
  async function* lines() {
    // One string per chunk of rows: a write per row costs more than the JSON.
    for await (const chunk of rows) {
      let buf = '';
      for (const row of chunk) {
        const obj: Record<string, unknown> = {};
        // setField: a column called __proto__ stays a field (a plain store would set the prototype).
        for (let i = 0; i < names.length; i++) setField(obj, names[i]!, cellJson(row[i]));
        buf += JSON.stringify(obj) + '\n';
      }
      if (buf) yield buf;
    }
  }
  await pipeline(lines, out, { signal });
}
