import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { MetaStore } from '../meta/store.js';
import { LocalBlobs } from './local.js';
import { MetaBlobs } from './meta.js';
import { S3Blobs } from './s3.js';
import { IndexedFileStore } from './store.js';
import type { BlobBackend, FileStore } from './types.js';

export type { FileStore, StoredFile, FileStoreDriver } from './types.js';

/** Where the `local` driver keeps contents. */
export const localFilesDir = (dataDir: string) => join(dataDir, 'files');

/** The file store the configuration names (decisions K45). */
export function openFileStore(
  config: Pick<Config, 'fileStore' | 'dataDir'> & Partial<Pick<Config, 's3'>>,
  meta: MetaStore,
  now: () => number,
  log: Logger,
): FileStore {
  return new IndexedFileStore(meta.db, backendFor(config, meta), now, log);
}

function backendFor(config: Pick<Config, 'fileStore' | 'dataDir'> & Partial<Pick<Config, 's3'>>, meta: MetaStore): BlobBackend {
  if (config.fileStore === 'meta') return new MetaBlobs(meta.db, meta.dialect);
  if (config.fileStore === 's3') {
    if (!config.s3) throw new Error('The s3 file store needs its settings (SVC_S3_BUCKET…).');
    return new S3Blobs(config.s3);
  }
  return new LocalBlobs(localFilesDir(config.dataDir));
}
