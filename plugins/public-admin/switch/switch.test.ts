import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { call } from '../../../test/helpers/contract.js';
import { activeUser, issuePaths } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { addConnection, bootPublic, fixtureSource, providesProbe, type FixtureSource } from '../testing.js';

describe('the public API switch with SVC_PUBLIC_API_ORIGINS set', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: FixtureSource;
  const probe = providesProbe();
  beforeAll(async () => {
    ({ inst, admin } = await bootPublic({ plugins: [probe.plugin] }));
    source = await fixtureSource('sqlite');
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('is off by default, and served with the listed origins', async () => {
    const res = await call(inst, admin, 'GET', '/api/v1/public-api');
    expect(res.body).toEqual({ data: { enabled: false, served: true, origins: ['https://shop.example', 'https://book.example'] } });
    expect(await probe.admin().state()).toEqual({ enabled: false, served: true, origins: ['https://shop.example', 'https://book.example'] });
  });

  it('switches on at once for the data plane, and off again deleting nothing', async () => {
    const connectionId = await addConnection(inst, admin, 'shop', source);
    const key = await call(inst, admin, 'POST', '/api/v1/public-keys', {
      name: 'shop',
      kind: 'browser',
      expires: 'never',
      grants: [{ ref: 'tag', methods: ['GET'] }],
    });
    expect(key.status, key.text).toBe(201);

    const on = await call(inst, admin, 'PUT', '/api/v1/public-api', { enabled: true });
    expect(on.body.data).toMatchObject({ enabled: true, served: true });
    expect((await probe.admin().state()).enabled).toBe(true);
    expect((await call(inst, admin, 'GET', '/api/v1/public-api')).body.data.enabled).toBe(true);

    const revoked: string[] = [];
    const stop = probe.admin().onRevoked((id) => revoked.push(id));
    const off = await call(inst, admin, 'PUT', '/api/v1/public-api', { enabled: false });
    expect(off.body.data.enabled).toBe(false);
    expect((await probe.admin().state()).enabled).toBe(false);
    expect(revoked).toEqual(['*']);
    stop();
    // Nothing deleted: the key, its grant and the endpoint it stored are all still there.
    const keys = await call(inst, admin, 'GET', '/api/v1/public-keys');
    expect(keys.body.data.keys.map((k: { id: string }) => k.id)).toEqual([key.body.data.key.id]);
    expect(await probe.admin().keyForToken(key.body.data.secret)).toMatchObject({ id: key.body.data.key.id });
    expect((await probe.admin().endpoint('tag'))?.connectionId).toBe(connectionId);

    const trail = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'diff']).where('action', '=', 'public-api.switch').orderBy('id').execute();
    expect(trail.map((r) => JSON.parse(r.diff!))).toEqual([
      { before: { enabled: false }, after: { enabled: true } },
      { before: { enabled: true }, after: { enabled: false } },
    ]);
  });

  it('validates the body and is for admins only', async () => {
    expect(issuePaths(await call(inst, admin, 'PUT', '/api/v1/public-api', { enabled: 'yes' }))).toEqual(['body.enabled']);
    expect(issuePaths(await call(inst, admin, 'PUT', '/api/v1/public-api', { enabled: true, origins: [] }))).toEqual(['body']);
    for (const role of ['editor', 'viewer']) {
      const user = await activeUser(inst, admin, `${role}-switch@example.com`, [role]);
      const read = await call(inst, user.client, 'GET', '/api/v1/public-api');
      expect(read.status).toBe(403);
      expect(read.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'public-api.read' } });
      const write = await call(inst, user.client, 'PUT', '/api/v1/public-api', { enabled: true });
      expect(write.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'public-api.write' } });
    }
  });
});

describe('the public API switch without SVC_PUBLIC_API_ORIGINS', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  beforeAll(async () => ({ inst, admin } = await bootPublic({ origins: null })));
  afterAll(async () => inst?.close());

  it('reports the routes as not served and refuses to switch on (409), but may switch off', async () => {
    expect((await call(inst, admin, 'GET', '/api/v1/public-api')).body).toEqual({ data: { enabled: false, served: false, origins: [] } });
    const on = await call(inst, admin, 'PUT', '/api/v1/public-api', { enabled: true });
    expect(on.status).toBe(409);
    expect(on.body.error.code).toBe('PUBLIC_API_NOT_CONFIGURED');
    expect(on.body.error.message).toContain('SVC_PUBLIC_API_ORIGINS');
    expect((await call(inst, admin, 'GET', '/api/v1/public-api')).body.data.enabled).toBe(false);
    expect((await call(inst, admin, 'PUT', '/api/v1/public-api', { enabled: false })).body).toEqual({ data: { enabled: false, served: false, origins: [] } });
  });
});
