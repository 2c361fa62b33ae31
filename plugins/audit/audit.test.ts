import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../kernel/ids.js';
import type { KernelTables } from '../../kernel/meta/types.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { addApiKey, addUser, setupAdmin } from '../../test/helpers/identity.js';
import { entriesQuery } from './query.js';
import { auditQuery } from './schemas.js';

const pg = await databaseAvailable('postgres');

type Row = KernelTables['audit_log'];
const MINUTE = 60_000;
const BASE = Date.now() - 30 * 24 * 3600_000;
const COUNT = 130;
/** Just past the last seeded entry: bounds a query to the seeded rows. */
const END = BASE + COUNT * MINUTE;
const ALICE = newId(BASE - 1);
const BOT = newId(BASE - 2);
const KEY = newId(BASE - 3);

/** A month-old trail, one entry a minute; like the kernel's, each id is minted a moment before its `at`. */
const seeds: Row[] = Array.from({ length: COUNT }, (_, i) => {
  const at = BASE + i * MINUTE;
  const kind = i % 4;
  return {
    id: newId(at - (i % 3)),
    at,
    actor_type: kind === 1 ? 'apiKey' : kind === 3 ? 'system' : 'user',
    actor_id: kind === 0 ? ALICE : kind === 1 ? KEY : kind === 2 ? BOT : null,
    action: kind === 0 ? 'users.create' : kind === 1 ? 'users.roles.set' : kind === 2 ? 'roles.update' : i % 8 === 3 ? 'a_b.c' : 'axb.c',
    target_type: kind === 3 ? null : kind === 2 ? 'role' : 'user',
    target_id: kind === 3 ? null : `t-${i % 5}`,
    diff: i % 5 === 0 ? null : JSON.stringify({ n: i }),
    ip: '10.0.0.1',
    user_agent: 'seed-agent',
    request_id: `req-${i}`,
  };
});
const newestFirst = (rows: Row[]) => rows.map((r) => r.id).reverse();

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pg)(`the audit trail (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let adminId: string;
    const get = (query: string, who = admin) => call(inst, who, 'GET', `/api/v1/audit${query}`);
    const ids = (res: { body: any }) => res.body.data.entries.map((e: { id: string }) => e.id);

    beforeAll(async () => {
      inst = await startInstance({ meta });
      ({ client: admin, userId: adminId } = await setupAdmin(inst));
      await inst.app.kernel.db.insertInto('audit_log').values(seeds).execute();
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('list newest first, 50 by default, paging with a cursor across several pages', async () => {
      const first = await get(`?to=${END}`);
      expect(first.status).toBe(200);
      expect(first.body.data.entries).toHaveLength(50);
      const seen: string[] = [...ids(first)];
      let cursor: string | null = first.body.data.nextCursor;
      let pages = 1;
      while (cursor) {
        const res = await get(`?to=${END}&cursor=${cursor}`);
        seen.push(...ids(res));
        cursor = res.body.data.nextCursor;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(newestFirst(seeds));
      expect((await get(`?to=${END}&limit=500`)).body.data).toMatchObject({ nextCursor: null });
      expect(ids(await get(`?to=${END}&limit=7`))).toEqual(newestFirst(seeds).slice(0, 7));
    });

    it('filter by actor, action (exact or prefix), target and time, combined with AND', async () => {
      const cases: Array<[string, (r: Row) => boolean]> = [
        [`actorId=${ALICE}`, (r) => r.actor_id === ALICE],
        ['actorType=apiKey', (r) => r.actor_type === 'apiKey'],
        ['actorType=system', (r) => r.actor_type === 'system'],
        ['action=users.create', (r) => r.action === 'users.create'],
        ['action=users.', (r) => r.action.startsWith('users.')],
        ['action=users', () => false],
        ['action=a_b.', (r) => r.action === 'a_b.c'],
        ['targetType=role', (r) => r.target_type === 'role'],
        ['targetType=user&targetId=t-2', (r) => r.target_type === 'user' && r.target_id === 't-2'],
        ['targetId=t-2', (r) => r.target_id === 't-2'],
        [`from=${BASE + 10 * MINUTE}`, (r) => r.at >= BASE + 10 * MINUTE],
        [`from=${BASE + 10 * MINUTE}&to=${BASE + 20 * MINUTE}`, (r) => r.at >= BASE + 10 * MINUTE && r.at < BASE + 20 * MINUTE],
        [
          `actorType=user&action=users.&from=${BASE + 40 * MINUTE}`,
          (r) => r.actor_type === 'user' && r.action.startsWith('users.') && r.at >= BASE + 40 * MINUTE,
        ],
        ['from=0', () => true],
        [`to=${Number.MAX_SAFE_INTEGER}&actorType=apiKey`, (r) => r.actor_type === 'apiKey'],
      ];
      for (const [query, keep] of cases) {
        const res = await get(`?limit=500&${query.includes('to=') ? '' : `to=${END}&`}${query}`);
        expect(res.status, query).toBe(200);
        expect(ids(res), query).toEqual(newestFirst(seeds.filter(keep)));
      }
      const window = await get(`?from=${BASE + 10 * MINUTE}&to=${BASE + 20 * MINUTE}`);
      expect(window.body.data.entries.map((e: { at: number }) => e.at)).toEqual(Array.from({ length: 10 }, (_, i) => BASE + (19 - i) * MINUTE));
      // Paging keeps the filter.
      const page1 = await get(`?action=users.&to=${END}&limit=20`);
      const page2 = await get(`?action=users.&to=${END}&limit=20&cursor=${page1.body.data.nextCursor}`);
      expect([...ids(page1), ...ids(page2)]).toEqual(newestFirst(seeds.filter((r) => r.action.startsWith('users.'))).slice(0, 40));
    });

    it('answer one entry by id in the declared shape, or 404', async () => {
      const seed = seeds[6]!;
      const res = await call(inst, admin, 'GET', `/api/v1/audit/${seed.id}`);
      expect(res.status).toBe(200);
      expect(res.body.data.entry).toEqual({
        id: seed.id,
        at: seed.at,
        actor: { type: 'user', id: BOT },
        action: 'roles.update',
        target: { type: 'role', id: 't-1' },
        diff: { n: 6 },
        ip: '10.0.0.1',
        userAgent: 'seed-agent',
        requestId: 'req-6',
      });
      const bare = (await get(`/${seeds[15]!.id}`)).body.data.entry;
      expect(bare).toMatchObject({ actor: { type: 'system', id: null }, target: null, diff: null });
      const missing = await get(`/${newId()}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NOT_FOUND');
    });

    it('show what real requests recorded, secrets redacted', async () => {
      await call(inst, admin, 'PATCH', '/api/v1/me/prefs', { theme: 'dark' });
      const [entry] = (await get('?action=me.prefs.update')).body.data.entries;
      expect(entry).toMatchObject({ actor: { type: 'user', id: adminId }, action: 'me.prefs.update', target: { type: 'user', id: adminId } });
      expect(entry.diff.after.theme).toBe('dark');
      expect(entry.ip).toEqual(expect.any(String));
      expect(entry.requestId).toEqual(expect.any(String));
      expect((await get(`?actorId=${adminId}&action=setup.super-admin`)).body.data.entries).toHaveLength(1);

      await inst.app.kernel.audit.record(
        { action: 'test.secret', diff: { password: 'hunter2', nested: { token: 't', keep: 1 } } },
        { type: 'system', id: null },
        { ip: null, userAgent: null, requestId: null },
      );
      const [secret] = (await get('?action=test.secret')).body.data.entries;
      expect(secret.diff).toEqual({ password: '[redacted]', nested: { token: '[redacted]', keep: 1 } });
    });

    it('refuse bad filters, naming the parameter', async () => {
      for (const [query, path] of [
        ['?limit=0', 'query.limit'],
        ['?limit=501', 'query.limit'],
        ['?cursor=zzz', 'query.cursor'],
        ['?actorType=robot', 'query.actorType'],
        ['?from=yesterday', 'query.from'],
        ['?to=-1', 'query.to'],
        ['?action=', 'query.action'],
        [`?actorId=${'x'.repeat(33)}`, 'query.actorId'],
      ]) {
        const res = await get(query!);
        expect(res.status, query).toBe(400);
        expect(res.body.error.issues[0].path).toBe(path);
      }
      expect((await get('?limit=500')).status).toBe(200);
    });

    it('is for admins only', async () => {
      for (const role of ['viewer', 'editor'] as const) {
        const { client } = await addUser(inst, { role, email: `${role}@example.com` });
        for (const path of ['/api/v1/audit', `/api/v1/audit/${seeds[0]!.id}`]) {
          const res = await call(inst, client, 'GET', path);
          expect(res.status, `${role} ${path}`).toBe(403);
          expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'audit.read' } });
        }
      }
      expect((await get('', inst.client())).status).toBe(401);
      const viewerKey = await addApiKey(inst, 'viewer');
      expect((await call(inst, inst.client(), 'GET', '/api/v1/audit', undefined, viewerKey)).status).toBe(403);
      const adminKey = await addApiKey(inst, 'admin');
      expect((await call(inst, inst.client(), 'GET', '/api/v1/audit?limit=1', undefined, adminKey)).status).toBe(200);
    });

    it('offers no way to change or delete an entry', async () => {
      const id = seeds[0]!.id;
      for (const [method, path] of [
        ['PUT', `/api/v1/audit/${id}`],
        ['PATCH', `/api/v1/audit/${id}`],
        ['DELETE', `/api/v1/audit/${id}`],
        ['POST', '/api/v1/audit'],
        ['DELETE', '/api/v1/audit'],
      ] as const) {
        const res = await admin.request(method, path, { body: method === 'DELETE' ? undefined : { action: 'forged' } });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', requestId: expect.any(String) });
      }
      expect((await get(`/${id}`)).body.data.entry.action).toBe('users.create');
      expect(
        inst.app.kernel
          .routes()
          .filter((r) => r.plugin === 'audit')
          .map((r) => r.definition.method),
      ).toEqual(['GET', 'GET']);
    });

    if (meta === 'sqlite') {
      it('reads through an index for every filter, without sorting or one query per entry', async () => {
        const plan = async (query: Record<string, string>) => {
          const compiled = entriesQuery(inst.app.kernel.db, auditQuery.parse(query)).compile();
          const res = await inst.app.kernel.db.executeQuery<{ detail: string }>(
            CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
          );
          return res.rows.map((r) => r.detail).join(' | ');
        };
        const cases: Array<[Record<string, string>, RegExp]> = [
          [{}, /USING INDEX sqlite_autoindex_audit_log_1/],
          [{ actorId: ALICE }, /USING INDEX audit_log_actor \(actor_id=\?/],
          [{ action: 'users.create' }, /USING INDEX audit_log_action \(action=\?/],
          [{ targetType: 'user', targetId: 't-1' }, /USING INDEX audit_log_target \(target_type=\? AND target_id=\?/],
          [{ from: String(BASE), to: String(END) }, /SEARCH audit_log USING INDEX sqlite_autoindex_audit_log_1 \(id>\? AND id<\?\)/],
          [{ action: 'users.', cursor: seeds[50]!.id }, /SEARCH audit_log USING INDEX sqlite_autoindex_audit_log_1 \(id<\?\)/],
        ];
        for (const [query, expected] of cases) {
          const p = await plan(query);
          expect(p, JSON.stringify(query)).toMatch(expected);
          expect(p, JSON.stringify(query)).not.toMatch(/TEMP B-TREE/);
        }
      });
    }
  });
}
