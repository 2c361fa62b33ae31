import { gzipSync } from 'node:zlib';

/*
 * Tarballs crafted byte by byte for tests (ustar headers written by hand), so that they can hold
 * what no well-behaved tool writes: `..`, absolute paths, links, devices, duplicates. Used by the
 * SDK's reader tests and the server's upload tests.
 */

export interface RawEntry {
  path: string;
  data?: Buffer | string;
  /** The tar type flag: '0' file, '5' directory, '1' hard link, '2' symlink, '3' char device, '6' fifo, 'x' pax. */
  type?: string;
  /** The size the header declares, when it should differ from data's. */
  size?: number;
  linkname?: string;
}

export function rawHeader(e: RawEntry, size: number): Buffer {
  const b = Buffer.alloc(512);
  b.write(e.path, 0, 100, 'utf8');
  b.write('0000644\0', 100);
  b.write('0000000\0', 108);
  b.write('0000000\0', 116);
  b.write(size.toString(8).padStart(11, '0') + '\0', 124);
  b.write('00000000000\0', 136);
  b.fill(' ', 148, 156);
  b.write(e.type ?? '0', 156);
  if (e.linkname) b.write(e.linkname, 157, 100);
  b.write('ustar\0', 257);
  b.write('00', 263);
  let sum = 0;
  for (const x of b) sum += x;
  b.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return b;
}

export function tarEntry(e: RawEntry): Buffer {
  const data = Buffer.from(e.data ?? '');
  const padding = (512 - (data.length % 512)) % 512;
  return Buffer.concat([rawHeader(e, e.size ?? data.length), data, Buffer.alloc(padding)]);
}

/** A pax extended header giving the next entry a long path. */
export function pax(path: string): Buffer {
  const body = (n: number) => `${n} path=${path}\n`;
  let n = body(0).length;
  while (body(n).length !== n) n = body(n).length;
  return tarEntry({ path: 'PaxHeader', type: 'x', data: body(n) });
}

export const TAR_END = Buffer.alloc(1024);

/** A gzip'd tar of the entries (or ready-made blocks), with the end-of-archive blocks. */
export const craftedTgz = (parts: Array<RawEntry | Buffer>): Buffer =>
  gzipSync(Buffer.concat([...parts.map((p) => (Buffer.isBuffer(p) ? p : tarEntry(p))), TAR_END]));
