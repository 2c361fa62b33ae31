import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../kernel/app.js';
import { loadConfig } from '../../kernel/config.js';
import { HttpClient } from '../../test/helpers/client.js';
import { createTempDatabase, type TempDatabase } from '../../test/helpers/databases.js';
import { ROOT } from '../../test/helpers/identity.js';
import { connect } from '../exports/testing.js';
import { firstPartyPlugins } from '../index.js';
import { availableDialects } from './testing.js';

const ROOT_DIR = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./undo-kill-child.ts', import.meta.url));
const dialects = await availableDialects();

async function startOn(dataDir: string): Promise<{ app: App; url: string }> {
  const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_PORT: '0', SVC_HOST: '127.0.0.1', SVC_LOG_LEVEL: 'silent', SVC_NETWORK_FEATURES: 'false' });
  const app = await createApp({ config, plugins: firstPartyPlugins });
  return { app, url: await app.listen() };
}

/** Plain statements on the source, and a way to hold it so an undo cannot commit there. */
interface Source {
  url: string;
  query(sql: string): Promise<Array<Record<string, unknown>>>;
  /**
   * Holds the row (PostgreSQL, MariaDB: FOR UPDATE, so the undo waits at its first read) or the
   * file (SQLite: a read transaction, so the undo writes but waits at COMMIT), and answers
   * whether someone now waits on it.
   */
  hold(): Promise<() => Promise<boolean>>;
  release(): Promise<void>;
  close(): Promise<void>;
}

async function openSource(dialect: string, dir: string): Promise<Source> {
  if (dialect === 'sqlite') {
    const file = join(dir, 'source.db');
    const db = new Database(file);
    const meta = () => new Database(join(dir, 'data', 'meta.sqlite'), { readonly: true, fileMustExist: true });
    return {
      url: `sqlite:${file}`,
      query: async (s) => (/^\s*select/i.test(s) ? (db.prepare(s).all() as Array<Record<string, unknown>>) : (db.exec(s), [])),
      async hold() {
        db.exec('begin');
        db.prepare('select * from item').all();
        // The undo's next undo token is stored (in the meta store) just before its COMMIT.
        const count = () => {
          const m = meta();
          try {
            return Number((m.prepare('select count(*) as n from data_undo').get() as { n: number }).n);
          } finally {
            m.close();
          }
        };
        const before = count();
        return async () => count() > before;
      },
      release: async () => void db.exec('rollback'),
      close: async () => void db.close(),
    };
  }
  const temp: TempDatabase = await createTempDatabase(dialect as 'postgres' | 'mysql');
  if (dialect === 'postgres') {
    const c = new pg.Client({ connectionString: temp.url });
    const watcher = new pg.Client({ connectionString: temp.url });
    await c.connect();
    await watcher.connect();
    return {
      url: temp.url,
      query: async (s) => (await c.query(s)).rows,
      async hold() {
        await c.query('begin');
        await c.query('select * from item where id = 1 for update');
        return async () => Number((await watcher.query('select count(*) as n from pg_locks where not granted')).rows[0].n) > 0;
      },
      release: async () => void (await c.query('rollback')),
      close: async () => (await c.end(), await watcher.end(), await temp.drop()),
    };
  }
  const c = await createConnection({ uri: temp.url });
  const watcher = await createConnection({ uri: temp.url });
  return {
    url: temp.url,
    query: async (s) => (await c.query(s))[0] as Array<Record<string, unknown>>,
    async hold() {
      await c.query('start transaction');
      await c.query('select * from item where id = 1 for update');
      // MariaDB reads a row looked up by its key while it plans the statement ("Statistics"), and
      // waits for the lock there without innodb_trx showing LOCK WAIT: look for the undo's
      // statement itself, on this database, from any connection but the watcher's.
      const sql = "select count(*) as n from information_schema.processlist where id <> connection_id() and db = database() and info like '%for update%'";
      return async () => Number(((await watcher.query(sql))[0] as Array<{ n: number }>)[0]!.n) > 0;
    },
    release: async () => void (await c.query('rollback')),
    close: async () => (await c.end(), await watcher.end(), await temp.drop()),
  };
}

describe.each(dialects)('an undo on %s killed before its revert committed', (dialect) => {
  it('leaves the token usable: a later undo reverts the row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-undo-kill-'));
    const dataDir = join(dir, 'data');
    const source = await openSource(dialect, dir);
    try {
      await source.query('create table item (id integer primary key, label varchar(50) not null)');
      await source.query("insert into item (id, label) values (1, 'old')");
      const label = async () => (await source.query('select label from item where id = 1'))[0]!.label;

      // A first instance: admin, connection, and a change with its undo token.
      const first = await startOn(dataDir);
      const admin = new HttpClient(first.url);
      const setup = await admin.post('/api/v1/setup/super-admin', ROOT);
      expect(setup.status, setup.text).toBe(201);
      const userId = setup.body.data.user.id as string;
      const connectionId = await connect(admin, { dialect, url: source.url } as never);
      const edit = await admin.patch(`/api/v1/data/${connectionId}/item/1`, { values: { label: 'new' } });
      expect(edit.status, edit.text).toBe(200);
      const token = edit.body.data.undoToken as string;
      await first.app.close();

      // The child asks for the undo while the source is held; it dies waiting there.
      const waiting = await source.hold();
      const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', CHILD, dataDir, token, userId], {
        cwd: ROOT_DIR,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stderr.on('data', (d) => (output += String(d)));
      createInterface({ input: child.stdout }).on('line', (line) => (output += `${line}\n`));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const deadline = Date.now() + 120_000;
      while (!(await waiting())) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the undo never reached the source: ${output}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGKILL');
      await exited;
      await source.release();
      expect(await label()).toBe('new');

      // A new instance on the same meta store: the token still undoes the change, once.
      const second = await startOn(dataDir);
      try {
        const client = new HttpClient(second.url);
        const session = await second.app.kernel.identity.createSession(userId, { ip: null, userAgent: 'test' });
        client.setCookie('svc_session', second.app.http.signCookie(session.token));
        const undone = await client.post(`/api/v1/data/undo/${token}`);
        expect(undone.status, undone.text).toBe(200);
        expect(await label()).toBe('old');
        const again = await client.post(`/api/v1/data/undo/${token}`);
        expect(again.status).toBe(409);
        expect(again.body.error.code).toBe('UNDO_ALREADY_USED');
      } finally {
        await second.app.close();
      }
    } finally {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
