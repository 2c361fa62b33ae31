import { gzipSync } from 'node:zlib';
import { normalizeEntryPath } from './paths.js';

export interface PackageEntry {
  path: string;
  data: Buffer;
}

const BLOCK = 512;

function field(block: Buffer, start: number, length: number, value: string): void {
  block.write(value, start, length, 'utf8');
}

function octal(value: number, length: number): string {
  return value.toString(8).padStart(length - 1, '0');
}

/** One ustar header of a regular file: mode 0644, owner 0:0, mtime 0. Long paths use the prefix field. */
function header(path: string, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(path) > 100) {
    // Split at a slash so that the name is at most 100 bytes and the prefix at most 155.
    const cut = [...path.matchAll(/\//g)]
      .map((m) => m.index)
      .find((i) => Buffer.byteLength(path.slice(i + 1)) <= 100 && Buffer.byteLength(path.slice(0, i)) <= 155);
    if (cut === undefined) throw new Error(`${path}: a path this long needs a segment split that ustar cannot express; shorten it.`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  field(block, 0, 100, name);
  field(block, 100, 8, octal(0o644, 8));
  field(block, 108, 8, octal(0, 8));
  field(block, 116, 8, octal(0, 8));
  field(block, 124, 12, octal(size, 12));
  field(block, 136, 12, octal(0, 12));
  block.fill(0x20, 148, 156);
  block[156] = 0x30; // '0': regular file
  field(block, 257, 6, 'ustar\u0000');
  field(block, 263, 2, '00');
  field(block, 345, 155, prefix);
  let sum = 0;
  for (const b of block) sum += b;
  field(block, 148, 8, `${octal(sum, 7)}\u0000`);
  return block;
}

/**
 * A package's bytes from its files: a gzip'd ustar archive, deterministic for the same input
 * (addon.json first, then by path; mode 0644, owner 0, mtime 0; no directory entries; gzip
 * header without time and with OS "Unix" on every platform).
 */
export function writePackage(entries: PackageEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => (a.path === 'addon.json' ? -1 : b.path === 'addon.json' ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const parts: Buffer[] = [];
  for (const entry of sorted) {
    normalizeEntryPath(entry.path, false);
    parts.push(header(entry.path, entry.data.length), entry.data);
    const padding = (BLOCK - (entry.data.length % BLOCK)) % BLOCK;
    if (padding) parts.push(Buffer.alloc(padding));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  const gz = gzipSync(Buffer.concat(parts), { level: 9 });
  gz[9] = 3; // OS: Unix, whatever zlib was built for
  return gz;
}
