import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../test/helpers/contract.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { activeUser, bootWithAdmin } from '../../test/helpers/identity.js';

/**
 * Issue 11: a role manager could strip the grants of a role held by someone with more power
 * (an admin, or a user with wider grants), taking away what it could never have given.
 */
const metas: MetaChoice[] = ['sqlite'];
for (const server of ['postgres', 'mysql'] as const) if (await databaseAvailable(server)) metas.push(server);

describe.each(metas)('a role manager cannot take grants from roles held by people who hold more than it does (%s meta store)', (meta) => {
  let inst: TestInstance;
  let admin: HttpClient;
  let manager: HttpClient;
  let shared: { id: string };
  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ meta }));
    const managers = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Role managers' })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${managers.id}/permissions`, {
      grants: [{ permission: 'roles.read' }, { permission: 'roles.write' }, { permission: 'connections.read' }],
    });
    manager = (await activeUser(inst, admin, 'manager@example.com', [managers.id])).client;
    shared = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Shared' })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${shared.id}/permissions`, { grants: [{ permission: 'connections.read' }] });
  });
  afterAll(async () => inst?.close());

  const putGrants = (roleId: string, grants: unknown[]) => call(inst, manager, 'PUT', `/api/v1/roles/${roleId}/permissions`, { grants });

  it('may strip a role whose holders hold no more than the manager', async () => {
    await activeUser(inst, admin, 'peer@example.com', [shared.id]);
    expect((await putGrants(shared.id, [])).status).toBe(200);
    expect((await putGrants(shared.id, [{ permission: 'connections.read' }])).status).toBe(200);
  });

  it('is refused (403 FORBIDDEN, reason escalation) once an admin holds the role, and the grants stay', async () => {
    await activeUser(inst, admin, 'boss@example.com', ['admin', shared.id]);
    const res = await putGrants(shared.id, []);
    expect(res.status, res.text).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { reason: 'escalation', roleId: shared.id } });
    expect(typeof res.body.error.params.permission).toBe('string');
    const after = await call(inst, admin, 'GET', `/api/v1/roles/${shared.id}/permissions`);
    expect(after.body.data.grants).toEqual([{ permission: 'connections.read', scope: null }]);
    // Adding grants the manager holds, taking nothing away, still works.
    expect((await putGrants(shared.id, [{ permission: 'connections.read' }, { permission: 'roles.read' }])).status).toBe(200);
    // An admin is never refused.
    expect((await call(inst, admin, 'PUT', `/api/v1/roles/${shared.id}/permissions`, { grants: [] })).status).toBe(200);
  });

  it('is refused when a holder holds, through another role, a permission the manager lacks', async () => {
    const wide = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Wide' })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${wide.id}/permissions`, { grants: [{ permission: 'users.write' }] });
    const team = (await call(inst, admin, 'POST', '/api/v1/roles', { name: 'Team' })).body.data.role;
    await call(inst, admin, 'PUT', `/api/v1/roles/${team.id}/permissions`, { grants: [{ permission: 'connections.read' }] });
    await activeUser(inst, admin, 'wide@example.com', [wide.id, team.id]);
    const res = await putGrants(team.id, []);
    expect(res.status).toBe(403);
    expect(res.body.error.params).toMatchObject({ permission: 'users.write', reason: 'escalation' });
  });
});
