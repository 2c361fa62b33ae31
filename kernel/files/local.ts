import { createReadStream, createWriteStream, mkdirSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobBackend } from './types.js';

/** The `local` driver: one plain file per blob in a folder of this machine (one server, or a shared mount). */
export class LocalBlobs implements BlobBackend {
  readonly driver = 'local' as const;

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  path(blob: string): string {
    return join(this.dir, blob);
  }

  async write(blob: string, body: AsyncIterable<Uint8Array>): Promise<number> {
    const out = createWriteStream(this.path(blob), { flags: 'wx' });
    try {
      await pipeline(Readable.from(body, { objectMode: false }), out);
    } catch (err) {
      // The file is opened asynchronously: a body that fails at once can reject before the open
      // has made the file, which would then appear after the caller removed it. Once the stream
      // has closed, the file is there (or never will be) and the caller's remove is final.
      if (!out.closed) await once(out, 'close').catch(() => undefined);
      throw err;
    }
    return out.bytesWritten;
  }

  read(blob: string): Readable {
    return createReadStream(this.path(blob));
  }

  async remove(blob: string): Promise<void> {
    await rm(this.path(blob), { force: true });
  }

  async removeOrphans(before: string, live: (ids: string[]) => Promise<Set<string>>): Promise<number> {
    const old = readdirSync(this.dir).filter((name) => name < before);
    const kept = await live(old);
    let removed = 0;
    for (const name of old) if (!kept.has(name)) (await this.remove(name), removed++);
    return removed;
  }
}
