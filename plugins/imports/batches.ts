import type { ControlledTransaction, Kysely } from 'kysely';
import type { ErrorReport } from './report.js';
import { keyFor, writeRows, type BulkWrite, type PendingRow, type WriteTarget } from './write.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Trx = ControlledTransaction<any>;

export interface Counts {
  total: number;
  inserted: number;
  updated: number;
  refused: number;
}

export interface BatchWriterOptions {
  /** Where a batch's own transaction starts when there is no `whole`. */
  db: Db;
  /** The import's one transaction (all or nothing, dry run), or null: each batch commits its own. */
  whole: Trx | null;
  target: WriteTarget;
  bulk?: BulkWrite;
  batchSize: number;
  /** Rows gathered before a write (a multiple of batches, see writeRows); batchSize when absent. */
  unit?: number;
  /**
   * Write a batch while the next one is read and converted. Only without checkpoints: a
   * checkpoint must not count records read past its batch.
   */
  overlap: boolean;
  report: ErrorReport;
  counts: Counts;
  signal: AbortSignal;
  /** The last line read so far (a resumed import starts after its checkpoint). */
  from: number;
  /** After each batch, with the last line whose fate is then known. */
  afterBatch: (upTo: number) => Promise<void>;
}

type Refusal = [line: number, reason: string, raw: PendingRow['raw'] | string[] | null];

/**
 * Gathers converted rows and refused records into batches and writes them in file order. The
 * refusals found while reading wait for their batch and go to the report with the ones the
 * database makes, in line order. With `overlap`, one batch is in flight while the next fills:
 * the database works while this process parses.
 */
export class BatchWriter {
  private rows: PendingRow[] = [];
  private refusals: Refusal[] = [];
  private readonly keyOf: ((row: PendingRow) => string) | null;
  private keys = new Set<string>();
  private inflight: Promise<void> = Promise.resolve();
  private consumed: number;

  constructor(private readonly o: BatchWriterOptions) {
    this.keyOf = keyFor(o.target);
    this.consumed = o.from;
  }

  private get full(): boolean {
    return this.rows.length + this.refusals.length >= (this.o.unit ?? this.o.batchSize);
  }

  /** Queues a row; true when the batch is full and must be flushed. */
  add(row: PendingRow): boolean {
    if (this.keyOf) this.keys.add(this.keyOf(row));
    this.rows.push(row);
    this.consumed = row.line;
    return this.full;
  }

  /** Queues a record refused before the database saw it; true when the batch must be flushed. */
  refuse(line: number, reason: string, raw: Refusal[2]): boolean {
    this.refusals.push([line, reason, raw]);
    this.consumed = line;
    return this.full;
  }

  /** Upsert: true when the batch already holds the row's key (flush first, so the later row wins). */
  holdsKeyOf(row: PendingRow): boolean {
    return this.keyOf !== null && this.keys.has(this.keyOf(row));
  }

  /** Starts writing the batch (after the one in flight); waits for it unless overlapping. */
  async flush(): Promise<void> {
    await this.inflight;
    const rows = this.rows;
    const refusals = this.refusals;
    this.rows = [];
    this.refusals = [];
    this.keys.clear();
    const job = this.write(rows, refusals, this.consumed);
    // Awaited by the next flush or by finish; until then its failure must not be unhandled.
    job.catch(() => undefined);
    this.inflight = job;
    if (!this.o.overlap) await job;
  }

  /** Writes what is left and waits for every batch. */
  async finish(): Promise<void> {
    await this.flush();
    await this.inflight;
  }

  /** Waits for the batch in flight, whatever its outcome (before a rollback). */
  async settle(): Promise<void> {
    await this.inflight.catch(() => undefined);
  }

  private async write(rows: PendingRow[], refusals: Refusal[], upTo: number): Promise<void> {
    const { counts, report, whole } = this.o;
    if (rows.length) {
      const trx = whole ?? (await this.o.db.startTransaction().execute());
      try {
        const out = await writeRows(trx, this.o.target, rows, this.o.batchSize, this.o.bulk);
        if (!whole) {
          this.o.signal.throwIfAborted();
          await trx.commit().execute();
        }
        counts.inserted += out.inserted;
        counts.updated += out.updated;
        for (const r of out.refused) refusals.push([r.row.line, r.reason, r.row.raw]);
      } catch (err) {
        if (!whole) await trx.rollback().execute().catch(() => undefined);
        throw err;
      }
    }
    // The file's refusals and the database's, in line order (batches are written in file order).
    if (refusals.length > 1) refusals.sort((a, b) => a[0] - b[0]);
    for (const [line, reason, raw] of refusals) {
      counts.refused++;
      report.add(line, reason, raw);
    }
    await this.o.afterBatch(upTo);
  }
}
