import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { HttpClient } from '../helpers/client.js';
import { createTempDatabase, databaseAvailable, type ServerDialect, type TempDatabase } from '../helpers/databases.js';
import { ROOT, setupAdmin } from '../helpers/identity.js';
import { startInstance, TEST_PASSWORD_HASH, type TestInstance } from '../helpers/instance.js';
import { startServer, until, type ServerProcess } from '../shutdown/support.js';

const available: Record<ServerDialect, boolean> = {
  postgres: await databaseAvailable('postgres'),
  mysql: await databaseAvailable('mysql'),
};

const API = '/api/v1';
const SECRET = 'relocation-test-secret-0123456789abcdef';

/** A job kind the write load queues (its handler does nothing). */
const loadPlugin = definePlugin({
  name: 'reloc-load',
  version: '1.0.0',
  permissions: [{ name: 'reloc.load', label: 'Queue load jobs', description: 'Test only.' }],
  jobs: {
    'reloc.noop': { permission: 'reloc.load', schema: z.strictObject({ n: z.number().int() }), handler: async () => ({ ok: true }) },
  },
});

const dirs: string[] = [];
const temps: TempDatabase[] = [];
const instances: TestInstance[] = [];
const servers: ServerProcess[] = [];

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'reloc-'));
  dirs.push(d);
  return d;
}

async function tempDb(dialect: ServerDialect): Promise<TempDatabase> {
  const t = await createTempDatabase(dialect);
  temps.push(t);
  return t;
}

async function instance(dir = dataDir(), extra: Record<string, string> = {}): Promise<TestInstance> {
  const inst = await startInstance({ dataDir: dir, env: { SVC_SECRET: SECRET, ...extra }, plugins: [loadPlugin], jobs: { pollMs: 50 } });
  instances.push(inst);
  return inst;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
  for (const i of instances.splice(0)) await i.close().catch(() => undefined);
});

afterAll(async () => {
  for (const t of temps.splice(0)) await t.drop().catch(() => undefined);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function waitJob(client: HttpClient, id: string, timeoutMs = 120_000): Promise<Record<string, any>> {
  let job: Record<string, any> = {};
  await until(
    async () => {
      const res = await client.get(`${API}/jobs/${id}`);
      job = res.body.data?.job ?? {};
      return ['succeeded', 'failed', 'cancelled'].includes(job.state);
    },
    `job ${id}`,
    timeoutMs,
  );
  return job;
}

/** Seeds `n` audit rows straight into the store (a bigger copy, so the load overlaps it). */
async function seedAudit(inst: TestInstance, n: number): Promise<void> {
  const db = inst.app.kernel.db;
  const at = Date.now();
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
      id: `seed${String(i + j).padStart(12, '0')}`,
      at: at + i + j,
      actor_type: 'system',
      actor_id: null,
      action: 'seed.row',
      target_type: 'seed',
      target_id: String(i + j),
      ip: null,
      request_id: null,
      diff: JSON.stringify({ i: i + j, text: 'é ü ✓ "quoted"' }),
    }));
    await db
      .insertInto('audit_log')
      .values(rows as never)
      .execute();
  }
}

async function ids(url: string, dialect: ServerDialect, table: string): Promise<Set<string>> {
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return new Set((await c.query(`select id from ${table}`)).rows.map((r) => String(r.id)));
    } finally {
      await c.end();
    }
  }
  const c = await createConnection({ uri: url });
  try {
    const [rows] = await c.query(`select id from ${table}`);
    return new Set((rows as Array<{ id: string }>).map((r) => String(r.id)));
  } finally {
    await c.end();
  }
}

async function tableCount(url: string, dialect: ServerDialect): Promise<number> {
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return Number((await c.query(`select count(*) as n from information_schema.tables where table_schema = current_schema()`)).rows[0].n);
    } finally {
      await c.end();
    }
  }
  const c = await createConnection({ uri: url });
  try {
    const [rows] = await c.query(`select count(*) as n from information_schema.tables where table_schema = database()`);
    return Number((rows as Array<{ n: number }>)[0]!.n);
  } finally {
    await c.end();
  }
}

function sqliteIds(file: string, table: string): Set<string> {
  const db = new Database(file, { readonly: true });
  try {
    return new Set((db.prepare(`select id from ${table}`).all() as Array<{ id: string }>).map((r) => String(r.id)));
  } finally {
    db.close();
  }
}

describe('POST /meta/relocate refusals', () => {
  it('refuses when SVC_META_URL decided the store (409 META_PLACEMENT_FROM_ENV)', async () => {
    if (!available.postgres) return;
    const db = await tempDb('postgres');
    const inst = await instance(dataDir(), { SVC_META_URL: db.url });
    const { client } = await setupAdmin(inst);
    const res = await client.post(`${API}/meta/relocate`, { target: 'embedded' });
    expect(res.status, res.text).toBe(409);
    expect(res.body.error.code).toBe('META_PLACEMENT_FROM_ENV');
    expect(res.body.error.message).toMatch(/SVC_META_URL/);
    const placement = await client.get(`${API}/meta/placement`);
    expect(placement.body.data).toMatchObject({ dialect: 'postgres', fromEnv: true, previous: null });
  });

  it('refuses the store it is on, a relocation already running, and replicas sharing the store', async () => {
    const inst = await instance();
    const { client } = await setupAdmin(inst);
    const same = await client.post(`${API}/meta/relocate`, { target: 'embedded' });
    expect(same.status, same.text).toBe(409);
    expect(same.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'same-store' } });

    // Another process holding a job's lease on this store.
    const now = Date.now();
    const job = (over: Record<string, unknown>) => ({
      id: `j${Math.random().toString(36).slice(2, 12)}`,
      kind: 'reloc.noop',
      payload: '{"n":1}',
      state: 'running',
      attempts: 1,
      max_attempts: 1,
      run_after: now,
      locked_by: 'another-process',
      lease_until: now + 60_000,
      cancel_requested: 0,
      created_by: null,
      created_at: now,
      updated_at: now,
      ...over,
    });
    const other = job({});
    await inst.app.kernel.db
      .insertInto('jobs')
      .values(other as never)
      .execute();
    const replicas = await client.post(`${API}/meta/relocate`, { target: 'embedded', dryRun: true });
    expect(replicas.status, replicas.text).toBe(409);
    expect(replicas.body.error.code).toBe('META_RELOCATE_REPLICAS');
    await inst.app.kernel.db.deleteFrom('jobs').where('id', '=', other.id).execute();

    const running = job({ kind: 'meta.relocate', state: 'queued', locked_by: null, lease_until: null, run_after: now + 3_600_000 });
    await inst.app.kernel.db
      .insertInto('jobs')
      .values(running as never)
      .execute();
    if (available.postgres) {
      const db = await tempDb('postgres');
      const busy = await client.post(`${API}/meta/relocate`, { url: db.url });
      expect(busy.status, busy.text).toBe(409);
      expect(busy.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'relocation-running' } });
    }
  });

  it('answers 400 CONNECTION_FAILED with the reason, never the password', async () => {
    const inst = await instance();
    const { client } = await setupAdmin(inst);
    const unreachable = await client.post(`${API}/meta/relocate`, { url: 'postgres://someone:pw-secret-1@127.0.0.1:1/meta' });
    expect(unreachable.status, unreachable.text).toBe(400);
    expect(unreachable.body.error).toMatchObject({ code: 'CONNECTION_FAILED', params: { reason: 'unreachable' } });
    expect(unreachable.text).not.toContain('pw-secret-1');
    if (available.postgres) {
      const missing = await client.post(`${API}/meta/relocate`, { url: 'postgres://postgres@127.0.0.1:5432/reloc_no_such_db_x1' });
      expect(missing.status, missing.text).toBe(400);
      expect(missing.body.error.params.reason).toBe('database-not-found');
    }
    const bad = await client.post(`${API}/meta/relocate`, { url: 'ftp://example.com/x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_FAILED');
  });

  it.runIf(available.postgres)('refuses a target that holds tables of a meta store (409 META_TARGET_NOT_EMPTY)', async () => {
    const inst = await instance();
    const { client } = await setupAdmin(inst);
    const db = await tempDb('postgres');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    await c.query('create table users (id varchar(32) primary key)');
    await c.end();
    const res = await client.post(`${API}/meta/relocate`, { url: db.url });
    expect(res.status, res.text).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'META_TARGET_NOT_EMPTY', params: { tables: ['users'] } });
  });

  it('is for admins only', async () => {
    const inst = await instance();
    const { client } = await setupAdmin(inst);
    const made = await client.post(`${API}/users`, { email: 'ed@example.com', name: 'Ed', password: 'long-enough-pw', roleIds: ['editor'] });
    expect(made.status, made.text).toBe(201);
    const ed = inst.client();
    expect((await ed.post(`${API}/auth/login`, { email: 'ed@example.com', password: 'long-enough-pw' })).status).toBe(200);
    const res = await ed.post(`${API}/meta/relocate`, { target: 'embedded', dryRun: true });
    expect(res.status).toBe(403);
  });
});

describe.each(['postgres', 'mysql'] as const)('relocating the embedded store to %s', (dialect) => {
  it.runIf(available[dialect])(
    'copies every table while writes go on; every acknowledged write is in the new store; a restart opens the new store; back to embedded',
    async () => {
      const dir = dataDir();
      const inst = await instance(dir);
      const { client } = await setupAdmin(inst);
      await seedAudit(inst, 20_000);
      const target = await tempDb(dialect);

      // A dry run counts and writes nothing.
      const dry = await client.post(`${API}/meta/relocate`, { url: target.url, dryRun: true });
      expect(dry.status, dry.text).toBe(202);
      const dryJob = await waitJob(client, dry.body.data.job.id);
      expect(dryJob.state, JSON.stringify(dryJob)).toBe('succeeded');
      expect(dryJob.result.dryRun).toBe(true);
      expect(dryJob.result.tables.find((t: { name: string }) => t.name === 'audit_log').rows).toBeGreaterThanOrEqual(20_000);
      expect(await tableCount(target.url, dialect)).toBe(0);

      // The write load: sign-ins (sessions and audit entries) and queued jobs, acknowledged or not.
      const acked = { jobs: [] as string[], logins: 0, refused: 0 };
      let stop = false;
      const load = (async () => {
        let n = 0;
        while (!stop) {
          const c = inst.client();
          const login = await c.post(`${API}/auth/login`, { email: ROOT.email, password: ROOT.password });
          if (login.status === 200) acked.logins++;
          else if (login.status === 503) acked.refused++;
          else throw new Error(`login answered ${login.status}: ${login.text}`);
          const queued = await client.post(`${API}/jobs`, { kind: 'reloc.noop', payload: { n: n++ } });
          if (queued.status === 201) acked.jobs.push(queued.body.data.job.id);
          else if (queued.status === 503) {
            acked.refused++;
            expect(queued.headers.get('retry-after')).toBeTruthy();
          } else throw new Error(`enqueue answered ${queued.status}: ${queued.text}`);
        }
      })();

      const started = await client.post(`${API}/meta/relocate`, { url: target.url });
      expect(started.status, started.text).toBe(202);
      const job = await waitJob(client, started.body.data.job.id);
      // Some more writes after the swap.
      await until(async () => acked.jobs.length > 5, 'writes after the swap');
      stop = true;
      await load;
      expect(job.state, JSON.stringify(job)).toBe('succeeded');
      expect(job.result).toMatchObject({ dryRun: false, to: { dialect } });
      expect(job.result.freezeMs).toBeGreaterThanOrEqual(0);
      expect(job.result.tables.length).toBeGreaterThan(10);
      for (const t of job.result.tables) expect(t.checksum).toMatch(/^[0-9a-f]{16}$/);

      const placement = await client.get(`${API}/meta/placement`);
      expect(placement.body.data).toMatchObject({ dialect, embedded: false, fromEnv: false, previous: { dialect: 'sqlite' } });
      expect(placement.body.data.location).not.toContain('@');

      // Every acknowledged job is in the new store; every row the old store held is there too.
      const newJobs = await ids(target.url, dialect, 'jobs');
      for (const id of acked.jobs) expect(newJobs.has(id), `job ${id}`).toBe(true);
      await until(async () => !existsSync(join(dir, 'meta.sqlite')), 'the old file renamed');
      const renamed = readdirSync(dir).find((f) => /^meta\.sqlite\.relocated-[^-]/.test(f) && !f.endsWith('-wal') && !f.endsWith('-shm'))!;
      expect(renamed).toBeDefined();
      expect(placement.body.data.previous.location).toBe(join(dir, renamed));
      for (const table of ['audit_log', 'sessions', 'jobs', 'users']) {
        const before = sqliteIds(join(dir, renamed), table);
        const after = await ids(target.url, dialect, table);
        for (const id of before) expect(after.has(id), `${table} ${id}`).toBe(true);
      }
      expect(statSync(join(dir, 'meta-placement.json')).mode & 0o777).toBe(0o600);

      // Signed-in clients keep working on the new store; the principal cache was emptied, so a
      // session created after the swap (only in the new store) is found.
      const fresh = inst.client();
      expect((await fresh.post(`${API}/auth/login`, { email: ROOT.email, password: ROOT.password })).status).toBe(200);
      expect((await fresh.get(`${API}/me`)).status).toBe(200);

      // A restart (a real server process on the same data directory, no SVC_META_URL) opens the new store.
      await inst.close();
      instances.splice(instances.indexOf(inst), 1);
      const server = await startServer({ SVC_DATA_DIR: dir, SVC_SECRET: SECRET, SVC_PASSWORD_HASH: TEST_PASSWORD_HASH });
      servers.push(server);
      const again = new HttpClient(server.url);
      const login = await again.post(`${API}/auth/login`, { email: ROOT.email, password: ROOT.password });
      expect(login.status, login.text).toBe(200);
      const there = await again.get(`${API}/meta/placement`);
      expect(there.body.data).toMatchObject({ dialect, previous: { dialect: 'sqlite' } });
      for (const id of acked.jobs.slice(-3)) expect((await again.get(`${API}/jobs/${id}`)).status).toBe(200);

      // And back to the embedded file.
      const back = await again.post(`${API}/meta/relocate`, { target: 'embedded' });
      expect(back.status, back.text).toBe(202);
      const backJob = await waitJob(again, back.body.data.job.id);
      expect(backJob.state, JSON.stringify(backJob)).toBe('succeeded');
      const home = await again.get(`${API}/meta/placement`);
      expect(home.body.data).toMatchObject({ dialect: 'sqlite', embedded: true, previous: { dialect } });
      const embeddedJobs = sqliteIds(join(dir, 'meta.sqlite'), 'jobs');
      for (const id of acked.jobs) expect(embeddedJobs.has(id)).toBe(true);
    },
    240_000,
  );
});

/** Rows of `text` on a server database. */
async function query(url: string, dialect: ServerDialect, text: string): Promise<Array<Record<string, unknown>>> {
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(text)).rows;
    } finally {
      await c.end();
    }
  }
  const c = await createConnection({ uri: url });
  try {
    return (await c.query(text))[0] as Array<Record<string, unknown>>;
  } finally {
    await c.end();
  }
}

describe.each(['postgres', 'mysql'] as const)('rows written by key and by range while the store moves to %s', (dialect) => {
  it.runIf(available[dialect])(
    'are in the new store as the old one last held them; a table written only by key is not read again whole (MR4)',
    async () => {
      const inst = await instance();
      const { client } = await setupAdmin(inst);
      await seedAudit(inst, 20_000);
      const db = inst.app.kernel.db as unknown as Kysely<any>;
      const seeded = (await db.selectFrom('audit_log').select('id').where('action', '=', 'seed.row').orderBy('id').execute()) as Array<{ id: string }>;
      const seedIds = seeded.map((r) => r.id);
      // Due times ahead of now, out of the scheduler's sweep of old claims.
      const due = Date.now() + 86_400_000;
      // What the store should hold at the end: audit rows' actions by id, schedule runs' claim times by key.
      const audit = new Map(seedIds.map((id) => [id, 'seed.row']));
      const runs = new Map<string, number>();
      const runKey = (ownerId: string, dueAt: number) => `${ownerId}/${dueAt}`;

      /** Runs a write; a write held past the freeze (503) was not made. */
      const made = async (write: () => Promise<unknown>): Promise<boolean> => {
        try {
          await write();
          return true;
        } catch (err) {
          if ((err as { code?: string }).code === 'META_UNAVAILABLE') return false;
          throw err;
        }
      };
      const round = async (i: number) => {
        const n = seedIds.length;
        const touched = seedIds[(i * 7) % n]!;
        if (
          (await made(() =>
            db
              .updateTable('audit_log')
              .set({ action: `upd-${i}` })
              .where('id', '=', touched)
              .execute(),
          )) &&
          audit.has(touched)
        )
          audit.set(touched, `upd-${i}`);
        const gone = [seedIds[(i * 13 + 1) % n]!, seedIds[(i * 13 + 2) % n]!];
        if (await made(() => db.deleteFrom('audit_log').where('id', 'in', gone).execute())) for (const id of gone) audit.delete(id);
        const added = `added${String(i).padStart(10, '0')}`;
        const row = {
          id: added,
          at: 1,
          actor_type: 'system',
          actor_id: null,
          action: `new-${i}`,
          target_type: null,
          target_id: null,
          ip: null,
          request_id: null,
          diff: null,
        };
        if (await made(() => db.insertInto('audit_log').values(row).execute())) audit.set(added, `new-${i}`);
        // A composite key: inserted, updated and deleted by all three columns; every 10th round a range delete.
        const owner = `o${i % 40}`;
        if (
          await made(() =>
            db
              .insertInto('schedule_runs')
              .values({ owner_kind: 'reloc.test', owner_id: owner, due_at: due + i, job_id: null, claimed_at: i })
              .execute(),
          )
        )
          runs.set(runKey(owner, due + i), i);
        if (i >= 3) {
          const [o, d] = [`o${(i - 3) % 40}`, due + i - 3];
          const where = (q: any) => q.where('owner_kind', '=', 'reloc.test').where('owner_id', '=', o).where('due_at', '=', d);
          if (i % 2 === 0) {
            if ((await made(() => where(db.updateTable('schedule_runs').set({ claimed_at: 1_000_000 + i })).execute())) && runs.has(runKey(o, d)))
              runs.set(runKey(o, d), 1_000_000 + i);
          } else if (i % 5 === 0) {
            if (await made(() => where(db.deleteFrom('schedule_runs')).execute())) runs.delete(runKey(o, d));
          }
        }
        if (i % 10 === 9) {
          const below = due + i - 5;
          if (await made(() => db.deleteFrom('schedule_runs').where('owner_kind', '=', 'reloc.test').where('due_at', '<', below).execute()))
            for (const [k] of runs) if (Number(k.split('/')[1]) < below) runs.delete(k);
        }
      };

      const target = await tempDb(dialect);
      let stop = false;
      let rounds = 0;
      const load = (async () => {
        // A pause between rounds: the embedded store answers without I/O, so a loop of writes alone would starve the server.
        while (!stop) {
          await round(rounds++);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      let job: Record<string, any>;
      try {
        const started = await client.post(`${API}/meta/relocate`, { url: target.url });
        expect(started.status, started.text).toBe(202);
        job = await waitJob(client, started.body.data.job.id);
        const roundsAtSwap = rounds;
        await until(async () => rounds > roundsAtSwap + 3, 'writes after the swap');
      } finally {
        stop = true;
        await load;
      }
      expect(job.state, JSON.stringify(job)).toBe('succeeded');

      const report = (name: string) => job.result.tables.find((t: { name: string }) => t.name === name);
      expect(report('audit_log').recopied).toBeGreaterThan(0);
      expect(report('audit_log').readWhole).toBe(0);
      expect(report('schedule_runs').recopied).toBeGreaterThan(0);
      // The range delete: its table is read again whole.
      expect(report('schedule_runs').readWhole).toBeGreaterThan(0);

      const auditThere = await query(
        target.url,
        dialect,
        `select id, action from audit_log where action = 'seed.row' or action like 'upd-%' or action like 'new-%'`,
      );
      expect(new Map(auditThere.map((r) => [String(r.id), String(r.action)]))).toEqual(audit);
      const runsThere = await query(target.url, dialect, `select owner_id, due_at, claimed_at from schedule_runs where owner_kind = 'reloc.test'`);
      expect(new Map(runsThere.map((r) => [runKey(String(r.owner_id), Number(r.due_at)), Number(r.claimed_at)]))).toEqual(runs);
    },
    240_000,
  );
});

describe('a process killed during the copy', () => {
  it.runIf(available.postgres)(
    'starts again on its old store, and the target says what it holds; the dead process’s lease does not hold a retry back',
    async () => {
      const dir = dataDir();
      const seeding = await instance(dir);
      await setupAdmin(seeding);
      await seedAudit(seeding, 60_000);
      await seeding.close();
      instances.splice(instances.indexOf(seeding), 1);

      const env = { SVC_DATA_DIR: dir, SVC_SECRET: SECRET, SVC_PASSWORD_HASH: TEST_PASSWORD_HASH };
      const server = await startServer(env);
      servers.push(server);
      const client = new HttpClient(server.url);
      expect((await client.post(`${API}/auth/login`, { email: ROOT.email, password: ROOT.password })).status).toBe(200);
      const target = await tempDb('postgres');
      const started = await client.post(`${API}/meta/relocate`, { url: target.url });
      expect(started.status, started.text).toBe(202);
      await until(
        async () => {
          const p = (await client.get(`${API}/meta/placement`)).body.data.relocation;
          return p?.phase === 'copying' && p.tables.some((t: { copied: number }) => t.copied > 0);
        },
        'the copy under way',
        60_000,
      );
      server.child.kill('SIGKILL');
      await server.exited;

      const restarted = await startServer(env);
      servers.push(restarted);
      const after = new HttpClient(restarted.url);
      expect((await after.post(`${API}/auth/login`, { email: ROOT.email, password: ROOT.password })).status).toBe(200);
      const placement = await after.get(`${API}/meta/placement`);
      expect(placement.body.data).toMatchObject({ dialect: 'sqlite', embedded: true, previous: null });
      expect(existsSync(join(dir, 'meta-placement.json'))).toBe(false);
      // The killed process was this data directory's previous one and is gone: its lease on the
      // relocation job is no other replica's and its relocation runs no more, so a retry is
      // refused at once for what the target holds.
      const retry = await after.post(`${API}/meta/relocate`, { url: target.url });
      expect(retry.status, retry.text).toBe(409);
      expect(retry.body.error.code, retry.text).toBe('META_TARGET_NOT_EMPTY');
      expect(retry.body.error.params.tables).toContain('kernel_migrations');
    },
    180_000,
  );
});
