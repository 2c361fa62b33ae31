import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDialects, dataEnv, type DataEnv } from './testing.js';

const dialects = await availableDialects();

/**
 * A MariaDB table that is really full: a MEMORY table holds at most max_heap_table_size bytes and
 * then refuses every insert with 1114 ER_RECORD_FILE_FULL, as a disk-bound engine does when its
 * disk is (decisions K44). PostgreSQL's 53100 needs a full disk under the server: only its
 * classification is tested (kernel/storage-full.test.ts).
 */
describe.runIf(dialects.includes('mysql'))('a full table on a MariaDB source (decisions K44)', () => {
  let env: DataEnv;
  let connectionId: string;

  beforeAll(async () => {
    env = await dataEnv('mysql');
    // One connection: the session's bound is the one the table is created with.
    await env.db.connection().execute(async (c) => {
      await sql`set session max_heap_table_size = 16384`.execute(c);
      await sql`create table note_full (id int primary key auto_increment, body varchar(200) not null) engine=memory`.execute(c);
    });
    connectionId = await env.connect('Full');
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  it('answers 503 STORAGE_FULL in the envelope, never 500, and the rows written before stay', async () => {
    const path = `/api/v1/data/${connectionId}/note_full`;
    const statuses: number[] = [];
    let refusal: { status: number; body: any } | null = null;
    for (let i = 0; i < 2000 && !refusal; i++) {
      const res = await env.req(env.admin, 'POST', path, { values: { body: 'x'.repeat(200) } });
      statuses.push(res.status);
      if (res.status !== 201) refusal = res;
    }
    expect(refusal, 'the MEMORY table never filled').not.toBeNull();
    expect(refusal!.status).toBe(503);
    expect(refusal!.body.error).toMatchObject({ code: 'STORAGE_FULL' });
    const written = statuses.filter((s) => s === 201).length;
    expect(written).toBeGreaterThan(0);
    const count = await sql<{ n: number }>`select count(*) as n from note_full`.execute(env.db);
    expect(Number(count.rows[0]!.n)).toBe(written);
  });
});
