import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';

/**
 * An instance with something on every screen, for the tests that walk the dashboard (overflow,
 * roles): a SQLite connection whose tables hold rows (one with long words and values, the kind
 * that pushes a screen sideways), a list page and a dashboard page on it, an API key, an export
 * (a job), a custom role, a scheduled report. Everything is made through the API as the super admin.
 */
export interface PopulatedInstance {
  inst: TestInstance;
  admin: HttpClient;
  adminId: string;
  /** The super admin's sign-in. */
  root: { email: string; password: string; name: string };
  connectionId: string;
  /** The table with rows (`customers`) and one of its record ids. */
  table: string;
  recordId: string;
  listPage: { id: string; slug: string };
  dashboardPage: { id: string; slug: string };
  apiKeyId: string;
  jobId: string;
  /** Built-in roles by name, and the ids of what is created here. */
  roleIds: Record<'admin' | 'editor' | 'viewer', string>;
  reportId: string | undefined;
  /** A generated public endpoint's ref, an e-mail template and an audit entry, when there are some. */
  endpointRef: string | undefined;
  template: { key: string; locale: string } | undefined;
  auditId: string | undefined;
  close(): Promise<void>;
}

/** A word with no place to break: what a long e-mail address, URL or id in a cell is to a layout. */
const LONG_WORD = 'x'.repeat(12) + '-averyveryverylongunbrokenvalue-' + 'y'.repeat(40);

export async function startPopulated(): Promise<PopulatedInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'populated-'));
  const file = join(dir, 'shop.db');
  const db = new Database(file);
  db.exec(`
    create table customers (id integer primary key autoincrement, full_name varchar(120) not null, email varchar(200) not null,
      notes text, website varchar(300), created_at datetime not null);
    create table orders (id integer primary key autoincrement, customer_id integer not null references customers(id),
      status varchar(20) not null, amount numeric(10,2) not null, created_at datetime not null);
  `);
  const customer = db.prepare('insert into customers (full_name, email, notes, website, created_at) values (?, ?, ?, ?, ?)');
  const order = db.prepare('insert into orders (customer_id, status, amount, created_at) values (?, ?, ?, ?)');
  for (let i = 1; i <= 30; i++) {
    customer.run(
      `Customer number ${i}`,
      `customer.${i}.${LONG_WORD}@example.com`,
      `A note ${LONG_WORD} `.repeat(3),
      `https://example.com/${LONG_WORD}/${i}`,
      '2026-03-01 12:00:00',
    );
    order.run(i, i % 3 === 0 ? 'open' : 'paid', (i * 7.25).toFixed(2), '2026-03-02 12:00:00');
  }
  db.close();

  const { inst, admin, adminId } = await bootWithAdmin();
  const data = <T>(res: { status: number; text: string; body: any }, status = 201): T => {
    expect(res.status, res.text).toBe(status);
    return res.body.data as T;
  };
  const { connection } = data<{ connection: { id: string } }>(
    await admin.post('/api/v1/connections', { name: 'Shop with a rather long connection name', dialect: 'sqlite', url: `sqlite:${file}` }),
  );
  await admin.post(`/api/v1/connections/${connection.id}/introspect`, undefined);
  const rows = data<{ recordIds: Array<string | null> }>(await admin.get(`/api/v1/data/${connection.id}/customers?limit=5`), 200);
  const listPage = data<{ page: { id: string; slug: string } }>(
    await admin.post('/api/v1/pages', { title: 'Customers', kind: 'list', connectionId: connection.id, table: 'customers' }),
  ).page;
  const dashboardPage = data<{ page: { id: string; slug: string } }>(await admin.post('/api/v1/pages', { title: 'Overview', kind: 'dashboard' })).page;
  const roles = data<{ roles: Array<{ id: string; name: string; builtin: boolean }> }>(await admin.get('/api/v1/roles'), 200).roles;
  const roleId = (name: string) => roles.find((r) => r.name === name)!.id;
  const roleIds = { admin: roleId('admin'), editor: roleId('editor'), viewer: roleId('viewer') };
  const apiKey = data<{ apiKey: { id: string } }>(await admin.post('/api/v1/api-keys', { name: 'Storefront', roleId: roleIds.viewer })).apiKey;
  const exported = data<{ export: { jobId: string } }>(
    await admin.post('/api/v1/exports', { connectionId: connection.id, table: 'customers', format: 'csv' }),
    202,
  ).export;

  const report = await admin.post('/api/v1/scheduled-reports', {
    name: 'Weekly customers',
    source: { kind: 'view', pageId: listPage.id },
    format: 'csv',
    schedule: { cron: '0 8 * * 1', timeZone: 'UTC' },
    recipients: [{ userId: adminId }],
  });
  const scopes = (await admin.get('/api/v1/public-scopes')).body?.data?.scopes as Array<{ ref: string }> | undefined;
  const templates = (await admin.get('/api/v1/email-templates')).body?.data?.templates as Array<{ key: string; locale: string }> | undefined;
  const audit = (await admin.get('/api/v1/audit?limit=1')).body?.data?.entries as Array<{ id: string }> | undefined;

  return {
    inst,
    admin,
    adminId,
    root: ROOT,
    connectionId: connection.id,
    table: 'customers',
    recordId: rows.recordIds[0]!,
    listPage,
    dashboardPage,
    apiKeyId: apiKey.id,
    jobId: exported.jobId,
    roleIds,
    reportId: report.status === 201 ? (report.body.data.report?.id as string | undefined) : undefined,
    endpointRef: scopes?.[0]?.ref,
    template: templates?.[0],
    auditId: audit?.[0]?.id,
    async close() {
      await inst.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Follows an address inside the app as a link would (no reload): wouter listens to popstate. */
export async function goInside(page: Page, path: string): Promise<void> {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

/** Waits until the screen at the current address is drawn: a heading in main and nothing loading any more. */
export async function screenSettled(page: Page): Promise<void> {
  await page.locator('main h1, main h2').first().waitFor({ state: 'visible' });
  await expect.poll(() => page.locator('main .loading').count()).toBe(0);
}
