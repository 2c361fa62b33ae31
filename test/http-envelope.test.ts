import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectContract } from './helpers/contract.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

let inst: TestInstance;
beforeAll(async () => {
  inst = await startInstance();
});
afterAll(async () => {
  await inst?.close();
});

describe('the error envelope (D4) for fastify-level failures', () => {
  it('answers 404 NOT_FOUND in the envelope for an unknown /api/ path', async () => {
    const res = await inst.client().get('/api/v1/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(typeof res.body.error.requestId).toBe('string');
    expect(res.headers.get('x-request-id')).toBe(res.body.error.requestId);
  });

  it('answers 400 MALFORMED_JSON for a broken JSON body', async () => {
    const res = await inst.client().request('POST', '/api/v1/setup/super-admin', { rawBody: '{"email": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_JSON');
  });

  it('reads an empty JSON body as no body: accepted where a route takes none, refused by schema where it needs one', async () => {
    const res = await inst.client().request('POST', '/api/v1/setup/super-admin', { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.issues[0].path).toBe('body');
    const proto = await inst
      .client()
      .request('POST', '/api/v1/setup/super-admin', { rawBody: '{"__proto__": {"x": 1}}', headers: { 'content-type': 'application/json' } });
    expect(proto.status).toBe(400);
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    const res = await inst.client().request('POST', '/api/v1/setup/super-admin', { rawBody: 'email=a', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const form = await inst
      .client()
      .request('POST', '/api/v1/setup/super-admin', { rawBody: 'email=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
  });

  it('answers 413 PAYLOAD_TOO_LARGE past the body limit', async () => {
    const big = JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(2 * 1024 * 1024), name: 'n' });
    const res = await inst.client().request('POST', '/api/v1/setup/super-admin', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 400 VALIDATION_FAILED naming each offending path', async () => {
    const res = await inst.client().post('/api/v1/setup/super-admin', { email: 'x', password: 'short', name: '' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    const paths = res.body.error.issues.map((i: { path: string }) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['body.email', 'body.password', 'body.name']));
    expectContract(inst, 'POST', '/api/v1/setup/super-admin', res);
  });

  it('never puts a stack trace or SQL in a body', async () => {
    const res = await inst.client().request('POST', '/api/v1/setup/super-admin', { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(res.text).not.toMatch(/at .*\.ts:\d+|select |insert /i);
  });
});

describe('the SPA host', () => {
  it('serves index.html with 200 for bare /healthz and any deep link', async () => {
    // Dotted segments are the app's own values (a table outside the default schema, a version), not files.
    for (const path of ['/', '/healthz', '/users/42/edit', '/connections/c1/tables/sales.orders', '/add-ons/board/versions/1.1.0']) {
      const res = await inst.client().get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain('<div id="root">');
    }
  });

  it('does not fall back for /api/, /ws or /docs/ paths, with or without a query', async () => {
    expect((await inst.client().get('/api/v1')).status).toBe(404);
    expect((await inst.client().get('/api?x=1')).status).toBe(404);
    expect((await inst.client().get('/docs/nothing-here')).status).toBe(404);
  });

  it('answers 404 for a missing file instead of the app (a stale chunk after a redeploy)', async () => {
    for (const path of ['/assets/index-OLDHASH.js', '/favicon.ico', '/robots.txt', '/logo.svg', '/chunk-abc.mjs']) {
      const res = await inst.client().get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('sends security headers', async () => {
    const res = await inst.client().get('/');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    // A deep link (the SPA fallback) and /docs are documents too; an API answer is no-store and no document.
    expect((await inst.client().get('/connections/x/tables/y')).headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await inst.client().get('/docs')).headers.get('content-security-policy')).toContain("default-src 'self'");
    for (const path of ['/', '/connections/x/tables/y', '/docs']) {
      const doc = await inst.client().get(path);
      expect(doc.headers.get('referrer-policy'), path).toBe('same-origin');
      expect(doc.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
    }
    const api = await inst.client().get('/api/v1/healthz');
    expect(api.headers.get('cache-control')).toBe('no-store');
    expect(api.headers.get('content-security-policy')).toBeNull();
    expect(api.headers.get('x-frame-options')).toBe('DENY');
    expect(api.headers.get('x-content-type-options')).toBe('nosniff');
    expect(api.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    // What only a document acts on is not sent with JSON (decisions K36).
    expect(api.headers.get('referrer-policy')).toBeNull();
    expect(api.headers.get('cross-origin-opener-policy')).toBeNull();
  });
});
