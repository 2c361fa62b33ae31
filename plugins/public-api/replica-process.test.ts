import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { addConnection, bootPublic, fixtureSource, ORIGINS, type FixtureSource } from '../public-admin/testing.js';

const pg = await databaseAvailable('postgres');
const root = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Revocation across replicas with two real server processes on one PostgreSQL meta store: this
 * test's instance revokes, a second `kernel/main.ts` process serves the public request.
 */
describe.runIf(pg)('a revoked public key on another server process', () => {
  let a: TestInstance;
  let admin: HttpClient;
  let source: FixtureSource;
  let child: ChildProcess | null = null;
  let dataDir = '';
  let base = '';
  let stderr = '';

  beforeAll(async () => {
    ({ inst: a, admin } = await bootPublic({ meta: 'postgres' }));
    source = await fixtureSource('postgres');
    await addConnection(a, admin, 'shop', source);
    expect((await call(a, admin, 'PUT', '/api/v1/public-api', { enabled: true })).status).toBe(200);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-replica-'));
    const port = await freePort();
    child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', 'kernel/main.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        SVC_DATA_DIR: dataDir,
        SVC_PORT: String(port),
        SVC_META_URL: a.metaUrl!,
        // Replicas share the secret: connection URLs are sealed with it.
        SVC_SECRET: a.app.kernel.config.secret,
        SVC_PUBLIC_API_ORIGINS: ORIGINS,
        SVC_LOG_LEVEL: 'error',
        SVC_NETWORK_FEATURES: 'false',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (d) => (stderr += d));
    base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 150; i++) {
      const ok = await fetch(`${base}/api/v1/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`the second server did not start: ${stderr}`);
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      child.kill('SIGKILL');
    }
    await a?.close();
    await source?.cleanup();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops working there within 5 seconds of the revocation here', async () => {
    const created = await call(a, admin, 'POST', '/api/v1/public-keys', {
      name: 'sync',
      kind: 'server',
      expires: 'never',
      grants: [{ ref: 'tag', methods: ['GET'] }],
    });
    expect(created.status, created.text).toBe(201);
    const { key, secret } = created.body.data;
    const read = () => fetch(`${base}/api/v1/public/records/tag`, { headers: { authorization: `Bearer ${secret}` } });
    const before = await read();
    expect(before.status, await before.clone().text()).toBe(200);

    expect((await call(a, admin, 'DELETE', `/api/v1/public-keys/${key.id}`)).status).toBe(200);
    const revokedAt = Date.now();
    let status = 200;
    let body: any = null;
    while (Date.now() - revokedAt < 6000) {
      const res = await read();
      status = res.status;
      body = await res.json();
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
    expect(body.error.code).toBe('PUBLIC_KEY_INVALID');
    expect(Date.now() - revokedAt).toBeLessThan(5000);
  });
});
