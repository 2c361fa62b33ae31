import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../connections/testing.js';
import { packFixture, uploadPackage } from './testing.js';

const ORIGIN = 'https://shop.example';

/** Issue 26: the add-on contract's edges (a disabled app's new key, upgrades and settings, re-uploads, patterns, plans). */
describe('add-on contract', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let connectionId: string;

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    connectionId = created.body.data.connection.id;
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  const stage = async (m: AddonManifestInput, server: string | null = null, files: Record<string, string> = {}) => {
    const pkg = await packFixture(m, server, files);
    const up = await uploadPackage(inst.url, admin, pkg.bytes);
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    return pkg;
  };
  const planOf = async (key: string, version: string, withConnection = true) => {
    const res = await admin.get(`/api/v1/add-ons/${key}/plan?version=${version}${withConnection ? `&connectionId=${connectionId}` : ''}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.plan;
  };
  const install = async (key: string, version: string, settings?: Record<string, unknown>) => {
    const plan = await planOf(key, version);
    const res = await admin.post('/api/v1/add-ons', { key, version, connectionId, planHash: plan.hash, ...(settings ? { settings } : {}) });
    expect(res.status, res.text).toBe(201);
    return res.body.data.addon;
  };
  const addonView = async (key: string) => {
    const list = await admin.get('/api/v1/add-ons');
    expect(list.status).toBe(200);
    return (list.body.data.addons as Array<{ key: string }>).find((a) => a.key === key) as Record<string, any>;
  };

  describe('a disabled app upgraded to its first endpoint (point 9)', () => {
    const feed = (version: string, endpoints: boolean): AddonManifestInput => ({
      key: 'feed',
      name: 'Feed',
      version,
      engine: '>=0.1.0',
      capabilities: ['db'],
      tables: [
        {
          name: 'items',
          primaryKey: ['id'],
          columns: [
            { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
            { name: 'body', type: 'text', nullable: false },
          ],
        },
      ],
      endpoints: endpoints ? [{ ref: 'items', table: 'items', methods: ['GET'] }] : [],
    });

    it('gets its new app key suspended: listed as such, 401 until the app is enabled', async () => {
      await stage(feed('1.0.0', false));
      await install('feed', '1.0.0');
      expect((await admin.patch('/api/v1/add-ons/feed', { enabled: false })).status).toBe(200);
      await stage(feed('1.1.0', true));
      const plan = await planOf('feed', '1.1.0', false);
      const up = await admin.post('/api/v1/add-ons/feed/upgrade', { version: '1.1.0', planHash: plan.hash });
      expect(up.status, up.text).toBe(200);
      const keyId = up.body.data.addon.appKeyId as string;
      expect(keyId).toBeTruthy();

      const keys = await admin.get('/api/v1/public-keys');
      expect(keys.status).toBe(200);
      expect((keys.body.data.keys as Array<{ id: string }>).find((k) => k.id === keyId)).toMatchObject({ suspended: true });
      const secret = (await admin.get(`/api/v1/public-keys/${keyId}/reveal`)).body.data.secret as string;
      const read = () =>
        inst.client().request('GET', '/api/v1/public/records/feed-items?limit=1', { headers: { authorization: `Bearer ${secret}`, origin: ORIGIN }, noOrigin: true });
      expect((await read()).status).toBe(401);

      expect((await admin.patch('/api/v1/add-ons/feed', { enabled: true })).status).toBe(200);
      expect((await read()).status).toBe(200);
      const after = await admin.get('/api/v1/public-keys');
      expect((after.body.data.keys as Array<{ id: string }>).find((k) => k.id === keyId)).toMatchObject({ suspended: false });
    }, 60_000);
  });
});
