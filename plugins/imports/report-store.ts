import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStore } from '../../kernel/files/types.js';
import { reportPrefix, reportSegmentKey, segmentOffset } from './files.js';

/**
 * An import's error report in the file store, so that any replica serves it and a retry on
 * another replica resumes it: the run appends to a file of its own machine (report.ts) and, at
 * each checkpoint, stores the bytes added since the last one as a segment. A retry keeps the
 * segments before its checkpoint and drops the rest.
 */
export class StoredReport {
  private stored = 0;

  constructor(
    private readonly files: FileStore,
    private readonly importId: string,
  ) {}

  /** Rebuilds the report up to `resumeAt` in the local file `path` (empty for 0) and forgets later segments. */
  async restore(path: string, resumeAt: number): Promise<void> {
    const segments = await this.files.list(reportPrefix(this.importId));
    for (const s of segments) if (segmentOffset(s.key) >= resumeAt) await this.files.delete(s.key);
    const kept = segments.filter((s) => segmentOffset(s.key) < resumeAt);
    rmSync(path, { force: true });
    const out = createWriteStream(path);
    await pipeline(this.concat(kept.map((s) => s.key)), out);
    this.stored = resumeAt;
  }

  /** Stores what the local file gained since the last call. */
  async persist(path: string, bytes: number): Promise<void> {
    if (bytes <= this.stored) return;
    await this.files.put(reportSegmentKey(this.importId, this.stored), createReadStream(path, { start: this.stored, end: bytes - 1 }));
    this.stored = bytes;
  }

  /** The whole report, as stored so far; null before anything was. */
  async open(): Promise<{ size: number; stream: Readable } | null> {
    const segments = await this.files.list(reportPrefix(this.importId));
    if (segments.length === 0) return null;
    return { size: segments.reduce((n, s) => n + s.size, 0), stream: this.concat(segments.map((s) => s.key)) };
  }

  async remove(): Promise<number> {
    const segments = await this.files.list(reportPrefix(this.importId));
    for (const s of segments) await this.files.delete(s.key);
    return segments.length;
  }

  /** The segments one after the other, each opened as the previous one ends. */
  private concat(keys: string[]): Readable {
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
