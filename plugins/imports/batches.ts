import type { ControlledTransaction, Kysely } from 'kysely';
import { rowRefusal } from './failure.js';
import { CopyLines } from './pg-copy.js';
import type { ErrorReport } from './report.js';
import { keyFor, writeBatch, writeRows, type BatchOutcome, type BulkWrite, type PendingRow, type WriteTarget } from './write.js';

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
  /**
   * Just before a batch's own transaction commits (not `whole`'s): throws to roll it back
   * instead. The import checks there that its attempt still has the job (IM9).
   */
  beforeCommit?: () => Promise<void>;
  /** After each batch, with the last line whose fate is then known. */
  afterBatch: (upTo: number) => Promise<void>;
  /**
   * All or nothing by COPY: rows may come as COPY lines (addLine) instead of values, so a unit
   * holds no row's values (IM7). `write` copies a unit's lines, all or nothing, rejecting with the
   * database's error; `reread` gives the rows at those places of the file (seqs: the nth record
   * read) again as values, for finding the rows of a refused unit.
   */
  lines?: { write: (lines: CopyLines) => Promise<void>; reread: (seqs: number[]) => Promise<PendingRow[]> };
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
  private lines = new CopyLines();
  private refusals: Refusal[] = [];
  /** Set once the database refused a unit of lines: the rest of the import keeps rows as values, so it reads the file again at most once or twice. */
  private linesRefused = false;
  private readonly keyOf: ((row: PendingRow) => string) | null;
  private keys = new Set<string>();
  private inflight: Promise<void> = Promise.resolve();
  private consumed: number;

  constructor(private readonly o: BatchWriterOptions) {
    this.keyOf = keyFor(o.target);
    this.consumed = o.from;
  }

  private get full(): boolean {
    return this.rows.length + this.lines.size + this.refusals.length >= (this.o.unit ?? this.o.batchSize);
  }

  /** Whether addLine may be used (all or nothing by COPY, and no unit refused yet). */
  get takesLines(): boolean {
    return this.o.lines !== undefined && !this.linesRefused;
  }

  /** Queues a row as its COPY line (copyLine), `seq` being its place among the file's records; true when the batch is full. */
  addLine(seq: number, line: number, text: string): boolean {
    this.lines.add(seq, text);
    this.consumed = line;
    return this.full;
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
    const lines = this.lines;
    const refusals = this.refusals;
    this.rows = [];
    this.lines = new CopyLines();
    this.refusals = [];
    this.keys.clear();
    const job = this.write(rows, lines, refusals, this.consumed);
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

  /**
   * One COPY of the lines; when the database refuses it, the rows are read from the file again
   * and go batch by batch, a refused batch row by row, as writeRows does with values.
   */
  private async writeLines(trx: Db, lines: CopyLines): Promise<BatchOutcome> {
    const o = this.o.lines!;
    try {
      await o.write(lines);
      return { inserted: lines.size, updated: 0, refused: [] };
    } catch (err) {
      if (rowRefusal(this.o.target.dialect, err) === null) throw err;
    }
    this.linesRefused = true;
    const rows = await o.reread(lines.seqs);
    const out: BatchOutcome = { inserted: 0, updated: 0, refused: [] };
    for (let i = 0; i < rows.length; i += this.o.batchSize) {
      const part = await writeBatch(trx, this.o.target, rows.slice(i, i + this.o.batchSize), this.o.bulk);
      out.inserted += part.inserted;
      out.updated += part.updated;
      out.refused.push(...part.refused);
    }
    return out;
  }

  private async write(rows: PendingRow[], lines: CopyLines, refusals: Refusal[], upTo: number): Promise<void> {
    const { counts, report, whole } = this.o;
    if (rows.length || lines.size) {
      const trx = whole ?? (await this.o.db.startTransaction().execute());
      try {
        const outs: BatchOutcome[] = [];
        if (lines.size) outs.push(await this.writeLines(trx, lines));
        if (rows.length) outs.push(await writeRows(trx, this.o.target, rows, this.o.batchSize, this.o.bulk));
        if (!whole) {
          this.o.signal.throwIfAborted();
          await this.o.beforeCommit?.();
          await trx.commit().execute();
        }
        for (const out of outs) {
          counts.inserted += out.inserted;
          counts.updated += out.updated;
          for (const r of out.refused) refusals.push([r.row.line, r.reason, r.row.raw]);
        }
      } catch (err) {
        if (!whole)
          await trx
            .rollback()
            .execute()
            .catch(() => undefined);
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
