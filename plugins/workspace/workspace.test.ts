import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { bucket, telemetryCron } from './telemetry.js';

const pgUp = await databaseAvailable('postgres');

/** A loopback endpoint that keeps what it is sent and answers `status`. */
async function collector(): Promise<{ url: string; bodies: unknown[]; status: { code: number }; close(): Promise<void> }> {
  const bodies: unknown[] = [];
  const status = { code: 204 };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      bodies.push(JSON.parse(text));
      res.writeHead(status.code).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`, bodies, status, close: () => new Promise((r) => server.close(() => r())) };
}

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pgUp)(`workspace and telemetry (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let endpoint: Awaited<ReturnType<typeof collector>>;

    beforeAll(async () => {
      endpoint = await collector();
      ({ inst, admin } = await bootWithAdmin({
        meta,
        env: { SVC_TELEMETRY_URL: endpoint.url, SVC_NETWORK_FEATURES: 'true', SVC_BASE_URL: 'https://admin.example.com' },
      }));
    });
    afterAll(async () => {
      await inst?.close();
      await endpoint?.close();
    });

    it('answers the settings overview in one read, to who may read settings', async () => {
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/branding', { productName: 'Bakery' })).status).toBe(200);
      const res = await call(inst, admin, 'GET', '/api/v1/settings/workspace');
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.workspace).toMatchObject({
        name: 'Bakery',
        branding: { productName: 'Bakery' },
        locales: { default: 'en', enabled: ['en'] },
        baseUrl: 'https://admin.example.com',
        publicApi: { served: false, enabled: false, origins: [] },
        email: { configured: false },
        telemetry: { enabled: false },
        meta: { dialect: meta, embedded: meta === 'sqlite' },
      });
      const viewer = await addUser(inst, { role: 'viewer', email: `ws-viewer-${meta}@example.com` });
      expect((await call(inst, viewer.client, 'GET', '/api/v1/settings/workspace')).status).toBe(403);
      expect((await call(inst, viewer.client, 'GET', '/api/v1/settings/telemetry')).status).toBe(403);
    });

    it('is off until turned on, shows the exact report, and sends it: no name, e-mail or URL in it', async () => {
      const before = await call(inst, admin, 'GET', '/api/v1/settings/telemetry');
      expect(before.status, before.text).toBe(200);
      expect(before.body.data).toMatchObject({ enabled: false, configured: true, networkFeatures: true, lastSentAt: null });
      const preview = before.body.data.preview;
      expect(preview).toMatchObject({
        instanceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        meta,
        runtime: 'self-host',
        counts: { users: '2-5', connections: { postgres: '0', mysql: '0', sqlite: '0' }, addons: { builtIn: {}, other: '0' } },
        features: { publicApi: false, email: false },
      });
      const text = JSON.stringify(preview);
      for (const secret of ['Bakery', '@example.com', 'admin.example.com', inst.url]) expect(text).not.toContain(secret);

      // Off: the job sends nothing.
      const idle = await call(inst, admin, 'POST', '/api/v1/jobs', { kind: 'workspace.telemetry' });
      expect((await inst.app.kernel.jobs.waitFor(idle.body.data.job.id, 10_000)).result).toEqual({ sent: false });
      expect(endpoint.bodies).toEqual([]);

      const on = await call(inst, admin, 'PUT', '/api/v1/settings/telemetry', { enabled: true });
      expect(on.status, on.text).toBe(200);
      expect(on.body.data.enabled).toBe(true);
      const job = await call(inst, admin, 'POST', '/api/v1/jobs', { kind: 'workspace.telemetry' });
      const done = await inst.app.kernel.jobs.waitFor(job.body.data.job.id, 10_000);
      expect(done.state, JSON.stringify(done.error)).toBe('succeeded');
      expect(endpoint.bodies).toEqual([preview]);
      expect((await call(inst, admin, 'GET', '/api/v1/settings/telemetry')).body.data.lastSentAt).toEqual(expect.any(Number));

      // A refusing endpoint fails the job once, not again.
      endpoint.status.code = 500;
      const failing = await call(inst, admin, 'POST', '/api/v1/jobs', { kind: 'workspace.telemetry' });
      const failed = await inst.app.kernel.jobs.waitFor(failing.body.data.job.id, 10_000);
      expect(failed).toMatchObject({ state: 'failed', attempts: 1 });
      endpoint.status.code = 204;

      const off = await call(inst, admin, 'PUT', '/api/v1/settings/telemetry', { enabled: false });
      expect(off.body.data.enabled).toBe(false);
      expect((await call(inst, admin, 'GET', '/api/v1/settings/workspace')).body.data.workspace.telemetry.enabled).toBe(false);
    });
  });
}

describe('telemetry that cannot be turned on', () => {
  it('says why: no URL, or the instance may not call out', async () => {
    const { inst, admin } = await bootWithAdmin({ env: { SVC_NETWORK_FEATURES: 'true' } });
    try {
      const res = await call(inst, admin, 'PUT', '/api/v1/settings/telemetry', { enabled: true });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('TELEMETRY_NOT_CONFIGURED');
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/telemetry', { enabled: false })).status).toBe(200);
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/telemetry', { enabled: 'yes' })).status).toBe(400);
    } finally {
      await inst.close();
    }
    const offline = await bootWithAdmin({ env: { SVC_TELEMETRY_URL: 'http://127.0.0.1:9/x', SVC_NETWORK_FEATURES: 'false' } });
    try {
      const res = await call(offline.inst, offline.admin, 'PUT', '/api/v1/settings/telemetry', { enabled: true });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('NETWORK_FEATURES_DISABLED');
    } finally {
      await offline.inst.close();
    }
  });

  it('buckets counts and spreads the weekly time by instance', () => {
    expect([0, 1, 2, 5, 6, 49, 500, 1000, 1001].map(bucket)).toEqual(['0', '1', '2-5', '2-5', '6-10', '11-50', '101-500', '501-1000', '1001+']);
    expect(telemetryCron('a')).toMatch(/^\d{1,2} \d{1,2} \* \* 1$/);
    expect(telemetryCron('a')).not.toBe(telemetryCron('b'));
  });
});
