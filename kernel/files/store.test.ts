import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { sql } from 'kysely';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idFloor, newId } from '../ids.js';
import { kernelMigrations } from '../meta/kernel-migrations.js';
import { runMigrations } from '../meta/migrate.js';
import type { MetaStore } from '../meta/store.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startFakeS3, type FakeS3 } from '../../test/helpers/s3.js';
import { createStoreTarget, recordingLogger, type StoreTarget } from '../../test/meta/support.js';
import { localFilesDir, openFileStore } from './index.js';
import { LocalBlobs } from './local.js';
import { MetaBlobs } from './meta.js';
import { S3Blobs, S3_PART_BYTES } from './s3.js';
import type { S3Config } from '../config.js';
import type { FileStore } from './types.js';

const available = {
  sqlite: true,
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

/** `count` pieces of `size` random bytes, and the hash of all of them. */
function source(count: number, size: number): { body: AsyncIterable<Uint8Array>; hash: Promise<string>; bytes: number } {
  const h = createHash('sha256');
  let done!: (v: string) => void;
  const hash = new Promise<string>((r) => (done = r));
  async function* body() {
    for (let i = 0; i < count; i++) {
      const b = randomBytes(size);
      h.update(b);
      yield b;
    }
    done(h.digest('hex'));
  }
  return { body: body(), hash, bytes: count * size };
}

async function hashOf(stream: AsyncIterable<Buffer>): Promise<{ hash: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const b of stream) (h.update(b), (bytes += b.length));
  return { hash: h.digest('hex'), bytes };
}

let s3: FakeS3;
beforeAll(async () => {
  s3 = await startFakeS3();
});
afterAll(async () => {
  await s3?.close();
});
let prefixes = 0;

/** Objects under the driver's prefix. */
async function objectsUnder(cfg: S3Config, blobs: S3Blobs): Promise<string[]> {
  const res = await blobs.client.send(new ListObjectsV2Command({ Bucket: cfg.bucket, Prefix: cfg.prefix }));
  return (res.Contents ?? []).map((o) => o.Key!);
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('file store on a %s meta store', (dialect) => {
  describe.runIf(available[dialect]).each(['local', 'meta', 's3'] as const)('%s driver', (driver) => {
    let t: StoreTarget | null = null;
    // Each test its own prefix in the one bucket, so none sees another's objects.
    let s3cfg: S3Config;
    afterEach(async () => {
      await t?.dispose();
      t = null;
    });
    let clock = Date.now();
    const now = () => clock;

    async function open(): Promise<{ files: FileStore; meta: MetaStore }> {
      t = await createStoreTarget(dialect);
      const meta = t.open();
      await runMigrations(meta, [{ plugin: 'kernel', migrations: kernelMigrations }]);
      s3cfg = { ...s3.config, prefix: `t${++prefixes}-${dialect}/files/` };
      return { files: openFileStore({ fileStore: driver, dataDir: t.dataDir, s3: s3cfg }, meta, now, recordingLogger()), meta };
    }
    const chunkRows = async (meta: MetaStore) =>
      Number(
        (
          await meta.db
            .selectFrom('file_chunks')
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const backendOf = (meta: MetaStore) =>
      driver === 'local' ? new LocalBlobs(localFilesDir(t!.dataDir)) : driver === 'meta' ? new MetaBlobs(meta.db, meta.dialect) : new S3Blobs(s3cfg);
    const blobsLeft = async (meta: MetaStore) =>
      driver === 'local'
        ? readdirSync(localFilesDir(t!.dataDir)).length
        : driver === 'meta'
          ? await chunkRows(meta)
          : (await objectsUnder(s3cfg, new S3Blobs(s3cfg))).length;

    it('streams a file in and out whole, across chunk edges, and replaces it under the same key', async () => {
      const { files, meta } = await open();
      clock = Date.now();
      // 40 pieces of 100 KiB: chunks of 256 KiB never line up with the pieces.
      const src = source(40, 100 * 1024);
      const stored = await files.put('test/a/one', src.body, { expiresAt: clock + 60_000 });
      expect(stored).toMatchObject({ key: 'test/a/one', size: src.bytes, expiresAt: clock + 60_000 });
      const opened = await files.open('test/a/one');
      expect(await hashOf(opened!.stream)).toEqual({ hash: await src.hash, bytes: src.bytes });
      if (driver === 'meta') expect(await chunkRows(meta)).toBe(Math.ceil(src.bytes / (256 * 1024)));

      const small = source(1, 10);
      await files.put('test/a/one', small.body);
      expect(await hashOf((await files.open('test/a/one'))!.stream)).toEqual({ hash: await small.hash, bytes: 10 });
      // The replaced contents are gone.
      expect(await blobsLeft(meta)).toBe(1);

      const copy = await files.localCopy('test/a/one', `${t!.dataDir}/work`);
      expect(copy).not.toBeNull();
      copy!.release();
      await files.put('test/empty', (async function* () {})());
      expect(await hashOf((await files.open('test/empty'))!.stream)).toMatchObject({ bytes: 0 });
      expect((await files.list('test/a/')).map((f) => f.key)).toEqual(['test/a/one']);
      expect(await files.delete('test/a/one')).toBe(true);
      expect(await files.open('test/a/one')).toBeNull();
      expect(await files.delete('test/a/one')).toBe(false);
    });

    it('keeps nothing of a put whose body fails midway', async () => {
      const { files, meta } = await open();
      async function* failing() {
        yield randomBytes(300 * 1024);
        throw new Error('the client went away');
      }
      await expect(files.put('test/broken', failing())).rejects.toThrow(/went away/);
      expect(await files.stat('test/broken')).toBeNull();
      expect(await blobsLeft(meta)).toBe(0);
    });

    it('keeps nothing of a put whose body fails before its first byte (the file may still be opening)', async () => {
      const { files, meta } = await open();
      async function* failingAtOnce(): AsyncGenerator<Uint8Array> {
        throw new Error('the client went away');
      }
      for (let i = 0; i < 5; i++) await expect(files.put(`test/broken-${i}`, failingAtOnce())).rejects.toThrow(/went away/);
      expect(await blobsLeft(meta)).toBe(0);
    });

    it('sweeps expired files and contents no key points to once they are old', async () => {
      const { files, meta } = await open();
      clock = Date.now();
      await files.put('test/due', source(1, 1000).body, { expiresAt: clock + 1000 });
      await files.put('test/kept', source(1, 1000).body, { expiresAt: clock + 10 * 60_000 });
      await files.put('test/forever', source(1, 1000).body);
      // Contents a process died writing (no index row), two days ago and just now.
      const backend = backendOf(meta);
      await backend.write(newId(clock - 48 * 3600_000), source(1, 10).body);
      const fresh = newId(clock);
      await backend.write(fresh, source(1, 10).body);
      expect(await blobsLeft(meta)).toBe(5);

      clock += 2000;
      expect(await files.sweep(clock)).toBe(2);
      expect((await files.list('test/')).map((f) => f.key)).toEqual(['test/forever', 'test/kept']);
      expect(await blobsLeft(meta)).toBe(3);
      expect(idFloor(clock) > fresh).toBe(true);
      expect(await files.expire('test/forever', clock)).toBe(true);
      expect(await files.sweep(clock)).toBe(1);
      expect(await files.stat('test/forever')).toBeNull();
    });

    it.runIf(driver === 'meta')(
      'finds an orphan behind more than a page of old live files',
      async () => {
        const { files, meta } = await open();
        // 501 files kept two days, then contents with no key from the same time: the walk must pass the first page.
        clock = Date.now() - 48 * 3600_000;
        for (let i = 0; i < 501; i++) await files.put(`test/old/${i}`, source(1, 10).body);
        clock += 1000;
        await backendOf(meta).write(newId(clock), source(1, 10).body);
        expect(await blobsLeft(meta)).toBe(502);
        clock = Date.now();
        expect(await files.sweep(clock)).toBe(1);
        expect(await blobsLeft(meta)).toBe(501);
      },
      120_000,
    );
  });
});

describe.runIf(available.mysql)('meta driver on MySQL', () => {
  let t: StoreTarget | null = null;
  afterEach(async () => {
    await t?.dispose();
    t = null;
  });

  it('keeps a chunk under a quarter of max_allowed_packet', async () => {
    t = await createStoreTarget('mysql');
    const meta = t.open();
    const packet = Number((await sql<{ p: number }>`select @@max_allowed_packet as p`.execute(meta.db)).rows[0]!.p);
    const blobs = new MetaBlobs(meta.db, 'mysql', 4 * packet);
    expect(await blobs.chunkSize()).toBeLessThanOrEqual(packet / 4);
  });
});

describe('s3 driver with a body of several parts', () => {
  let t: StoreTarget | null = null;
  afterEach(async () => {
    await t?.dispose();
    t = null;
  });

  it('uploads 40 MiB as a multipart upload, never far ahead of what S3 took, and reads the same bytes back', async () => {
    t = await createStoreTarget('sqlite');
    const meta = t.open();
    await runMigrations(meta, [{ plugin: 'kernel', migrations: kernelMigrations }]);
    const cfg = { ...s3.config, prefix: 'big/' };
    const files = openFileStore({ fileStore: 's3', dataDir: t.dataDir, s3: cfg }, meta, Date.now, recordingLogger());
    // 40 pieces of 1 MiB: five parts of 8 MiB.
    const src = source(40, 1024 * 1024);
    // The producer may run ahead of what S3 has taken by at most the parts in flight and the buffers
    // between: far less than the body. (Heap figures are no measure here: s3rver runs in this process.)
    let produced = 0;
    let maxLead = 0;
    const blobs = new S3Blobs(cfg);
    const sent = { bytes: 0, parts: 0 };
    blobs.client.middlewareStack.add(
      (next) => async (args) => {
        const body = (args.input as { Body?: { byteLength?: number; length?: number } }).Body;
        if ((args.input as { PartNumber?: number }).PartNumber) (sent.parts++, (sent.bytes += body?.byteLength ?? body?.length ?? 0));
        return next(args);
      },
      { step: 'initialize' },
    );
    async function* counted() {
      for await (const b of src.body) {
        produced += b.byteLength;
        maxLead = Math.max(maxLead, produced - sent.bytes);
        yield b;
      }
    }
    const size = await blobs.write('0000big', counted());
    expect(size).toBe(src.bytes);
    expect(sent.bytes).toBe(src.bytes);
    // The parts in flight, the one being gathered, and the buffers: less than the body.
    expect(maxLead).toBeLessThanOrEqual(3 * S3_PART_BYTES + 4 * 1024 * 1024);
    expect(maxLead).toBeLessThan(src.bytes);
    expect(sent.parts).toBe(5);
    expect(await hashOf(blobs.read('0000big'))).toEqual({ hash: await src.hash, bytes: src.bytes });
    await blobs.remove('0000big');

    // Through the store, three parts, the last one short.
    const again = source(20, 1024 * 1024);
    const stored = await files.put('test/big', again.body);
    expect(stored.size).toBe(again.bytes);
    expect(await hashOf((await files.open('test/big'))!.stream)).toEqual({ hash: await again.hash, bytes: again.bytes });
    expect(await objectsUnder(cfg, new S3Blobs(cfg))).toHaveLength(1);
    const copy = await files.localCopy('test/big', `${t.dataDir}/work`);
    expect(copy).not.toBeNull();
    copy!.release();
    expect(await files.delete('test/big')).toBe(true);
    expect(await objectsUnder(cfg, new S3Blobs(cfg))).toHaveLength(0);
  });
});

describe('s3 driver when the service refuses', () => {
  it('rejects a large write to a bucket that does not exist instead of waiting on the body forever', async () => {
    const blobs = new S3Blobs({ ...s3.config, bucket: 'no-such-bucket' });
    let produced = 0;
    async function* endless() {
      for (;;) {
        produced += 1024 * 1024;
        yield randomBytes(1024 * 1024);
      }
    }
    await expect(blobs.write('0000gone', endless())).rejects.toThrow(/bucket/i);
    // It stopped pulling the body soon after the refusal.
    expect(produced).toBeLessThan(64 * 1024 * 1024);
    await expect(hashOf(blobs.read('0000gone'))).rejects.toThrow();
  }, 60_000);
});
