import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../kernel/logger.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../../test/helpers/databases.js';
import { SourceFailure } from './failure.js';
import { SourceRegistry, type SourceSpec } from './registry.js';
import { testConnection } from './test-connection.js';
import { DEFAULT_SOURCE_SETTINGS, type SourceSettings } from './types.js';
import { parseSourceUrl } from './url.js';

const pg = await databaseAvailable('postgres');
const my = await databaseAvailable('mysql');

const warnings: unknown[] = [];
const log = { warn: (obj: unknown) => void warnings.push(obj), info: () => undefined, error: () => undefined } as unknown as Logger;

function spec(dialect: 'postgres' | 'mysql' | 'sqlite', url: string, settings: Partial<SourceSettings> = {}): SourceSpec {
  const parsed = parseSourceUrl(dialect, url);
  if (!parsed.ok) throw new Error(parsed.message);
  return { target: parsed.target, settings: { ...DEFAULT_SOURCE_SETTINGS, ...settings } };
}

function makeFile(file: string, label: string): void {
  const db = new Database(file);
  db.exec(`create table t (v text); insert into t values ('${label}')`);
  db.close();
}

const readLabel = async (db: Awaited<ReturnType<SourceRegistry['acquire']>>) => (await sql<{ v: string }>`select v from t`.execute(db)).rows[0]?.v;

describe('SourceRegistry on SQLite', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sources-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps one pool per id, and replaces it when the fingerprint changes', async () => {
    const file = join(dir, 'one.db');
    makeFile(file, 'one');
    const reg = new SourceRegistry({ log });
    const s = spec('sqlite', `sqlite:${file}`);
    const a = await reg.acquire('c1', 'f1', () => s);
    expect(await reg.acquire('c1', 'f1', () => s)).toBe(a);
    const b = await reg.acquire('c1', 'f2', () => s);
    expect(b).not.toBe(a);
    expect(await readLabel(b)).toBe('one');
    await reg.close('c1');
    expect(reg.has('c1')).toBe(false);
    await reg.closeAll();
  });

  it('refuses while the file is gone, fast within the retry window, and recovers by itself', async () => {
    const file = join(dir, 'two.db');
    makeFile(file, 'two');
    let clock = 1_000_000;
    const reg = new SourceRegistry({ log, now: () => clock, freshMs: 2000, retryMs: 1000 });
    const s = spec('sqlite', `sqlite:${file}`);
    const open = () => reg.acquire('c2', 'f', () => s);
    expect(await readLabel(await open())).toBe('two');

    renameSync(file, `${file}.away`);
    clock += 1000; // still fresh: handed out without a check
    await expect(open()).resolves.toBeDefined();
    clock += 1500;
    await expect(open()).rejects.toMatchObject({ name: 'SourceFailure', reason: 'file-not-found' });
    renameSync(`${file}.away`, file);
    clock += 500; // inside the retry window: refused without looking
    await expect(open()).rejects.toBeInstanceOf(SourceFailure);
    clock += 600;
    expect(await readLabel(await open())).toBe('two');
    await reg.closeAll();
  });

  it('opens the new file when the file was replaced by another', async () => {
    const file = join(dir, 'three.db');
    makeFile(file, 'old');
    makeFile(join(dir, 'three-new.db'), 'new');
    let clock = 1_000_000;
    const reg = new SourceRegistry({ log, now: () => clock });
    const s = spec('sqlite', `sqlite:${file}`);
    expect(await readLabel(await reg.acquire('c3', 'f', () => s))).toBe('old');
    copyFileSync(join(dir, 'three-new.db'), `${file}.tmp`);
    renameSync(`${file}.tmp`, file);
    clock += 10_000;
    expect(await readLabel(await reg.acquire('c3', 'f', () => s))).toBe('new');
    await reg.closeAll();
  });

  it('closes a pool nobody asked for in a while', async () => {
    const file = join(dir, 'idle.db');
    makeFile(file, 'idle');
    const reg = new SourceRegistry({ log, idlePoolMs: 50 });
    await reg.acquire('idle', 'f', () => spec('sqlite', `sqlite:${file}`));
    expect(reg.has('idle')).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
    expect(reg.has('idle')).toBe(false);
    await reg.closeAll();
  });

  it('tells a lost database from an ordinary query error', async () => {
    const file = join(dir, 'four.db');
    makeFile(file, 'four');
    const reg = new SourceRegistry({ log });
    await reg.acquire('c4', 'f', () => spec('sqlite', `sqlite:${file}`));
    const ioError = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    expect(await reg.reportError('c4', Object.assign(new Error('no such table: x'), { code: 'SQLITE_ERROR' }))).toBeNull();
    // The words of one statement alone: the file is still there, so the database is still usable.
    expect(await reg.reportError('c4', ioError)).toBeNull();
    expect(await readLabel(await reg.acquire('c4', 'f', () => spec('sqlite', `sqlite:${file}`)))).toBe('four');
    renameSync(file, `${file}.gone`);
    expect(await reg.reportError('c4', ioError)).toMatchObject({ reason: 'file-not-found' });
    await expect(reg.acquire('c4', 'f', () => spec('sqlite', `sqlite:${file}`))).rejects.toMatchObject({ reason: 'file-not-found' });
    expect(await reg.reportError('unknown-id', new Error('x'))).toBeNull();
    await reg.closeAll();
  });

  it('enforces read-only with query_only', async () => {
    const file = join(dir, 'five.db');
    makeFile(file, 'five');
    const reg = new SourceRegistry({ log });
    const db = await reg.acquire('c5', 'f', () => spec('sqlite', `sqlite:${file}`, { readOnly: true }));
    await expect(sql`insert into t values ('x')`.execute(db)).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(await readLabel(db)).toBe('five');
    await reg.closeAll();
  });

  it('never creates a SQLite file, not when testing and not when a pool is asked for one', async () => {
    const file = join(dir, 'missing.db');
    await expect(testConnection('sqlite', `sqlite:${file}`)).rejects.toMatchObject({ reason: 'file-not-found' });
    const reg = new SourceRegistry({ log });
    await expect(reg.acquire('c6', 'f', () => spec('sqlite', `sqlite:${file}`))).rejects.toMatchObject({ reason: 'file-not-found' });
    expect(existsSync(file)).toBe(false);
    await reg.closeAll();
  });

  it('answers invalid-url from testConnection for a URL it cannot read', async () => {
    await expect(testConnection('sqlite', 'sqlite:relative.db')).rejects.toMatchObject({ reason: 'invalid-url' });
  });
});

describe.runIf(pg)('SourceRegistry on PostgreSQL', () => {
  let temp: TempDatabase;
  beforeAll(async () => {
    temp = await createTempDatabase('postgres');
  });
  afterAll(async () => temp?.drop());

  it('runs statements under the statement timeout, and refuses writes when read-only', async () => {
    const reg = new SourceRegistry({ log });
    const db = await reg.acquire('p1', 'f', () => spec('postgres', temp.url, { statementTimeoutMs: 300 }));
    await expect(sql`select pg_sleep(2)`.execute(db)).rejects.toMatchObject({ code: '57014' });
    expect(await reg.reportError('p1', await sql`select pg_sleep(2)`.execute(db).catch((e: unknown) => e))).toBeNull();
    const ro = await reg.acquire('p2', 'f', () => spec('postgres', temp.url, { readOnly: true }));
    await expect(sql`create table x (id int)`.execute(ro)).rejects.toMatchObject({ code: '25006' });
    await reg.closeAll();
  });

  it('keeps serving after a statement PostgreSQL calls a protocol violation (08P01), and holds a truly lost server unreachable', async () => {
    const reg = new SourceRegistry({ log });
    const db = await reg.acquire('p4', 'f', () => spec('postgres', temp.url));
    // A bind the server cannot read (bytes for an integer): ERROR 08P01 on a healthy connection.
    const err = await sql`select 1 where 1 > ${Buffer.from([1, 2, 3])}`.execute(db).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: '08P01' });
    for (let i = 0; i < 5; i++) expect(await reg.reportError('p4', err)).toBeNull();
    expect((await sql<{ n: number }>`select 1 as n`.execute(await reg.acquire('p4', 'f', () => spec('postgres', temp.url)))).rows).toEqual([{ n: 1 }]);
    // The same words from a server that is gone: unreachable, and refused until it is back.
    const gone = await reg.acquire('p5', 'f', () => spec('postgres', temp.url.replace(':5432/', ':1/'), { connectTimeoutMs: 500 })).catch((e: unknown) => e);
    expect(gone).toMatchObject({ reason: 'unreachable' });
    expect(await reg.reportError('p5', err)).toMatchObject({ reason: 'unreachable' });
    await reg.closeAll();
  });

  it('keeps the pool within its size', async () => {
    const reg = new SourceRegistry({ log });
    const db = await reg.acquire('p3', 'f', () => spec('postgres', temp.url, { poolSize: 2 }));
    const pids = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(db)).rows[0]!.pid),
    );
    expect(new Set(pids).size).toBeLessThanOrEqual(2);
    await reg.closeAll();
  });
});

describe.runIf(my)('SourceRegistry on MariaDB/MySQL', () => {
  let temp: TempDatabase;
  beforeAll(async () => {
    temp = await createTempDatabase('mysql');
  });
  afterAll(async () => temp?.drop());

  it('runs statements under the statement timeout, and refuses writes when read-only', async () => {
    const reg = new SourceRegistry({ log });
    const db = await reg.acquire('m1', 'f', () => spec('mysql', temp.url, { statementTimeoutMs: 1000 }));
    const started = Date.now();
    const slow = await sql<Record<string, unknown>>`select sleep(3) as s`.execute(db).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2500);
    // MariaDB ends the statement with an error; MySQL's SLEEP answers 1 when interrupted.
    if (!(slow instanceof Error)) expect(Number((slow as { rows: Array<{ s: unknown }> }).rows[0]?.s)).toBe(1);
    await sql`create table t (id int)`.execute(db);
    const ro = await reg.acquire('m2', 'f', () => spec('mysql', temp.url, { readOnly: true }));
    await expect(sql`insert into t values (1)`.execute(ro)).rejects.toMatchObject({ errno: 1792 });
    await reg.closeAll();
  });
});
