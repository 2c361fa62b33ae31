import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../kernel/identity/tokens.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { call } from '../../../test/helpers/contract.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { activeUser, addApiKey, issuePaths } from '../../../test/helpers/identity.js';
import { startInstance, type MetaChoice, type TestInstance } from '../../../test/helpers/instance.js';
import { publicAdminDb } from '../tables.js';
import { addConnection, bootPublic, fixtureSource, ORIGINS, providesProbe, scopeOf, type FixtureSource } from '../testing.js';

const pg = await databaseAvailable('postgres');
const BROWSER = /^adm_pub_[A-Za-z0-9_-]{43}$/;
const SERVER = /^adm_srv_[A-Za-z0-9_-]{43}$/;
const DAY = 86_400_000;

function keyFlows(meta: MetaChoice) {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: FixtureSource;
  let connectionId: string;
  let offset = 0;
  const probe = providesProbe();
  const db = () => publicAdminDb(inst.app.kernel.db);
  const create = async (body: Record<string, unknown>) => {
    const res = await call(inst, admin, 'POST', '/api/v1/public-keys', {
      name: 'k',
      kind: 'browser',
      expires: '30d',
      grants: [{ ref: 'tag', methods: ['GET'] }],
      ...body,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { key: { id: string; prefix: string; grants: unknown; expiresAt: number | null }; secret: string };
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootPublic({ meta, plugins: [probe.plugin], now: () => Date.now() + offset }));
    source = await fixtureSource('sqlite');
    connectionId = await addConnection(inst, admin, 'shop', source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('creates a browser key: adm_pub_, D19 shape, stored as a hash and sealed, revealable', async () => {
    const before = Date.now();
    const res = await call(inst, admin, 'POST', '/api/v1/public-keys', {
      name: 'Storefront',
      kind: 'browser',
      expires: '30d',
      grants: [
        { ref: 'product', methods: ['GET'] },
        { ref: 'review', methods: ['GET', 'POST'] },
      ],
    });
    expect(res.status).toBe(201);
    const { key, secret } = res.body.data;
    expect(secret).toMatch(BROWSER);
    expect(Object.keys(key).sort()).toEqual(['createdAt', 'expiresAt', 'grants', 'id', 'kind', 'name', 'prefix']);
    expect(key).toMatchObject({ name: 'Storefront', kind: 'browser', prefix: secret.slice(0, 12) });
    expect(key.grants).toEqual([
      { ref: 'product', methods: ['GET'] },
      { ref: 'review', methods: ['GET', 'POST'] },
    ]);
    expect(key.expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY);
    expect(key.expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY);

    const row = await db().selectFrom('public_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashToken(secret));
    expect(row.secret_sealed).toEqual(expect.any(String));
    expect(JSON.stringify(row)).not.toContain(secret.slice(8));

    const reveal = await call(inst, admin, 'GET', `/api/v1/public-keys/${key.id}/reveal`);
    expect(reveal.body.data).toEqual({ key, secret });
    expect(await probe.admin().keyForToken(secret)).toEqual({ ...key, appKey: null });
  });

  it('creates a server key: adm_srv_, only its hash is stored, and it cannot be revealed', async () => {
    const { key, secret } = await create({ name: 'Sync', kind: 'server', expires: 'never' });
    expect(secret).toMatch(SERVER);
    expect(key.expiresAt).toBeNull();
    const row = await db().selectFrom('public_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: 'server', key_hash: hashToken(secret), secret_sealed: null, prefix: secret.slice(0, 12) });
    expect(JSON.stringify(row)).not.toContain(secret.slice(12));
    const reveal = await call(inst, admin, 'GET', `/api/v1/public-keys/${key.id}/reveal`);
    expect(reveal.status).toBe(409);
    expect(reveal.body.error).toMatchObject({ code: 'PUBLIC_KEY_NOT_REVEALABLE', params: { kind: 'server' } });
    expect(await probe.admin().keyForToken(secret)).toMatchObject({ id: key.id, kind: 'server' });
  });

  it('expires after 30 or 90 days (expiresAt vs now), or never', async () => {
    const d30 = await create({ expires: '30d' });
    const d90 = await create({ expires: '90d', kind: 'server' });
    const never = await create({ expires: 'never' });
    expect(d90.key.expiresAt! - d30.key.expiresAt!).toBeGreaterThanOrEqual(60 * DAY - 5000);
    const pa = probe.admin();
    const adminKey = await addApiKey(inst, 'admin');
    try {
      offset = 30 * DAY + 1000;
      expect(await pa.keyForToken(d30.secret)).toBeNull();
      expect(await pa.keyForToken(d90.secret)).not.toBeNull();
      offset = 90 * DAY + 1000;
      expect(await pa.keyForToken(d90.secret)).toBeNull();
      expect(await pa.keyForToken(never.secret)).not.toBeNull();
      // Sessions idle out after 7 days; a role-bound key does not.
      const list = (await call(inst, inst.client(), 'GET', '/api/v1/public-keys?limit=500', undefined, adminKey)).body.data.keys;
      expect(list.find((k: { id: string }) => k.id === d30.key.id)).toMatchObject({ expired: true, expires: '30d' });
      expect(list.find((k: { id: string }) => k.id === never.key.id)).toMatchObject({ expired: false, expires: 'never' });
    } finally {
      offset = 0;
    }
  });

  it('refuses tokens that are not live keys', async () => {
    const { secret } = await create({});
    const a = probe.admin();
    for (const bad of [
      '',
      'adm_pub_',
      secret.slice(0, -1),
      secret + 'x',
      secret.replace('adm_pub_', 'adm_srv_'),
      'adm_sk_' + secret.slice(8),
      `${secret}\u0000`,
    ]) {
      expect(await a.keyForToken(bad), JSON.stringify(bad)).toBeNull();
    }
  });

  it('rotates: a new secret at once, the old one stops, id and grants stay', async () => {
    const { key, secret } = await create({ grants: [{ ref: 'tag', methods: ['GET', 'PATCH'] }] });
    const revoked: string[] = [];
    const stop = probe.admin().onRevoked((id) => revoked.push(id));
    const res = await call(inst, admin, 'POST', `/api/v1/public-keys/${key.id}/rotate`, {});
    expect(res.status).toBe(200);
    const rotated = res.body.data;
    expect(rotated.secret).toMatch(BROWSER);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.key).toMatchObject({ id: key.id, grants: key.grants, prefix: rotated.secret.slice(0, 12) });
    expect(await probe.admin().keyForToken(secret)).toBeNull();
    expect(await probe.admin().keyForToken(rotated.secret)).toMatchObject({ id: key.id });
    expect((await call(inst, admin, 'GET', `/api/v1/public-keys/${key.id}/reveal`)).body.data.secret).toBe(rotated.secret);
    expect(revoked).toContain(key.id);
    stop();
  });

  it('revokes: refused from the very next lookup, gone from the list, 404 afterwards', async () => {
    const { key, secret } = await create({});
    const revoked: string[] = [];
    const stop = probe.admin().onRevoked((id) => revoked.push(id));
    expect(await probe.admin().keyForToken(secret)).not.toBeNull();
    expect((await call(inst, admin, 'DELETE', `/api/v1/public-keys/${key.id}`)).body).toEqual({ data: { ok: true } });
    expect(await probe.admin().keyForToken(secret)).toBeNull();
    // (A poll may also report the key the test before rotated, on a slow machine.)
    expect(revoked).toContain(key.id);
    stop();
    const list = await call(inst, admin, 'GET', '/api/v1/public-keys?limit=500');
    expect(list.body.data.keys.map((k: { id: string }) => k.id)).not.toContain(key.id);
    for (const [method, path] of [
      ['DELETE', `/api/v1/public-keys/${key.id}`],
      ['POST', `/api/v1/public-keys/${key.id}/rotate`],
      ['GET', `/api/v1/public-keys/${key.id}/reveal`],
    ] as const) {
      const res = await call(inst, admin, method, path, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('stores a virtual endpoint once a key grants it', async () => {
    const before = await scopeOf(inst, admin, connectionId, 'warehouse');
    expect(before).toMatchObject({ id: null, virtual: true, ref: 'warehouse' });
    const { key } = await create({ kind: 'server', grants: [{ ref: 'warehouse', methods: ['GET'] }] });
    const after = await scopeOf(inst, admin, connectionId, 'warehouse');
    expect(after).toMatchObject({
      id: expect.any(String),
      virtual: false,
      generated: true,
      edited: false,
      ref: 'warehouse',
      columns: before.columns,
      methods: before.methods,
    });
    expect(await probe.admin().endpoint('warehouse')).toMatchObject({ id: after.id, virtual: false });
    // A second key granting it uses the same stored endpoint.
    await create({ grants: [{ ref: 'warehouse', methods: ['GET'] }] });
    expect((await scopeOf(inst, admin, connectionId, 'warehouse')).id).toBe(after.id);
    expect(await db().selectFrom('public_key_grants').select('scope_id').where('key_id', '=', key.id).execute()).toEqual([{ scope_id: after.id }]);
  });

  it('refuses grants of unknown refs, methods an endpoint does not offer, and service-role endpoints to browser keys (400 naming the grant)', async () => {
    const post = (body: Record<string, unknown>) => call(inst, admin, 'POST', '/api/v1/public-keys', { name: 'k', kind: 'browser', expires: '30d', ...body });
    const unknown = await post({
      grants: [
        { ref: 'tag', methods: ['GET'] },
        { ref: 'no_such_table', methods: ['GET'] },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.issues).toEqual([expect.objectContaining({ path: 'body.grants.1.ref', code: 'unknown_ref' })]);
    // `order` cascades into order_item and payment: its generated endpoint offers no DELETE.
    expect(issuePaths(await post({ grants: [{ ref: 'order', methods: ['GET', 'DELETE'] }] }))).toEqual(['body.grants.0.methods.1']);
    expect(
      issuePaths(
        await post({
          grants: [
            { ref: 'tag', methods: ['GET'] },
            { ref: 'tag', methods: ['POST'] },
          ],
        }),
      ),
    ).toEqual(['body.grants.1.ref']);

    const svc = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/setting', { serviceRole: true });
    expect(svc.status, svc.text).toBe(200);
    const browser = await post({ grants: [{ ref: 'setting', methods: ['GET'] }] });
    expect(browser.status).toBe(400);
    expect(browser.body.error.issues).toEqual([expect.objectContaining({ path: 'body.grants.0.ref', code: 'service_role' })]);
    expect((await post({ kind: 'server', grants: [{ ref: 'setting', methods: ['GET'] }] })).status).toBe(201);

    for (const [body, path] of [
      [{ grants: [] }, 'body.grants'],
      [{ grants: [{ ref: 'tag', methods: [] }] }, 'body.grants.0.methods'],
      [{ grants: [{ ref: 'tag', methods: ['GET', 'GET'] }] }, 'body.grants.0.methods'],
      [{ grants: [{ ref: 'tag', methods: ['HEAD'] }] }, 'body.grants.0.methods.0'],
      [{ kind: 'mobile', grants: [{ ref: 'tag', methods: ['GET'] }] }, 'body.kind'],
      [{ expires: '7d', grants: [{ ref: 'tag', methods: ['GET'] }] }, 'body.expires'],
      [{ name: '', grants: [{ ref: 'tag', methods: ['GET'] }] }, 'body.name'],
    ] as const) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(issuePaths(res)).toContain(path);
    }
  });

  it('lists keys (D6) with each one’s requests in the last 24 hours', async () => {
    const { key } = await create({ name: 'counted' });
    probe.admin().recordUsage(key.id, 5);
    probe.admin().recordUsage(key.id);
    const find = async () => (await call(inst, admin, 'GET', '/api/v1/public-keys?limit=500')).body.data.keys.find((k: { id: string }) => k.id === key.id);
    expect(await find()).toMatchObject({ id: key.id, name: 'counted', requests24h: 6, revealable: true, appKey: null });
    // Written to the store (as every minute, or at shutdown): the figure stays, now from the table.
    await (probe.admin() as unknown as { usage: { flush(): Promise<void> } }).usage.flush();
    expect(await db().selectFrom('public_key_usage').select('count').where('key_id', '=', key.id).execute()).toEqual([{ count: 6 }]);
    expect((await find()).requests24h).toBe(6);

    const all = (await call(inst, admin, 'GET', '/api/v1/public-keys?limit=500')).body.data.keys.map((k: { id: string }) => k.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(inst, admin, 'GET', `/api/v1/public-keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.keys.map((k: { id: string }) => k.id));
      cursor = res.body.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('audits every write without a secret', async () => {
    const { key, secret } = await create({ name: 'audited', kind: 'browser' });
    await call(inst, admin, 'GET', `/api/v1/public-keys/${key.id}/reveal`);
    const rotated = (await call(inst, admin, 'POST', `/api/v1/public-keys/${key.id}/rotate`, {})).body.data.secret;
    await call(inst, admin, 'DELETE', `/api/v1/public-keys/${key.id}`);
    const rows = await inst.app.kernel.db.selectFrom('audit_log').selectAll().where('target_id', '=', key.id).orderBy('id').execute();
    expect(rows.map((r) => r.action)).toEqual(['public-keys.create', 'public-keys.reveal', 'public-keys.rotate', 'public-keys.revoke']);
    expect(JSON.parse(rows[0]!.diff!)).toEqual({ name: 'audited', kind: 'browser', prefix: key.prefix, grants: key.grants, expiresAt: key.expiresAt });
    const everything = JSON.stringify(await inst.app.kernel.db.selectFrom('audit_log').selectAll().execute());
    for (const s of [secret, rotated]) expect(everything).not.toContain(s.slice(12));
  });

  it('is for admins only', async () => {
    const viewer = await activeUser(inst, admin, `viewer-keys-${meta}@example.com`, ['viewer']);
    expect((await call(inst, viewer.client, 'GET', '/api/v1/public-keys')).body.error).toMatchObject({
      code: 'FORBIDDEN',
      params: { permission: 'public-api.read' },
    });
    const res = await call(inst, viewer.client, 'POST', '/api/v1/public-keys', {
      name: 'k',
      kind: 'browser',
      expires: '30d',
      grants: [{ ref: 'tag', methods: ['GET'] }],
    });
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'public-api.write' } });
  });
}

describe('public keys on SQLite', () => keyFlows('sqlite'));
describe.runIf(pg)('public keys on PostgreSQL', () => keyFlows('postgres'));

describe.runIf(pg)('public keys across two replicas on PostgreSQL', () => {
  let a: TestInstance;
  let b: TestInstance;
  let admin: HttpClient;
  let source: FixtureSource;
  const probeA = providesProbe();
  const probeB = providesProbe();
  beforeAll(async () => {
    ({ inst: a, admin } = await bootPublic({ meta: 'postgres', plugins: [probeA.plugin] }));
    b = await startInstance({ metaUrl: a.metaUrl!, plugins: [probeB.plugin], env: { SVC_PUBLIC_API_ORIGINS: ORIGINS } });
    source = await fixtureSource('postgres');
    await addConnection(a, admin, 'shop', source);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await source?.cleanup();
  });

  it('a revocation on one replica is refused on the other at once, and its listeners hear of it within 5 s', async () => {
    const created = await call(a, admin, 'POST', '/api/v1/public-keys', {
      name: 'k',
      kind: 'server',
      expires: '30d',
      grants: [{ ref: 'tag', methods: ['GET'] }],
    });
    const { key, secret } = created.body.data;
    expect(await probeB.admin().keyForToken(secret)).toMatchObject({ id: key.id });
    const heard: Array<{ id: string; at: number }> = [];
    const stop = probeB.admin().onRevoked((id) => heard.push({ id, at: Date.now() }));
    const revokedAt = Date.now();
    await call(a, admin, 'DELETE', `/api/v1/public-keys/${key.id}`);
    expect(await probeB.admin().keyForToken(secret)).toBeNull();
    const deadline = Date.now() + 5000;
    while (!heard.some((h) => h.id === key.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    stop();
    expect(heard.find((h) => h.id === key.id)!.at - revokedAt).toBeLessThan(5000);
  });

  it('the switch going off reaches the other replica within 5 s', async () => {
    await call(a, admin, 'PUT', '/api/v1/public-api', { enabled: true });
    await new Promise((r) => setTimeout(r, 2100));
    expect((await probeB.admin().state()).enabled).toBe(true);
    await call(a, admin, 'PUT', '/api/v1/public-api', { enabled: false });
    const deadline = Date.now() + 5000;
    while ((await probeB.admin().state()).enabled && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect((await probeB.admin().state()).enabled).toBe(false);
  });
});
