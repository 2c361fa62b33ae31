import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/helpers/contract.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';

let inst: TestInstance;
beforeAll(async () => {
  inst = await startInstance();
});
afterAll(async () => {
  await inst?.close();
});

describe('health and instance information', () => {
  it('GET /healthz answers the unwrapped liveness object and nothing else', async () => {
    const res = await call(inst, inst.client(), 'GET', '/api/v1/healthz');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['ok', 'uptime', 'version']);
    expect(res.body.ok).toBe(true);
    expect(res.body.uptime).toBeGreaterThanOrEqual(0);
  });

  it('GET /readyz answers 200 with checks.meta ok', async () => {
    const res = await call(inst, inst.client(), 'GET', '/api/v1/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, version: res.body.version, checks: { meta: 'ok' } });
  });

  it('GET /system/info has exactly the seed fields', async () => {
    const res = await call(inst, inst.client(), 'GET', '/api/v1/system/info');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'desktopDemo',
      'dialect',
      'lanShare',
      'networkFeaturesAllowed',
      'node',
      'runtime',
      'smtpConfigured',
      'version',
    ]);
    expect(res.body).toMatchObject({ dialect: 'sqlite', runtime: 'self-host', smtpConfigured: false, networkFeaturesAllowed: false });
  });

  it('GET /about needs a signed-in caller', async () => {
    const res = await call(inst, inst.client(), 'GET', '/api/v1/about');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_REQUIRED');
  });
});

describe('the update check', () => {
  let registry: Server;
  let registryUrl = '';
  let hits = 0;
  let other: TestInstance | null = null;
  beforeAll(async () => {
    registry = createServer((_req, res) => {
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'svc-admin', version: '99.0.0' }));
    });
    await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
    registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}/latest`;
  });
  afterEach(async () => {
    await other?.close();
    other = null;
  });
  afterAll(async () => {
    await new Promise<void>((r) => registry.close(() => r()));
  });

  const signIn = async (i: TestInstance) => {
    const c = i.client();
    await c.post('/api/v1/setup/super-admin', { email: 'a@b.co', password: 'password-1', name: 'A' });
    return c;
  };

  it('makes no network call when network features are not allowed', async () => {
    other = await startInstance({ env: { SVC_NETWORK_FEATURES: 'false', SVC_UPDATE_CHECK_URL: registryUrl } });
    const c = await signIn(other);
    const before = hits;
    const res = await call(other, c, 'GET', '/api/v1/about/update-check');
    expect(res.body.data).toMatchObject({ checked: false, reason: 'network-features-disabled', latest: null, updateAvailable: false });
    expect(hits).toBe(before);
  });

  it('reports a newer release when allowed', async () => {
    other = await startInstance({ env: { SVC_NETWORK_FEATURES: 'true', SVC_UPDATE_CHECK_URL: registryUrl } });
    const c = await signIn(other);
    const res = await call(other, c, 'GET', '/api/v1/about/update-check');
    expect(res.body.data).toMatchObject({ checked: true, reason: null, latest: '99.0.0', updateAvailable: true });
  });

  it('says unreachable when the registry does not answer', async () => {
    other = await startInstance({ env: { SVC_NETWORK_FEATURES: 'true', SVC_UPDATE_CHECK_URL: 'http://127.0.0.1:9/latest' } });
    const c = await signIn(other);
    const res = await call(other, c, 'GET', '/api/v1/about/update-check');
    expect(res.body.data).toMatchObject({ checked: false, reason: 'unreachable' });
  });
});
