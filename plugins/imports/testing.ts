/** Fixtures for the imports tests: an `items` table with every kind of refusal to provoke, and uploads. */
import type { FixtureDialect } from '../../test/fixtures/schema/load.js';
import { parse as parseCsv } from 'csv-parse/sync';
import { expect } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import type { TestInstance } from '../../test/helpers/instance.js';

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
  const res = await fetch(`${baseUrl}/api/v1/imports/upload`, {
    method: 'POST',
    body: form,
    headers: { cookie: `svc_session=${client.cookie('svc_session')}`, origin: baseUrl },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** An instance and a client signed in on it. */
export interface OnInstance {
  inst: TestInstance;
  client: HttpClient;
}

/**
 * Three items, one refused by the table's CHECK (a negative quantity): uploaded through `upload`,
 * imported (not all or nothing) through `run`, and the import and its error report read through
 * `read`, which may be three replicas. `afterUpload` sees the upload's answer first.
 */
export async function importItemsWithOneRefusal(
  connectionId: string,
  on: { upload: OnInstance; run: OnInstance; read: OnInstance },
  afterUpload?: () => Promise<void>,
): Promise<void> {
  const csv = ['ID,Code,Quantity', '1,A-1,5', '2,B-2,-1', '3,C-3,7'].join('\r\n');
  const up = await uploadFile(on.upload.inst.url, on.upload.client, 'items.csv', csv);
  expect(up.status, up.text).toBe(201);
  await afterUpload?.();
  const created = await call(on.run.inst, on.run.client, 'POST', '/api/v1/imports', {
    uploadId: up.body.data.upload.id,
    connectionId,
    table: 'items',
    mapping: { ID: 'id', Code: 'code', Quantity: 'qty' },
    atomic: false,
  });
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.import.id;
  const run = await call(on.run.inst, on.run.client, 'POST', `/api/v1/imports/${id}/run`);
  expect(run.status, run.text).toBe(202);
  const job = await on.run.inst.app.kernel.jobs.waitFor(run.body.data.import.jobId, 60_000);
  expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
  const got = await call(on.read.inst, on.read.client, 'GET', `/api/v1/imports/${id}`);
  expect(got.body.data.import).toMatchObject({ state: 'succeeded', counts: { total: 3, inserted: 2, refused: 1 } });
  const report = await on.read.client.get(`/api/v1/imports/${id}/error-report`);
  expect(report.status, report.text).toBe(200);
  expect((parseCsv(report.text) as string[][]).map((r) => r.slice(0, 1))).toEqual([['line'], ['3']]);
}
