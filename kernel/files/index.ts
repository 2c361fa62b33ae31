import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { MetaStore } from '../meta/store.js';
import { LocalBlobs } from './local.js';
import { MetaBlobs } from './meta.js';
import { IndexedFileStore } from './store.js';
import type { FileStore } from './types.js';

export type { FileStore, StoredFile, FileStoreDriver } from './types.js';

/** Where the `local` driver keeps contents. */
export const localFilesDir = (dataDir: string) => join(dataDir, 'files');

/** The file store the configuration names (decisions K45). */
export function openFileStore(config: Pick<Config, 'fileStore' | 'dataDir'>, meta: MetaStore, now: () => number, log: Logger): FileStore {
  const backend = config.fileStore === 'meta' ? new MetaBlobs(meta.db, meta.dialect) : new LocalBlobs(localFilesDir(config.dataDir));
  return new IndexedFileStore(meta.db, backend, now, log);
}
