/**
 * Meta store relocation (decisions MR1): an embedded store holding 100,000 audit rows and 10,000
 * sessions moved to a fresh PostgreSQL database (and to MariaDB when it answers), once without
 * writes and once with a session, an audit entry and a job written every 20 ms. Prints the copy
 * time (while the instance serves), the catch-up passes (MR4) and the write freeze's length. Goal (issue 32): a freeze under
 * 2 s. The target databases are created as `reloc_bench_<random>` and dropped afterwards.
 *
 *   npm run bench -- relocate
 *   BENCH_AUDIT=20000 node --no-node-snapshot --import tsx bench/relocate.ts
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { createApp, type App } from '../kernel/app.js';
import { loadConfig } from '../kernel/config.js';
import { newId } from '../kernel/ids.js';
import { firstPartyPlugins } from '../plugins/index.js';

const AUDIT = Number(process.env.BENCH_AUDIT ?? 100_000);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const PG_ADMIN = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MYSQL_ADMIN = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const GOAL_MS = 2_000;

interface Target {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function pgTarget(): Promise<Target | null> {
  const name = `reloc_bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return null;
  }
  await admin.query(`create database "${name}"`);
  await admin.end();
  const u = new URL(PG_ADMIN);
  u.pathname = `/${name}`;
  return {
    name: 'postgres',
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

async function mysqlTarget(): Promise<Target | null> {
  const name = `reloc_bench_${randomBytes(5).toString('hex')}`;
  let admin;
  try {
    admin = await createConnection({ uri: MYSQL_ADMIN, connectTimeout: 2000 });
  } catch {
    return null;
  }
  await admin.query(`create database \`${name}\` character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  const u = new URL(MYSQL_ADMIN);
  u.pathname = `/${name}`;
  return {
    name: 'mariadb',
    url: u.toString(),
    async drop() {
      const c = await createConnection({ uri: MYSQL_ADMIN });
      await c.query(`drop database if exists \`${name}\``);
      await c.end();
    },
  };
}

async function seeded(dataDir: string): Promise<{ app: App; userId: string }> {
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins });
  const db = app.kernel.db;
  const now = Date.now();
  const userId = newId();
  await db
    .insertInto('users')
    .values({
      id: userId,
      email: 'bench@example.com',
      name: 'Bench',
      status: 'active',
      password_hash: null,
      totp_enabled: 0,
      last_login_at: null,
      created_at: now,
      updated_at: now,
    } as never)
    .execute();
  for (let i = 0; i < AUDIT; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, AUDIT - i) }, (_, j) => ({
      id: newId(),
      at: now + i + j,
      actor_type: 'user',
      actor_id: userId,
      action: 'bench.write',
      target_type: 'bench',
      target_id: String(i + j),
      diff: JSON.stringify({ before: { n: i + j }, after: { n: i + j + 1, note: 'a change of some length' } }),
      ip: '127.0.0.1',
      user_agent: 'bench',
      request_id: `req-${i + j}`,
    }));
    await db
      .insertInto('audit_log')
      .values(rows as never)
      .execute();
  }
  for (let i = 0; i < SESSIONS; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, SESSIONS - i) }, () => ({
      id: newId(),
      token_hash: randomBytes(32).toString('hex'),
      user_id: userId,
      ip: '127.0.0.1',
      user_agent: 'bench',
      created_at: now,
      last_seen_at: now,
      expires_at: now + 86_400_000,
      absolute_expires_at: now + 30 * 86_400_000,
    }));
    await db
      .insertInto('sessions')
      .values(rows as never)
      .execute();
  }
  return { app, userId };
}

/** One round of the write load: a session created, an audit entry written, a job queued (for later: no runner takes it). */
function writeRound(app: App, userId: string): Promise<unknown>[] {
  const db = app.kernel.db;
  const at = Date.now();
  return [
    db
      .insertInto('sessions')
      .values({
        id: newId(),
        token_hash: randomBytes(32).toString('hex'),
        user_id: userId,
        ip: '127.0.0.1',
        user_agent: 'bench-load',
        created_at: at,
        last_seen_at: at,
        expires_at: at + 86_400_000,
        absolute_expires_at: at + 30 * 86_400_000,
      } as never)
      .execute(),
    db
      .insertInto('audit_log')
      .values({
        id: newId(),
        at,
        actor_type: 'system',
        actor_id: null,
        action: 'bench.load',
        target_type: null,
        target_id: null,
        diff: null,
        ip: null,
        user_agent: null,
        request_id: null,
      } as never)
      .execute(),
    db
      .insertInto('jobs')
      .values({
        id: newId(),
        kind: 'bench.load',
        payload: '{}',
        state: 'queued',
        attempts: 0,
        max_attempts: 1,
        run_after: at + 365 * 86_400_000,
        locked_by: null,
        lease_until: null,
        cancel_requested: 0,
        created_by: null,
        created_at: at,
        updated_at: at,
      } as never)
      .execute(),
  ];
}

interface Run {
  target: string;
  load: boolean;
  rows: number;
  copyMs: number;
  catchUpMs: number;
  freezeMs: number;
  totalMs: number;
  writes: number;
  failed: number;
}

async function main(): Promise<void> {
  const results: Run[] = [];
  for (const make of [pgTarget, mysqlTarget]) {
    for (const load of [false, true]) {
      const target = await make();
      if (!target) break;
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-reloc-'));
      const { app, userId } = await seeded(dataDir);
      try {
        // With load: every 20 ms a session created, an audit entry written and a job queued, during the copy and the freeze.
        let writes = 0;
        let failed = 0;
        const timer = load
          ? setInterval(() => {
              for (const w of writeRound(app, userId))
                void w.then(
                  () => writes++,
                  () => failed++,
                );
            }, 20)
          : null;
        const started = Date.now();
        const result = await app.kernel.relocation.run({ url: target.url }, { dryRun: false, jobId: null });
        if (timer) clearInterval(timer);
        results.push({
          target: target.name,
          load,
          rows: result.rows,
          copyMs: result.copyMs,
          catchUpMs: result.catchUpMs,
          freezeMs: result.freezeMs,
          totalMs: Date.now() - started,
          writes,
          failed,
        });
      } finally {
        await app.close();
        await target.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  if (results.length === 0) throw new Error('neither PostgreSQL nor MariaDB answered');
  console.log(`relocation of ${AUDIT} audit rows and ${SESSIONS} sessions from the embedded store (goal: freeze < ${GOAL_MS} ms)`);
  console.log('target    writes  rows      copy ms  catch-up ms  freeze ms  total ms  writes during  refused');
  for (const r of results) {
    console.log(
      `${r.target.padEnd(9)} ${(r.load ? 'yes' : 'no').padEnd(6)}  ${String(r.rows).padEnd(9)} ${String(r.copyMs).padStart(7)}  ${String(r.catchUpMs).padStart(11)}  ${String(r.freezeMs).padStart(9)}  ${String(r.totalMs).padStart(8)}  ${String(r.writes).padStart(13)}  ${String(r.failed).padStart(7)}${r.freezeMs < GOAL_MS ? '' : '  (over the goal)'}`,
    );
  }
}

await main();
