import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { cellSheet, type OutColumn } from './cells.js';
import type { RowChunks } from './index.js';

/** A sheet holds 1 048 576 rows; the header takes one, the rest continue on the next sheet. */
export const SHEET_ROWS = 1_048_575;

/**
 * XLSX through exceljs' streaming writer: each row is committed (serialised into the zip
 * stream) as it comes, without shared strings or styles, so memory stays flat. Every sheet
 * repeats the header row.
 */
export async function writeXlsx(chunks: RowChunks, columns: OutColumn[], out: Writable, signal: AbortSignal, sheetRows = SHEET_ROWS): Promise<void> {
  // Loaded on first use: exceljs costs ~27 MB of memory a process that never writes XLSX need not pay.
  const { default: excel } = await import('exceljs');
  const book = new excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const header = columns.map((c) => c.name);
  const types = columns.map((c) => c.type);
  let sheet: ExcelJS.Worksheet | null = null;
  let inSheet = 0;
  let sheets = 0;
  const finished = once(out, 'finish');
  // Without this, a failing file stream would leave `finished` waiting forever.
  const failed = once(out, 'error').then(([err]) => Promise.reject(err as Error));
  failed.catch(() => undefined);
  for await (const chunk of chunks) {
    // exceljs serialises synchronously and its zip stream rarely asks to drain, and a SQLite read
    // resolves without I/O: without a turn of the event loop per chunk, the process would answer
    // nothing (a cancel included) until the whole file is written.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const row of chunk) {
      signal.throwIfAborted();
      if (!sheet || inSheet === sheetRows) {
        sheet?.commit();
        sheet = book.addWorksheet(sheets === 0 ? 'Sheet1' : `Sheet${sheets + 1}`);
        sheets++;
        sheet.addRow(header).commit();
        inSheet = 0;
      }
      sheet.addRow(row.map((v, i) => cellSheet(v, types[i]!))).commit();
      inSheet++;
      // The zip stream has no backpressure of its own: wait for the file when it falls behind.
      if (out.writableNeedDrain) await Promise.race([once(out, 'drain'), failed]);
    }
  }
  if (!sheet) book.addWorksheet('Sheet1').addRow(header).commit();
  else sheet.commit();
  await Promise.race([book.commit(), failed]);
  await Promise.race([finished, failed]);
}
