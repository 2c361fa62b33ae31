import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../../test/helpers/contract.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';

let inst: TestInstance | null = null;
afterEach(async () => {
  await inst?.close();
  inst = null;
});

const admin = { email: 'Owner@Example.com', password: 'correct horse', name: 'Owner' };

describe('first-boot setup (D5)', () => {
  it('is open on a fresh instance, creates the admin, signs them in, then closes', async () => {
    inst = await startInstance();
    const c = inst.client();
    expect((await call(inst, c, 'GET', '/api/v1/setup/state')).body).toEqual({ data: { open: true } });

    const created = await call(inst, c, 'POST', '/api/v1/setup/super-admin', admin);
    expect(created.status).toBe(201);
    expect(created.body.data.user).toMatchObject({ email: 'owner@example.com', name: 'Owner', status: 'active', totpEnabled: false });
    const cookie = created.headers.getSetCookie().find((l) => l.startsWith('svc_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // plain http on loopback
    // The cookie is signed: value.signature
    expect(c.cookie('svc_session')).toMatch(/^[^.]+\..+$/);

    // Signed in: a route that needs a session answers.
    expect((await call(inst, c, 'GET', '/api/v1/about')).status).toBe(200);

    expect((await call(inst, c, 'GET', '/api/v1/setup/state')).body).toEqual({ data: { open: false } });
    const again = await call(inst, inst.client(), 'POST', '/api/v1/setup/super-admin', { ...admin, email: 'second@example.com' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SETUP_CLOSED');
  });

  it('creates exactly one admin when two setups race', async () => {
    inst = await startInstance();
    const results = await Promise.all(
      ['a@example.com', 'b@example.com', 'c@example.com'].map((email) => inst!.client().post('/api/v1/setup/super-admin', { ...admin, email })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const users = await inst.app.kernel.db.selectFrom('users').select('email').execute();
    expect(users).toHaveLength(1);
  });

  it('enforces the field bounds, naming the field', async () => {
    inst = await startInstance();
    const c = inst.client();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...admin, password: 'x'.repeat(7) }, 'body.password'],
      [{ ...admin, password: 'x'.repeat(201) }, 'body.password'],
      [{ ...admin, email: 'a@' }, 'body.email'],
      [{ ...admin, email: `${'a'.repeat(316)}@b.co` }, 'body.email'],
      [{ ...admin, name: '' }, 'body.name'],
      [{ ...admin, name: 'n'.repeat(121) }, 'body.name'],
      [{ ...admin, extra: true }, 'body'],
    ];
    for (const [body, path] of cases) {
      const res = await call(inst, c, 'POST', '/api/v1/setup/super-admin', body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    // Just inside the bounds passes.
    const okRes = await call(inst, c, 'POST', '/api/v1/setup/super-admin', { email: 'a@b.co', password: 'x'.repeat(8), name: 'n'.repeat(120) });
    expect(okRes.status).toBe(201);
  });
});
