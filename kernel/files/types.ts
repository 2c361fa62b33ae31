import type { Readable } from 'node:stream';

/** Where file contents live (decisions K45): a folder, the meta store itself, or an S3-compatible bucket. */
export type FileStoreDriver = 'local' | 'meta' | 's3';

/** A stored file as the index knows it. */
export interface StoredFile {
  key: string;
  size: number;
  createdAt: number;
  /** When the sweep removes it; null: only when its owner deletes it. */
  expiresAt: number | null;
}

export interface PutOptions {
  expiresAt?: number | null;
}

/**
 * Files kept for the replicas together (uploads, error reports, exports). Keys are paths such as
 * `imports/uploads/<id>`, each starting with the owning plugin's name. A file becomes visible only
 * once it was written whole: a put that fails or is cut short leaves nothing a reader can see.
 */
export interface FileStore {
  readonly driver: FileStoreDriver;
  /** Streams `body` in (constant memory on every driver); replaces a file of the same key. */
  put(key: string, body: Readable | AsyncIterable<Uint8Array>, opts?: PutOptions): Promise<StoredFile>;
  stat(key: string): Promise<StoredFile | null>;
  /** The file as a stream, read as the consumer pulls; null when there is no such file. */
  open(key: string): Promise<{ file: StoredFile; stream: Readable } | null>;
  /**
   * A path on this machine holding the file, for readers that need a file (XLSX is a zip read
   * at random places). The local driver gives its own file; the others copy it into `workDir`,
   * which `release` removes.
   */
  localCopy(key: string, workDir: string): Promise<{ path: string; release(): void } | null>;
  /** Sets or clears when the sweep removes the file; false when there is no such file. */
  expire(key: string, expiresAt: number | null): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  /** Files whose key starts with `prefix`, by key. */
  list(prefix: string): Promise<StoredFile[]>;
  /** Removes expired files, and contents a put left behind when its process died; the count removed. */
  sweep(now: number): Promise<number>;
}

/** Where one driver keeps contents, each under a blob id the index points to. */
export interface BlobBackend {
  readonly driver: FileStoreDriver;
  /** Writes the whole body; resolves with its size in bytes. */
  write(blob: string, body: AsyncIterable<Uint8Array>): Promise<number>;
  read(blob: string, size: number): Readable;
  /** A path on this machine, when the contents are a plain file there. */
  path?(blob: string): string;
  remove(blob: string): Promise<void>;
  /** Blob ids below `before` (ids sort by creation time) that `live` does not name; removed. */
  removeOrphans(before: string, live: (ids: string[]) => Promise<Set<string>>): Promise<number>;
}
