/** The bounds of one add-on package (DESIGN D22). */
export const PACKAGE_LIMITS = {
  /** The .tgz as stored. */
  packedBytes: 20 * 1024 * 1024,
  /** The sum of the regular files' sizes. */
  unpackedBytes: 100 * 1024 * 1024,
  /** Regular files and directories together. */
  entries: 2000,
  /** UTF-8 bytes of one entry's whole path (`surfaces/page/app.js`). */
  nameBytes: 255,
  /** addon.json itself. */
  manifestBytes: 256 * 1024,
} as const;

/**
 * Why a package is refused. Stable: the server answers 400 `ADDON_PACKAGE_INVALID` with
 * `params.reason` set to one of these (and `params.path` when there is one).
 */
export const PACKAGE_ERROR_REASONS = [
  'not-gzip',
  'corrupt',
  'too-large-packed',
  'too-large-unpacked',
  'too-many-entries',
  'not-a-file',
  'absolute-path',
  'dot-dot',
  'bad-path',
  'name-too-long',
  'duplicate-path',
  'unexpected-path',
  'no-manifest',
  'manifest-too-large',
  'manifest-json',
  'manifest-invalid',
  'missing-file',
] as const;
export type PackageErrorReason = (typeof PACKAGE_ERROR_REASONS)[number];

/**
 * A package broke a rule of D22. `path` is the entry's path for entry problems and the
 * manifest problem's path (`endpoints.0.table`) for `manifest-invalid`.
 */
export class PackageError extends Error {
  override readonly name = 'PackageError';
  constructor(
    readonly reason: PackageErrorReason,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}
