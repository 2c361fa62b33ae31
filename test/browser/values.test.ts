import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/client.js';
import { createTempDatabase, databaseAvailable } from '../helpers/databases.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser } from './harness.js';
import { formatIn } from '../messages.js';

/** The German catalogue, formatted as the dashboard shows it to a person whose locale is de. */
const de = formatIn('de');

/*
 * Values as people read them (issue 29, point 3; decision DB44): a table holding every kind of
 * value, on a real PostgreSQL database and a real SQLite file, read in the grid, on the row
 * page and in the audit's data changes, at 1440 and 390 px, in Europe/Berlin.
 */

const PG_DDL = `
  create type mood as enum ('happy', 'sad', 'calm');
  create table person (id serial primary key, email text, full_name text not null);
  create table reading (
    id serial primary key,
    taken_at timestamptz,
    amount numeric(24, 4),
    ok boolean,
    mood mood,
    meta jsonb,
    blob bytea,
    token uuid,
    person_id integer references person(id)
  );
  create table line (order_no integer, line_no integer, note text, primary key (order_no, line_no));`;

const SQLITE_DDL = `
  create table person (id integer primary key autoincrement, email text, full_name text not null);
  create table reading (
    id integer primary key autoincrement,
    taken_at timestamptz,
    amount decimal(24, 4),
    ok boolean,
    mood text check (mood in ('happy', 'sad', 'calm')),
    meta json,
    blob blob,
    token uuid,
    person_id integer references person(id)
  );
  create table line (order_no integer, line_no integer, note text, primary key (order_no, line_no));`;

const TOKEN = '0b9a4d3e-8f00-4c1b-9a55-1f2e3d4c5b6a';
const BLOB = Buffer.alloc(1500, 7).toString('base64');
/**
 * An amount and how a German reader sees it: on PostgreSQL more digits than a double holds
 * (shown exactly); SQLite keeps a decimal as a REAL (15 significant digits), so a smaller one.
 */
const AMOUNT = {
  postgres: { stored: '123456789012345678.1234', de: '123.456.789.012.345.678,1234' },
  sqlite: { stored: '1234567890.1234', de: '1.234.567.890,1234' },
};

async function post(client: HttpClient, path: string, body: unknown, method: 'post' | 'put' | 'patch' = 'post'): Promise<any> {
  const res = await client[method](path, body);
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

async function source(dialect: 'postgres' | 'sqlite'): Promise<{ url: string; drop: () => Promise<void> }> {
  if (dialect === 'postgres') {
    const temp = await createTempDatabase('postgres');
    const c = new pg.Client({ connectionString: temp.url });
    await c.connect();
    await c.query(PG_DDL);
    await c.end();
    return { url: temp.url, drop: () => temp.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'values-src-'));
  const file = join(dir, 'values.db');
  const db = new Database(file);
  db.exec(SQLITE_DDL);
  db.close();
  return { url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

const cell = (page: Page, rowIndex: number, column: string) => page.locator(`[role="row"][aria-rowindex="${rowIndex + 2}"] [data-column="${column}"]`);

for (const dialect of ['postgres', 'sqlite'] as const) {
  describe.runIf(browserAvailable())(`values as people read them (${dialect})`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let conn: string;
    let drop: (() => Promise<void>) | undefined;
    let available = true;
    const { openPage, onScreen, signIn } = useDashboardBrowser(`values-${dialect}`);

    beforeAll(async () => {
      if (dialect === 'postgres' && !(await databaseAvailable('postgres'))) {
        available = false;
        return;
      }
      const src = await source(dialect);
      drop = src.drop;
      ({ inst, admin } = await bootWithAdmin());
      const created = await post(admin, '/api/v1/connections', { name: `Values ${dialect}`, dialect, url: src.url });
      conn = created.data.connection.id as string;
      await post(admin, `/api/v1/connections/${conn}/introspect`, undefined);
      // Shown by: full_name (without it the first text column, the e-mail, would name a person).
      await post(admin, `/api/v1/connections/${conn}/schema/overrides`, { tables: [{ table: 'person', displayColumn: 'full_name' }] }, 'put');
      await post(admin, `/api/v1/data/${conn}/person/bulk`, {
        operations: [
          { op: 'create', values: { email: 'ada@example.com', full_name: 'Ada Lovelace' } },
          { op: 'create', values: { email: 'grace@example.com', full_name: 'Grace Hopper' } },
        ],
      });
      await post(admin, `/api/v1/data/${conn}/reading/bulk`, {
        operations: [
          {
            op: 'create',
            values: {
              taken_at: '2026-11-27T20:14:36.747208Z',
              amount: AMOUNT[dialect].stored,
              ok: true,
              mood: 'happy',
              meta: { a: 1, list: [1, 2, 3] },
              blob: { $binary: BLOB },
              token: TOKEN,
              person_id: 1,
            },
          },
          { op: 'create', values: { ok: false, person_id: 2 } },
          { op: 'create', values: { person_id: 1 } },
        ],
      });
      await post(admin, `/api/v1/data/${conn}/line/bulk`, {
        operations: [
          { op: 'create', values: { order_no: 7, line_no: 1, note: 'first' } },
          { op: 'create', values: { order_no: 7, line_no: 2, note: 'second' } },
        ],
      });
      // A change for the audit to show: the amount and the person.
      await post(admin, `/api/v1/data/${conn}/reading/1`, { values: { amount: '0.1000', person_id: 2 } }, 'patch');
    }, 60_000);

    afterAll(async () => {
      await inst?.close();
      await drop?.();
    });

    it('reads each type in the grid at 1440 px: zone, grouping, yes/no, chips, JSON viewer, size + download, short UUID with copy, names of referenced rows in one request', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems, requested } = await openPage({ viewport: { width: 1440, height: 900 }, timezoneId: 'Europe/Berlin' });
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/connections/${conn}/tables/reading`);
      await onScreen(page, 'grid-1440', 'Reading');
      await expect.poll(() => cell(page, 0, 'person_id').textContent()).toBe('Grace Hopper');

      // An instant in the person's zone (Berlin, winter), the exact stored value on hover: the cell's
      // own text, its title set when the pointer comes to it (one element a cell, DB57).
      const taken = cell(page, 0, 'taken_at');
      expect(await taken.textContent()).toBe('Nov 27, 2026, 9:14:36 PM GMT+1');
      expect(await taken.getAttribute('title')).toBeNull();
      await taken.hover();
      // PostgreSQL answers the instant in UTC with its Z; SQLite keeps a timestamptz as UTC text without it.
      expect(await taken.getAttribute('title')).toBe(dialect === 'postgres' ? '2026-11-27T20:14:36.747208Z' : '2026-11-27T20:14:36.747208');
      // A copy of its text takes the exact value too.
      await taken.selectText();
      await page.keyboard.press('Control+C');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(
        dialect === 'postgres' ? '2026-11-27T20:14:36.747208Z' : '2026-11-27T20:14:36.747208',
      );
      // A decimal grouped with every digit, aligned at the end (the right here; the left when the dashboard is mirrored).
      expect(await cell(page, 0, 'amount').textContent()).toBe('0.1000');
      expect(await cell(page, 0, 'amount').evaluate((el) => getComputedStyle(el).textAlign)).toBe('end');
      expect(await cell(page, 0, 'ok').textContent()).toBe(`✓ ${msg('value.yes')}`);
      expect(await cell(page, 1, 'ok').textContent()).toBe(`✕ ${msg('value.no')}`);
      expect(await cell(page, 2, 'ok').textContent()).toBe(msg('value.null'));
      expect(await cell(page, 0, 'mood').locator('.value-chip').textContent()).toBe('happy');
      // JSON on one line, laid out on demand.
      expect(await cell(page, 0, 'meta').locator('code').textContent()).toBe('{"a":1,"list":[1,2,3]}');
      await cell(page, 0, 'meta')
        .getByRole('button', { name: msg('value.jsonShow', { column: 'Meta' }) })
        .click();
      expect(await cell(page, 0, 'meta').locator('pre').textContent()).toBe(JSON.stringify({ a: 1, list: [1, 2, 3] }, null, 2));
      await cell(page, 0, 'meta')
        .getByRole('button', { name: msg('value.jsonHide', { column: 'Meta' }) })
        .click();
      // Bytes by their size, with a download of them.
      expect(await cell(page, 0, 'blob').textContent()).toBe(`1.5 kB ${msg('value.downloadShort')}`);
      const download = cell(page, 0, 'blob').getByRole('link', { name: msg('value.download', { size: '1.5 kB' }) });
      expect(await download.getAttribute('href')).toBe(`data:application/octet-stream;base64,${BLOB}`);
      expect(await download.getAttribute('download')).toBe('blob.bin');
      // A UUID shortened; its copy button copies the whole.
      const token = cell(page, 0, 'token').locator('[data-value-kind="uuid"]');
      expect(await token.textContent()).toBe('0b9a4d3e…');
      expect(await token.getAttribute('title')).toBe(TOKEN);
      await cell(page, 0, 'token')
        .getByRole('button', { name: msg('value.copy', { value: TOKEN }) })
        .click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(TOKEN);
      // Every referenced person of the page named by one request to the person table.
      expect(await cell(page, 1, 'person_id').textContent()).toBe('Grace Hopper');
      expect(await cell(page, 2, 'person_id').textContent()).toBe('Ada Lovelace');
      const personRequests = requested.filter((u) => u.includes(`/api/v1/data/${conn}/person?`));
      expect(personRequests).toHaveLength(1);
      expect(decodeURIComponent(personRequests[0]!)).toMatch(/filter\[id\]\[in\]=(1,2|2,1)/);

      // A composite key's row named by its values, not base64.
      await page.goto(`${inst.url}/connections/${conn}/tables/line`);
      await onScreen(page, 'grid-line', 'Line');
      await expect.poll(() => cell(page, 0, 'note').textContent()).toBe('first');
      await page
        .locator('[role="row"][aria-rowindex="2"]')
        .getByRole('link', { name: /^Open row/ })
        .click();
      await onScreen(page, 'row-line', msg('data.row.heading', { table: 'Line', id: '7 · 1' }));
      expectNoProblems(problems);
    });

    it('reads the row page and the audit’s change at 390 px in German, names and all', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage({ viewport: { width: 390, height: 844 }, timezoneId: 'Europe/Berlin' });
      await signIn(page, inst.url, ROOT);
      // The person's locale (their preferences) decides the language, and the number and date formats.
      await post(admin, '/api/v1/me/prefs', { locale: 'de' }, 'patch');
      await page.goto(`${inst.url}/connections/${conn}/tables/reading/rows/1`);
      await onScreen(page, 'row-390', de('data.row.heading', { table: 'Reading', id: '1' }));
      await page.getByRole('link', { name: de('data.refs.outNamed', { column: 'Person id', table: 'Person', name: 'Grace Hopper', id: '2' }) }).waitFor();

      // The audit entry of the change: a before/after table read like the grid, the target named.
      await page.goto(`${inst.url}/audit?action=data.update`);
      await onScreen(page, 'audit-390', de('nav.audit'));
      const target = page
        .getByTestId('audit-row')
        .first()
        .getByRole('link', { name: /reading/ });
      // The connection's name replaces its id once the connections are read.
      await expect.poll(() => target.textContent()).toBe(de('people.audit.targetTable', { table: 'reading', connection: `Values ${dialect}` }));
      await page
        .getByTestId('audit-row')
        .first()
        .getByRole('link', { name: /data\.update/ })
        .click();
      await onScreen(page, 'audit-entry-390', de('people.audit.entryHeading', { action: 'data.update' }));
      const change = page.getByTestId('audit-change');
      await change.getByRole('heading', { name: de('people.audit.change.update', { row: '1' }) }).waitFor();
      const row = (column: string) => change.locator('tr').filter({ has: page.getByRole('rowheader', { name: column }) });
      await expect.poll(() => row('Person id').locator('td').allTextContents()).toEqual(['Ada Lovelace', 'Grace Hopper']);
      expect(await row('Amount').locator('td').allTextContents()).toEqual([AMOUNT[dialect].de, '0,1000']);
      expect(await row('Amount').locator('td').first().locator('[title]').getAttribute('title')).toBe(AMOUNT[dialect].stored);
      await change.getByRole('link', { name: de('people.audit.openRow', { row: '1' }) }).waitFor();
      expectNoProblems(problems);
    });
  });
}
