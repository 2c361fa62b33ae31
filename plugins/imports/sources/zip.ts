/**
 * Just enough of ZIP (APPNOTE 6.3) to read an XLSX safely: the central directory, and one
 * entry's bytes inflated under a cap. No library in the tree does both without adding a
 * dependency (exceljs' own reader, unzipper, inflates whatever the local headers announce).
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { createInflateRaw } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; anything else is refused when read. */
  method: number;
  flags: number;
  compressedSize: number;
  /** The uncompressed size the central directory declares (a claim, checked while inflating). */
  size: number;
  localOffset: number;
}

/** Why an archive is refused: `unreadable` (not a ZIP we read) or a limit, by name. */
export class ZipRefusal extends Error {
  override name = 'ZipRefusal';
  constructor(
    readonly reason: 'unreadable' | 'declared-size' | 'unpacked-size' | 'part-size',
    message: string,
    readonly params: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const EOCD = 0x06054b50;
const CDH = 0x02014b50;
const LFH = 0x04034b50;
const ZIP64_LOCATOR = 0x07064b50;
/** The end record is 22 bytes and may be followed by a comment of up to 65535. */
const EOCD_SEARCH = 22 + 0xffff;
/** More entries than any spreadsheet has: a directory of millions is refused before it is read. */
const MAX_ENTRIES = 20_000;

const unreadable = (message: string) => new ZipRefusal('unreadable', message);

/** The central directory, read from the end of the file (the local headers are never trusted for sizes). */
export async function readZipDirectory(path: string): Promise<ZipEntry[]> {
  const fh = await open(path, 'r');
  try {
    const fileSize = (await fh.stat()).size;
    const tailLen = Math.min(fileSize, EOCD_SEARCH);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, fileSize - tailLen);
    let at = -1;
    for (let i = tailLen - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD && i + 22 + tail.readUInt16LE(i + 20) <= tailLen) {
        at = i;
        break;
      }
    }
    if (at < 0) throw unreadable('no ZIP end-of-central-directory record');
    // ZIP64 is only needed past 4 GiB or 65535 entries, beyond any limit we accept.
    if (at >= 20 && tail.readUInt32LE(at - 20) === ZIP64_LOCATOR) throw new ZipRefusal('unpacked-size', 'a ZIP64 archive (entries of 4 GiB or more)');
    const count = tail.readUInt16LE(at + 10);
    const cdSize = tail.readUInt32LE(at + 12);
    const cdOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipRefusal('unpacked-size', 'a ZIP64 archive (entries of 4 GiB or more)');
    if (count > MAX_ENTRIES) throw unreadable(`more than ${MAX_ENTRIES} entries`);
    const eocdPos = fileSize - tailLen + at;
    if (cdOffset + cdSize > eocdPos) throw unreadable('the central directory lies outside the file');
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > cdSize || cd.readUInt32LE(p) !== CDH) throw unreadable('a damaged central directory');
      const nameLen = cd.readUInt16LE(p + 28);
      const next = p + 46 + nameLen + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
      if (next > cdSize) throw unreadable('a damaged central directory');
      const entry: ZipEntry = {
        flags: cd.readUInt16LE(p + 8),
        method: cd.readUInt16LE(p + 10),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        name: cd.toString('utf8', p + 46, p + 46 + nameLen),
        localOffset: cd.readUInt32LE(p + 42),
      };
      if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff)
        throw new ZipRefusal('unpacked-size', `${entry.name} is a ZIP64 entry (4 GiB or more)`, { part: entry.name });
      if (entry.localOffset + 30 + entry.compressedSize > cdOffset) throw unreadable(`${entry.name} lies outside the file`);
      entries.push(entry);
      p = next;
    }
    return entries;
  } finally {
    await fh.close();
  }
}

/** Fails once more than `limit` bytes went through, and when fewer than `exact` came out at the end. */
class Bounded extends Transform {
  private seen = 0;
  constructor(
    private readonly entry: ZipEntry,
    private readonly cap: { bytes: number; reason: 'unpacked-size' | 'part-size' },
    private readonly budget: { left: number },
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    this.budget.left -= chunk.length;
    const name = this.entry.name;
    // A bomb that understates its size is stopped at the size it declared, not at the cap.
    if (this.seen > this.entry.size)
      return done(
        new ZipRefusal('declared-size', `${name} unpacks to more than the ${this.entry.size} bytes its ZIP directory declares`, {
          part: name,
          limit: this.entry.size,
        }),
      );
    if (this.seen > this.cap.bytes)
      return done(new ZipRefusal(this.cap.reason, `${name} unpacks to more than ${this.cap.bytes} bytes`, { part: name, limit: this.cap.bytes }));
    if (this.budget.left < 0) return done(new ZipRefusal('unpacked-size', `the file unpacks to more than the limit`, { part: name }));
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.seen !== this.entry.size)
      return done(unreadable(`${this.entry.name} unpacks to ${this.seen} bytes, not the ${this.entry.size} its ZIP directory declares`));
    done();
  }
}

/**
 * One entry's content, inflated and counted as it goes: never more than its declared size,
 * `cap.bytes`, nor what is left of the shared `budget` (all parts read from one archive).
 */
export async function openZipEntry(
  path: string,
  entry: ZipEntry,
  cap: { bytes: number; reason: 'unpacked-size' | 'part-size' },
  budget: { left: number },
): Promise<Readable> {
  if (entry.flags & 0x1) throw unreadable(`${entry.name} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) throw unreadable(`${entry.name} uses compression method ${entry.method}`);
  const fh = await open(path, 'r');
  let start: number;
  try {
    const head = Buffer.alloc(30);
    await fh.read(head, 0, 30, entry.localOffset);
    if (head.readUInt32LE(0) !== LFH) throw unreadable(`${entry.name} has no local header where the directory says`);
    start = entry.localOffset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
  } finally {
    await fh.close();
  }
  const bounded = new Bounded(entry, cap, budget);
  if (entry.compressedSize === 0) {
    bounded.end();
    return bounded;
  }
  const raw = createReadStream(path, { start, end: start + entry.compressedSize - 1 });
  const inflated = entry.method === 8 ? raw.pipe(createInflateRaw()) : raw;
  // pipe() does not carry errors forward: the reader sees them on the stream it reads.
  raw.on('error', (err) => bounded.destroy(err));
  if (inflated !== raw) inflated.on('error', (err: Error) => bounded.destroy(unreadable(`${entry.name}: ${err.message}`)));
  bounded.on('close', () => {
    raw.destroy();
    if (inflated !== raw) inflated.destroy();
  });
  return inflated.pipe(bounded);
}
