import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { OPENAPI_FILE, publishedOpenApi } from './document.js';

let inst: TestInstance;
beforeAll(async () => {
  inst = await startInstance();
});
afterAll(async () => {
  await inst?.close();
});

describe('docs/openapi.json', () => {
  it('is not stale: it equals the document generated from the route tree (run `npm run openapi`)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(publishedOpenApi());
  });

  it('is what the server publishes at /docs/openapi.json', async () => {
    const res = await inst.client().get('/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('is OpenAPI 3.1 and every operation declares responses and security', () => {
    const doc = JSON.parse(publishedOpenApi());
    expect(doc.openapi).toBe('3.1.0');
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      expect(path.startsWith('/api/v1/')).toBe(true);
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(
          Object.keys(op.responses).some((s) => s.startsWith('2')),
          `${method} ${path}`,
        ).toBe(true);
        expect(Array.isArray(op.security), `${method} ${path}`).toBe(true);
        if (op.security.length > 0) expect(typeof op['x-permission']).toBe('string');
      }
    }
  });

  it('publishes the seed shapes with additional properties forbidden', () => {
    const doc = JSON.parse(publishedOpenApi());
    const s = doc.components.schemas;
    expect(s.User.additionalProperties).toBe(false);
    expect(Object.keys(s.User.properties).sort()).toEqual(['createdAt', 'email', 'id', 'lastLoginAt', 'name', 'status', 'totpEnabled', 'updatedAt']);
    expect(Object.keys(s.Liveness.properties).sort()).toEqual(['ok', 'uptime', 'version']);
    expect(s.InstanceInfo.additionalProperties).toBe(false);
    expect(s.Readiness.properties.checks.properties.meta.enum).toEqual(['ok', 'unreachable', 'not-configured']);
    expect(doc.paths['/api/v1/readyz'].get.responses['503']).toBeDefined();
  });

  it('serves a readable reference page whose assets come from this server', async () => {
    const page = await inst.client().get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(page.text).not.toMatch(/https?:\/\//);
    const asset = await inst.client().get('/docs/assets/swagger-ui-bundle.js');
    expect(asset.status).toBe(200);
  });
});
