/**
 * A SQLite database for a test to connect: a file in a temp folder of its own (the service refuses
 * a file inside its data directory), filled by the test, connected through the API and introspected.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { HttpClient } from './client.js';

export interface SqliteSource {
  file: string;
  /** Removes the folder; call it in afterAll after the instance closed. */
  dispose: () => void;
}

/** A new SQLite file, `seed` run on it (its schema and rows), then closed. */
export function sqliteSource(name: string, seed: (db: Database.Database) => void): SqliteSource {
  const dir = mkdtempSync(join(tmpdir(), `${name}-src-`));
  const file = join(dir, `${name}.db`);
  const db = new Database(file);
  try {
    seed(db);
  } finally {
    db.close();
  }
  return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** POST /connections for the file, then POST /connections/{id}/introspect; throws unless both succeed. Answers the connection's id. */
export async function connectSqlite(admin: HttpClient, file: string, name = 'Shop'): Promise<string> {
  const created = await admin.post('/api/v1/connections', { name, dialect: 'sqlite', url: `sqlite:${file}` });
  if (created.status !== 201) throw new Error(`POST /connections answered ${created.status}: ${created.text}`);
  const id = (created.body as { data: { connection: { id: string } } }).data.connection.id;
  const introspected = await admin.post(`/api/v1/connections/${id}/introspect`, undefined);
  if (introspected.status >= 300) throw new Error(`introspect answered ${introspected.status}: ${introspected.text}`);
  return id;
}

/** The stock table several screens' tests read: `product (id, name, qty)` with Item 1–5 of quantity 1–5. */
export function stockTable(db: Database.Database): void {
  db.exec(`create table product (id integer primary key autoincrement, name varchar(20) not null, qty integer not null default 0);`);
  const insert = db.prepare('insert into product (name, qty) values (?, ?)');
  for (let i = 1; i <= 5; i++) insert.run(`Item ${i}`, i);
}
