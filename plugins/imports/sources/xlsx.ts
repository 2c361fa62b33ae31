import { setField, unescapeSheetText } from '../../../kernel/rows/index.js';
import type { ReadOptions, SourceRecord } from './types.js';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** exceljs reads date cells as UTC instants: midnight is a date, anything else a date-time. */
function dateText(d: Date): string {
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const h = d.getUTCHours();
  const m = d.getUTCMinutes();
  const s = d.getUTCSeconds();
  const ms = d.getUTCMilliseconds();
  if (h === 0 && m === 0 && s === 0 && ms === 0) return date;
  return `${date}T${pad(h)}:${pad(m)}:${pad(s)}${ms ? `.${pad(ms, 3)}` : ''}`;
}

/**
 * A cell as a plain value: formulas give their result, rich text and links their text. Text
 * comes back through OOXML's `_xHHHH_` escape (how a carriage return or a control character is
 * written, exports/formats/cells.ts), which exceljs' streaming reader leaves as it is.
 */
export function cellValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return dateText(v);
  if (typeof v === 'string') return unescapeSheetText(v);
  if (typeof v !== 'object') return v;
  const o = v as { richText?: Array<{ text: string }>; result?: unknown; formula?: string; text?: unknown; error?: string };
  if (o.richText) return unescapeSheetText(o.richText.map((r) => r.text).join(''));
  if ('result' in o || o.formula !== undefined) return cellValue(o.result);
  if (o.error !== undefined) return o.error;
  if (o.text !== undefined) return cellValue(o.text);
  return JSON.stringify(v);
}

/**
 * The first worksheet through exceljs' streaming reader (rows are parsed as the zip inflates,
 * never the whole book). Row 1 is the header; `line` is the sheet's row number.
 */
export async function* readXlsx(path: string, opts: ReadOptions): AsyncGenerator<SourceRecord> {
  // Loaded on first use, as for the export's writer (~27 MB a process that never reads XLSX need not pay).
  const { default: excel } = await import('exceljs');
  const book = new excel.stream.xlsx.WorkbookReader(path, { worksheets: 'emit', sharedStrings: 'cache', styles: 'cache', hyperlinks: 'ignore', entries: 'ignore' });
  for await (const sheet of book) {
    let header: string[] | null = null;
    for await (const row of sheet) {
      opts.signal?.throwIfAborted();
      const cells = (row.values as unknown[]).slice(1).map(cellValue);
      if (!header) {
        header = cells.map((c) => (c === null ? '' : String(c).trim()));
        continue;
      }
      if (cells.every((c) => c === null || c === '')) continue;
      const values: Record<string, unknown> = {};
      header.forEach((name, i) => {
        if (name) setField(values, name, cells[i] ?? null);
      });
      yield { line: row.number, values };
    }
    return;
  }
}
