import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { idFloor, newId } from '../ids.js';
import type { Logger } from '../logger.js';
import type { MetaDb } from '../meta/types.js';
import type { BlobBackend, FileStore, PutOptions, StoredFile } from './types.js';

/** A put still being written is not an orphan: contents without an index row are removed only once this old. */
const ORPHAN_AGE_MS = 24 * 3600_000;
const IN_BATCH = 500;

type ObjectRow = { key: string; blob: string; size: number; created_at: number; expires_at: number | null };
const toFile = (r: ObjectRow): StoredFile => ({
  key: r.key,
  size: Number(r.size),
  createdAt: Number(r.created_at),
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
});

/**
 * The file store (K45): an index in the meta store (`file_objects`: key → blob id, size, expiry)
 * over a backend holding each blob's contents. A put writes a new blob and only then points the
 * key at it, so a reader sees the old file or the new one, never a half-written one, and two
 * replicas agree on what a key holds as soon as the meta store does.
 */
export class IndexedFileStore implements FileStore {
  constructor(
    private readonly db: MetaDb,
    private readonly backend: BlobBackend,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {}

  get driver() {
    return this.backend.driver;
  }

  async put(key: string, body: Readable | AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<StoredFile> {
    checkKey(key);
    const blob = newId(this.now());
    let size: number;
    try {
      size = await this.backend.write(blob, body);
    } catch (err) {
      await this.backend.remove(blob).catch(() => undefined);
      throw err;
    }
    const row: ObjectRow = { key, blob, size, created_at: this.now(), expires_at: opts.expiresAt ?? null };
    let previous: string | undefined;
    try {
      previous = await this.db.transaction().execute(async (trx) => {
        const old = await trx.selectFrom('file_objects').select('blob').where('key', '=', key).executeTakeFirst();
        if (old) await trx.deleteFrom('file_objects').where('key', '=', key).execute();
        await trx.insertInto('file_objects').values(row).execute();
        return old?.blob;
      });
    } catch (err) {
      await this.backend.remove(blob).catch(() => undefined);
      throw err;
    }
    if (previous) await this.removeBlob(previous);
    return toFile(row);
  }

  async stat(key: string): Promise<StoredFile | null> {
    const row = await this.row(key);
    return row ? toFile(row) : null;
  }

  async open(key: string): Promise<{ file: StoredFile; stream: Readable } | null> {
    const row = await this.row(key);
    if (!row) return null;
    return { file: toFile(row), stream: this.backend.read(row.blob, Number(row.size)) };
  }

  async localCopy(key: string, workDir: string): Promise<{ path: string; release(): void } | null> {
    const row = await this.row(key);
    if (!row) return null;
    if (this.backend.path) return { path: this.backend.path(row.blob), release: () => undefined };
    mkdirSync(workDir, { recursive: true });
    const path = join(workDir, `${row.blob}.${newId(this.now())}`);
    try {
      await pipeline(this.backend.read(row.blob, Number(row.size)), createWriteStream(path));
    } catch (err) {
      rmSync(path, { force: true });
      throw err;
    }
    return { path, release: () => rmSync(path, { force: true }) };
  }

  async expire(key: string, expiresAt: number | null): Promise<boolean> {
    const res = await this.db.updateTable('file_objects').set({ expires_at: expiresAt }).where('key', '=', key).executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async delete(key: string): Promise<boolean> {
    const row = await this.row(key);
    if (!row) return false;
    // Fenced on the blob read: a put that replaced it meanwhile keeps its new contents.
    const res = await this.db.deleteFrom('file_objects').where('key', '=', key).where('blob', '=', row.blob).executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) return false;
    await this.removeBlob(row.blob);
    return true;
  }

  async list(prefix: string): Promise<StoredFile[]> {
    const rows = await this.db
      .selectFrom('file_objects')
      .selectAll()
      .where('key', '>=', prefix)
      .where('key', '<', `${prefix}\u{10FFFF}`)
      .orderBy('key')
      .execute();
    // The range is a bound for an index; the prefix test is the rule (collations may order otherwise).
    return rows.filter((r) => r.key.startsWith(prefix)).map(toFile);
  }

  async sweep(now: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const due = await this.db.selectFrom('file_objects').select(['key', 'blob']).where('expires_at', '<=', now).limit(IN_BATCH).execute();
      for (const r of due) {
        const res = await this.db.deleteFrom('file_objects').where('key', '=', r.key).where('blob', '=', r.blob).executeTakeFirst();
        if (Number(res.numDeletedRows) > 0) (await this.removeBlob(r.blob), removed++);
      }
      if (due.length < IN_BATCH) break;
    }
    removed += await this.backend.removeOrphans(idFloor(now - ORPHAN_AGE_MS), async (ids) => {
      const live = new Set<string>();
      for (let i = 0; i < ids.length; i += IN_BATCH) {
        const rows = await this.db
          .selectFrom('file_objects')
          .select('blob')
          .where('blob', 'in', ids.slice(i, i + IN_BATCH))
          .execute();
        for (const r of rows) live.add(r.blob);
      }
      return live;
    });
    return removed;
  }

  private row(key: string): Promise<ObjectRow | undefined> {
    return this.db.selectFrom('file_objects').selectAll().where('key', '=', key).executeTakeFirst();
  }

  private async removeBlob(blob: string): Promise<void> {
    // A blob left behind here is an orphan the sweep removes later.
    await this.backend.remove(blob).catch((err: Error) => this.log.warn({ err: { message: err.message }, blob }, 'file contents not removed'));
  }
}

function checkKey(key: string): void {
  if (key.length === 0 || key.length > 255 || key.startsWith('/') || key.split('/').some((p) => p === '' || p === '.' || p === '..'))
    throw new Error(`Invalid file key: ${JSON.stringify(key)}`);
}

/** Any readable or async iterable as chunks of bytes. */
export async function* bytesOf(body: Readable | AsyncIterable<Uint8Array | string>): AsyncIterable<Uint8Array> {
  for await (const chunk of body as AsyncIterable<Uint8Array | string>) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}
