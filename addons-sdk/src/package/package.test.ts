import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPackage, inspectPackage, PackageError, PACKAGE_LIMITS, writePackage } from './index.js';
import { TarReader } from './tar-reader.js';

import { pax, rawHeader, tarEntry, TAR_END as END, type RawEntry as Raw } from './crafted.js';

const tar = (entries: Raw[]): Buffer => Buffer.concat([...entries.map(tarEntry), END]);
const tgz = (entries: Raw[]): Buffer => gzipSync(tar(entries));

const manifest = {
  key: 'hello',
  name: 'Hello',
  version: '0.1.0',
  engine: '>=0.1.0 <1',
  surfaces: [{ name: 'page', kind: 'dashboard-page', title: 'Hello' }],
};
const MANIFEST: Raw = { path: 'addon.json', data: JSON.stringify(manifest) };
const PAGE: Raw = { path: 'surfaces/page/index.html', data: '<h1>hello</h1>' };

let root: string;
let n = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-package-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function file(bytes: Buffer): Promise<string> {
  const path = join(root, `p${++n}.tgz`);
  await writeFile(path, bytes);
  return path;
}

/** inspectPackage refuses with `reason` (and `path`), and extractPackage leaves nothing behind. */
async function refused(bytes: Buffer, reason: string, path?: string): Promise<PackageError> {
  const source = await file(bytes);
  const error = await inspectPackage(source).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PackageError);
  expect((error as PackageError).reason).toBe(reason);
  if (path !== undefined) expect((error as PackageError).path).toBe(path);
  const parent = join(root, `x${n}`);
  await mkdir(parent);
  const again = await extractPackage(source, join(parent, 'dest')).catch((e: unknown) => e);
  expect((again as PackageError).reason).toBe(reason);
  expect(await readdir(parent)).toEqual([]);
  return error as PackageError;
}

describe('inspectPackage and extractPackage', () => {
  it('accept a valid package and extract it with plain modes', async () => {
    const bytes = tgz([
      { path: './', type: '5' },
      { ...MANIFEST, path: './addon.json' },
      { path: 'surfaces/', type: '5' },
      { path: 'surfaces/page/', type: '5' },
      { ...PAGE, type: '\0' },
      { path: 'README.md', data: '# hi' },
    ]);
    const source = await file(bytes);
    const info = await inspectPackage(source);
    expect(info.manifest.key).toBe('hello');
    expect(info.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(info.packedBytes).toBe(bytes.length);
    expect(info.files).toEqual([
      { path: 'README.md', size: 4 },
      { path: 'addon.json', size: JSON.stringify(manifest).length },
      { path: 'surfaces/page/index.html', size: 14 },
    ]);
    expect(info.unpackedBytes).toBe(4 + 14 + JSON.stringify(manifest).length);

    const dest = join(root, 'valid', 'hello@0.1.0');
    const out = await extractPackage(source, dest);
    expect(out.dir).toBe(dest);
    expect(await readFile(join(dest, 'surfaces/page/index.html'), 'utf8')).toBe('<h1>hello</h1>');
    expect((await stat(join(dest, 'README.md'))).mode & 0o777).toBe(0o644);
    expect((await readdir(join(root, 'valid'))).sort()).toEqual(['hello@0.1.0']);
    await expect(extractPackage(source, dest)).rejects.toThrow(/already exists/);
  });

  it('close an empty last file of an archive without end blocks', async () => {
    const source = await file(gzipSync(Buffer.concat([tarEntry(MANIFEST), tarEntry(PAGE), tarEntry({ path: 'surfaces/page/empty.css' })])));
    expect((await inspectPackage(source)).files).toContainEqual({ path: 'surfaces/page/empty.css', size: 0 });
    const dest = join(root, 'empty-last', 'dest');
    await extractPackage(source, dest);
    expect(await readFile(join(dest, 'surfaces/page/empty.css'), 'utf8')).toBe('');
    const events = new TarReader().push(tarEntry({ path: 'a' }));
    expect(events).toEqual([{ kind: 'entry', type: 'file', typeFlag: '0', path: 'a', size: 0 }, { kind: 'entry-end' }]);
  });

  it('read pax paths and GNU-less long names through the ustar prefix', async () => {
    const long = `surfaces/page/${'d'.repeat(90)}/${'f'.repeat(90)}.js`;
    const info = await inspectPackage(
      await file(gzipSync(Buffer.concat([tarEntry(MANIFEST), tarEntry(PAGE), pax(long), tarEntry({ path: 'ignored-name', data: 'x' }), END]))),
    );
    expect(info.files.map((f) => f.path)).toContain(long);
    // GNU tar's long names: an 'L' entry holding the next entry's path.
    const gnu = Buffer.concat([
      tarEntry(MANIFEST),
      tarEntry(PAGE),
      tarEntry({ path: '././@LongLink', type: 'L', data: `${long}\0` }),
      tarEntry({ path: 'cut', data: 'x' }),
      END,
    ]);
    expect((await inspectPackage(await file(gzipSync(gnu)))).files.map((f) => f.path)).toContain(long);
    const evil = Buffer.concat([
      tarEntry(MANIFEST),
      tarEntry({ path: '././@LongLink', type: 'L', data: '../../etc/x\0' }),
      tarEntry({ path: 'cut', data: 'x' }),
      END,
    ]);
    await refused(gzipSync(evil), 'dot-dot', '../../etc/x');
  });

  it('refuse .. and absolute paths, also through a pax header', async () => {
    await refused(tgz([MANIFEST, { path: 'surfaces/page/../../evil.js', data: 'x' }]), 'dot-dot', 'surfaces/page/../../evil.js');
    await refused(tgz([MANIFEST, { path: '../evil', data: 'x' }]), 'dot-dot');
    await refused(tgz([MANIFEST, { path: '/etc/cron.d/evil', data: 'x' }]), 'absolute-path', '/etc/cron.d/evil');
    await refused(
      gzipSync(Buffer.concat([tarEntry(MANIFEST), pax('../../evil'), tarEntry({ path: 'surfaces/page/a.js', data: 'x' }), END])),
      'dot-dot',
      '../../evil',
    );
    await refused(tgz([MANIFEST, { path: 'surfaces/page//a.js', data: 'x' }]), 'bad-path');
  });

  it('refuse symlinks, hard links, devices and fifos', async () => {
    await refused(tgz([MANIFEST, { path: 'surfaces/page/index.html', type: '2', linkname: '/etc/passwd' }]), 'not-a-file', 'surfaces/page/index.html');
    await refused(tgz([MANIFEST, { path: 'README.md', type: '1', linkname: 'addon.json' }]), 'not-a-file', 'README.md');
    await refused(tgz([MANIFEST, { path: 'surfaces/page/tty', type: '3' }]), 'not-a-file');
    await refused(tgz([MANIFEST, { path: 'surfaces/page/pipe', type: '6' }]), 'not-a-file');
  });

  it('refuse names over 255 bytes and paths outside the package layout', async () => {
    await refused(
      gzipSync(Buffer.concat([tarEntry(MANIFEST), pax(`surfaces/page/${'a'.repeat(250)}`), tarEntry({ path: 'x', data: 'x' }), END])),
      'name-too-long',
    );
    await refused(tgz([MANIFEST, { path: 'node_modules/x.js', data: 'x' }]), 'unexpected-path', 'node_modules/x.js');
    await refused(tgz([MANIFEST, { path: 'server.ts', data: 'x' }]), 'unexpected-path');
  });

  it('refuse duplicate paths, case-insensitively, and a file used as a directory', async () => {
    await refused(tgz([MANIFEST, PAGE, PAGE]), 'duplicate-path', 'surfaces/page/index.html');
    await refused(tgz([MANIFEST, PAGE, { path: 'surfaces/page/INDEX.html', data: 'x' }]), 'duplicate-path');
    await refused(tgz([MANIFEST, { path: 'surfaces/page/a', data: 'x' }, { path: 'surfaces/page/a/b', data: 'x' }]), 'duplicate-path');
    await refused(tgz([MANIFEST, MANIFEST]), 'duplicate-path', 'addon.json');
  });

  it('take 2,000 entries and refuse 2,001', async () => {
    const many = (count: number): Raw[] => [MANIFEST, PAGE, ...Array.from({ length: count - 2 }, (_, i) => ({ path: `surfaces/page/f${i}.txt`, data: 'x' }))];
    expect((await inspectPackage(await file(tgz(many(2000))))).files).toHaveLength(2000);
    await refused(tgz(many(2001)), 'too-many-entries');
  });

  it('refuse a bomb of 100 MiB + 1 byte while inflating it, and take 100 MiB', async () => {
    const MiB = 1024 * 1024;
    // One gzip member of 1 MiB of zeros, repeated: the file stays small and quick to build.
    const zeros = gzipSync(Buffer.alloc(MiB), { level: 1 });
    const head = gzipSync(Buffer.concat([tarEntry(MANIFEST), tarEntry(PAGE)]));
    const used = JSON.stringify(manifest).length + 14;
    const bomb = (extra: number): Buffer => {
      const members = [head];
      for (let i = 0; i < 100; i++)
        members.push(
          gzipSync(rawHeader({ path: `surfaces/page/z${i}` }, i === 0 ? MiB - used : MiB)),
          i === 0 ? gzipSync(Buffer.alloc(MiB - used + ((512 - ((MiB - used) % 512)) % 512))) : zeros,
        );
      if (extra) members.push(gzipSync(tarEntry({ path: 'surfaces/page/last', data: Buffer.alloc(extra) })));
      members.push(gzipSync(END));
      return Buffer.concat(members);
    };
    expect((await inspectPackage(await file(bomb(0)))).unpackedBytes).toBe(PACKAGE_LIMITS.unpackedBytes);
    await refused(bomb(1), 'too-large-unpacked', 'surfaces/page/last');
    // A header declaring more than the limit is refused before its body is read: the body here
    // is cut short, and the answer is still the size, not a damaged archive.
    const declared = gzipSync(
      Buffer.concat([tarEntry(MANIFEST), rawHeader({ path: 'surfaces/page/big' }, PACKAGE_LIMITS.unpackedBytes + 1), Buffer.alloc(4096)]),
    );
    await refused(declared, 'too-large-unpacked', 'surfaces/page/big');
  });

  it('refuse a package over 20 MiB packed before reading it', async () => {
    const big = Buffer.concat([gzipSync(tar([MANIFEST, PAGE])), Buffer.alloc(PACKAGE_LIMITS.packedBytes)]);
    await refused(big, 'too-large-packed');
  });

  it('refuse a missing, unreadable or invalid manifest with its problem path', async () => {
    await refused(tgz([PAGE]), 'no-manifest', 'addon.json');
    await refused(tgz([{ path: 'addon.json', data: '{"key": ' }]), 'manifest-json', 'addon.json');
    await refused(tgz([{ path: 'addon.json', data: Buffer.alloc(PACKAGE_LIMITS.manifestBytes + 1, 0x20) }]), 'manifest-too-large');
    const bad = { ...manifest, endpoints: [{ ref: 'notes', table: 'notes', methods: ['GET'] }] };
    const error = await refused(tgz([{ path: 'addon.json', data: JSON.stringify(bad) }, PAGE]), 'manifest-invalid', 'endpoints.0.table');
    expect(error.message).toMatch(/notes is not one of the add-on's tables/);
  });

  it('refuse a package whose surfaces or server code are missing', async () => {
    await refused(tgz([MANIFEST]), 'missing-file', 'surfaces/page/index.html');
    await refused(tgz([{ path: 'addon.json', data: JSON.stringify({ ...manifest, actions: ['go'] }) }, PAGE]), 'missing-file', 'server.js');
  });

  it('refuse what is not gzip, and damaged archives', async () => {
    await refused(tar([MANIFEST, PAGE]), 'not-gzip');
    await refused(Buffer.from('x'), 'not-gzip');
    const good = tgz([MANIFEST, PAGE]);
    await refused(good.subarray(0, good.length - 12), 'corrupt');
    const header = rawHeader(MANIFEST, 10);
    header[0] = 0x41; // checksum no longer matches
    await refused(gzipSync(Buffer.concat([header, Buffer.alloc(512), END])), 'corrupt');
    await refused(gzipSync(Buffer.concat([tarEntry(MANIFEST), tarEntry(PAGE), END, Buffer.alloc(2 * 1024 * 1024, 1)])), 'corrupt');
  });

  it('writePackage writes the same bytes for the same files, and they pass', async () => {
    const files = [
      { path: 'surfaces/page/index.html', data: Buffer.from('<p>x</p>') },
      { path: 'addon.json', data: Buffer.from(JSON.stringify(manifest)) },
      { path: `surfaces/page/${'d'.repeat(120)}/x.js`, data: Buffer.from('1') },
    ];
    const a = writePackage(files);
    expect(writePackage([...files].reverse()).equals(a)).toBe(true);
    const info = await inspectPackage(await file(a));
    expect(info.files.map((f) => f.path)).toEqual(['addon.json', `surfaces/page/${'d'.repeat(120)}/x.js`, 'surfaces/page/index.html']);
    expect(() => writePackage([{ path: '../x', data: Buffer.from('') }])).toThrow(PackageError);
  });
});
