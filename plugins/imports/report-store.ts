import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type FileStore, newId, type StoredFile } from '../../kernel/api.js';
import { attemptReportKey, reportPrefix, reportSegmentKey, segmentAttempt, segmentOffset } from './files.js';

/**
 * An import's error reports in the file store, so that any replica serves one and a retry on
 * another replica resumes it. Each attempt of the import's job writes a report of its own
 * (IM9): it appends to a file of its own machine (report.ts) and, at each checkpoint, stores the
 * bytes added since the last one as a segment under its own key. The row names the report to
 * read (`report_key`), and only an attempt that still holds the job moves that name; so a
 * holder that stalled past its lease and resumes writes nothing anyone reads.
 */
export class StoredReport {
  constructor(
    private readonly files: FileStore,
    private readonly importId: string,
  ) {}

  /** The report this claim of attempt `attempt` writes, under a key no other claim has. */
  attempt(attempt: number): AttemptReport {
    return new AttemptReport(this.files, this, attemptReportKey(this.importId, attempt, newId()));
  }

  /** The segments of the report `reportKey` names, by offset; null names those stored before IM9 (directly under the import's prefix). */
  async segments(reportKey: string | null): Promise<StoredFile[]> {
    if (reportKey) return this.files.list(reportKey);
    return (await this.files.list(reportPrefix(this.importId))).filter((s) => segmentAttempt(this.importId, s.key) === null);
  }

  /** The whole report `reportKey` names, as stored so far; null before anything was. */
  async open(reportKey: string | null): Promise<{ size: number; stream: Readable } | null> {
    const segments = await this.segments(reportKey);
    if (segments.length === 0) return null;
    return { size: segments.reduce((n, s) => n + s.size, 0), stream: this.concat(segments.map((s) => s.key)) };
  }

  /** Every report of the import. */
  remove(): Promise<number> {
    return this.removeWhere(() => true);
  }

  /**
   * Once the row names `own`, the report of attempt `attempt`: the reports of earlier claims
   * (attempts up to this one: a claim a shutdown handed back ran under the same number) and
   * those stored before IM9, which no later write can name again. Later attempts' reports stay.
   */
  removeOlder(attempt: number, own: string): Promise<number> {
    return this.removeWhere((a, key) => !key.startsWith(own) && (a === null || a <= attempt));
  }

  /** Whatever is not part of the report `reportKey` names: for a finished import, whose name no longer moves. */
  removeAllBut(reportKey: string | null): Promise<number> {
    return this.removeWhere((a, key) => (reportKey ? !key.startsWith(reportKey) : a !== null));
  }

  private async removeWhere(doomed: (attempt: number | null, key: string) => boolean): Promise<number> {
    let removed = 0;
    for (const s of await this.files.list(reportPrefix(this.importId)))
      if (doomed(segmentAttempt(this.importId, s.key), s.key) && (await this.files.delete(s.key))) removed++;
    return removed;
  }

  /** The segments one after the other, each opened as the previous one ends. */
  concat(keys: string[]): Readable {
    const out = new PassThrough();
    const files = this.files;
    void (async () => {
      for (const key of keys) {
        const opened = await files.open(key);
        if (!opened) throw new Error('A segment of the error report is gone.');
        await pipeline(opened.stream, out, { end: false });
      }
      out.end();
    })().catch((err: Error) => out.destroy(err));
    return out;
  }
}

/** One attempt's report: its segments under `key`, which the row names once the attempt took the import over. */
export class AttemptReport {
  private stored = 0;
  private wrote = false;

  constructor(
    private readonly files: FileStore,
    private readonly report: StoredReport,
    readonly key: string,
  ) {}

  /**
   * Rebuilds, in the local file `path`, the first `resumeAt` bytes of the report `from` names (an
   * earlier attempt's, up to its checkpoint); empty for 0. The next persist stores them as this
   * attempt's first segment: this attempt's report is whole on its own.
   */
  async restore(path: string, from: string | null, resumeAt: number): Promise<void> {
    const kept = resumeAt > 0 ? (await this.report.segments(from)).filter((s) => segmentOffset(s.key) < resumeAt) : [];
    rmSync(path, { force: true });
    await pipeline(this.report.concat(kept.map((s) => s.key)), createWriteStream(path));
    this.stored = 0;
  }

  /** Stores what the local file gained since the last call. */
  async persist(path: string, bytes: number): Promise<void> {
    if (bytes <= this.stored) return;
    this.wrote = true;
    await this.files.put(reportSegmentKey(this.key, this.stored), createReadStream(path, { start: this.stored, end: bytes - 1 }));
    this.stored = bytes;
  }

  /** Removes what this attempt stored, unless `named` (the report the row names now) is this one. */
  async dropUnless(named: string | null): Promise<void> {
    if (!this.wrote || named === this.key) return;
    for (const s of await this.files.list(this.key)) await this.files.delete(s.key);
  }
}
