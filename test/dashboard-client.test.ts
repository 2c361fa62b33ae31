import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_TYPES, generateApiTypes } from '../scripts/gen-api.mjs';

describe("the dashboard's typed API client", () => {
  it('has types generated from the current docs/openapi.json (run `npm run gen:api`)', async () => {
    expect(readFileSync(OPENAPI_TYPES, 'utf8')).toBe(await generateApiTypes());
  });

  it('types the sign-in routes the dashboard uses', async () => {
    const text = await generateApiTypes();
    for (const path of ['/api/v1/setup/state', '/api/v1/setup/super-admin', '/api/v1/auth/login', '/api/v1/auth/2fa/verify', '/api/v1/auth/password/forgot', '/api/v1/auth/password/reset', '/api/v1/me']) {
      expect(text).toContain(`"${path}": {`);
    }
  });
});
