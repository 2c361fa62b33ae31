import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Dialect, MetaDb } from '../meta/types.js';
import type { BlobBackend } from './types.js';

/** 256 KiB: a few round trips per MiB, and far below any packet limit a server is likely to keep. */
export const META_CHUNK_BYTES = 256 * 1024;
const ORPHANS_AT_ONCE = 500;

/**
 * The `meta` driver: contents in the meta store's `file_chunks`, a row per chunk. Written a chunk
 * at a time as the body arrives and read a chunk at a time as the reader pulls, so memory holds
 * about one chunk whatever the file's size. On MySQL a chunk stays under a quarter of
 * max_allowed_packet (a statement carries it escaped, up to twice its size).
 */
export class MetaBlobs implements BlobBackend {
  readonly driver = 'meta' as const;
  private chunkBytes: Promise<number> | null = null;

  constructor(
    private readonly db: MetaDb,
    private readonly dialect: Dialect,
    private readonly preferredChunk = META_CHUNK_BYTES,
  ) {}

  /** The chunk size this server takes (asked once). */
  chunkSize(): Promise<number> {
    return (this.chunkBytes ??= (async () => {
      if (this.dialect !== 'mysql') return this.preferredChunk;
      const res = await sql<{ packet: number | string }>`select @@max_allowed_packet as packet`.execute(this.db);
      const packet = Number(res.rows[0]?.packet ?? 0);
      return packet > 0 ? Math.max(1024, Math.min(this.preferredChunk, Math.floor(packet / 4))) : this.preferredChunk;
    })());
  }

  async write(blob: string, body: AsyncIterable<Uint8Array>): Promise<number> {
    const size = await this.chunkSize();
    let seq = 0;
    let total = 0;
    let held: Buffer[] = [];
    let heldBytes = 0;
    const store = async (data: Buffer) => {
      await this.db.insertInto('file_chunks').values({ blob, seq: seq++, data }).execute();
    };
    for await (const piece of body) {
      let buf = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      total += buf.length;
      while (heldBytes + buf.length >= size) {
        const take = size - heldBytes;
        held.push(buf.subarray(0, take));
        await store(Buffer.concat(held, size));
        buf = buf.subarray(take);
        held = [];
        heldBytes = 0;
      }
      if (buf.length) {
        // A copy: the producer may reuse its buffer once this chunk was taken.
        held.push(Buffer.from(buf));
        heldBytes += buf.length;
      }
    }
    if (heldBytes > 0) await store(Buffer.concat(held, heldBytes));
    return total;
  }

  read(blob: string, size: number): Readable {
    const db = this.db;
    let seq = 0;
    let sent = 0;
    return new Readable({
      highWaterMark: 1,
      async read() {
        try {
          if (sent >= size) return void this.push(null);
          const row = await db.selectFrom('file_chunks').select('data').where('blob', '=', blob).where('seq', '=', seq).executeTakeFirst();
          if (!row) throw new Error('The file is incomplete in the store (a chunk is missing).');
          seq++;
          const data = Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data as Uint8Array);
          sent += data.length;
          this.push(data);
        } catch (err) {
          this.destroy(err as Error);
        }
      },
    });
  }

  async remove(blob: string): Promise<void> {
    await this.db.deleteFrom('file_chunks').where('blob', '=', blob).execute();
  }

  async removeOrphans(before: string, live: (ids: string[]) => Promise<Set<string>>): Promise<number> {
    // Chunk 0 names every blob once; its primary key (blob, seq) serves the walk, a page at a
    // time past the last blob seen, so live files however many never hide the orphans after them.
    let removed = 0;
    let after = '';
    for (;;) {
      const page = await this.db
        .selectFrom('file_chunks')
        .select('blob')
        .where('seq', '=', 0)
        .where('blob', '<', before)
        .where('blob', '>', after)
        .orderBy('blob')
        .limit(ORPHANS_AT_ONCE)
        .execute();
      const ids = page.map((r) => r.blob);
      const kept = await live(ids);
      for (const id of ids) if (!kept.has(id)) (await this.remove(id), removed++);
      if (ids.length < ORPHANS_AT_ONCE) return removed;
      after = ids[ids.length - 1]!;
    }
  }
}
