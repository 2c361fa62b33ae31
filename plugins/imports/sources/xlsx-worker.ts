/**
 * The XLSX worker thread: parses one file (workerData) and hands records over in groups, one
 * group per `more` message from the parent, so it never runs ahead of the reader.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SourceRecord } from './types.js';
import { parseXlsx, XlsxLimitError, type XlsxLimits } from './xlsx-read.js';

export interface XlsxWorkerData {
  path: string;
  limits: XlsxLimits;
}

export type XlsxWorkerMessage =
  | { type: 'records'; records: SourceRecord[]; done: boolean }
  | { type: 'error'; limit: XlsxLimitError['what'] | null; message: string; params: Record<string, unknown> };

/** A group ends at this many records or cells, whichever comes first (a wide sheet sends fewer rows at once). */
const GROUP_RECORDS = 500;
const GROUP_CELLS = 100_000;

const port = parentPort!;
const { path, limits } = workerData as XlsxWorkerData;

let wanted = 0;
let wake: (() => void) | null = null;
port.on('message', () => {
  wanted++;
  wake?.();
});
const demand = async () => {
  while (wanted === 0) await new Promise<void>((r) => (wake = r));
  wanted--;
};

let failed = false;
function fail(err: unknown): void {
  if (failed) return;
  failed = true;
  const message: XlsxWorkerMessage =
    err instanceof XlsxLimitError
      ? { type: 'error', limit: err.what, message: err.message, params: err.params }
      : { type: 'error', limit: null, message: String((err as Error)?.message ?? err).slice(0, 300), params: {} };
  port.postMessage(message);
}

async function main(): Promise<void> {
  await demand();
  let records: SourceRecord[] = [];
  let cells = 0;
  for await (const rec of parseXlsx(path, limits, fail)) {
    if (failed) return;
    records.push(rec);
    cells += rec.error === undefined ? Object.keys(rec.values).length : 1;
    if (records.length >= GROUP_RECORDS || cells >= GROUP_CELLS) {
      port.postMessage({ type: 'records', records, done: false } satisfies XlsxWorkerMessage);
      records = [];
      cells = 0;
      await demand();
    }
  }
  if (!failed) port.postMessage({ type: 'records', records, done: true } satisfies XlsxWorkerMessage);
}

main().catch(fail);
