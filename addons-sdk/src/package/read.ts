import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Writable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { parseAddonManifest, type AddonManifest } from '../manifest/addon.js';
import { PackageError, PACKAGE_LIMITS } from './errors.js';
import { collisionKey, isPackagePath, normalizeEntryPath } from './paths.js';
import { TarReader, type TarEvent } from './tar-reader.js';

export interface PackageFile {
  /** Normalised: no leading `./`, `/` separators. */
  path: string;
  size: number;
}

export interface PackageInfo {
  manifest: AddonManifest;
  /** Hex sha256 of the .tgz as stored (what a catalog index lists). */
  sha256: string;
  packedBytes: number;
  /** The sum of the regular files' sizes. */
  unpackedBytes: number;
  /** The regular files, sorted by path. */
  files: PackageFile[];
}

/** Where the bodies of regular files go while a package is read (extraction); inspection has none. */
interface Sink {
  directory(path: string): Promise<void>;
  open(path: string): Promise<void>;
  write(chunk: Buffer): Promise<void>;
  close(): Promise<void>;
}

/**
 * Reads the .tgz at `source` once, as a stream, checking every rule of D22 as it goes and
 * stopping at the first violation (an oversized entry is refused on its header, before its
 * body is inflated; nothing is read after the archive's end beyond its padding).
 */
async function readPackage(source: string, sink: Sink | null): Promise<PackageInfo> {
  const { size: fileSize } = await stat(source);
  if (fileSize > PACKAGE_LIMITS.packedBytes)
    throw new PackageError('too-large-packed', `The package is ${fileSize} bytes; at most ${PACKAGE_LIMITS.packedBytes}.`);

  const hash = createHash('sha256');
  let packedBytes = 0;
  let head = Buffer.alloc(0);
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      packedBytes += chunk.length;
      if (packedBytes > PACKAGE_LIMITS.packedBytes)
        return callback(new PackageError('too-large-packed', `The package is over ${PACKAGE_LIMITS.packedBytes} bytes.`));
      if (head.length < 2) {
        head = Buffer.concat([head, chunk.subarray(0, 2)]);
        if (head.length >= 2 && (head[0] !== 0x1f || head[1] !== 0x8b))
          return callback(new PackageError('not-gzip', 'The package is not a gzip file (a .tgz).'));
      }
      hash.update(chunk);
      callback(null, chunk);
    },
    flush(callback) {
      callback(head.length < 2 ? new PackageError('not-gzip', 'The package is not a gzip file (a .tgz).') : null);
    },
  });

  const reader = new TarReader();
  let entries = 0;
  let unpackedBytes = 0;
  const files: PackageFile[] = [];
  const seen = new Map<string, 'file' | 'directory'>();
  let current: { path: string; size: number; manifest: Buffer[] | null } | null = null;
  let manifestText: string | null = null;
  let manifest: AddonManifest | null = null;

  const claim = (path: string, kind: 'file' | 'directory'): void => {
    const key = collisionKey(path);
    const before = seen.get(key);
    if (before && (before === 'file' || kind === 'file')) throw new PackageError('duplicate-path', `${path} is in the package twice.`, path);
    const segments = key.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      if (seen.get(parent) === 'file') throw new PackageError('duplicate-path', `${path} is under ${parent}, which is a file.`, path);
      seen.set(parent, 'directory');
    }
    seen.set(key, kind);
  };

  const readManifest = (text: string): void => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new PackageError('manifest-json', `addon.json is not JSON: ${(error as Error).message}`, 'addon.json');
    }
    const checked = parseAddonManifest(value);
    if (!checked.ok) throw new PackageError('manifest-invalid', `addon.json: ${checked.path}: ${checked.message}`, checked.path);
    manifest = checked.manifest;
  };

  const handle = async (event: TarEvent): Promise<void> => {
    switch (event.kind) {
      case 'entry': {
        if (++entries > PACKAGE_LIMITS.entries) throw new PackageError('too-many-entries', `The package has more than ${PACKAGE_LIMITS.entries} entries.`);
        if (event.type === 'other')
          throw new PackageError('not-a-file', `${event.path} is not a regular file or directory (tar type ${JSON.stringify(event.typeFlag)}).`, event.path);
        const isDirectory = event.type === 'directory';
        const path = normalizeEntryPath(event.path, isDirectory);
        if (isDirectory && event.size !== 0) throw new PackageError('corrupt', `Directory ${event.path} has a size.`, event.path);
        if (path === '') return; // the root directory itself
        if (!isPackagePath(path, isDirectory))
          throw new PackageError(
            'unexpected-path',
            `${path} does not belong in a package (addon.json, server.js, README.md, icon.svg and surfaces/<name>/… only).`,
            path,
          );
        claim(path, event.type);
        if (isDirectory) {
          await sink?.directory(path);
          return;
        }
        if (unpackedBytes + event.size > PACKAGE_LIMITS.unpackedBytes)
          throw new PackageError('too-large-unpacked', `The package unpacks to more than ${PACKAGE_LIMITS.unpackedBytes} bytes.`, path);
        unpackedBytes += event.size;
        const isManifest = path === 'addon.json';
        if (isManifest && event.size > PACKAGE_LIMITS.manifestBytes)
          throw new PackageError('manifest-too-large', `addon.json is over ${PACKAGE_LIMITS.manifestBytes} bytes.`, path);
        files.push({ path, size: event.size });
        current = { path, size: event.size, manifest: isManifest ? [] : null };
        await sink?.open(path);
        return;
      }
      case 'data':
        current?.manifest?.push(Buffer.from(event.chunk));
        await sink?.write(event.chunk);
        return;
      case 'entry-end':
        await sink?.close();
        if (current?.manifest) {
          manifestText = Buffer.concat(current.manifest).toString('utf8');
          readManifest(manifestText); // fail fast: pack puts addon.json first
        }
        current = null;
        return;
      case 'eof':
        return;
    }
  };

  // The write in progress: when the pipeline fails elsewhere (a damaged gzip stream), it is
  // awaited before the error goes up, so that extraction cleans up after the last file write.
  let inflight: Promise<void> = Promise.resolve();
  const consume = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      inflight = (async () => {
        for (const event of reader.push(chunk)) await handle(event);
      })();
      inflight.then(() => callback(), callback);
    },
    final(callback) {
      try {
        reader.end();
        callback();
      } catch (error) {
        callback(error as Error);
      }
    },
  });

  try {
    await pipeline(createReadStream(source), count, createGunzip({ chunkSize: 64 * 1024 }), consume);
  } catch (error) {
    await inflight.catch(() => undefined);
    if (error instanceof PackageError) throw error;
    if ((error as NodeJS.ErrnoException).code?.startsWith('Z_'))
      throw new PackageError('corrupt', `The package's gzip stream is damaged: ${(error as Error).message}`);
    throw error;
  }
  if (manifestText === null) throw new PackageError('no-manifest', 'The package has no addon.json at its root.', 'addon.json');
  const found = manifest as AddonManifest | null;
  if (!found) throw new PackageError('no-manifest', 'The package has no addon.json at its root.', 'addon.json');
  const paths = new Set(files.map((f) => f.path));
  if ((found.hooks.length || found.actions.length) && !paths.has('server.js'))
    throw new PackageError('missing-file', 'addon.json declares hooks or actions but the package has no server.js.', 'server.js');
  for (const surface of found.surfaces) {
    const entry = `surfaces/${surface.name}/${surface.entry}`;
    if (!paths.has(entry)) throw new PackageError('missing-file', `Surface ${surface.name}'s entry ${entry} is not in the package.`, entry);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { manifest: found, sha256: hash.digest('hex'), packedBytes, unpackedBytes, files };
}

/** Checks a package (D22) without writing anything. Throws PackageError on the first problem. */
export function inspectPackage(source: string): Promise<PackageInfo> {
  return readPackage(source, null);
}

/**
 * Checks and extracts a package into `destDir`, which must not exist. The files are written
 * (mode 0644, directories 0755, whatever the tar says) into a fresh `.<name>.partial-<random>`
 * directory beside `destDir`, which is renamed into place once the whole package has passed;
 * on any failure that directory is removed and nothing is left. The parent of `destDir` is
 * created when missing (and kept).
 */
export async function extractPackage(source: string, destDir: string): Promise<PackageInfo & { dir: string }> {
  const parent = dirname(destDir);
  if (await exists(destDir)) throw Object.assign(new Error(`${destDir} already exists.`), { code: 'EEXIST' });
  await mkdir(parent, { recursive: true });
  const temp = join(parent, `.${basename(destDir)}.partial-${randomBytes(6).toString('hex')}`);
  await mkdir(temp, { mode: 0o755 });
  let handle: FileHandle | null = null;
  const sink: Sink = {
    async directory(path) {
      await mkdir(join(temp, path), { recursive: true, mode: 0o755 });
    },
    async open(path) {
      await mkdir(dirname(join(temp, path)), { recursive: true, mode: 0o755 });
      handle = await open(join(temp, path), 'wx', 0o644);
    },
    async write(chunk) {
      await handle!.write(chunk);
    },
    async close() {
      const h = handle;
      handle = null;
      await h?.close();
    },
  };
  try {
    const info = await readPackage(source, sink);
    await rename(temp, destDir);
    return { ...info, dir: destDir };
  } catch (error) {
    await (handle as FileHandle | null)?.close().catch(() => undefined);
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
