import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noBody, route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import { newId } from '../../kernel/ids.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { createUserSession, setupAdmin, sse, type SseStream } from './support.js';

const KIND = 'scoped.changed';
const scopedPlugin = definePlugin({
  name: 'scoped',
  version: '1.0.0',
  permissions: [
    { name: 'scoped.read', label: 'Read', description: 'Read rows', roles: ['viewer'] },
    { name: 'scoped.publish', label: 'Publish', description: 'Publish' },
  ],
  events: { [KIND]: { schema: z.object({ table: z.string(), n: z.number() }), permission: 'scoped.read' } },
  routes: [
    route({
      method: 'POST',
      url: '/scoped/:table/:n',
      summary: 'publish a change of one table',
      permission: 'scoped.publish',
      schema: {
        params: z.object({ table: z.string(), n: z.coerce.number() }),
        body: noBody,
        response: { 200: dataOf(z.strictObject({ ok: z.literal(true) })) },
      },
      handler: async ({ kernel, params }) => {
        await kernel.events.publish(
          KIND,
          { table: params.table, n: params.n },
          { grant: { permission: 'scoped.read', connectionId: 'c1', table: params.table } },
        );
        return { data: { ok: true as const } };
      },
    }),
  ],
});

let inst: TestInstance;
let admin: Awaited<ReturnType<typeof setupAdmin>>;
const open: SseStream[] = [];

beforeAll(async () => {
  inst = await startInstance({ plugins: [scopedPlugin] });
  admin = await setupAdmin(inst);
});
afterAll(async () => {
  for (const s of open) s.close();
  await inst?.close();
});

/** A user whose only grant of scoped.read reaches table `a` of connection c1. */
async function scopedUser(): Promise<string> {
  const db = inst.app.kernel.db;
  const now = Date.now();
  const roleId = newId(now);
  await db
    .insertInto('roles')
    .values({ id: roleId, name: `only-a-${roleId}`, description: null, builtin: 0, created_at: now, updated_at: now })
    .execute();
  await db
    .insertInto('role_grants')
    .values({ id: newId(), role_id: roleId, permission: 'scoped.read', scope: JSON.stringify({ connectionId: 'c1', table: 'a' }) })
    .execute();
  const user = await createUserSession(inst, 'viewer', `scoped-${roleId}@example.com`);
  // Only the custom role: take the viewer role away again.
  await db.deleteFrom('user_roles').where('user_id', '=', user.userId).execute();
  await db.insertInto('user_roles').values({ user_id: user.userId, role_id: roleId }).execute();
  return user.cookie;
}

describe('events narrowed by a grant scope', () => {
  it('reach a subscriber only for the tables its grant reaches; unscoped holders get all', async () => {
    const scoped = await sse(inst.url, { cookie: await scopedUser() });
    const viewer = await sse(inst.url, { cookie: (await createUserSession(inst, 'viewer', 'plain-viewer@example.com')).cookie });
    open.push(scoped, viewer);
    const post = (table: string, n: number) => admin.client.request('POST', `/api/v1/scoped/${table}/${n}`);
    expect((await post('b', 1)).status).toBe(200);
    expect((await post('a', 2)).status).toBe(200);
    // Events arrive in publish order: once the later one is here, the earlier one would be too.
    await scoped.inbox.waitFor((e) => e.kind === KIND && (e.data as { n: number }).n === 2, 'the change of table a');
    expect(scoped.inbox.seen.filter((e) => e.kind === KIND).map((e) => (e.data as { table: string }).table)).toEqual(['a']);
    await viewer.inbox.waitFor((e) => e.kind === KIND && (e.data as { n: number }).n === 2, 'the change of table a');
    expect(viewer.inbox.seen.filter((e) => e.kind === KIND).map((e) => (e.data as { table: string }).table)).toEqual(['b', 'a']);
  });
});
