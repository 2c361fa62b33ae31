import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { craftedTgz, rawHeader as header, tarEntry, TAR_END as END, pax, type RawEntry as Raw } from '../../../addons-sdk/src/package/crafted.js';
import { packFixture, uploadPackage } from '../testing.js';

/* Package safety (D22) through the HTTP upload route: crafted tarballs (ustar headers written by
 * hand, since no well-behaved tool writes `..`, links, devices or duplicates) are refused with 400
 * ADDON_PACKAGE_INVALID and params.reason, and leave nothing staged and nothing on disk. */

const entry = tarEntry;
const tgz = craftedTgz;

const MANIFEST: Raw = {
  path: 'addon.json',
  data: JSON.stringify({
    key: 'crafted',
    name: 'Crafted',
    version: '1.0.0',
    engine: '>=0.1.0',
    surfaces: [{ name: 'page', kind: 'dashboard-page', title: 'Crafted' }],
  }),
};
const PAGE: Raw = { path: 'surfaces/page/index.html', data: '<h1>hi</h1>' };

/** 100 MiB + 1 byte of zeros in one file, gzip'd as a stream (about 100 KiB packed). */
async function bomb(): Promise<Buffer> {
  const size = 100 * 1024 * 1024 + 1;
  const gzip = createGzip({ level: 1 });
  const chunks: Buffer[] = [];
  gzip.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const write = (b: Buffer) => new Promise<void>((resolve) => (gzip.write(b) ? resolve() : gzip.once('drain', () => resolve())));
  await write(entry(MANIFEST));
  await write(entry(PAGE));
  await write(header({ path: 'surfaces/page/big.bin' }, size));
  const zeros = Buffer.alloc(1024 * 1024);
  let left = size;
  while (left > 0) {
    const n = Math.min(left, zeros.length);
    await write(n === zeros.length ? zeros : zeros.subarray(0, n));
    left -= n;
  }
  await write(Buffer.alloc((512 - (size % 512)) % 512));
  await write(END);
  gzip.end();
  await done;
  return Buffer.concat(chunks);
}

describe('package safety through POST /add-ons/upload (D22)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let tmp: string;
  const savedTmp = process.env.TMPDIR;

  beforeAll(async () => {
    // A temp dir of this test's own, so that "nothing left on disk" is not muddled by other runs.
    tmp = mkdtempSync(join(tmpdir(), 'upload-safety-'));
    process.env.TMPDIR = tmp;
    expect(tmpdir()).toBe(tmp);
    ({ inst, admin } = await bootWithAdmin());
  });
  afterAll(async () => {
    await inst?.close();
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(tmp, { recursive: true, force: true });
  });

  const leftovers = () => readdirSync(tmp).filter((n) => n.startsWith('svc-addon'));

  const cases: Array<[string, () => Buffer | Promise<Buffer>, string, string?]> = [
    ['not gzip at all', () => Buffer.from('this is not a tarball'), 'not-gzip'],
    ['a ../ path', () => tgz([MANIFEST, PAGE, { path: 'surfaces/page/../../../evil.txt', data: 'x' }]), 'dot-dot'],
    ['an absolute path', () => tgz([MANIFEST, PAGE, { path: '/etc/evil', data: 'x' }]), 'absolute-path'],
    ['a symlink', () => tgz([MANIFEST, PAGE, { path: 'surfaces/page/link', type: '2', linkname: '/etc/passwd' }]), 'not-a-file'],
    ['a hard link', () => tgz([MANIFEST, PAGE, { path: 'surfaces/page/hard', type: '1', linkname: 'addon.json' }]), 'not-a-file'],
    ['a character device', () => tgz([MANIFEST, PAGE, { path: 'surfaces/page/tty', type: '3' }]), 'not-a-file'],
    ['a fifo', () => tgz([MANIFEST, PAGE, { path: 'surfaces/page/pipe', type: '6' }]), 'not-a-file'],
    ['a duplicate path', () => tgz([MANIFEST, PAGE, { path: 'surfaces/page/index.html', data: '<h1>again</h1>' }]), 'duplicate-path'],
    ['a name over 255 bytes', () => tgz([MANIFEST, PAGE, pax(`surfaces/page/${'a'.repeat(250)}.html`), { path: 'placeholder', data: 'x' }]), 'name-too-long'],
    [
      '2,001 entries',
      () => tgz([MANIFEST, PAGE, ...Array.from({ length: 1999 }, (_, i) => ({ path: `surfaces/page/f${i}.txt`, data: '' }))]),
      'too-many-entries',
    ],
    ['100 MiB + 1 byte unpacked', bomb, 'too-large-unpacked'],
    ['no manifest', () => tgz([PAGE]), 'no-manifest'],
    ['a manifest that is not JSON', () => tgz([{ path: 'addon.json', data: '{ nope' }, PAGE]), 'manifest-json'],
    [
      'a manifest that fails its schema',
      () => tgz([{ path: 'addon.json', data: JSON.stringify({ key: 'Bad Key', name: 'x', version: '1.0.0', engine: '*' }) }, PAGE]),
      'manifest-invalid',
      'key',
    ],
  ];

  it.each(cases)('refuses %s (params.reason %s) and keeps nothing', async (_name, make, reason, path) => {
    const bytes = await make();
    const res = await uploadPackage(inst.url, admin, bytes);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('ADDON_PACKAGE_INVALID');
    expect(res.body.error.params.reason).toBe(reason);
    if (path !== undefined) expect(res.body.error.params.path).toBe(path);
    const list = await admin.get('/api/v1/add-ons');
    expect(list.body.data.staged).toEqual([]);
    expect(leftovers()).toEqual([]);
  });

  it('refuses a file over 20 MiB packed with 413, and keeps nothing', async () => {
    const res = await uploadPackage(inst.url, admin, Buffer.alloc(20 * 1024 * 1024 + 1, 7));
    expect(res.status, JSON.stringify(res.body)).toBe(413);
    expect((await admin.get('/api/v1/add-ons')).body.data.staged).toEqual([]);
    expect(leftovers()).toEqual([]);
  });

  it('stages a well-made package through the same route (the refusals above are the package’s, not the route’s)', async () => {
    const pkg = await packFixture(
      { key: 'crafted', name: 'Crafted', version: '1.0.0', engine: '>=0.1.0', surfaces: [{ name: 'page', kind: 'dashboard-page', title: 'Crafted' }] },
      null,
      { 'surfaces/page/index.html': '<h1>hi</h1>' },
    );
    const res = await uploadPackage(inst.url, admin, pkg.bytes);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await admin.get('/api/v1/add-ons')).body.data.staged).toEqual([expect.objectContaining({ key: 'crafted', version: '1.0.0', verified: false })]);
    expect(leftovers()).toEqual([]);
  });
});
