import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { PassThrough, Readable } from 'node:stream';
import type { S3Config } from '../config.js';
import type { BlobBackend } from './types.js';

/** 8 MiB parts, two in flight: about 16 MiB held per upload whatever the file's size (S3 allows 10,000 parts, so up to ~80 GB). */
export const S3_PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** DeleteObjects takes at most 1000 keys. */
const DELETE_AT_ONCE = 1000;

/**
 * The `s3` driver: one object per blob in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2), under
 * the configured prefix. Written as a multipart upload while the body arrives and read as the
 * object's body streams, so memory stays bounded for any size; several servers share it as they
 * share the meta store.
 */
export class S3Blobs implements BlobBackend {
  readonly driver = 's3' as const;
  readonly client: S3Client;

  constructor(
    private readonly cfg: S3Config,
    client?: S3Client,
  ) {
    this.client =
      client ??
      new S3Client({
        region: cfg.region,
        forcePathStyle: cfg.forcePathStyle,
        ...(cfg.endpoint ? { endpoint: cfg.endpoint } : {}),
        ...(cfg.credentials ? { credentials: { accessKeyId: cfg.credentials.accessKeyId, secretAccessKey: cfg.credentials.secretAccessKey } } : {}),
      });
  }

  private key(blob: string): string {
    return `${this.cfg.prefix}${blob}`;
  }

  async write(blob: string, body: AsyncIterable<Uint8Array>): Promise<number> {
    let total = 0;
    // A PassThrough with back-pressure: Upload reads it part by part, the producer waits meanwhile.
    const pass = new PassThrough({ highWaterMark: 1024 * 1024 });
    const stopped = new Error('The upload stopped reading the body.');
    const feeding = (async () => {
      try {
        for await (const piece of body) {
          total += piece.byteLength;
          if (pass.destroyed) throw stopped;
          if (!pass.write(piece))
            await new Promise<void>((resolve, reject) => {
              if (pass.destroyed) return reject(stopped);
              const off = () => (pass.off('drain', onDrain), pass.off('close', onClose));
              const onDrain = () => (off(), resolve());
              const onClose = () => (off(), reject(stopped));
              pass.on('drain', onDrain).on('close', onClose);
            });
        }
        pass.end();
      } catch (err) {
        if (err !== stopped) pass.destroy(err as Error);
        throw err;
      }
    })();
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.cfg.bucket, Key: this.key(blob), Body: pass },
      partSize: S3_PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      // A failed upload leaves no parts behind to pay for.
      leavePartsOnError: false,
    });
    // A refused upload stops taking the body: the producer must not wait on it for ever.
    const uploading = upload.done().catch((err: unknown) => {
      pass.destroy();
      throw err;
    });
    const [fed, uploaded] = await Promise.allSettled([feeding, uploading]);
    // The body's own failure first; else what S3 said rather than that it stopped reading.
    if (fed.status === 'rejected' && fed.reason !== stopped) throw fed.reason;
    if (uploaded.status === 'rejected') throw uploaded.reason;
    if (fed.status === 'rejected') throw fed.reason;
    return total;
  }

  read(blob: string): Readable {
    const out = new PassThrough();
    this.client
      .send(new GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.key(blob) }))
      .then((res) => {
        const body = res.Body as Readable | undefined;
        if (!body) return void out.end();
        // A reader that went away meanwhile: free the connection.
        if (out.destroyed) return void body.destroy();
        body.on('error', (err) => out.destroy(err));
        out.on('close', () => body.destroy());
        body.pipe(out);
      })
      .catch((err: Error) => out.destroy(err));
    return out;
  }

  async remove(blob: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: this.key(blob) }));
    } catch (err) {
      if ((err as { name?: string }).name !== 'NoSuchKey') throw err;
    }
  }

  async removeOrphans(before: string, live: (ids: string[]) => Promise<Set<string>>): Promise<number> {
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.cfg.bucket, Prefix: this.cfg.prefix, ContinuationToken: token, MaxKeys: DELETE_AT_ONCE }),
      );
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      const names = (page.Contents ?? []).map((o) => (o.Key ?? '').slice(this.cfg.prefix.length));
      // Keys come in order and blob ids begin with their time: past `before`, nothing is old enough.
      // The walk (LIST requests are billed) stops there instead of listing every young file.
      if (names.some((id) => id >= before)) token = undefined;
      // Only our own blobs (no deeper folders someone else keeps under the prefix).
      const ids = names.filter((id) => id !== '' && !id.includes('/') && id < before);
      if (ids.length === 0) continue;
      const kept = await live(ids);
      const gone = ids.filter((id) => !kept.has(id));
      for (let i = 0; i < gone.length; i += DELETE_AT_ONCE) {
        const batch = gone.slice(i, i + DELETE_AT_ONCE);
        const res = await this.client.send(
          new DeleteObjectsCommand({ Bucket: this.cfg.bucket, Delete: { Objects: batch.map((id) => ({ Key: this.key(id) })), Quiet: true } }),
        );
        const failed = res.Errors ?? [];
        if (failed.length) throw new Error(`S3 refused to delete ${failed.length} object(s): ${failed[0]!.Code ?? 'unknown error'}`);
        removed += batch.length;
      }
    } while (token);
    return removed;
  }
}
