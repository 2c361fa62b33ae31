import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { connectionsDb } from './tables.js';
import { sourceFixture, type SourceFixture } from './testing.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

const CONNECTION_KEYS = ['createdAt', 'database', 'dialect', 'host', 'id', 'lastTest', 'name', 'port', 'readOnly', 'serverVersion', 'tls', 'updatedAt', 'user'];

/** Neither the URL nor its password appears anywhere in `text`. */
function expectNoSecret(text: string, source: SourceFixture) {
  expect(text).not.toContain(source.url);
  expect(text).not.toContain(source.otherUrl);
  if (source.password) expect(text).not.toContain(source.password);
}

function crudFlows(dialect: 'postgres' | 'mysql' | 'sqlite') {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  const seen: string[] = [];
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(inst, admin, method, `/api/v1${path}`, body);
    seen.push(res.text);
    return res;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin());
    source = await sourceFixture(dialect);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('creates, lists, reads, renames, marks read-only and deletes a connection', async () => {
    const created = await api('POST', '/connections', { name: 'Shop', dialect, url: source.url });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body.data)).toEqual(['connection', 'introspection']);
    // Read at once, so the connection can be used without POST …/introspect first.
    expect(created.body.data.introspection).toMatchObject({
      ok: true,
      snapshot: { id: expect.any(String), tableCount: dialect === 'sqlite' ? 1 : 0 },
      error: null,
    });
    const c = created.body.data.connection;
    expect(Object.keys(c).sort()).toEqual(CONNECTION_KEYS);
    expect(c).toMatchObject({ name: 'Shop', dialect, readOnly: false });
    if (dialect === 'sqlite') {
      expect(c).toMatchObject({ host: null, port: null, database: source.database, user: null, tls: null });
    } else {
      expect(c).toMatchObject({ host: '127.0.0.1', port: dialect === 'postgres' ? 5432 : 3306, database: source.database, tls: 'disable' });
      expect(c.user).toEqual(expect.any(String));
    }
    // Saving tests first: the answer already knows the server and the outcome.
    expect(c.serverVersion).toEqual(expect.any(String));
    expect(c.lastTest).toMatchObject({ ok: true, reason: null, latencyMs: expect.any(Number) });

    const list = await api('GET', '/connections');
    expect(list.body.data).toEqual({ connections: [c], nextCursor: null });
    expect((await api('GET', `/connections/${c.id}`)).body.data.connection).toEqual(c);

    const patched = await api('PATCH', `/connections/${c.id}`, { name: 'Shop (live)', readOnly: true });
    expect(patched.body.data.connection).toMatchObject({ id: c.id, name: 'Shop (live)', readOnly: true, database: source.database });
    expect(patched.body.data.connection.updatedAt).toBeGreaterThanOrEqual(c.updatedAt);
    expect((await api('GET', `/connections/${c.id}`)).body.data.connection.readOnly).toBe(true);

    expect((await api('DELETE', `/connections/${c.id}`)).body).toEqual({ data: { ok: true } });
    const gone = await api('GET', `/connections/${c.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'NOT_FOUND', params: { connectionId: c.id } });
    expect((await api('DELETE', `/connections/${c.id}`)).status).toBe(404);

    const actions = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'diff']).where('target_id', '=', c.id).orderBy('id').execute();
    expect(actions.map((a) => a.action)).toEqual(['connections.create', 'connections.update', 'connections.delete']);
    for (const a of actions) expectNoSecret(a.diff ?? '', source);
  });

  it('keeps the URL sealed at rest and never answers it or its password', async () => {
    const created = await api('POST', '/connections', { name: 'Sealed', dialect, url: source.url, readOnly: true });
    expect(created.status).toBe(201);
    const id = created.body.data.connection.id;
    const row = await connectionsDb(inst.app.kernel.db).selectFrom('connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.url_sealed).toMatch(/^v1:/);
    expectNoSecret(JSON.stringify(row), source);
    expect(inst.app.kernel.secrets('connections').decrypt(row.url_sealed)).toBe(source.url);
    expect(row.read_only).toBe(1);

    await api('POST', `/connections/${id}/test`, {});
    await api('POST', '/connections/test', { dialect, url: source.url });
    await api('GET', `/connections/${id}/overrides`);
    for (const text of seen) expectNoSecret(text, source);
    const audit = await inst.app.kernel.db.selectFrom('audit_log').select('diff').execute();
    for (const a of audit) expectNoSecret(a.diff ?? '', source);
    await api('DELETE', `/connections/${id}`);
  });

  it('tests an unsaved body and a stored connection, and keeps the stored outcome', async () => {
    const unsaved = await api('POST', '/connections/test', { name: 'Draft', dialect, url: source.url });
    expect(unsaved.status, unsaved.text).toBe(200);
    expect(unsaved.body.data).toEqual({ ok: true, latencyMs: expect.any(Number), serverVersion: expect.any(String) });
    expect(unsaved.body.data.latencyMs).toBeGreaterThanOrEqual(0);
    expect((await api('GET', '/connections')).body.data.connections).toEqual([]); // nothing stored

    const { id } = (await api('POST', '/connections', { name: 'Stored', dialect, url: source.url })).body.data.connection;
    const before = (await api('GET', `/connections/${id}`)).body.data.connection.lastTest.at;
    await new Promise((r) => setTimeout(r, 5));
    const stored = await api('POST', `/connections/${id}/test`);
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.data).toMatchObject({ ok: true, serverVersion: unsaved.body.data.serverVersion });
    const after = (await api('GET', `/connections/${id}`)).body.data.connection;
    expect(after.lastTest.at).toBeGreaterThan(before);
    expect(after.lastTest).toMatchObject({ ok: true, reason: null });
    const tests = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select(['target_id', 'diff'])
      .where('action', '=', 'connections.test')
      .orderBy('id')
      .execute();
    expect(tests.filter((t) => t.target_id === id).map((t) => JSON.parse(t.diff!))).toEqual([{ ok: true }]);
    expect(JSON.parse(tests.filter((t) => t.target_id === null).at(-1)!.diff!)).toMatchObject({ ok: true, dialect, database: source.database });
    await api('DELETE', `/connections/${id}`);
  });

  it('refuses a name already taken in any letter case, and a URL of another dialect', async () => {
    const first = await api('POST', '/connections', { name: 'Orders', dialect, url: source.url });
    expect(first.status).toBe(201);
    const dup = await api('POST', '/connections', { name: 'ORDERS', dialect, url: source.url });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'name-taken' } });
    const second = await api('POST', '/connections', { name: 'Other', dialect, url: source.otherUrl });
    expect((await api('PATCH', `/connections/${second.body.data.connection.id}`, { name: 'orders' })).status).toBe(409);

    const otherDialect = dialect === 'sqlite' ? 'postgres' : 'sqlite';
    const wrong = await api('POST', '/connections', { name: 'Wrong', dialect: otherDialect, url: source.url });
    expect(wrong.status).toBe(400);
    expect(issuePaths(wrong)).toEqual(['body.url']);
    const patchWrong = await api('PATCH', `/connections/${second.body.data.connection.id}`, {
      url: dialect === 'sqlite' ? 'postgres://h/db' : 'sqlite:/tmp/x.db',
    });
    expect(patchWrong.status).toBe(400);
    expect(issuePaths(patchWrong)).toEqual(['body.url']);

    // Two racing creations of one name: one wins, the other answers 409, never 500.
    const race = await Promise.all([1, 2].map(() => admin.post('/api/v1/connections', { name: 'Race', dialect, url: source.url })));
    expect(race.map((r) => r.status).sort()).toEqual([201, 409]);
    for (const c of (await api('GET', '/connections')).body.data.connections) await api('DELETE', `/connections/${c.id}`);
  });

  it('points a connection at a new URL after testing it', async () => {
    const { id } = (await api('POST', '/connections', { name: 'Moving', dialect, url: source.url })).body.data.connection;
    const moved = await api('PATCH', `/connections/${id}`, { url: source.otherUrl });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.connection.database).not.toBe(source.database);
    const row = await connectionsDb(inst.app.kernel.db).selectFrom('connections').select('url_sealed').where('id', '=', id).executeTakeFirstOrThrow();
    expect(inst.app.kernel.secrets('connections').decrypt(row.url_sealed)).toBe(source.otherUrl);
    const audit = await inst.app.kernel.db
      .selectFrom('audit_log')
      .select('diff')
      .where('action', '=', 'connections.update')
      .where('target_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.diff!)).toMatchObject({ urlReplaced: true, after: { database: moved.body.data.connection.database } });
    await api('DELETE', `/connections/${id}`);
  });

  it('keeps connection-level overrides, refusing what the dialect has no use for', async () => {
    const { id } = (await api('POST', '/connections', { name: 'Tuned', dialect, url: source.url })).body.data.connection;
    const defaults = await api('GET', `/connections/${id}/overrides`);
    expect(defaults.body.data).toEqual({
      connectionId: id,
      overrides: { label: null, color: null, defaultSchema: null, statementTimeoutMs: null, poolSize: null },
      effective: {
        poolSize: dialect === 'sqlite' ? 1 : 5,
        statementTimeoutMs: dialect === 'sqlite' ? null : 30000,
        connectTimeoutMs: 5000,
        defaultSchema: null,
      },
    });
    const put = await api('PUT', `/connections/${id}/overrides`, {
      label: 'Shop (EU)',
      color: '#3B82F6',
      ...(dialect === 'sqlite' ? {} : { statementTimeoutMs: 2000, poolSize: 3 }),
      ...(dialect === 'postgres' ? { defaultSchema: 'public' } : {}),
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.overrides).toMatchObject({ label: 'Shop (EU)', color: '#3b82f6' });
    if (dialect !== 'sqlite') expect(put.body.data.effective).toMatchObject({ poolSize: 3, statementTimeoutMs: 2000 });
    expect((await api('GET', `/connections/${id}/overrides`)).body.data).toEqual(put.body.data);

    // PUT replaces the whole set: what is left out goes back to the default.
    const cleared = await api('PUT', `/connections/${id}/overrides`, { label: 'Shop' });
    expect(cleared.body.data.overrides).toEqual({ label: 'Shop', color: null, defaultSchema: null, statementTimeoutMs: null, poolSize: null });

    const bad = await api('PUT', `/connections/${id}/overrides`, { color: 'blue', poolSize: 0, statementTimeoutMs: 10 });
    expect(bad.status).toBe(400);
    expect(issuePaths(bad).sort()).toEqual(['body.color', 'body.poolSize', 'body.statementTimeoutMs']);
    if (dialect !== 'postgres') {
      const refused = await api('PUT', `/connections/${id}/overrides`, {
        defaultSchema: 'x',
        ...(dialect === 'sqlite' ? { poolSize: 2, statementTimeoutMs: 5000 } : {}),
      });
      expect(refused.status).toBe(400);
      expect(issuePaths(refused).sort()).toEqual(
        dialect === 'sqlite' ? ['body.defaultSchema', 'body.poolSize', 'body.statementTimeoutMs'] : ['body.defaultSchema'],
      );
    }
    expect((await api('GET', '/connections/nope/overrides')).status).toBe(404);
    await api('DELETE', `/connections/${id}`);
  });
}

describe.runIf(pg)('connections to PostgreSQL', () => crudFlows('postgres'));
describe.runIf(my)('connections to MariaDB/MySQL', () => crudFlows('mysql'));
describe('connections to SQLite', () => crudFlows('sqlite'));

describe('connections: permissions and lists', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin());
    source = await sourceFixture('sqlite');
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('lets a viewer read connections but not create, test, change or delete them', async () => {
    const { id } = (await call(inst, admin, 'POST', '/api/v1/connections', { name: 'Read me', dialect: 'sqlite', url: source.url })).body.data.connection;
    const viewer = (await addUser(inst, { role: 'viewer', email: 'viewer@example.com' })).client;
    expect((await call(inst, viewer, 'GET', '/api/v1/connections')).body.data.connections.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await call(inst, viewer, 'GET', `/api/v1/connections/${id}`)).status).toBe(200);
    expect((await call(inst, viewer, 'GET', `/api/v1/connections/${id}/overrides`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/api/v1/connections', { name: 'Mine', dialect: 'sqlite', url: source.url }],
      ['POST', '/api/v1/connections/test', { dialect: 'sqlite', url: source.url }],
      ['POST', `/api/v1/connections/${id}/test`, undefined],
      ['PATCH', `/api/v1/connections/${id}`, { name: 'Renamed' }],
      ['PUT', `/api/v1/connections/${id}/overrides`, { label: 'x' }],
      ['DELETE', `/api/v1/connections/${id}`, undefined],
    ] as const) {
      const res = await call(inst, viewer, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'connections.write' } });
    }
    const anonymous = await call(inst, inst.client(), 'GET', '/api/v1/connections');
    expect(anonymous.status).toBe(401);
    await call(inst, admin, 'DELETE', `/api/v1/connections/${id}`);
  });

  it('pages through connections by name, in any letter case', async () => {
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo'];
    for (const name of names) expect((await call(inst, admin, 'POST', '/api/v1/connections', { name, dialect: 'sqlite', url: source.url })).status).toBe(201);
    const got: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: { connections: Array<{ name: string }>; nextCursor: string | null } } } = await call(
        inst,
        admin,
        'GET',
        `/api/v1/connections?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      got.push(...res.body.data.connections.map((c) => c.name));
      cursor = res.body.data.nextCursor;
    } while (cursor);
    expect(got).toEqual(['Alpha', 'Bravo', 'charlie', 'delta', 'echo']);
    expect(issuePaths(await call(inst, admin, 'GET', '/api/v1/connections?cursor=garbage'))).toEqual(['query.cursor']);
  });

  it('validates the body, naming the field and never repeating the URL', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ name: 'x', dialect: 'postgres', url: 'mysql://u:hunter22@h/db' }, ['body.url']],
      [{ name: 'x', dialect: 'postgres', url: 'postgres://u:hunter22@h' }, ['body.url']],
      [{ name: 'x', dialect: 'postgres', url: 'postgres://u:hunter22@h/db?sslrootcert=/etc/passwd' }, ['body.url']],
      [{ name: 'x', dialect: 'mysql', url: 'mysql://u:hunter22@h/db?sslmode=sometimes' }, ['body.url']],
      [{ name: 'x', dialect: 'sqlite', url: 'sqlite:relative/hunter22.db' }, ['body.url']],
      [{ name: 'x', dialect: 'sqlite', url: 'sqlite://host/hunter22.db' }, ['body.url']],
      [{ name: 'x', dialect: 'oracle', url: 'oracle://u:hunter22@h/db' }, ['body.dialect']],
      [{ name: '', dialect: 'sqlite', url: source.url }, ['body.name']],
      [{ name: 'x'.repeat(121), dialect: 'sqlite', url: source.url }, ['body.name']],
      [{ name: 'x', dialect: 'sqlite', url: source.url, extra: 1 }, ['body']],
    ];
    for (const [body, paths] of cases) {
      const res = await call(inst, admin, 'POST', '/api/v1/connections', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(issuePaths(res), JSON.stringify(body)).toEqual(paths);
      expect(res.text).not.toContain('hunter22');
    }
  });
});
