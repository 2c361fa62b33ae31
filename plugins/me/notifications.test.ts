import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { addUser, openEvents, setupAdmin } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pg)(`my notifications (${meta} meta store)`, () => {
    let inst: TestInstance;
    let a: { client: HttpClient; userId: string };
    let b: { client: HttpClient; userId: string };
    // Ids are time-ordered to the millisecond; a pause keeps "newest first" unambiguous.
    const notify = async (userId: string, kind: string, title: string) => {
      const n = await inst.app.kernel.notifications.notify(userId, { kind, title, body: `body of ${title}`, link: '/somewhere' });
      await sleep(3);
      return n;
    };
    const list = (who: HttpClient, query = '') => call(inst, who, 'GET', `/api/v1/me/notifications${query}`);

    beforeAll(async () => {
      inst = await startInstance({ meta });
      a = await setupAdmin(inst);
      b = await addUser(inst, { role: 'viewer', email: 'b@example.com' });
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('list only the caller’s own, newest first, with the unread count', async () => {
      expect((await list(a.client)).body.data).toEqual({ notifications: [], nextCursor: null, unreadCount: 0 });
      for (const t of ['one', 'two', 'three']) await notify(a.userId, 'test.kind', t);
      await notify(b.userId, 'test.kind', 'for b');
      const res = await list(a.client);
      expect(res.status).toBe(200);
      expect(res.body.data.notifications.map((n: { title: string }) => n.title)).toEqual(['three', 'two', 'one']);
      expect(res.body.data.notifications[0]).toMatchObject({ kind: 'test.kind', body: 'body of three', link: '/somewhere', readAt: null });
      expect(res.body.data).toMatchObject({ nextCursor: null, unreadCount: 3 });
      expect((await list(b.client)).body.data.notifications.map((n: { title: string }) => n.title)).toEqual(['for b']);
    });

    it('page with a keyset cursor', async () => {
      for (const t of ['four', 'five']) await notify(a.userId, 'test.kind', t);
      const titles: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await list(a.client, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.body.data.notifications.length).toBeLessThanOrEqual(2);
        titles.push(...res.body.data.notifications.map((n: { title: string }) => n.title));
        cursor = res.body.data.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(3);
      expect(titles).toEqual(['five', 'four', 'three', 'two', 'one']);
    });

    it('refuse a bad limit or cursor, naming the parameter', async () => {
      for (const [query, path] of [
        ['?limit=0', 'query.limit'],
        ['?limit=501', 'query.limit'],
        ['?cursor=not-a-cursor', 'query.cursor'],
        ['?unread=yes', 'query.unread'],
      ]) {
        const res = await list(a.client, query);
        expect(res.status, query).toBe(400);
        expect(res.body.error.issues[0].path).toBe(path);
      }
      expect((await list(a.client, '?limit=500')).status).toBe(200);
    });

    it('mark one read (idempotently), filter unread, and hide others’ notifications', async () => {
      const [newest, second] = (await list(a.client)).body.data.notifications;
      const first = await call(inst, a.client, 'POST', `/api/v1/me/notifications/${newest.id}/read`);
      expect(first.status).toBe(200);
      expect(first.body.data.notification).toMatchObject({ id: newest.id, title: newest.title });
      expect(first.body.data.notification.readAt).toEqual(expect.any(Number));
      await sleep(5);
      const again = await call(inst, a.client, 'POST', `/api/v1/me/notifications/${newest.id}/read`);
      expect(again.body.data.notification.readAt).toBe(first.body.data.notification.readAt);

      const unread = await list(a.client, '?unread=true');
      expect(unread.body.data.notifications.map((n: { id: string }) => n.id)).not.toContain(newest.id);
      expect(unread.body.data.notifications[0].id).toBe(second.id);
      expect(unread.body.data.unreadCount).toBe(4);
      expect((await list(a.client, '?unread=false')).body.data.notifications).toHaveLength(5);

      const theirs = await call(inst, b.client, 'POST', `/api/v1/me/notifications/${second.id}/read`);
      expect(theirs.status).toBe(404);
      expect(theirs.body.error.code).toBe('NOT_FOUND');
      const row = await inst.app.kernel.db.selectFrom('notifications').select('read_at').where('id', '=', second.id).executeTakeFirstOrThrow();
      expect(row.read_at).toBeNull();
      expect((await call(inst, a.client, 'POST', '/api/v1/me/notifications/nope/read')).status).toBe(404);
    });

    it('mark all read, counting what was unread', async () => {
      const res = await call(inst, a.client, 'POST', '/api/v1/me/notifications/read-all');
      expect(res.body).toEqual({ data: { ok: true, count: 4 } });
      expect((await call(inst, a.client, 'POST', '/api/v1/me/notifications/read-all')).body.data.count).toBe(0);
      expect((await list(a.client, '?unread=true')).body.data).toMatchObject({ notifications: [], unreadCount: 0 });
      // Only the caller's.
      expect((await list(b.client)).body.data.unreadCount).toBe(1);
    });

    it('keep per-kind preferences; turning in-app off stops that kind', async () => {
      let res = await call(inst, b.client, 'GET', '/api/v1/me/notification-prefs');
      expect(res.body.data.prefs).toEqual([{ kind: 'test.kind', inApp: true, email: true }]);

      res = await call(inst, b.client, 'PUT', '/api/v1/me/notification-prefs', { prefs: [{ kind: 'export.ready', inApp: false, email: true }] });
      expect(res.status).toBe(200);
      expect(res.body.data.prefs).toEqual([
        { kind: 'export.ready', inApp: false, email: true },
        { kind: 'test.kind', inApp: true, email: true },
      ]);
      const rows = await inst.app.kernel.db.selectFrom('notification_prefs').selectAll().where('user_id', '=', b.userId).execute();
      expect(rows).toEqual([{ user_id: b.userId, kind: 'export.ready', in_app: 0, email: 1 }]);

      expect(await inst.app.kernel.notifications.notify(b.userId, { kind: 'export.ready', title: 'muted' })).toBeNull();
      expect(await inst.app.kernel.notifications.notify(b.userId, { kind: 'test.kind', title: 'heard' })).not.toBeNull();
      const titles = (await list(b.client)).body.data.notifications.map((n: { title: string }) => n.title);
      expect(titles).toContain('heard');
      expect(titles).not.toContain('muted');
      // Another user's preference is untouched.
      expect(await inst.app.kernel.notifications.notify(a.userId, { kind: 'export.ready', title: 'for a' })).not.toBeNull();

      // PUT replaces the set: the kind left out is back on.
      await call(inst, b.client, 'PUT', '/api/v1/me/notification-prefs', { prefs: [] });
      expect(await inst.app.kernel.notifications.notify(b.userId, { kind: 'export.ready', title: 'heard again' })).not.toBeNull();
      expect(await inst.app.kernel.db.selectFrom('notification_prefs').selectAll().where('user_id', '=', b.userId).execute()).toEqual([]);
    });

    it('refuse malformed preference lists, naming the entry', async () => {
      const cases: Array<[unknown, string]> = [
        [
          {
            prefs: [
              { kind: 'a.b', inApp: true, email: true },
              { kind: 'a.b', inApp: false, email: false },
            ],
          },
          'body.prefs.1.kind',
        ],
        [{ prefs: [{ kind: '', inApp: true, email: true }] }, 'body.prefs.0.kind'],
        [{ prefs: [{ kind: 'k'.repeat(101), inApp: true, email: true }] }, 'body.prefs.0.kind'],
        [{ prefs: [{ kind: 'a.b', inApp: 'yes', email: true }] }, 'body.prefs.0.inApp'],
        [{ prefs: [{ kind: 'a.b', inApp: true }] }, 'body.prefs.0.email'],
        [{ prefs: [{ kind: 'a.b', inApp: true, email: true, sms: true }] }, 'body.prefs.0'],
        [{}, 'body.prefs'],
      ];
      for (const [body, path] of cases) {
        const res = await call(inst, b.client, 'PUT', '/api/v1/me/notification-prefs', body);
        expect(res.status, path).toBe(400);
        expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(path);
      }
    });

    it('push a new notification to its user’s event stream only', async () => {
      const streamA = await openEvents(inst, a.client);
      const streamB = await openEvents(inst, b.client);
      try {
        const forA = await notify(a.userId, 'test.kind', 'live for a');
        const got = await streamA.waitFor((e) => e.kind === 'notification.created' && e.data.id === forA!.id);
        expect(got.data).toEqual(forA);
        // B's stream is live (it gets its own) and its first notification is its own, not A's.
        const forB = await notify(b.userId, 'test.kind', 'live for b');
        await streamB.waitFor((e) => e.kind === 'notification.created' && e.data.id === forB!.id);
        expect(streamB.events.filter((e) => e.kind === 'notification.created').map((e) => e.data.id)).toEqual([forB!.id]);
        expect(streamA.events.map((e) => e.data.id)).not.toContain(forB!.id);
        // A muted kind is neither stored nor pushed.
        await call(inst, a.client, 'PUT', '/api/v1/me/notification-prefs', { prefs: [{ kind: 'muted.kind', inApp: false, email: false }] });
        await notify(a.userId, 'muted.kind', 'silent');
        const after = await notify(a.userId, 'test.kind', 'after the muted one');
        await streamA.waitFor((e) => e.data.id === after!.id);
        expect(streamA.events.map((e) => e.data.title)).not.toContain('silent');
      } finally {
        streamA.close();
        streamB.close();
      }
    });
  });
}
