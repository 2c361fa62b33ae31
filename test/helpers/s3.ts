import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3Config } from '../../kernel/config.js';

export interface FakeS3 {
  /** Settings for the `s3` driver pointed at this server's bucket. */
  config: S3Config;
  /** The same as SVC_* variables, for a started instance. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const FAKE_S3_SECRET = 'S3RVER';

/** An S3-compatible server (s3rver) on a free port of 127.0.0.1, its objects in a temp folder, with one bucket. */
export async function startFakeS3(bucket = 'svc-test'): Promise<FakeS3> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: FAKE_S3_SECRET };
  return {
    config: { bucket, endpoint, region: 'us-east-1', credentials, forcePathStyle: true, prefix: 'svc-files/' },
    env: {
      SVC_FILE_STORE: 's3',
      SVC_S3_BUCKET: bucket,
      SVC_S3_ENDPOINT: endpoint,
      SVC_S3_ACCESS_KEY_ID: credentials.accessKeyId,
      SVC_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      SVC_S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
