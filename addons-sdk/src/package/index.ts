export { PACKAGE_LIMITS, PACKAGE_ERROR_REASONS, PackageError, type PackageErrorReason } from './errors.js';
export { ROOT_FILES, isPackagePath, normalizeEntryPath } from './paths.js';
export { inspectPackage, extractPackage, type PackageInfo, type PackageFile } from './read.js';
export { writePackage, type PackageEntry } from './write.js';
