import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { SecretBox } from '../crypto.js';
import type { Dialect } from './types.js';

/** Where a relocation leaves the store's placement (MR3). */
export const PLACEMENT_FILE = 'meta-placement.json';
const PURPOSE = 'meta-placement';

export interface PreviousPlacement {
  dialect: Dialect;
  /** Where it was, credentials removed; for the embedded store, the file's new name. */
  location: string;
  relocatedAt: number;
}

export interface PlacementRecord {
  /** The store's URL; null: the embedded file `meta.sqlite`. */
  url: string | null;
  previous: PreviousPlacement | null;
  /** The old embedded file and the name it is to get (a crash may have come before the rename). */
  rename: { from: string; to: string } | null;
}

interface OnDisk {
  version: 1;
  url: string | null;
  previous: PreviousPlacement | null;
  rename: { from: string; to: string } | null;
}

export class PlacementFileError extends Error {
  override name = 'PlacementFileError';
}

export function placementPath(dataDir: string): string {
  return join(dataDir, PLACEMENT_FILE);
}

/** The recorded placement, or null when no relocation ever wrote one. Throws PlacementFileError when it cannot be read. */
export function readPlacement(dataDir: string, secret: string): PlacementRecord | null {
  const path = placementPath(dataDir);
  if (!existsSync(path)) return null;
  let disk: OnDisk;
  try {
    disk = JSON.parse(readFileSync(path, 'utf8')) as OnDisk;
    if (disk.version !== 1) throw new Error(`version ${String(disk.version)}`);
  } catch (err) {
    throw new PlacementFileError(`${path} cannot be read (${(err as Error).message}): fix or remove it, or set SVC_META_URL`);
  }
  let url: string | null = null;
  if (disk.url !== null) {
    try {
      url = new SecretBox(secret, PURPOSE).decrypt(disk.url);
    } catch {
      throw new PlacementFileError(`${path} was sealed with another SVC_SECRET: start with the secret it was written with, or set SVC_META_URL`);
    }
  }
  return { url, previous: disk.previous ?? null, rename: disk.rename ?? null };
}

/** Writes the placement atomically (a temporary file, fsync, rename), mode 0600, the URL sealed. */
export function writePlacement(dataDir: string, secret: string, record: PlacementRecord): void {
  const path = placementPath(dataDir);
  const disk: OnDisk = {
    version: 1,
    url: record.url === null ? null : new SecretBox(secret, PURPOSE).encrypt(record.url),
    previous: record.previous,
    rename: record.rename,
  };
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(disk, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  try {
    const dir = openSync(dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Some file systems do not fsync a directory; the rename is still atomic.
  }
}

/** Renames the old embedded file (and forgets the rename) when a crash came between the swap and it. */
export function finishRename(dataDir: string, secret: string, record: PlacementRecord): void {
  if (!record.rename) return;
  const { from, to } = record.rename;
  if (existsSync(from)) {
    renameSync(from, to);
    for (const side of ['-wal', '-shm']) if (existsSync(from + side)) renameSync(from + side, to + side);
    try {
      chmodSync(to, 0o400);
    } catch {
      // read-only is a courtesy
    }
  }
  writePlacement(dataDir, secret, { ...record, rename: null });
}
