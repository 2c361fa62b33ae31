// `npm run build:catalog` (run by `npm start`, CI and the test setup): packs every first-party
// add-on under catalog/ (each folder with an addon.json) with the SDK, as an author would, into
// catalog/dist/<key>-<version>.tgz, and writes catalog/dist/index.json (DESIGN D26):
// `{addons:[{key, name, description, versions:[{version, engine, url, sha256, size}]}]}` with
// `url` the tarball's file name. Deterministic: the same sources give the same bytes.
//
// The SDK's surface helper (addons-sdk/surface/svc-app.js, AO40) is copied into every surface
// folder whose scripts import `./svc-app.js`, before packing: the catalog's pages use the helper
// as an author's do, from one source, and the copies are not kept in git (.gitignore).
//
// `--if-stale`: do nothing when index.json is newer than every source file (the add-on
// folders, the SDK's packing code and this script); used by test/global-setup.ts.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const catalogDir = join(root, 'catalog');
const distDir = join(catalogDir, 'dist');
const indexFile = join(distDir, 'index.json');
const helperFile = join(root, 'addons-sdk', 'surface', 'svc-app.js');
const HELPER = 'svc-app.js';
const IMPORTS_HELPER = /from\s+['"]\.\/svc-app\.js['"]/;

/** The add-on folders: catalog/<name>/addon.json, sorted by folder name. */
function addonFolders() {
  return readdirSync(catalogDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'dist' && !d.name.startsWith('.') && existsSync(join(catalogDir, d.name, 'addon.json')))
    .map((d) => join(catalogDir, d.name))
    .sort();
}

/** The newest modification time among what a build reads (tests and dot files are not packed). */
function newestSource() {
  let newest = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === 'node_modules' || e.name.endsWith('.test.ts')) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const folder of addonFolders()) walk(folder);
  for (const part of ['cli', 'manifest', 'package']) walk(join(root, 'addons-sdk', 'src', part));
  walk(join(root, 'addons-sdk', 'surface'));
  return newest;
}

/**
 * Copies the SDK's surface helper into each surface folder of `folder` whose scripts import it
 * (written only when it differs, so an unchanged build leaves the files alone); answers the
 * surfaces that use it.
 */
export function syncSurfaceHelper(folder) {
  const surfaces = join(folder, 'surfaces');
  if (!existsSync(surfaces)) return [];
  const helper = readFileSync(helperFile);
  const using = [];
  for (const d of readdirSync(surfaces, { withFileTypes: true })) {
    if (!d.isDirectory() || d.name.startsWith('.')) continue;
    const dir = join(surfaces, d.name);
    const scripts = readdirSync(dir).filter((f) => f.endsWith('.js') && f !== HELPER);
    if (!scripts.some((f) => IMPORTS_HELPER.test(readFileSync(join(dir, f), 'utf8')))) continue;
    using.push(d.name);
    const copy = join(dir, HELPER);
    if (!existsSync(copy) || !readFileSync(copy).equals(helper)) writeFileSync(copy, helper);
  }
  return using;
}

export function isStale() {
  if (!existsSync(indexFile)) return true;
  return statSync(indexFile).mtimeMs < newestSource();
}

export async function buildCatalog() {
  // The SDK is TypeScript; tsImport loads it without registering a loader for the whole process.
  const { tsImport } = await import('tsx/esm/api');
  const { packAddon } = await tsImport('../addons-sdk/src/cli/pack.ts', import.meta.url);

  mkdirSync(distDir, { recursive: true });
  const addons = new Map();
  const written = new Set();
  for (const folder of addonFolders()) {
    const probe = JSON.parse(readFileSync(join(folder, 'addon.json'), 'utf8'));
    const name = `${probe.key}-${probe.version}.tgz`;
    syncSurfaceHelper(folder);
    let packed;
    try {
      packed = await packAddon(folder, join(distDir, name));
    } catch (error) {
      throw new Error(`catalog/${relative(catalogDir, folder)}: ${error.message}`, { cause: error });
    }
    const m = packed.manifest;
    if (written.has(name)) throw new Error(`catalog/${relative(catalogDir, folder)}: ${m.key} ${m.version} is built twice`);
    written.add(name);
    for (const w of packed.warnings) console.warn(`catalog/${relative(catalogDir, folder)}: ${w}`);
    const entry = addons.get(m.key) ?? { key: m.key, name: m.name, description: m.description, versions: [] };
    entry.versions.push({ version: m.version, engine: m.engine, url: name, sha256: packed.sha256, size: packed.bytes });
    addons.set(m.key, entry);
  }
  // Tarballs of versions no longer in catalog/ go.
  for (const f of readdirSync(distDir)) if (f.endsWith('.tgz') && !written.has(f)) rmSync(join(distDir, f), { force: true });

  const index = { addons: [...addons.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
  for (const a of index.addons) a.versions.sort((x, y) => semver.rcompare(x.version, y.version));
  const temp = `${indexFile}.partial-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(index, null, 2)}\n`);
  renameSync(temp, indexFile);
  return index;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ifStale = process.argv.includes('--if-stale');
  // A missing or older copy of the helper is written first, and so makes the catalog stale.
  if (ifStale) for (const folder of addonFolders()) syncSurfaceHelper(folder);
  if (ifStale && !isStale()) process.exit(0);
  const started = Date.now();
  try {
    const index = await buildCatalog();
    const versions = index.addons.flatMap((a) => a.versions.map((v) => `${a.key} ${v.version} (${v.size} bytes, sha256 ${v.sha256.slice(0, 12)}…)`));
    console.log(`catalog: ${versions.length ? versions.join(', ') : 'no add-ons'} → catalog/dist/index.json in ${Date.now() - started} ms`);
  } catch (error) {
    console.error(`build:catalog failed: ${error.message}`);
    process.exit(1);
  }
}
