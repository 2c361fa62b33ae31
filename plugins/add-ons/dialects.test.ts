import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../connections/testing.js';
import { packFixture, uploadPackage } from './testing.js';

const ORIGIN = 'https://shop.example';

const manifest: AddonManifestInput = {
  key: 'guestbook',
  name: 'Guestbook',
  version: '1.0.0',
  engine: '>=0.1.0',
  tables: [
    {
      name: 'entries',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'author', type: 'string', maxLength: 80, nullable: false },
        { name: 'stars', type: 'integer', nullable: false, default: 5 },
        { name: 'kind', type: 'enum', values: ['note', 'praise'], nullable: false, default: 'note' },
        { name: 'created_at', type: 'datetime', nullable: false, default: 'now()' },
      ],
    },
  ],
  endpoints: [{ ref: 'entries', table: 'entries', methods: ['GET', 'POST'], writable: ['author', 'stars', 'kind'] }],
  hooks: ['entries.beforeWrite'],
};
const SERVER = `import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({ hooks: { 'entries.beforeWrite': (ctx, e) => (e.values.stars > 5 ? { refuse: 'Five stars at most.' } : undefined) } });
`;

const available = { postgres: await databaseAvailable('postgres'), mysql: await databaseAvailable('mysql') };

/** The same app on each server dialect: its tables made by the DDL, served, hooked, removed. */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(available[dialect])(`an add-on on a ${dialect} connection`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let source: SourceFixture;
    let connectionId: string;

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
      source = await sourceFixture(dialect);
      const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect, url: source.url });
      expect(created.status, created.text).toBe(201);
      connectionId = created.body.data.connection.id;
      expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    }, 60_000);
    afterAll(async () => {
      await inst?.close();
      await source?.cleanup();
    });

    it('installs, serves the endpoint with its app key, runs the hook, and drops its tables with dropData', async () => {
      const pkg = await packFixture(manifest, SERVER);
      expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
      const plan = (await admin.get(`/api/v1/add-ons/guestbook/plan?version=1.0.0&connectionId=${connectionId}`)).body.data.plan;
      expect(plan.tables[0]).toMatchObject({ name: 'guestbook__entries', action: 'create' });
      const installed = await admin.post('/api/v1/add-ons', { key: 'guestbook', version: '1.0.0', connectionId, planHash: plan.hash });
      expect(installed.status, installed.text).toBe(201);
      expect(JSON.stringify((await admin.get(`/api/v1/connections/${connectionId}/schema`)).body)).toContain('guestbook__entries');
      const secret = (await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`)).body.data.secret;
      const post = (values: Record<string, unknown>) =>
        fetch(`${inst.url}/api/v1/public/records/guestbook-entries`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', origin: ORIGIN },
          body: JSON.stringify({ values }),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const ok = await post({ author: 'Ada', kind: 'praise' });
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
      expect(ok.body.data).toMatchObject({ author: 'Ada', stars: 5, kind: 'praise' });
      expect(typeof ok.body.data.created_at).toBe('string');
      const refused = await post({ author: 'Bob', stars: 9 });
      expect(refused.body.error).toMatchObject({ code: 'ADDON_REFUSED', message: 'Five stars at most.' });
      const bad = await post({ author: 'Cy', kind: 'rant' });
      expect(bad.status).toBe(400);
      const removed = await admin.delete('/api/v1/add-ons/guestbook?dropData=true');
      expect(removed.body.data.droppedTables).toEqual(['guestbook__entries']);
      const tables = (await admin.post(`/api/v1/connections/${connectionId}/introspect`, {})).status;
      expect(tables).toBeLessThan(300);
      const schema = await admin.get(`/api/v1/connections/${connectionId}/schema`);
      expect(schema.status).toBe(200);
      expect(JSON.stringify(schema.body)).not.toContain('guestbook__entries');
    });
  });
