import { writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { noBody, route } from '../../kernel/contract/route.js';
import type { JobDeclaration } from '../../kernel/jobs/types.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';
import { expectContract } from '../helpers/contract.js';
import { bootWithAdmin } from '../helpers/identity.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';

const API = '/api/v1';

/** A route and a job that write a file to /dev/full: a real ENOSPC from the kernel, on any Linux. */
const fullDevicePlugin = definePlugin({
  name: 'fulltest',
  version: '1.0.0',
  permissions: [{ name: 'fulltest.run', label: 'Run', description: 'Test jobs.' }],
  routes: [
    route({
      method: 'POST',
      url: '/fulltest/file',
      summary: 'Writes a file on a full device',
      public: true,
      schema: { body: noBody, response: { 204: z.null() } },
      handler: async () => {
        await writeFile('/dev/full', 'x'.repeat(10_000));
        return null;
      },
    }),
  ],
  jobs: {
    'fulltest.write': {
      permission: 'fulltest.run',
      maxAttempts: 1,
      handler: async () => {
        await writeFile('/dev/full', 'x'.repeat(10_000));
        return { wrote: true };
      },
    } as JobDeclaration,
  },
});

/** A write that waits for the test: its audit entry can be read while it is in flight. */
let releaseSlowWrite: (() => void) | null = null;
let slowWriteStarted: (() => void) | null = null;
const slowWritePlugin = definePlugin({
  name: 'slowwrite',
  version: '1.0.0',
  routes: [
    route({
      method: 'POST',
      url: '/slowwrite/guests',
      summary: 'Writes a guest slowly',
      public: true,
      schema: { body: z.strictObject({ email: z.string(), phone: z.string() }), response: { 204: z.null() } },
      handler: async () => {
        await new Promise<void>((resolve) => {
          releaseSlowWrite = resolve;
          slowWriteStarted?.();
        });
        return null;
      },
    }),
  ],
});

let inst: TestInstance | null = null;
afterEach(async () => {
  await inst?.close();
  inst = null;
});

const readiness = (i: TestInstance) => i.client().get(`${API}/readyz`);

describe('a full SQLite meta store (decisions K44)', () => {
  it(
    'answers 503 STORAGE_FULL, never 500, loses no audit entry of a write that succeeded, and readyz reports it until an insert passes',
    { timeout: 60_000 },
    async () => {
      const booted = await bootWithAdmin();
      inst = booted.inst;
      const db = inst.app.kernel.meta.db;
      // The real engine, made full: no page beyond those the file has now (this connection is the server's).
      const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]!.page_count);
      await sql.raw(`pragma max_page_count = ${pages}`).execute(db);

      const created: string[] = [];
      const statuses: number[] = [];
      for (let i = 0; i < 200 && !statuses.includes(503); i++) {
        const res = await booted.admin.post(`${API}/roles`, { name: `role-${i}`, description: 'd'.repeat(500) });
        statuses.push(res.status);
        if (res.status === 201) created.push(res.headers.get('x-request-id')!);
        else {
          expect(res.status, res.text).toBe(503);
          expect(res.body.error).toEqual({ code: 'STORAGE_FULL', message: expect.stringMatching(/full/), requestId: expect.any(String) });
          expect(res.text).not.toMatch(/SQLITE|insert |audit_log/i);
          expectContract(inst, 'POST', `${API}/roles`, res);
        }
      }
      expect(statuses).toContain(503);
      expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);

      const ready = await readiness(inst);
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ ok: false, version: expect.any(String), checks: { meta: 'ok', storage: 'full' } });
      expectContract(inst, 'GET', `${API}/readyz`, ready);

      // Reads still work.
      expect((await booted.admin.get(`${API}/roles`)).status).toBe(200);

      // Every write that answered 201 has its entry; the refused one has none.
      const rows = await sql<{ request_id: string; action: string }>`select request_id, action from audit_log where action like ${'role%'}`.execute(db);
      const byRequest = new Set(rows.rows.map((r) => r.request_id));
      expect(created.filter((id) => !byRequest.has(id))).toEqual([]);
      expect(rows.rows.length).toBe(created.length);

      await sql`pragma max_page_count = 1073741823`.execute(db);
      const again = await booted.admin.post(`${API}/roles`, { name: 'after-room', description: null });
      expect(again.status, again.text).toBe(201);
      const back = await readiness(inst);
      expect(back.status).toBe(200);
      expect(back.body).toEqual({ ok: true, version: expect.any(String), checks: { meta: 'ok' } });
    },
  );
});

describe('a write whose audit entry cannot be recorded (decisions K44)', () => {
  it('does not happen: the entry is recorded before the write, and a failing one fails the request first', async () => {
    const booted = await bootWithAdmin();
    inst = booted.inst;
    const db = inst.app.kernel.meta.db;
    // The engine refuses every new audit entry (a real refusal, as a full disk or a lost table would be).
    await sql`create trigger audit_refused before insert on audit_log begin select raise(abort, 'audit refused'); end`.execute(db);
    const res = await booted.admin.post(`${API}/roles`, { name: 'unaudited', description: null });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL');
    await sql`drop trigger audit_refused`.execute(db);
    const roles = await booted.admin.get(`${API}/roles`);
    expect(roles.status).toBe(200);
    expect(JSON.stringify(roles.body)).not.toContain('unaudited');
  });

  it('records the entry the handler describes, once, and none for a refused write', async () => {
    const booted = await bootWithAdmin();
    inst = booted.inst;
    const db = inst.app.kernel.meta.db;
    const ok = await booted.admin.post(`${API}/roles`, { name: 'audited', description: null });
    expect(ok.status).toBe(201);
    const dup = await booted.admin.post(`${API}/roles`, { name: 'Audited', description: null });
    expect(dup.status).toBe(409);
    const rows = await sql<{
      action: string;
      request_id: string;
      target_id: string | null;
    }>`select action, request_id, target_id from audit_log where request_id in (${ok.headers.get('x-request-id')}, ${dup.headers.get('x-request-id')})`.execute(
      db,
    );
    expect(rows.rows).toEqual([{ action: 'roles.create', request_id: ok.headers.get('x-request-id'), target_id: ok.body.data.role.id }]);
  });
});

describe('the entry recorded before a write (decisions K44)', () => {
  it('holds no input while the write is in flight, and the input once it succeeded (no handler entry)', async () => {
    inst = await startInstance({ plugins: [slowWritePlugin] });
    const db = inst.app.kernel.meta.db;
    const started = new Promise<void>((resolve) => (slowWriteStarted = resolve));
    const pending = inst.client().post(`${API}/slowwrite/guests`, { email: 'guest@example.test', phone: '+33 6 12 34 56 78' });
    await started;
    const during = await sql<{ action: string; diff: string | null }>`select action, diff from audit_log where action like 'slowwrite:%'`.execute(db);
    expect(during.rows).toEqual([{ action: 'slowwrite:POST /slowwrite/guests', diff: null }]);
    releaseSlowWrite!();
    expect((await pending).status).toBe(204);
    const after = await sql<{ diff: string | null }>`select diff from audit_log where action like 'slowwrite:%'`.execute(db);
    expect(after.rows).toHaveLength(1);
    expect(JSON.parse(after.rows[0]!.diff!)).toMatchObject({ body: { email: 'guest@example.test' } });
  });
});

describe('a full file system (ENOSPC from /dev/full)', () => {
  it('answers a request 503 STORAGE_FULL in the envelope and readyz reports it', async () => {
    inst = await startInstance({ plugins: [fullDevicePlugin] });
    const res = await inst.client().post(`${API}/fulltest/file`);
    expect(res.status, res.text).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'STORAGE_FULL', requestId: expect.any(String) });
    expect(res.text).not.toMatch(/ENOSPC|dev\/full/);
    const ready = await readiness(inst);
    expect(ready.status).toBe(503);
    expect(ready.body.checks).toEqual({ meta: 'ok', storage: 'full' });
  });

  it('fails a job with STORAGE_FULL, not the generic JOB_FAILED', { timeout: 30_000 }, async () => {
    inst = await startInstance({ plugins: [fullDevicePlugin], jobs: { pollMs: 50 } });
    const job = await inst.app.kernel.jobs.enqueue('fulltest.write', undefined);
    let state = await inst.app.kernel.jobs.get(job.id);
    for (let i = 0; i < 400 && state?.state !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = await inst.app.kernel.jobs.get(job.id);
    }
    expect(state).toMatchObject({ state: 'failed', error: { code: 'STORAGE_FULL', message: expect.stringMatching(/full/) } });
  });
});
