import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { AddonManifest } from '../manifest/addon.js';
import { PACKAGE_LIMITS, PackageError } from '../package/errors.js';
import { inspectPackage } from '../package/read.js';
import { writePackage, type PackageEntry } from '../package/write.js';
import { checkAddon } from './check.js';

export interface PackResult {
  /** Absolute path of the written .tgz. */
  file: string;
  sha256: string;
  bytes: number;
  manifest: AddonManifest;
  /** From check: things worth knowing that did not stop the pack. */
  warnings: string[];
}

/** The default file name of a package: `<key>-<version>.tgz`. */
export const packageFileName = (m: AddonManifest): string => `${m.key}-${m.version}.tgz`;

/**
 * Checks the add-on in `dir`, bundles its server code into `server.js` and writes the package
 * (addon.json, server.js, surfaces/**, README.md, icon.svg; byte-for-byte the same for the same
 * input) to `out` (default `<dir>/<key>-<version>.tgz`), then reads it back with
 * inspectPackage, as the server will. Throws CheckFailed or PackageError; a package that
 * fails is not left behind.
 */
export async function packAddon(dir: string, out?: string): Promise<PackResult> {
  const root = resolve(dir);
  const checked = await checkAddon(root);
  const entries: PackageEntry[] = [{ path: 'addon.json', data: checked.manifestBytes }];
  if (checked.server !== null) entries.push({ path: 'server.js', data: Buffer.from(checked.server, 'utf8') });
  if (checked.serverMap !== null) entries.push({ path: 'server.js.map', data: Buffer.from(checked.serverMap, 'utf8') });
  for (const f of checked.files) entries.push({ path: f.path, data: await readFile(f.abs) });
  const bytes = writePackage(entries);
  if (bytes.length > PACKAGE_LIMITS.packedBytes)
    throw new PackageError('too-large-packed', `The package would be ${bytes.length} bytes; at most ${PACKAGE_LIMITS.packedBytes}.`);

  const file = resolve(out ?? join(root, packageFileName(checked.manifest)));
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.partial-${process.pid}`;
  await writeFile(temp, bytes);
  try {
    const info = await inspectPackage(temp);
    await rename(temp, file);
    return { file, sha256: info.sha256, bytes: info.packedBytes, manifest: info.manifest, warnings: checked.warnings };
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
