import { AppError, startWorker } from '../../../kernel/api.js';
import type { ReadOptions, SourceRecord } from './types.js';
import type { XlsxWorkerData, XlsxWorkerMessage } from './xlsx-worker.js';
import { checkXlsx, DEFAULT_XLSX_LIMITS, XlsxLimitError } from './xlsx-read.js';

export { DEFAULT_XLSX_LIMITS, type XlsxLimits } from './xlsx-read.js';

/** The worker's module; kernel/workers.ts runs it from the sources or from the compiled build. */
const WORKER_ENTRY = new URL('./xlsx-worker.ts', import.meta.url);

const tooLarge = (message: string, params: Record<string, unknown>) => new AppError('IMPORT_UNPACKED_TOO_LARGE', { message, params });

const unreadable = (message: string) => new AppError('IMPORT_UNREADABLE', { message: `The file could not be read as XLSX: ${message.slice(0, 300)}` });

/** What the worker said, or how it ended, as the error the caller sees. */
function workerError(msg: Extract<XlsxWorkerMessage, { type: 'error' }>): AppError {
  if (msg.limit) return tooLarge(msg.message, { ...msg.params, what: msg.limit });
  return unreadable(msg.message);
}

/**
 * The first worksheet, read in a worker thread with a memory limit (xlsx-read.ts does the
 * reading): a decompression bomb that gets past the size limits ends the worker, and the
 * server answers 413 IMPORT_UNPACKED_TOO_LARGE instead of running out of memory itself.
 */
export async function* readXlsx(path: string, opts: ReadOptions): AsyncGenerator<SourceRecord> {
  opts.signal?.throwIfAborted();
  const limits = opts.xlsxLimits ?? DEFAULT_XLSX_LIMITS;
  // What the directory declares is refused here, before a worker is started (the worker checks again while inflating).
  await checkXlsx(path, limits).catch((err: unknown) => {
    if (err instanceof XlsxLimitError) throw tooLarge(err.message, { ...err.params, what: err.what });
    throw unreadable(String((err as Error)?.message ?? err));
  });
  const worker = startWorker(WORKER_ENTRY, {
    execArgv: [],
    workerData: { path, limits } satisfies XlsxWorkerData,
    resourceLimits: { maxOldGenerationSizeMb: limits.workerMemoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, limits.workerMemoryMb / 8)) },
  });
  let settle: { resolve: (m: XlsxWorkerMessage) => void; reject: (e: unknown) => void } | null = null;
  let ended: unknown = null;
  const finish = (err: unknown) => {
    ended ??= err;
    settle?.reject(ended);
    settle = null;
  };
  worker.on('message', (m: XlsxWorkerMessage) => {
    settle?.resolve(m);
    settle = null;
  });
  worker.on('error', (err: Error & { code?: string }) =>
    finish(
      err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? tooLarge(`Reading the file needed more than the XLSX reader's ${limits.workerMemoryMb} MB of memory.`, {
            what: 'worker-memory',
            limit: limits.workerMemoryMb,
          })
        : unreadable(String(err.message)),
    ),
  );
  worker.on('exit', () => finish(new AppError('IMPORT_UNREADABLE', { message: 'The XLSX reader stopped before the end of the file.' })));
  const onAbort = () => finish(opts.signal!.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const request = () => {
    const next = new Promise<XlsxWorkerMessage>((resolve, reject) => {
      if (ended) return reject(ended);
      settle = { resolve, reject };
      worker.postMessage('more');
    });
    // Awaited later; a failure meanwhile must not count as unhandled.
    next.catch(() => undefined);
    return next;
  };
  try {
    let pending = request();
    for (;;) {
      const msg = await pending;
      if (msg.type === 'error') throw workerError(msg);
      // The worker reads the next group while this one is consumed: one group ahead, no more.
      if (!msg.done) pending = request();
      for (const rec of msg.records) {
        opts.signal?.throwIfAborted();
        yield rec;
      }
      if (msg.done) return;
    }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await worker.terminate();
  }
}
