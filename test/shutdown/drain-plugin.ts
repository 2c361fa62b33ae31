/**
 * Routes for the drain tests: a slow read and a slow write (the row is committed before the
 * wait, so a cut connection would leave a write its client never saw acknowledged). Each slow
 * handler prints `{"started": tag}` on stdout when it begins, so the test knows it is in flight.
 */
import { existsSync } from 'node:fs';
import { sql } from 'kysely';
import { z } from 'zod';
import { route } from '../../kernel/contract/route.js';
import { definePlugin, type PluginDefinition } from '../../kernel/plugin/manifest.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `hold`: wait until the test creates DRAIN_RELEASE_FILE (at most a minute), not for a time. */
async function wait(ms: number, hold: boolean | undefined): Promise<void> {
  const file = process.env.DRAIN_RELEASE_FILE;
  if (!hold || !file) {
    await sleep(ms);
    return;
  }
  for (let i = 0; i < 3000 && !existsSync(file); i++) await sleep(20);
}
const announce = (tag: string | undefined) => tag && process.stdout.write(`${JSON.stringify({ started: tag })}\n`);

export function drainTestPlugin(): PluginDefinition {
  return definePlugin({
    name: 'draintest',
    version: '1.0.0',
    migrations: [
      {
        name: '0001_notes',
        async up(db) {
          await db.schema
            .createTable('draintest_notes')
            .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
            .addColumn('at', 'bigint', (c) => c.notNull())
            .execute();
        },
      },
    ],
    routes: [
      route({
        method: 'GET',
        url: '/draintest/slow',
        summary: 'Answers after a wait',
        public: true,
        schema: {
          query: z.object({ ms: z.coerce.number().int().min(0).max(60_000), tag: z.string().optional(), hold: z.enum(['1']).optional() }),
          response: { 200: z.object({ waited: z.number() }) },
        },
        handler: async ({ query }) => {
          announce(query.tag);
          await wait(query.ms, query.hold === '1');
          return { waited: query.ms };
        },
      }),
      route({
        method: 'POST',
        url: '/draintest/notes',
        summary: 'Writes a note, then answers after a wait',
        public: true,
        schema: {
          body: z.object({ id: z.string().min(1).max(64), ms: z.number().int().min(0).max(60_000), tag: z.string().optional(), hold: z.boolean().optional() }),
          response: { 201: z.object({ id: z.string() }) },
        },
        handler: async ({ body, kernel }) => {
          await sql`insert into draintest_notes (id, at) values (${body.id}, ${Date.now()})`.execute(kernel.db);
          announce(body.tag);
          await wait(body.ms, body.hold);
          return { id: body.id };
        },
      }),
    ],
  });
}
