/** Fixtures for the imports tests: an `items` table with every kind of refusal to provoke, and uploads. */
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import type { HttpClient } from '../../test/helpers/client.js';

/** A key, a unique code, a CHECK, NOT NULL with and without a default, and the portable types a file carries. */
export const ITEMS_DDL: Record<FixtureDialect, string> = {
  postgres: `create table items (id integer primary key, code varchar(10) not null unique, qty integer not null check (qty >= 0),
    price numeric(10,2), active boolean not null default true, made date, meta jsonb, note text)`,
  mysql: `create table items (id int primary key, code varchar(10) not null unique, qty int not null check (qty >= 0),
    price decimal(10,2), active tinyint(1) not null default 1, made date, meta json, note text)`,
  sqlite: `create table items (id integer primary key not null, code varchar(10) not null unique, qty integer not null check (qty >= 0),
    price decimal(10,2), active boolean not null default 1, made date, meta json, note text)`,
};

/** POST /imports/upload with a file, as a browser form would send it. */
export async function uploadFile(baseUrl: string, client: HttpClient, name: string, content: string | Uint8Array, type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new Blob([content as BlobPart], { type }), name);
  const res = await fetch(`${baseUrl}/api/v1/imports/upload`, { method: 'POST', body: form, headers: { cookie: `svc_session=${client.cookie('svc_session')}`, origin: baseUrl } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}
