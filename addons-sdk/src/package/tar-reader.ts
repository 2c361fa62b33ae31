import { PackageError } from './errors.js';

/**
 * A strict, synchronous reader of a (ustar, pax or GNU) tar stream. It turns chunks of the
 * inflated stream into events and keeps nothing but a partial header block. Meta headers (pax
 * `x`/`g`, GNU long names `L`/`K`) are applied and never surface; every other header does,
 * with its raw type flag, so the caller decides what is allowed. It knows nothing of limits:
 * the caller refuses an entry on its header, before any of its body is read.
 */
export type TarEvent =
  | { kind: 'entry'; type: 'file' | 'directory' | 'other'; typeFlag: string; path: string; size: number }
  | { kind: 'data'; chunk: Buffer }
  | { kind: 'entry-end' }
  | { kind: 'eof' };

const BLOCK = 512;
/** The largest meta payload (pax record set, GNU long name) accepted; a real one is well under 1 KiB. */
const MAX_META_BYTES = 64 * 1024;
/** Meta headers in a row before an entry: pax + GNU long name + long link name + a global one. */
const MAX_META_RUN = 4;
/** Bytes after the end-of-archive blocks (record padding) read before the stream is refused. */
export const MAX_TRAILING_BYTES = 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  try {
    return decoder.decode(end === -1 ? field : field.subarray(0, end));
  } catch {
    throw new PackageError('bad-path', 'An entry name is not UTF-8.');
  }
}

function octal(block: Buffer, start: number, length: number, what: string): number {
  const field = block.subarray(start, start + length);
  if (field[0]! & 0x80) {
    // GNU base-256: big-endian after the marker bit. Anything this large is over every limit.
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const s = field
    .toString('latin1')
    .replace(/[\u0000 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]*$/.test(s)) throw new PackageError('corrupt', `A tar header has a malformed ${what} field.`);
  return s === '' ? 0 : parseInt(s, 8);
}

function checksumOk(block: Buffer): boolean {
  const stored = octal(block, 148, 8, 'checksum');
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : block[i]!;
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  return stored === unsigned || stored === signed;
}

function isZeroBlock(block: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/** pax records: `<len> <key>=<value>\n`. Only path and size matter here. */
function parsePax(payload: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let at = 0;
  while (at < payload.length) {
    if (payload[at] === 0) break;
    const space = payload.indexOf(0x20, at);
    const length = space === -1 ? NaN : Number(payload.toString('latin1', at, space));
    if (!Number.isInteger(length) || length <= 0 || at + length > payload.length) throw new PackageError('corrupt', 'A pax header is malformed.');
    const record = payload.subarray(space + 1, at + length - 1);
    const eq = record.indexOf(0x3d);
    if (eq === -1) throw new PackageError('corrupt', 'A pax header is malformed.');
    let value: string;
    try {
      value = decoder.decode(record.subarray(eq + 1));
    } catch {
      throw new PackageError('bad-path', 'A pax value is not UTF-8.');
    }
    out.set(record.toString('latin1', 0, eq), value);
    at += length;
  }
  return out;
}

type State =
  | { at: 'header' }
  | { at: 'body'; remain: number; padding: number }
  | { at: 'meta'; flag: string; remain: number; padding: number; parts: Buffer[] }
  | { at: 'trailing'; read: number };

export class TarReader {
  private pending: Buffer | null = null;
  private state: State = { at: 'header' };
  private pax = new Map<string, string>();
  private longPath: string | null = null;
  private metaRun = 0;

  /** True once the end-of-archive block was read. */
  get ended(): boolean {
    return this.state.at === 'trailing';
  }

  /** Reads a chunk; the events it completes, in order. Throws a PackageError on a malformed stream. */
  push(input: Buffer): TarEvent[] {
    const events: TarEvent[] = [];
    let chunk = input;
    if (this.pending) {
      chunk = Buffer.concat([this.pending, input]);
      this.pending = null;
    }
    let at = 0;
    while (at < chunk.length) {
      const s = this.state;
      if (s.at === 'trailing') {
        s.read += chunk.length - at;
        if (s.read > MAX_TRAILING_BYTES) throw new PackageError('corrupt', 'There is data after the end of the archive.');
        return events;
      }
      if (s.at === 'body' || s.at === 'meta') {
        if (s.remain > 0) {
          const take = Math.min(s.remain, chunk.length - at);
          const part = chunk.subarray(at, at + take);
          if (s.at === 'body') events.push({ kind: 'data', chunk: part });
          else s.parts.push(part);
          s.remain -= take;
          at += take;
          if (s.remain > 0) break;
        }
        const skip = Math.min(s.padding, chunk.length - at);
        s.padding -= skip;
        at += skip;
        if (s.padding > 0) break;
        if (s.at === 'body') events.push({ kind: 'entry-end' });
        else this.applyMeta(s.flag, Buffer.concat(s.parts));
        this.state = { at: 'header' };
        continue;
      }
      // header
      if (chunk.length - at < BLOCK) {
        this.pending = Buffer.from(chunk.subarray(at));
        break;
      }
      const block = chunk.subarray(at, at + BLOCK);
      at += BLOCK;
      if (isZeroBlock(block)) {
        if (this.metaRun > 0) throw new PackageError('corrupt', 'The archive ends inside a header.');
        this.state = { at: 'trailing', read: 0 };
        events.push({ kind: 'eof' });
        continue;
      }
      const event = this.header(block);
      if (event) {
        events.push(event);
        if (event.size === 0) events.push({ kind: 'entry-end' });
        else this.state = { at: 'body', remain: event.size, padding: (BLOCK - (event.size % BLOCK)) % BLOCK };
      }
    }
    return events;
  }

  /** The stream ended: it must not stop inside an entry. */
  end(): void {
    const s = this.state;
    if ((s.at === 'body' || s.at === 'meta') && (s.remain > 0 || s.padding > 0)) throw new PackageError('corrupt', 'The archive is truncated.');
    if (this.pending || this.metaRun > 0) throw new PackageError('corrupt', 'The archive is truncated.');
  }

  private header(block: Buffer): (TarEvent & { kind: 'entry' }) | null {
    if (!checksumOk(block)) throw new PackageError('corrupt', 'A tar header fails its checksum.');
    const flag = String.fromCharCode(block[156]!);
    const size = octal(block, 124, 12, 'size');
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      if (++this.metaRun > MAX_META_RUN) throw new PackageError('corrupt', 'Too many tar meta headers in a row.');
      if (size > MAX_META_BYTES) throw new PackageError('corrupt', 'A tar meta header is too large.');
      if (size === 0) this.applyMeta(flag, Buffer.alloc(0));
      else this.state = { at: 'meta', flag, remain: size, padding: (BLOCK - (size % BLOCK)) % BLOCK, parts: [] };
      return null;
    }
    this.metaRun = 0;
    const magic = block.toString('latin1', 257, 263);
    const name = text(block, 0, 100);
    const prefix = magic === 'ustar\u0000' ? text(block, 345, 155) : '';
    let path = prefix ? `${prefix}/${name}` : name;
    if (this.longPath !== null) path = this.longPath;
    const paxPath = this.pax.get('path');
    if (paxPath !== undefined) path = paxPath;
    let entrySize = size;
    const paxSize = this.pax.get('size');
    if (paxSize !== undefined) {
      if (!/^\d+$/.test(paxSize)) throw new PackageError('corrupt', 'A pax size is malformed.');
      entrySize = Number(paxSize);
    }
    this.pax = new Map();
    this.longPath = null;
    if (path === '') throw new PackageError('corrupt', 'A tar entry has no name.');
    const type = flag === '0' || flag === '\u0000' ? 'file' : flag === '5' ? 'directory' : 'other';
    // A link's size field is not a body; a device's is 0. An `other` entry is refused by the caller anyway.
    return { kind: 'entry', type, typeFlag: flag, path, size: type === 'other' ? 0 : entrySize };
  }

  private applyMeta(flag: string, payload: Buffer): void {
    if (flag === 'x') {
      for (const [k, v] of parsePax(payload)) this.pax.set(k, v);
    } else if (flag === 'L') {
      const end = payload.indexOf(0);
      try {
        this.longPath = decoder.decode(end === -1 ? payload : payload.subarray(0, end));
      } catch {
        throw new PackageError('bad-path', 'An entry name is not UTF-8.');
      }
    }
    // 'g' (global pax: git archive's commit comment) and 'K' (long link name) change nothing we read.
  }
}
