import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { call } from '../../../test/helpers/contract.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { activeUser, issuePaths } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { publicAdminDb } from '../tables.js';
import { addConnection, bootPublic, fixtureSource, introspect, providesProbe, scopeOf, scopes, setOverrides, type FixtureSource } from '../testing.js';

const pg = await databaseAvailable('postgres');
const ALL = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'BATCH'];
const without = (...m: string[]) => ALL.filter((x) => !m.includes(x));

function scopeFlows(dialect: 'sqlite' | 'postgres') {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: FixtureSource;
  let connectionId: string;
  const probe = providesProbe();
  const scope = (table: string) => scopeOf(inst, admin, connectionId, table);
  const key = async (kind: 'browser' | 'server', grants: Array<{ ref: string; methods: string[] }>) => {
    const res = await call(inst, admin, 'POST', '/api/v1/public-keys', { name: 'k', kind, expires: 'never', grants });
    expect(res.status, res.text).toBe(201);
    return res.body.data.key as { id: string };
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootPublic({ meta: dialect === 'postgres' ? 'postgres' : 'sqlite', plugins: [probe.plugin] }));
    source = await fixtureSource(dialect);
    connectionId = await addConnection(inst, admin, 'shop', source);
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('lists a virtual generated endpoint for every table and view, named after it', async () => {
    const all = await scopes(inst, admin, connectionId);
    expect(all.map((s) => s.ref).sort()).toEqual(
      [
        'active_product',
        'address',
        'audit_event',
        'café',
        'category',
        'order',
        'order_item',
        'order_summary',
        'payment',
        'product',
        'product_tag',
        'review',
        'setting',
        'stock_level',
        'tag',
        'user',
        'warehouse',
      ].sort(),
    );
    for (const s of all)
      expect(s).toMatchObject({
        id: null,
        virtual: true,
        generated: true,
        edited: false,
        connectionId,
        table: s.ref,
        rateLimit: 120,
        filters: [],
        problems: [],
      });
    expect(await probe.admin().endpoints(connectionId)).toHaveLength(all.length);
    expect(await probe.admin().endpoint('café')).toMatchObject({ ref: 'café', virtual: true, pk: ['id'], keyFill: 'database' });
    expect(await probe.admin().endpoint('nope')).toBeNull();
  });

  it('exposes every column that is neither secret nor personal', async () => {
    expect((await scope('user')).columns).toEqual(['id', 'email', 'first name', "it's", 'is_active', 'api_token', 'profile', 'created_at']);
    await setOverrides(inst, admin, connectionId, [
      {
        table: 'user',
        columns: [
          { column: 'api_token', secret: true },
          { column: 'email', personal: true },
          { column: 'first name', hidden: true },
        ],
      },
    ]);
    const user = await scope('user');
    expect(user.columns).toEqual(['id', 'first name', "it's", 'is_active', 'profile', 'created_at']);
    expect(user.writable).toEqual(['first name', "it's", 'is_active', 'profile', 'created_at']);
  });

  it('offers DELETE only where no other table would cascade from it', async () => {
    // order ← order_item, payment (CASCADE); user ← address (CASCADE); product ← product_tag, review (CASCADE); tag ← product_tag (CASCADE)
    for (const t of ['order', 'user', 'product', 'tag']) expect((await scope(t)).methods, t).toEqual(without('DELETE'));
    // category: a self-reference and product.category_id, both SET NULL; warehouse: NO ACTION; café: nothing refers to it
    for (const t of ['category', 'café', 'address', 'payment', 'review']) expect((await scope(t)).methods, t).toEqual(ALL);
    for (const t of ['warehouse', 'order_item', 'product_tag', 'stock_level']) expect((await scope(t)).methods, t).toContain('DELETE');
  });

  it('allows DELETE through a cascade once the endpoint says allow_cascade, and refuses it otherwise (400 naming the method)', async () => {
    const refused = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/order', { methods: ALL });
    expect(refused.status).toBe(400);
    expect(refused.body.error.issues).toEqual([expect.objectContaining({ path: 'body.methods.4', code: 'method_not_offered' })]);
    expect(refused.body.error.issues[0].message).toMatch(/order_item.*payment|payment.*order_item/);
    expect((await scope('order')).virtual).toBe(true);

    const allowed = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/order', { allow_cascade: true, methods: ALL });
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.data.scope).toMatchObject({ ref: 'order', virtual: false, edited: true, allow_cascade: true, methods: ALL, id: expect.any(String) });
    expect(await probe.admin().endpoint('order')).toMatchObject({ allowCascade: true, methods: ALL });
  });

  it('offers POST only when the server can choose the key; an edit can make the key writable instead', async () => {
    for (const t of ['user', 'payment', 'category', 'café']) expect((await scope(t)).methods, t).toContain('POST');
    // natural keys (setting.key, warehouse.code) and composite keys of foreign keys
    for (const t of ['setting', 'warehouse', 'order_item', 'product_tag', 'stock_level']) expect((await scope(t)).methods, t).not.toContain('POST');
    expect((await scope('setting')).keyFill).toBeNull();

    const refused = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/warehouse', { methods: ['GET', 'POST'] });
    expect(issuePaths(refused)).toEqual(['body.methods.1']);
    const edited = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/warehouse', { methods: ['GET', 'POST'], writable: ['code', 'name'] });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data.scope).toMatchObject({ methods: ['GET', 'POST'], writable: ['code', 'name'] });
  });

  it('offers GET only on views and on tables without a primary key', async () => {
    expect((await scope('active_product')).methods).toEqual(['GET']);
    expect((await scope('order_summary')).writable).toEqual([]);
    await source.exec('create table log_line (msg text, at_ms integer)');
    await introspect(inst, admin, connectionId);
    expect(await scope('log_line')).toMatchObject({ methods: ['GET'], pk: [], keyFill: null, columns: ['msg', 'at_ms'] });
  });

  it('stores the column list: a column added to the table later is not exposed until added', async () => {
    await key('server', [{ ref: 'tag', methods: ['GET'] }]);
    expect((await scope('tag')).virtual).toBe(false);
    await source.exec('alter table tag add column color varchar(20)');
    await introspect(inst, admin, connectionId);
    const tag = await scope('tag');
    expect(tag.columns).toEqual(['id', 'label']);
    expect((await probe.admin().endpoint('tag'))!.columns).toEqual(['id', 'label']);
    const added = await call(inst, admin, 'PATCH', `/api/v1/public-scopes/${tag.id}`, { columns: ['id', 'label', 'color'] });
    expect(added.body.data.scope.columns).toEqual(['id', 'label', 'color']);
  });

  it('creates an extra endpoint over a table, checked against it', async () => {
    const body = {
      ref: 'paid_orders',
      connectionId,
      table: 'order',
      methods: ['GET'],
      columns: ['id', 'status', 'placed_on', 'total'],
      filters: [{ column: 'status', op: 'eq', value: 'paid' }],
      shape: 'array',
      rateLimit: 30,
      timeZone: 'Europe/Paris',
    };
    const res = await call(inst, admin, 'POST', '/api/v1/public-scopes', body);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.scope).toMatchObject({
      id: expect.any(String),
      ref: 'paid_orders',
      virtual: false,
      generated: false,
      edited: true,
      table: 'order',
      methods: ['GET'],
      columns: ['id', 'status', 'placed_on', 'total'],
      filterable: ['id', 'status', 'placed_on', 'total'],
      filters: [{ column: 'status', op: 'eq', value: 'paid' }],
      shape: 'array',
      rateLimit: 30,
      timeZone: 'Europe/Paris',
      pk: ['id'],
    });
    expect(await probe.admin().endpoint('paid_orders')).toMatchObject({ generated: false, filters: body.filters });

    const again = await call(inst, admin, 'POST', '/api/v1/public-scopes', body);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'ref-taken' } });
    expect((await call(inst, admin, 'POST', '/api/v1/public-scopes', { ...body, ref: 'PAID_ORDERS' })).status).toBe(409);
    // The generated ref of another table is taken too.
    expect((await call(inst, admin, 'POST', '/api/v1/public-scopes', { ...body, ref: 'café' })).status).toBe(409);

    for (const [patch, path] of [
      [{ table: 'nope' }, 'body.table'],
      [{ connectionId: 'nope' }, 'body.connectionId'],
      [{ columns: ['id', 'ghost'] }, 'body.columns.1'],
      [{ filters: [{ column: 'status', op: 'in', value: 'paid' }] }, 'body.filters.0.value'],
      [{ filters: [{ column: 'ghost', op: 'eq', value: 1 }] }, 'body.filters.0.column'],
      [{ timeZone: 'Mars/Olympus' }, 'body.timeZone'],
      [{ ref: 'a/b' }, 'body.ref'],
      [{ rateLimit: 0 }, 'body.rateLimit'],
      [{ shape: 'tree' }, 'body.shape'],
      [{ booking: { timeColumn: 'note', capacity: 4, slotMinutes: 30, openingHours: { mon: [['18:00', '18:00']] } } }, 'body.booking.openingHours.mon.0'],
      [{ extra: true }, 'body'],
    ] as const) {
      const r = await call(inst, admin, 'POST', '/api/v1/public-scopes', { ...body, ref: 'x_orders', ...patch });
      expect(r.status, JSON.stringify(patch)).toBe(400);
      expect(issuePaths(r), JSON.stringify(patch)).toContain(path);
    }
  });

  it('takes booking rules, checked against the table', async () => {
    const booking = {
      timeColumn: 'placed_on',
      partyColumn: 'user_id',
      capacity: 20,
      slotMinutes: 30,
      openingHours: {
        fri: [['18:00', '23:00']],
        sat: [
          ['12:00', '14:30'],
          ['18:00', '24:00'],
        ],
      },
    };
    const res = await call(inst, admin, 'POST', '/api/v1/public-scopes', {
      ref: 'tables',
      connectionId,
      table: 'order',
      methods: ['GET', 'POST'],
      timeZone: 'Europe/Berlin',
      booking,
      identity: ['id', 'user_id'],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.scope.booking).toEqual({
      ...booking,
      windowDays: 60,
      cancelBeforeMinutes: 120,
      emailColumn: null,
      codeColumn: null,
      localeColumn: null,
    });
    expect((await probe.admin().endpoint('tables'))!.booking).toMatchObject({ capacity: 20, slotMinutes: 30 });
    const bad = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/tables', {
      booking: { ...booking, timeColumn: 'total', emailColumn: 'ghost' },
      needsSession: true,
      identity: [],
    });
    expect(issuePaths(bad).sort()).toEqual(['body.booking.emailColumn', 'body.booking.timeColumn', 'body.needsSession']);
  });

  it('stores a virtual endpoint when it is edited, by POST with its generated ref or PATCH by ref', async () => {
    const posted = await call(inst, admin, 'POST', '/api/v1/public-scopes', { ref: 'café', connectionId, table: 'café', rateLimit: 30 });
    expect(posted.status, posted.text).toBe(201);
    expect(posted.body.data.scope).toMatchObject({ ref: 'café', generated: true, virtual: false, edited: true, rateLimit: 30, methods: ALL });
    const patched = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/review', { rateLimit: 10, sensitive: ['body'] });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data.scope).toMatchObject({ ref: 'review', generated: true, virtual: false, rateLimit: 10, sensitive: ['body'] });
    expect(patched.body.data.scope.columns).not.toContain('body');
    const byId = await call(inst, admin, 'PATCH', `/api/v1/public-scopes/${patched.body.data.scope.id}`, { ref: 'reviews' });
    expect(byId.body.data.scope).toMatchObject({ id: patched.body.data.scope.id, ref: 'reviews', rateLimit: 10 });
    expect((await call(inst, admin, 'PATCH', '/api/v1/public-scopes/nothing_here', { rateLimit: 5 })).status).toBe(404);
  });

  it('DELETE returns an edited endpoint to its generated form: virtual again, or stored in that form while a key grants it', async () => {
    const cafe = await scope('café');
    const reset = await call(inst, admin, 'DELETE', `/api/v1/public-scopes/${cafe.id}`);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.data.scope).toMatchObject({ id: null, virtual: true, edited: false, rateLimit: 120, ref: 'café' });
    expect(await publicAdminDb(inst.app.kernel.db).selectFrom('public_scopes').select('id').where('id', '=', cafe.id).execute()).toEqual([]);

    const patched = (await call(inst, admin, 'PATCH', '/api/v1/public-scopes/address', { rateLimit: 7, columns: ['id', 'city'] })).body.data.scope;
    await key('browser', [{ ref: 'address', methods: ['GET'] }]);
    const kept = await call(inst, admin, 'DELETE', '/api/v1/public-scopes/address');
    expect(kept.body.data.scope).toMatchObject({ id: patched.id, virtual: false, edited: false, rateLimit: 120, ref: 'address' });
    expect(kept.body.data.scope.columns).toEqual(['id', 'user_id', 'line1', 'city', 'postcode', 'country', 'is_default']);
    // A virtual endpoint is already in its generated form.
    expect((await call(inst, admin, 'DELETE', '/api/v1/public-scopes/product')).body.data.scope).toMatchObject({ id: null, virtual: true });
  });

  it('removes an extra endpoint only once no live key grants it', async () => {
    const k = await key('server', [{ ref: 'paid_orders', methods: ['GET'] }]);
    const busy = await call(inst, admin, 'DELETE', '/api/v1/public-scopes/paid_orders');
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'scope-in-use', keys: 1 } });
    await call(inst, admin, 'DELETE', `/api/v1/public-keys/${k.id}`);
    expect((await call(inst, admin, 'DELETE', '/api/v1/public-scopes/paid_orders')).body).toEqual({ data: { scope: null } });
    expect(await probe.admin().endpoint('paid_orders')).toBeNull();
  });

  it('refuses to make an endpoint service-role while a browser key grants it', async () => {
    await key('browser', [{ ref: 'audit_event', methods: ['GET'] }]);
    const res = await call(inst, admin, 'PATCH', '/api/v1/public-scopes/audit_event', { serviceRole: true });
    expect(res.status).toBe(400);
    expect(res.body.error.issues).toEqual([expect.objectContaining({ path: 'body.serviceRole', code: 'granted_to_browser_key' })]);
  });

  it('pages the list by ref and audits every write', async () => {
    const all = (await scopes(inst, admin)).map((s) => s.ref);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await call(inst, admin, 'GET', `/api/v1/public-scopes?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.scopes.map((s: { ref: string }) => s.ref));
      cursor = res.body.data.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
    const actions = await inst.app.kernel.db.selectFrom('audit_log').select('action').where('action', 'like', 'public-scopes.%').execute();
    expect(new Set(actions.map((a) => a.action))).toEqual(new Set(['public-scopes.create', 'public-scopes.update', 'public-scopes.reset']));
  });

  it('is for admins only', async () => {
    const editor = await activeUser(inst, admin, `editor-scopes-${dialect}@example.com`, ['editor']);
    expect((await call(inst, editor.client, 'GET', '/api/v1/public-scopes')).body.error).toMatchObject({
      code: 'FORBIDDEN',
      params: { permission: 'public-api.read' },
    });
    expect((await call(inst, editor.client, 'PATCH', '/api/v1/public-scopes/tag', { rateLimit: 1 })).body.error).toMatchObject({
      code: 'FORBIDDEN',
      params: { permission: 'public-api.write' },
    });
  });
}

describe('public scopes on SQLite', () => scopeFlows('sqlite'));
describe.runIf(pg)('public scopes on PostgreSQL (meta store and source)', () => scopeFlows('postgres'));

describe('generated refs across connections', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  const sources: FixtureSource[] = [];
  beforeAll(async () => ({ inst, admin } = await bootPublic()));
  afterAll(async () => {
    await inst?.close();
    for (const s of sources) await s.cleanup();
  });

  it('prefixes a generated ref with the connection name only when two connections share the table; stored refs stay', async () => {
    sources.push(await fixtureSource('sqlite'), await fixtureSource('sqlite'));
    const shop = await addConnection(inst, admin, 'shop', sources[0]!);
    expect((await scopeOf(inst, admin, shop, 'tag')).ref).toBe('tag');
    await call(inst, admin, 'POST', '/api/v1/public-keys', { name: 'k', kind: 'server', expires: 'never', grants: [{ ref: 'tag', methods: ['GET'] }] });

    const backup = await addConnection(inst, admin, 'Old backup', sources[1]!);
    expect((await scopeOf(inst, admin, shop, 'tag')).ref).toBe('tag');
    expect((await scopeOf(inst, admin, backup, 'tag')).ref).toBe('Old_backup_tag');
    expect((await scopeOf(inst, admin, shop, 'user')).ref).toBe('shop_user');
    expect((await scopeOf(inst, admin, backup, 'user')).ref).toBe('Old_backup_user');
    const refs = (await scopes(inst, admin)).map((s) => s.ref.toLowerCase());
    expect(new Set(refs).size).toBe(refs.length);
  });
});
