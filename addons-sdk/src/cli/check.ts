import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Cron } from 'croner';
import semver from 'semver';
import { parseAddonManifest, type AddonManifest } from '../manifest/addon.js';
import { PackageError, PACKAGE_LIMITS } from '../package/errors.js';
import { collisionKey, normalizeEntryPath } from '../package/paths.js';
import { SDK_PACKAGE } from '../sdk-name.js';
import { BundleError, bundleServer, readServerExports, SERVER_ENTRIES } from './bundle.js';
import { SURFACE_HELPER_FILE, SURFACE_HELPER_NAME } from './init.js';
import { findCspProblems } from './surface-csp.js';

/** The first line of the SDK's surface helper: a file that has it is the helper, perhaps an older copy. */
const HELPER_MARK = "svc-app.js: the SDK's surface helper";

/** One thing wrong with an add-on folder: the file, the place in it (a manifest path) and why. */
export interface Problem {
  file: string;
  path?: string;
  /** Where in the file (1-based), for problems found in a file's text. */
  line?: number;
  column?: number;
  message: string;
}

export function formatProblem(p: Problem): string {
  const at = p.line === undefined ? '' : `:${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
  return `${p.file}${at}${p.path ? `: ${p.path}` : ''}: ${p.message}`;
}

export class CheckFailed extends Error {
  override readonly name = 'CheckFailed';
  constructor(readonly problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

export interface CheckedAddon {
  manifest: AddonManifest;
  /** addon.json's bytes as written. */
  manifestBytes: Buffer;
  /** The folder's files that go into the package besides addon.json and server.js, by package path. */
  files: Array<{ path: string; abs: string; size: number }>;
  /** The bundled server code (`server.js` of the package), or null when the add-on has none. */
  server: string | null;
  /** Its source map (`server.js.map`), or null. */
  serverMap: string | null;
  /** Things worth knowing that do not stop a pack. */
  warnings: string[];
}

async function kind(path: string): Promise<'file' | 'directory' | 'other' | null> {
  try {
    const s = await lstat(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other';
  } catch {
    return null;
  }
}

/**
 * Everything `svc-addon check` checks (the manifest schema, the package rules of D22 on what
 * pack would take, server code exports every declared hook and action, surface entries exist).
 * Throws CheckFailed; the manifest's first problem stops the rest.
 */
export async function checkAddon(dir: string): Promise<CheckedAddon> {
  const manifestPath = join(dir, 'addon.json');
  const manifestKind = await kind(manifestPath);
  if (manifestKind !== 'file') throw new CheckFailed([{ file: 'addon.json', message: manifestKind ? 'is not a regular file' : 'is missing' }]);
  const manifestBytes = await readFile(manifestPath);
  if (manifestBytes.length > PACKAGE_LIMITS.manifestBytes)
    throw new CheckFailed([{ file: 'addon.json', message: `is over ${PACKAGE_LIMITS.manifestBytes} bytes` }]);
  let value: unknown;
  try {
    value = JSON.parse(manifestBytes.toString('utf8'));
  } catch (error) {
    throw new CheckFailed([{ file: 'addon.json', message: `is not JSON: ${(error as Error).message}` }]);
  }
  const parsed = parseAddonManifest(value);
  if (!parsed.ok) throw new CheckFailed([{ file: 'addon.json', path: parsed.path, message: parsed.message }]);
  const manifest = parsed.manifest;

  const problems: Problem[] = [];
  const warnings: string[] = [];
  if (!semver.validRange(manifest.engine))
    problems.push({ file: 'addon.json', path: 'engine', message: `${manifest.engine} is not a semver range (e.g. ">=0.1.0 <1")` });
  manifest.hooks.forEach((hook, i) => {
    if (!hook.startsWith('schedule:')) return;
    try {
      new Cron(hook.slice('schedule:'.length).trim(), { paused: true });
    } catch (error) {
      problems.push({ file: 'addon.json', path: `hooks.${i}`, message: `not a valid cron expression: ${(error as Error).message}` });
    }
  });

  // The files pack takes: README.md, icon.svg, surfaces/** (dot files left out).
  const files: CheckedAddon['files'] = [];
  for (const name of ['README.md', 'icon.svg']) {
    const k = await kind(join(dir, name));
    if (k === 'file') files.push({ path: name, abs: join(dir, name), size: (await lstat(join(dir, name))).size });
    else if (k) problems.push({ file: name, message: 'is not a regular file (a package holds regular files only)' });
  }
  const walk = async (rel: string): Promise<void> => {
    for (const entry of (await readdir(join(dir, rel), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.')) continue;
      const path = `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path);
      else if (!entry.isFile())
        problems.push({ file: path, message: 'is not a regular file or directory (a symbolic link?); a package holds regular files only' });
      else if (path.split('/').length < 3) problems.push({ file: path, message: 'surface files live in surfaces/<name>/' });
      else files.push({ path, abs: join(dir, path), size: (await lstat(join(dir, path))).size });
    }
  };
  const surfacesKind = await kind(join(dir, 'surfaces'));
  if (surfacesKind === 'directory') await walk('surfaces');
  else if (surfacesKind) problems.push({ file: 'surfaces', message: 'is not a directory' });
  const keys = new Map<string, string>();
  for (const f of files) {
    const other = keys.get(collisionKey(f.path));
    if (other) problems.push({ file: f.path, message: `collides with ${other} on a case-insensitive file system; rename one` });
    keys.set(collisionKey(f.path), f.path);
    try {
      normalizeEntryPath(f.path, false);
    } catch (error) {
      if (error instanceof PackageError) problems.push({ file: f.path, message: error.message });
      else throw error;
    }
  }
  const declared = new Set(manifest.surfaces.map((s) => s.name));
  const stray = new Set(files.filter((f) => f.path.startsWith('surfaces/') && !declared.has(f.path.split('/')[1]!)).map((f) => f.path.split('/')[1]!));
  for (const name of stray) warnings.push(`surfaces/${name}/ is not a surface addon.json declares; it is packed all the same.`);
  for (const s of manifest.surfaces) {
    const entry = `surfaces/${s.name}/${s.entry}`;
    if (!files.some((f) => f.path === entry))
      problems.push({ file: 'addon.json', path: `surfaces.${manifest.surfaces.indexOf(s)}.entry`, message: `${entry} does not exist` });
  }

  // What the surface CSP refuses, in every HTML file of a surface; the SDK's helper as it ships.
  const helper = await readFile(SURFACE_HELPER_FILE, 'utf8');
  for (const f of files) {
    if (!f.path.startsWith('surfaces/')) continue;
    if (/\.html?$/i.test(f.path)) {
      for (const found of findCspProblems(await readFile(f.abs, 'utf8')))
        problems.push({ file: f.path, line: found.line, column: found.column, message: found.message });
    } else if (f.path.endsWith(`/${SURFACE_HELPER_NAME}`)) {
      const text = await readFile(f.abs, 'utf8');
      if (text !== helper && text.includes(HELPER_MARK))
        warnings.push(
          `${f.path} is not this SDK's surface helper (an older or changed copy); copy ${SDK_PACKAGE}/surface/${SURFACE_HELPER_NAME} over it (node_modules/${SDK_PACKAGE}/surface/${SURFACE_HELPER_NAME}).`,
        );
    }
  }

  // Server code: bundled as pack bundles it; its default export defines every declared hook and action.
  let server: string | null = null;
  let serverMap: string | null = null;
  let entry: string | null = null;
  for (const candidate of SERVER_ENTRIES) {
    const k = await kind(join(dir, candidate));
    if (k === 'file') {
      entry = candidate;
      break;
    }
    if (k) problems.push({ file: candidate, message: 'is not a regular file' });
  }
  if (entry) {
    try {
      const bundle = await bundleServer(dir, entry);
      server = bundle.code;
      serverMap = bundle.map;
      const exported = await readServerExports(dir, entry);
      if (!exported) warnings.push(`${entry} uses top-level await: check cannot read the names of its hooks and actions.`);
      else {
        for (const [key, names] of [
          ['hooks', manifest.hooks],
          ['actions', manifest.actions],
        ] as const) {
          const word = key === 'hooks' ? 'hook' : 'action';
          const defined = exported[key];
          names.forEach((name, i) => {
            if (!defined.includes(name))
              problems.push({
                file: 'addon.json',
                path: `${key}.${i}`,
                message: `${entry} does not define ${word} ${JSON.stringify(name)} (its default export's ${key}: ${defined.map((n) => JSON.stringify(n)).join(', ') || 'none'})`,
              });
          });
          for (const name of defined)
            if (!(names as readonly string[]).includes(name))
              warnings.push(`${entry} defines ${word} ${JSON.stringify(name)}, which addon.json does not declare: it will never be called.`);
        }
      }
    } catch (error) {
      if (!(error instanceof BundleError)) throw error;
      problems.push(...error.problems.map((message) => ({ file: entry!, message })));
    }
  } else if (manifest.hooks.length || manifest.actions.length) {
    problems.push({
      file: 'addon.json',
      path: manifest.hooks.length ? 'hooks' : 'actions',
      message: `declares ${manifest.hooks.length ? 'hooks' : 'actions'} but there is no server.ts`,
    });
  }

  const entries = 1 + files.length + (server === null ? 0 : serverMap === null ? 1 : 2);
  if (entries > PACKAGE_LIMITS.entries) problems.push({ file: '.', message: `the package would have ${entries} files; at most ${PACKAGE_LIMITS.entries}` });
  const unpacked =
    manifestBytes.length +
    files.reduce((n, f) => n + f.size, 0) +
    (server === null ? 0 : Buffer.byteLength(server)) +
    (serverMap === null ? 0 : Buffer.byteLength(serverMap));
  if (unpacked > PACKAGE_LIMITS.unpackedBytes)
    problems.push({ file: '.', message: `the package would unpack to ${unpacked} bytes; at most ${PACKAGE_LIMITS.unpackedBytes}` });

  if (problems.length) throw new CheckFailed(problems);
  return { manifest, manifestBytes, files, server, serverMap, warnings };
}
