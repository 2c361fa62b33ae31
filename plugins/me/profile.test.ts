import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { ROOT, addApiKey, addUser, setupAdmin } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');
const paths = (res: { body: any }) => (res.body.error?.issues ?? []).map((i: { path: string }) => i.path);

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pg)(`GET and PATCH /me (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let adminId: string;

    beforeAll(async () => {
      inst = await startInstance({ meta });
      ({ client: admin, userId: adminId } = await setupAdmin(inst));
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('answers exactly the seed User of the caller', async () => {
      const res = await call(inst, admin, 'GET', '/api/v1/me');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.data.user).sort()).toEqual(['createdAt', 'email', 'id', 'lastLoginAt', 'name', 'status', 'totpEnabled', 'updatedAt']);
      expect(res.body.data.user).toMatchObject({ id: adminId, email: ROOT.email, name: ROOT.name, status: 'active', totpEnabled: false });
    });

    it('changes the name without a password, and records it', async () => {
      const before = (await admin.get('/api/v1/me')).body.data.user;
      const res = await call(inst, admin, 'PATCH', '/api/v1/me', { name: 'Renamed' });
      expect(res.status).toBe(200);
      expect(res.body.data.user.name).toBe('Renamed');
      expect(res.body.data.user.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
      expect((await admin.get('/api/v1/me')).body.data.user.name).toBe('Renamed');
      const entry = await inst.app.kernel.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'me.update')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(entry).toMatchObject({ actor_type: 'user', actor_id: adminId, target_type: 'user', target_id: adminId });
      expect(JSON.parse(entry.diff!)).toEqual({ before: { name: ROOT.name }, after: { name: 'Renamed' } });
    });

    it('holds every field to its bound, naming the field', async () => {
      const cases: Array<[Record<string, unknown> | undefined, string]> = [
        [{ name: '' }, 'body.name'],
        [{ name: 'n'.repeat(121) }, 'body.name'],
        [{ email: 'a@' }, 'body.email'],
        [{ email: `${'a'.repeat(316)}@b.co`, password: ROOT.password }, 'body.email'],
        [{ password: '' }, 'body.password'],
        [{ password: 'p'.repeat(201) }, 'body.password'],
        [{ name: 7 }, 'body.name'],
        [{ extra: true }, 'body'],
        [undefined, 'body'],
      ];
      for (const [body, path] of cases) {
        const res = await call(inst, admin, 'PATCH', '/api/v1/me', body);
        expect(res.status, JSON.stringify(body)?.slice(0, 60)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_FAILED');
        expect(paths(res)).toContain(path);
      }
    });

    it('accepts values just inside the bounds', async () => {
      const { client, userId } = await addUser(inst, { role: 'viewer', email: 'bounds@example.com', password: 'p'.repeat(200) });
      expect((await call(inst, client, 'PATCH', '/api/v1/me', { name: 'n' })).body.data.user.name).toBe('n');
      expect((await call(inst, client, 'PATCH', '/api/v1/me', { name: 'n'.repeat(120) })).body.data.user.name).toBe('n'.repeat(120));
      const long = `${'a'.repeat(315)}@b.co`;
      expect(long).toHaveLength(320);
      expect((await call(inst, client, 'PATCH', '/api/v1/me', { email: long, password: 'p'.repeat(200) })).body.data.user.email).toBe(long);
      expect((await call(inst, client, 'PATCH', '/api/v1/me', { email: 'a@b.co', password: 'p'.repeat(200) })).body.data.user.email).toBe('a@b.co');
      // A one-character password is inside the bound: it is checked, and wrong.
      expect((await call(inst, client, 'PATCH', '/api/v1/me', { password: 'x' })).status).toBe(401);
      expect((await call(inst, client, 'PATCH', '/api/v1/me', {})).body.data.user.id).toBe(userId);
    });

    it('needs the current password to change the e-mail', async () => {
      const { client } = await addUser(inst, { role: 'editor', email: 'mover@example.com', password: 'mover-password' });
      const missing = await call(inst, client, 'PATCH', '/api/v1/me', { email: 'moved@example.com' });
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
      const wrong = await call(inst, client, 'PATCH', '/api/v1/me', { email: 'moved@example.com', password: 'not-it' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('AUTH_INVALID_CREDENTIALS');
      expect((await client.get('/api/v1/me')).body.data.user.email).toBe('mover@example.com');

      // Re-sending the current address is not a change.
      expect((await call(inst, client, 'PATCH', '/api/v1/me', { email: 'mover@example.com', name: 'Mover' })).status).toBe(200);

      const ok = await call(inst, client, 'PATCH', '/api/v1/me', { email: 'Moved@Example.com', password: 'mover-password' });
      expect(ok.status).toBe(200);
      expect(ok.body.data.user.email).toBe('moved@example.com');
      const refused = await inst.app.kernel.db.selectFrom('audit_log').selectAll().where('action', '=', 'me.update.refused').execute();
      expect(refused.length).toBeGreaterThanOrEqual(2);
      const all = await inst.app.kernel.db.selectFrom('audit_log').select('diff').where('action', 'like', 'me.%').execute();
      expect(all.map((r) => r.diff ?? '').join('')).not.toContain('mover-password');
    });

    it("refuses another user's e-mail with 409 CONFLICT", async () => {
      const { client } = await addUser(inst, { role: 'viewer', email: 'dup@example.com', password: 'dup-password' });
      const res = await call(inst, client, 'PATCH', '/api/v1/me', { email: ROOT.email.toUpperCase(), password: 'dup-password' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('CONFLICT');
      expect((await client.get('/api/v1/me')).body.data.user.email).toBe('dup@example.com');
    });

    it('throttles wrong passwords per account', async () => {
      const { client } = await addUser(inst, { role: 'viewer', email: 'guess@example.com', password: 'right-password' });
      for (let i = 0; i < 10; i++) expect((await client.patch('/api/v1/me', { email: 'x@example.com', password: `guess-${i}` })).status).toBe(401);
      const res = await call(inst, client, 'PATCH', '/api/v1/me', { email: 'x@example.com', password: 'right-password' });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      // Only this account is held back.
      expect((await call(inst, admin, 'PATCH', '/api/v1/me', { name: 'Still me' })).status).toBe(200);
    });

    it('refuses an API key (no user behind it) on every me route, and anonymous callers', async () => {
      const headers = await addApiKey(inst, 'admin');
      const c = inst.client();
      const routes: Array<[string, string, unknown?]> = [
        ['GET', '/api/v1/me'],
        ['PATCH', '/api/v1/me', { name: 'Key' }],
        ['GET', '/api/v1/me/prefs'],
        ['PATCH', '/api/v1/me/prefs', { theme: 'dark' }],
        ['GET', '/api/v1/me/notifications'],
        ['POST', '/api/v1/me/notifications/x/read'],
        ['POST', '/api/v1/me/notifications/read-all'],
        ['GET', '/api/v1/me/notification-prefs'],
        ['PUT', '/api/v1/me/notification-prefs', { prefs: [] }],
        ['PUT', '/api/v1/me/views/home/layout', { layout: {} }],
        ['DELETE', '/api/v1/me/views/home/layout'],
      ];
      for (const [method, path, body] of routes) {
        const res = await call(inst, c, method, path, body, headers);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error.code).toBe('SESSION_REQUIRED');
        const anon = await call(inst, c, method, path, body);
        expect(anon.status, `${method} ${path}`).toBe(401);
        expect(anon.body.error.code).toBe('AUTH_REQUIRED');
      }
    });
  });
}
