/**
 * For tests: the SDK as an author gets it. Builds and packs it (scripts/build-addons-sdk.mjs
 * --pack) and installs the tarball into an empty folder with `npm ci --offline`: nothing from the
 * network. npm's cache holds the dependencies' tarballs (every `npm ci` of the repository puts
 * them there) but not the registry's metadata, which `npm install <tarball>` would ask for; so
 * the folder gets a package-lock.json naming each dependency's version, integrity and tarball
 * URL, taken from the repository's own lock, and npm takes the tarballs from the cache by
 * integrity.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

interface LockEntry {
  version: string;
  integrity?: string;
  resolved?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

export interface InstalledSdk {
  /** The tarball npm pack wrote. */
  tarball: string;
  /** The folder the SDK is installed in (its node_modules/.bin/svc-addon). */
  dir: string;
  bin: string;
  /** The built package's folder (what npm pack packed). */
  dist: string;
  /** dist/package.json as published. */
  manifest: {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    files: string[];
    exports: Record<string, unknown>;
  };
}

/** Builds, packs and installs the SDK into `<root>/author` (created). */
export async function installPackedSdk(root: string): Promise<InstalledSdk> {
  const packs = join(root, 'packs');
  const dist = join(root, 'dist');
  const built = await run(process.execPath, [join(REPO, 'scripts/build-addons-sdk.mjs'), '--dist', dist, '--pack', packs], { cwd: REPO });
  const tarball = built.stdout.trim().split('\n').pop()!;
  const manifest = JSON.parse(await readFile(join(dist, 'package.json'), 'utf8')) as InstalledSdk['manifest'];
  const lock = (JSON.parse(await readFile(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;

  const wanted = new Set<string>();
  const need = (name: string) => {
    if (wanted.has(name)) return;
    const entry = lock[`node_modules/${name}`];
    if (!entry) throw new Error(`${name} is not in the repository's package-lock.json: the SDK's dependencies must be the repository's`);
    wanted.add(name);
    for (const d of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) need(d);
  };
  for (const d of Object.keys(manifest.dependencies)) need(d);

  const dir = join(root, 'author');
  await mkdir(dir, { recursive: true });
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'author', dependencies: { [manifest.name]: spec } },
    [`node_modules/${manifest.name}`]: {
      version: manifest.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512')
        .update(await readFile(tarball))
        .digest('base64')}`,
      dependencies: manifest.dependencies,
      bin: manifest.bin,
    },
  };
  for (const name of wanted) {
    const entry = lock[`node_modules/${name}`]!;
    packages[`node_modules/${name}`] = { ...entry, resolved: `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz` };
  }
  await writeFile(join(dir, 'package.json'), `${JSON.stringify({ name: 'author', private: true, dependencies: { [manifest.name]: spec } }, null, 2)}\n`);
  await writeFile(join(dir, 'package-lock.json'), `${JSON.stringify({ name: 'author', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir });
  return { tarball, dist, dir, bin: join(dir, 'node_modules/.bin/svc-addon'), manifest };
}
