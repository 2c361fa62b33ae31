import { PackageError, PACKAGE_LIMITS } from './errors.js';

/** The files a package may hold at its root besides `surfaces/<name>/…` (D22). */
export const ROOT_FILES = ['addon.json', 'server.js', 'server.js.map', 'README.md', 'icon.svg'] as const;

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The path an entry is extracted to, or a PackageError. One leading `./` is allowed (what
 * `tar -C dir .` writes) and removed; a trailing `/` of a directory is removed. Returns '' for
 * the root directory entry itself (`./`). Everything else must already be normal: no empty or
 * `.` segment, no backslash, no control character.
 */
export function normalizeEntryPath(raw: string, isDirectory: boolean): string {
  let path = raw;
  if (path.startsWith('./')) path = path.slice(2);
  else if (path === '.') path = '';
  if (isDirectory) path = path.replace(/\/+$/, '');
  if (path === '') return '';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw new PackageError('absolute-path', `${raw} is an absolute path.`, raw);
  const segments = path.split('/');
  if (segments.includes('..')) throw new PackageError('dot-dot', `${raw} has a .. segment.`, raw);
  if (segments.some((s) => s === '' || s === '.') || path.includes('\\') || CONTROL.test(path))
    throw new PackageError('bad-path', `${raw} is not a plain relative path (empty or . segment, backslash or control character).`, raw);
  if (Buffer.byteLength(path, 'utf8') > PACKAGE_LIMITS.nameBytes)
    throw new PackageError('name-too-long', `${raw.slice(0, 60)}… is longer than ${PACKAGE_LIMITS.nameBytes} bytes.`, raw);
  return path;
}

/**
 * Whether a normalised path belongs in a package: one of ROOT_FILES, or under `surfaces/<name>/`
 * (directories `surfaces` and `surfaces/<name>` themselves included).
 */
export function isPackagePath(path: string, isDirectory: boolean): boolean {
  const segments = path.split('/');
  if (segments[0] === 'surfaces') return isDirectory ? true : segments.length >= 3;
  return !isDirectory && segments.length === 1 && (ROOT_FILES as readonly string[]).includes(path);
}

/** The key two paths collide under on a case-insensitive or normalising file system. */
export function collisionKey(path: string): string {
  return path.normalize('NFC').toLowerCase();
}
