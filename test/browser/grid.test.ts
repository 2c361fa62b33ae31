import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../helpers/databases.js';
import { bootWithAdmin } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser, WIDE } from './harness.js';

const EDITOR = { email: 'ed@example.com', name: 'Ed Itor', password: 'editor-password-1' };
const VIEWER = { email: 'vi@example.com', name: 'Vi Ewer', password: 'viewer-password-1' };

const PG_DDL = `
  create type mood as enum ('happy', 'sad', 'calm');
  create table customer (id serial primary key, name varchar(40) not null);
  create table product (
    id serial primary key,
    name varchar(20) not null,
    price numeric(10, 2),
    qty integer not null default 0 constraint product_qty_check check (qty >= 0),
    active boolean not null default true,
    released_at timestamptz,
    meta jsonb,
    mood mood,
    customer_id integer references customer(id),
    notes text
  );`;

const SQLITE_DDL = `
  create table customer (id integer primary key autoincrement, name varchar(40) not null);
  create table product (
    id integer primary key autoincrement,
    name varchar(20) not null,
    price decimal(10, 2),
    qty integer not null default 0 constraint product_qty_check check (qty >= 0),
    active boolean not null default 1,
    released_at datetime,
    meta json,
    mood text check (mood in ('happy', 'sad', 'calm')),
    customer_id integer references customer(id),
    notes text
  );`;

const pad = (i: number) => String(i).padStart(2, '0');

interface Source {
  dialect: 'postgres' | 'sqlite';
  url: string;
  drop(): Promise<void>;
}

async function source(dialect: 'postgres' | 'sqlite'): Promise<Source> {
  if (dialect === 'postgres') {
    const temp: TempDatabase = await createTempDatabase('postgres');
    const c = new pg.Client({ connectionString: temp.url });
    await c.connect();
    await c.query(PG_DDL);
    await c.end();
    return { dialect, url: temp.url, drop: () => temp.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'grid-src-'));
  const file = join(dir, 'shop.db');
  const db = new Database(file);
  db.exec(SQLITE_DDL);
  db.close();
  return { dialect, url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function post(client: HttpClient, path: string, body: unknown): Promise<any> {
  const res = await client.post(path, body);
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

/** An instance, a connection to `dialect` with customers and 30 products, an editor and a viewer. */
async function stage(dialect: 'postgres' | 'sqlite') {
  const src = await source(dialect);
  const { inst, admin } = await bootWithAdmin();
  const created = await post(admin, '/api/v1/connections', { name: `Shop ${dialect}`, dialect, url: src.url });
  const conn = created.data.connection.id as string;
  await post(admin, `/api/v1/connections/${conn}/introspect`, undefined);
  await post(admin, `/api/v1/data/${conn}/customer/bulk`, {
    operations: ['Ada', 'Grace', 'Linus'].map((name) => ({ op: 'create', values: { name } })),
  });
  await post(admin, `/api/v1/data/${conn}/product/bulk`, {
    operations: Array.from({ length: 30 }, (_, k) => {
      const i = k + 1;
      return {
        op: 'create',
        values: {
          name: `Item ${pad(i)}`,
          price: `${i}.50`,
          qty: i,
          active: i % 2 === 0,
          released_at: `2026-01-${pad(Math.min(i, 28))}T10:00:00Z`,
          meta: { n: i },
          mood: ['happy', 'sad', 'calm'][i % 3],
          customer_id: i <= 4 ? 1 : i <= 6 ? 2 : null,
        },
      };
    }),
  });
  const readOnly = await post(admin, '/api/v1/connections', { name: `Shop ${dialect} (read-only)`, dialect, url: src.url, readOnly: true });
  await createUser(inst, { ...EDITOR, roles: ['editor'] });
  await createUser(inst, { ...VIEWER, roles: ['viewer'] });
  return { inst, admin, conn, src, readOnlyConn: readOnly.data.connection.id as string };
}

const cell = (page: Page, rowIndex: number, column: string) => page.locator(`[role="row"][aria-rowindex="${rowIndex + 2}"] [data-column="${column}"]`);
const rowOf = (page: Page, name: string) =>
  page.locator('[role="row"]').filter({ has: page.locator('[data-column="name"]', { hasText: new RegExp(`^${name}$`) }) });
const countText = (page: Page) => page.locator('.data-count');

for (const dialect of ['postgres', 'sqlite'] as const) {
  describe.runIf(browserAvailable())(`the grid in a real browser (${dialect})`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let conn: string;
    let readOnlyConn: string;
    let src: Source | undefined;
    let available = true;
    const { openPage, onScreen, signIn } = useDashboardBrowser(`grid-${dialect}`);
    // The screens are the same on every dialect. What the dialect changes on them (typed values,
    // a new row's key, a foreign key's refusal, the rows that refer to a row) runs on both; the
    // rest of the grid's story runs on PostgreSQL (plugins/data's tests cover each dialect's API).
    const postgresOnly = dialect === 'postgres' ? it : () => undefined;

    beforeAll(async () => {
      if (dialect === 'postgres' && !(await databaseAvailable('postgres'))) {
        available = false;
        return;
      }
      ({ inst, admin, conn, src, readOnlyConn } = await stage(dialect));
    }, 60_000);

    afterAll(async () => {
      await inst?.close();
      await src?.drop();
    });

    const gridUrl = (table: string, query = '') => `${inst.url}/connections/${conn}/tables/${table}${query}`;

    postgresOnly(
      'sorts, filters and searches with the view in the URL; edits a cell, shows the server’s refusal on it, keeps the value, saves, undoes; bulk deletes and undoes',
      async (ctx) => {
        if (!available) return ctx.skip();
        const { page, problems } = await openPage();
        await signIn(page, inst.url, EDITOR);
        await page.goto(gridUrl('product'));
        await onScreen(page, 'grid', 'Product');
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 01');
        expect(await page.getByRole('grid').getAttribute('aria-rowcount')).toBe('31');
        await countText(page).getByText('30 rows').waitFor();
        // Import and export links carry the table (and the export, the view); on a wide screen they are in the toolbar, no "More".
        expect(await page.getByRole('button', { name: msg('data.grid.more'), exact: true }).count()).toBe(0);
        expect(await page.getByRole('link', { name: msg('data.grid.import') }).getAttribute('href')).toBe(`/connections/${conn}/tables/product/import`);

        // Sort: ascending, then descending, kept in the URL.
        await page.getByRole('columnheader', { name: /^Qty/ }).getByRole('button').click();
        await expect.poll(() => new URL(page.url()).search).toBe('?sort=qty');
        await page.getByRole('columnheader', { name: /^Qty/ }).getByRole('button').click();
        await expect.poll(() => new URL(page.url()).search).toBe('?sort=-qty');
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 30');
        expect(await page.getByRole('columnheader', { name: /^Qty/ }).getAttribute('aria-sort')).toBe('descending');

        // A filter: qty at least 25.
        await page.getByRole('button', { name: msg('data.filter.add') }).click();
        await page.getByLabel(msg('data.filter.column', { n: '1' })).selectOption({ label: 'Qty' });
        await page.getByLabel(msg('data.filter.op', { n: '1' })).selectOption('gte');
        await page.getByLabel(msg('data.filter.value', { n: '1' })).fill('25');
        await page.getByRole('button', { name: msg('data.filter.apply') }).click();
        await expect.poll(() => decodeURIComponent(new URL(page.url()).search)).toBe('?sort=-qty&filter[qty][gte]=25');
        await countText(page).getByText('6 rows').waitFor();
        expect(await page.getByRole('link', { name: msg('data.grid.export') }).getAttribute('href')).toBe(
          `/connections/${conn}/tables/product/export?sort=-qty&filter[qty][gte]=25`,
        );

        // Search on top; a reload keeps the whole view.
        await page.getByLabel(msg('data.grid.search')).fill('item 2');
        await page.getByRole('button', { name: msg('data.grid.searchSubmit') }).click();
        await countText(page).getByText('5 rows').waitFor();
        await page.reload();
        await onScreen(page, 'grid-filtered', 'Product');
        await countText(page).getByText('5 rows').waitFor();
        expect(await page.getByLabel(msg('data.grid.search')).inputValue()).toBe('item 2');
        expect(await page.getByLabel(msg('data.filter.value', { n: '1' })).inputValue()).toBe('25');
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 29');

        // Every operator of the API is offered.
        const ops = await page
          .getByLabel(msg('data.filter.op', { n: '1' }))
          .locator('option')
          .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
        expect(ops).toEqual(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'null']);

        // Edit a cell with the keyboard: a name too long for varchar(20) is refused on the cell, the text stays.
        await cell(page, 0, 'name').click();
        await page.keyboard.press('ArrowDown');
        await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-cell'))).toBe('1:2');
        await page.keyboard.press('ArrowUp');
        await page.keyboard.press('Enter');
        const editor = page.getByRole('textbox', { name: 'Edit Name' });
        await editor.fill('A name far too long for it');
        await page.keyboard.press('Enter');
        const refusal = cell(page, 0, 'name').getByRole('alert');
        await refusal.waitFor();
        expect(await refusal.textContent()).toContain('20');
        expect(await cell(page, 0, 'name').getAttribute('aria-invalid')).toBe('true');
        expect(await editor.inputValue()).toBe('A name far too long for it');
        await onScreen(page, 'grid-cell-error', 'Product');

        // Fixed and saved; the toast's Undo puts the old value back.
        await editor.fill('Widget');
        await page.keyboard.press('Enter');
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Widget');
        await page
          .getByRole('status')
          .getByText(msg('data.toast.updated', { column: 'Name' }))
          .waitFor();
        await page.getByRole('button', { name: msg('data.toast.undo') }).click();
        await page.getByRole('status').getByText(msg('data.toast.undone')).waitFor();
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 29');

        // Escape cancels an edit.
        await cell(page, 0, 'qty').dblclick();
        await page.getByRole('textbox', { name: 'Edit Qty' }).fill('99');
        await page.keyboard.press('Escape');
        await expect.poll(() => page.getByRole('textbox', { name: 'Edit Qty' }).count()).toBe(0);
        expect(await cell(page, 0, 'qty').textContent()).toBe('29');

        // Bulk delete of a selection, and its undo.
        const first = await page.locator('[role="row"][aria-rowindex="2"]').getAttribute('data-record');
        const second = await page.locator('[role="row"][aria-rowindex="3"]').getAttribute('data-record');
        await page.getByLabel(msg('data.grid.selectRow', { id: first! }), { exact: true }).check();
        await page.getByLabel(msg('data.grid.selectRow', { id: second! }), { exact: true }).check();
        await page.getByRole('button', { name: msg('data.selection.delete') }).click();
        await countText(page).getByText('3 rows').waitFor();
        await page.getByRole('status').getByText('2 rows deleted.').waitFor();
        await page.getByRole('button', { name: msg('data.toast.undo') }).click();
        await countText(page).getByText('5 rows').waitFor();
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 29');
        expectNoProblems(problems, [400]);
      },
    );

    it('edits typed values: a foreign key picked by its display column, a boolean, JSON, a timestamp with its zone, an enum', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, EDITOR);
      await page.goto(gridUrl('product', '?sort=id'));
      await onScreen(page, 'grid', 'Product');
      await expect.poll(() => cell(page, 9, 'name').textContent()).toBe('Item 10');
      const row = rowOf(page, 'Item 10');

      await row.locator('[data-column="customer_id"]').dblclick();
      await page.getByRole('combobox', { name: 'Search Customer' }).fill('Gra');
      await page.getByRole('option', { name: /Grace/ }).click();
      expect(await page.getByRole('textbox', { name: 'Edit Customer id' }).inputValue()).toBe('2');
      await page.getByRole('button', { name: msg('data.edit.save') }).click();
      // The key is shown by the customer's name (its first text column), fetched for the page of rows.
      await expect.poll(() => row.locator('[data-column="customer_id"]').textContent()).toBe('Grace');

      await row.locator('[data-column="active"]').dblclick();
      await page.getByRole('combobox', { name: 'Edit Active' }).selectOption('false');
      await page.getByRole('button', { name: msg('data.edit.save') }).click();
      await expect.poll(() => row.locator('[data-column="active"]').textContent()).toBe(`✕ ${msg('value.no')}`);

      await row.locator('[data-column="meta"]').dblclick();
      const json = page.getByRole('textbox', { name: 'Edit Meta' });
      await json.fill('{"n": 10, "tags": [');
      await page.getByRole('button', { name: msg('data.edit.save') }).click();
      await row.locator('[data-column="meta"]').getByText(msg('data.edit.badJson')).waitFor();
      await json.fill('{"n": 10, "tags": ["x"]}');
      await page.getByRole('button', { name: msg('data.edit.save') }).click();
      await expect.poll(() => row.locator('[data-column="meta"] code').textContent()).toBe('{"n":10,"tags":["x"]}');

      await row.locator('[data-column="mood"]').dblclick();
      await page.getByRole('combobox', { name: 'Edit Mood' }).selectOption('calm');
      await page.getByRole('button', { name: msg('data.edit.save') }).click();
      await expect.poll(() => row.locator('[data-column="mood"]').textContent()).toBe('calm');

      if (dialect === 'postgres') {
        // 12:30 at +02:00 is stored as 10:30 UTC.
        await row.locator('[data-column="released_at"]').dblclick();
        await row.locator('input[type="datetime-local"]').fill('2026-03-01T12:30:00');
        await page.getByRole('combobox', { name: msg('data.edit.zone', { column: 'Edit Released at' }) }).selectOption('+02:00');
        await row.locator('input[type="datetime-local"]').fill('2026-03-01T12:30:00');
        await page.getByRole('button', { name: msg('data.edit.save') }).click();
        // Shown in the person's zone; the exact stored value is its title (set when the pointer comes to it).
        await row.locator('[data-column="released_at"]').hover();
        await expect.poll(() => row.locator('[data-column="released_at"]').getAttribute('title')).toBe('2026-03-01T10:30:00Z');
      }
      expectNoProblems(problems);
    });

    it('shows a row with the rows that refer to it, and saves a change there', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, EDITOR);
      await page.goto(`${inst.url}/connections/${conn}/tables/customer/rows/1`);
      await onScreen(page, 'row', msg('data.row.heading', { table: 'Customer', id: '1' }));
      const ref = page.getByTestId('reference');
      await ref.getByText(/4 rows of Product \(customer_id\)/).waitFor();
      expect(await ref.getByRole('link').count()).toBe(5);
      await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
      await page.getByRole('button', { name: msg('data.row.save') }).click();
      await page.getByRole('status').getByText(msg('data.toast.saved')).waitFor();
      // The references link to the referring rows of the grid, filtered.
      await ref.getByRole('link').first().click();
      await onScreen(page, 'grid-referring', 'Product');
      await countText(page).getByText('4 rows').waitFor();
      expect(decodeURIComponent(new URL(page.url()).search)).toBe('?filter[customer_id][eq]=1');
      // A referring row links back to the row it refers to.
      const id = await page.locator('[role="row"][aria-rowindex="2"]').getAttribute('data-record');
      await page.getByRole('link', { name: msg('data.grid.openRow', { id: id! }) }).click();
      await onScreen(page, 'row-product', msg('data.row.heading', { table: 'Product', id: id! }));
      await page.getByRole('link', { name: msg('data.refs.outNamed', { column: 'Customer id', table: 'Customer', name: 'Ada Lovelace', id: '1' }) }).click();
      await onScreen(page, 'row-customer', msg('data.row.heading', { table: 'Customer', id: '1' }));
      expectNoProblems(problems);
    });

    it('creates a row, duplicates and bulk-edits a selection, each with its undo', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, EDITOR);
      await page.goto(gridUrl('product', '?sort=id'));
      await onScreen(page, 'grid', 'Product');
      await countText(page).getByText('30 rows').waitFor();

      await page.getByRole('button', { name: msg('data.grid.newRow') }).click();
      const form = page.getByRole('region', { name: msg('data.create.title') });
      await form.getByLabel('Name', { exact: true }).fill('Brand new');
      await form.getByLabel('Qty', { exact: true }).fill('7');
      await onScreen(page, 'grid-create', 'Product');
      await form.getByRole('button', { name: msg('data.create.submit') }).click();
      await page.getByRole('status').getByText(msg('data.toast.created')).waitFor();
      await countText(page).getByText('31 rows').waitFor();
      await page.getByRole('button', { name: msg('data.toast.undo') }).click();
      await countText(page).getByText('30 rows').waitFor();

      const ids = await Promise.all([2, 3].map((i) => page.locator(`[role="row"][aria-rowindex="${i}"]`).getAttribute('data-record')));
      for (const id of ids) await page.getByLabel(msg('data.grid.selectRow', { id: id! }), { exact: true }).check();
      await page.getByRole('button', { name: msg('data.selection.edit') }).click();
      const bulkForm = page.getByRole('region', { name: 'Edit 2 rows' });
      await bulkForm.getByLabel(msg('data.bulk.column')).selectOption({ label: 'Qty' });
      await bulkForm.getByRole('textbox', { name: msg('data.bulk.value') }).fill('555');
      await onScreen(page, 'grid-bulk-edit', 'Product');
      await bulkForm.getByRole('button', { name: 'Update 2 rows' }).click();
      await page.getByRole('status').getByText('2 rows updated.').waitFor();
      await expect.poll(() => cell(page, 0, 'qty').textContent()).toBe('555');
      expect(await cell(page, 1, 'qty').textContent()).toBe('555');
      await page.getByRole('button', { name: msg('data.toast.undo') }).click();
      await page.getByRole('status').getByText(msg('data.toast.undone')).waitFor();
      await expect.poll(() => cell(page, 0, 'qty').textContent()).toBe('1');

      await page.getByRole('button', { name: msg('data.selection.duplicate') }).click();
      await page.getByRole('status').getByText('2 rows duplicated.').waitFor();
      await countText(page).getByText('32 rows').waitFor();
      await page.getByRole('button', { name: msg('data.toast.undo') }).click();
      await countText(page).getByText('30 rows').waitFor();
      expectNoProblems(problems);
    });

    postgresOnly(
      'asks for each view’s first page once; Enter saves and Shift+Enter adds a line; Ctrl+Z undoes; a refusal names its constraint; focus stays on the grid after a bulk delete (1440 px)',
      async (ctx) => {
        if (!available) return ctx.skip();
        const { page, problems, requested } = await openPage({ viewport: { width: 1440, height: 900 } });
        await signIn(page, inst.url, EDITOR);
        /** The first pages (limit=100, no cursor) of the product table asked for since `from`, whose query has `part`. */
        const firstPages = (from: number, part: string) =>
          requested
            .slice(from)
            .map((u) => decodeURIComponent(u))
            .filter((u) => u.includes(`/api/v1/data/${conn}/product?`) && u.includes('limit=100') && !u.includes('cursor=') && u.includes(part));
        let mark = requested.length;
        await page.goto(gridUrl('product', '?sort=id'));
        await onScreen(page, 'grid-1440', 'Product');
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 01');
        expect(firstPages(mark, 'sort=id')).toHaveLength(1);
        // A sort and a search: one first page each.
        mark = requested.length;
        await page.getByRole('columnheader', { name: /^Qty/ }).getByRole('button').click();
        await expect.poll(() => new URL(page.url()).search).toBe('?sort=qty');
        await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 01');
        expect(firstPages(mark, 'sort=qty')).toHaveLength(1);
        mark = requested.length;
        await page.getByLabel(msg('data.grid.search')).fill('item 1');
        await page.getByRole('button', { name: msg('data.grid.searchSubmit') }).click();
        await countText(page).getByText('10 rows').waitFor();
        expect(firstPages(mark, 'search=item 1')).toHaveLength(1);
        // The position indicator counts from the first row in view.
        await page.getByText('Row 1 of 10', { exact: true }).waitFor();
        expect(await page.locator('.data-help').textContent()).toBe(msg('data.grid.keysHelp'));

        // Text: Shift+Enter is a new line, Enter saves (no trailing newline).
        const row = rowOf(page, 'Item 10');
        const id = await row.getAttribute('data-record');
        await row.locator('[data-column="notes"]').dblclick();
        const notes = page.getByRole('textbox', { name: 'Edit Notes' });
        await notes.pressSequentially('first line');
        await page.keyboard.press('Shift+Enter');
        await notes.pressSequentially('second line');
        await page.keyboard.press('Enter');
        await page
          .getByRole('status')
          .getByText(msg('data.toast.updated', { column: 'Notes' }))
          .waitFor();
        const stored = async () => (await admin.get(`/api/v1/data/${conn}/product/${id}`)).body.data.row.notes;
        expect(await stored()).toBe('first line\nsecond line');
        // The focus is back on the cell: Ctrl+Z undoes the write (the toast's Undo is not needed).
        await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-column'))).toBe('notes');
        await page.keyboard.press('Control+z');
        await page.getByRole('status').getByText(msg('data.toast.undone')).waitFor();
        await expect.poll(stored).toBe(null);

        // Scrolled sideways, the selection and key columns stay at the left (frozen).
        await page.getByRole('grid').evaluate((el) => {
          el.scrollLeft = el.scrollWidth;
        });
        const [selectBox, keyBox, gridBox] = await Promise.all([
          row.locator('[aria-colindex="1"]').boundingBox(),
          row.locator('[data-column="id"]').boundingBox(),
          page.getByRole('grid').boundingBox(),
        ]);
        expect(Math.abs(selectBox!.x - gridBox!.x)).toBeLessThan(3);
        expect(Math.abs(keyBox!.x - (selectBox!.x + selectBox!.width))).toBeLessThan(3);
        await page.getByRole('grid').evaluate((el) => {
          el.scrollLeft = 0;
        });

        // A CHECK constraint's refusal names it.
        await row.locator('[data-column="qty"]').dblclick();
        await page.getByRole('textbox', { name: 'Edit Qty' }).fill('-5');
        await page.keyboard.press('Enter');
        const refusal = row.locator('[data-column="qty"]').getByRole('alert');
        await refusal.waitFor();
        expect(await refusal.textContent()).toBe(msg('data.refused.check', { constraint: 'product_qty_check' }));
        await onScreen(page, 'grid-refused-1440', 'Product');
        await page.keyboard.press('Escape');

        // A bulk delete leaves the focus on the grid, not on <body>; Ctrl+Z brings the rows back.
        const ids = await Promise.all([2, 3].map((i) => page.locator(`[role="row"][aria-rowindex="${i}"]`).getAttribute('data-record')));
        for (const rid of ids) await page.getByLabel(msg('data.grid.selectRow', { id: rid! }), { exact: true }).check();
        await page.getByRole('button', { name: msg('data.selection.delete') }).click();
        await countText(page).getByText('8 rows').waitFor();
        await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[role="grid"]'))).toBe(true);
        await page.keyboard.press('Control+z');
        await countText(page).getByText('10 rows').waitFor();
        expectNoProblems(problems, [400]);
      },
    );

    postgresOnly('keeps the cell editor inside the grid and offers the position and go-to-row at 390 px', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage({ viewport: { width: 390, height: 844 } });
      await signIn(page, inst.url, EDITOR);
      await page.goto(gridUrl('product', '?sort=id'));
      await onScreen(page, 'grid-390', 'Product');
      await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 01');
      await page.getByText('Row 1 of 30', { exact: true }).waitFor();
      // The links to the table's other screens are behind one "More" menu: the toolbar keeps to two lines.
      const main = page.locator('#main');
      expect(await main.getByRole('link', { name: msg('data.grid.export') }).count()).toBe(0);
      const toolbar = (await page.locator('.data-toolbar').boundingBox())!;
      const line = (await page.getByRole('button', { name: msg('data.grid.more'), exact: true }).boundingBox())!.height;
      expect(toolbar.height).toBeLessThan(2 * line + 24);
      await page.getByRole('button', { name: msg('data.grid.more'), exact: true }).click();
      const more = page.getByRole('menu');
      await more.waitFor();
      await onScreen(page, 'grid-more-390', 'Product');
      expect(await more.getByRole('menuitem', { name: msg('data.grid.import') }).getAttribute('href')).toBe(`/connections/${conn}/tables/product/import`);
      await more.getByRole('menuitem', { name: msg('data.grid.export') }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/connections/${conn}/tables/product/export`);
      expect(new URL(page.url()).search).toBe('?sort=id');
      await page.goBack();
      await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('Item 01');
      await page.getByLabel(msg('data.grid.goToLabel')).fill('25');
      await page.getByRole('button', { name: msg('data.grid.goToSubmit') }).click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[role="row"]')?.getAttribute('aria-rowindex'))).toBe('26');
      // As far down as the rows go: row 25 at the top, or the last rows in view.
      await page.getByText(/^Row ([2-9]|[12]\d) of 30$/).waitFor();
      // The last column's editor, opened from a cell at the grid's right edge, stays within the grid's box.
      await page.getByRole('grid').evaluate((el) => {
        el.scrollLeft = el.scrollWidth;
      });
      // Scrolled sideways, the selection column stays at the left (frozen); the key column does not on a grid this narrow.
      const [selectBox, gridBox] = await Promise.all([
        page.locator('[role="row"][aria-rowindex="26"] [aria-colindex="1"]').boundingBox(),
        page.getByRole('grid').boundingBox(),
      ]);
      expect(Math.abs(selectBox!.x - gridBox!.x)).toBeLessThan(3);
      await cell(page, 24, 'notes').dblclick();
      const editor = page.getByRole('group', { name: 'Edit Notes' });
      await editor.waitFor();
      await onScreen(page, 'grid-editor-390', 'Product');
      const [box, grid] = await Promise.all([editor.boundingBox(), page.getByRole('grid').boundingBox()]);
      expect(box!.x).toBeGreaterThanOrEqual(grid!.x);
      expect(box!.x + box!.width).toBeLessThanOrEqual(grid!.x + grid!.width);
      await page.keyboard.press('Escape');
      expectNoProblems(problems);
    });

    // Defined for PostgreSQL only (the long table is filled there); not a skipped test on SQLite.
    postgresOnly('jumps far down a long table without loading what lies between', async (ctx) => {
      if (!available) return ctx.skip();
      const c = new pg.Client({ connectionString: src!.url });
      await c.connect();
      await c.query(
        `create table big (id serial primary key, name text not null); insert into big (name) select 'big ' || g from generate_series(1, 50000) g; analyze big`,
      );
      await c.end();
      await post(admin, `/api/v1/connections/${conn}/introspect`, undefined);
      const { page, problems, requested } = await openPage();
      await signIn(page, inst.url, EDITOR);
      await page.goto(gridUrl('big'));
      await onScreen(page, 'grid-big', 'Big');
      await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('big 1');
      const height = await page.locator('[role="row"][aria-rowindex="2"]').evaluate((el) => el.getBoundingClientRect().height);

      // Scrolled past a few blocks of rows: the rows that left the top are drawn again below, the
      // same elements in the same places of the DOM (none moved), shown in the order of their
      // rows, which is also the order assistive technology reads them in (DB57).
      const body = page.locator('.data-body');
      await body.evaluate((el) => {
        (window as unknown as { drawnRows: Element[] }).drawnRows = [...el.querySelectorAll('[role="row"]')];
      });
      for (const top of [20, 40]) {
        await page.getByRole('grid').evaluate((el, px) => {
          el.scrollTop = px;
        }, top * height);
        await expect.poll(() => cell(page, top, 'name').textContent()).toBe(`big ${top + 1}`);
      }
      const drawn = await body.evaluate((el) => {
        const before = (window as unknown as { drawnRows: Element[] }).drawnRows;
        const now = [...el.querySelectorAll('[role="row"]')];
        const byPlace = [...now].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top);
        return {
          same: now.length === before.length && now.every((row, i) => row === before[i]),
          shown: byPlace.map((row) => Number(row.getAttribute('aria-rowindex'))),
          inDom: now.map((row) => Number(row.getAttribute('aria-rowindex'))),
        };
      });
      expect(drawn.same).toBe(true);
      expect(drawn.shown).toEqual(drawn.shown.map((_, i) => drawn.shown[0]! + i));
      expect(drawn.shown[0]).toBeLessThanOrEqual(42);
      // Not a test of the DOM's order (rows in slot order), but proof that this case reorders the rows.
      expect(drawn.inDom).not.toEqual(drawn.shown);
      const read = await readingOrder(page, '.data-body');
      expect(read.length).toBe(drawn.shown.length);
      expect(read).toEqual(drawn.shown);
      await page.getByRole('grid').evaluate((el) => {
        el.scrollTop = 0;
      });
      await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('big 1');
      const before = requested.length;
      await page.getByRole('grid').evaluate((el, top) => {
        el.scrollTop = top;
      }, 40_000 * height);
      await expect.poll(() => cell(page, 40_000, 'name').textContent()).toBe('big 40001');
      const reads = requested.slice(before).filter((u) => u.includes('/api/v1/data/'));
      // The last row once, then the page there: never the 40,000 rows before it, never an offset.
      expect(reads.length).toBeLessThanOrEqual(3);
      expect(reads.some((u) => decodeURIComponent(u).includes('filter[id][gte]='))).toBe(true);
      expect(await page.locator('[role="row"]').count()).toBeLessThan(60);
      // Keyboard: Ctrl+End and Ctrl+Home reach both ends.
      await cell(page, 40_000, 'name').click();
      await page.keyboard.press('Control+Home');
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-cell'))).toBe('0:0');
      await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('big 1');
      expectNoProblems(problems);
    });

    postgresOnly(
      'shows the position in a long table, goes to a row, has the rows ahead of the scroll loaded, and cancels a slow search in the browser and the database',
      async (ctx) => {
        if (!available) return ctx.skip();
        const c = new pg.Client({ connectionString: src!.url });
        await c.connect();
        await c.query(
          `create table long (id serial primary key, name text not null); insert into long (name) select 'long ' || g from generate_series(1, 5000) g; analyze long`,
        );
        // Every row read through the view waits 10 ms (plpgsql is never inlined): a search over it runs for most of a minute.
        await c.query(`create function slow_text(t text) returns text language plpgsql immutable as $$ begin perform pg_sleep(0.01); return t; end $$`);
        await c.query(`create view slow_long as select id, slow_text(name) as name from long`);
        await post(admin, `/api/v1/connections/${conn}/introspect`, undefined);
        const running = async () =>
          (
            await c.query(
              `select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and query ilike '%slow_long%' and pid <> pg_backend_pid()`,
            )
          ).rows[0].n as number;
        try {
          // At 1440 px: the position and go-to-row at 390 px are the story above's.
          const viewport = WIDE;
          const { page, problems, requested } = await openPage({ viewport });
          await signIn(page, inst.url, EDITOR);
          await page.goto(gridUrl('long'));
          await onScreen(page, `grid-long-${viewport.width}`, 'Long');
          await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('long 1');
          await page.getByText('Row 1 of 5,000', { exact: true }).waitFor();

          // Go to row 4,000: it is drawn, named in the indicator, and holds the focus.
          await page.getByLabel(msg('data.grid.goToLabel')).fill('4000');
          await page.getByRole('button', { name: msg('data.grid.goToSubmit') }).click();
          await expect.poll(() => cell(page, 3999, 'name').textContent()).toBe('long 4000');
          await page.getByText('Row 4,000 of 5,000', { exact: true }).waitFor();
          await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[role="row"]')?.getAttribute('aria-rowindex'))).toBe('4001');

          // Scrolling down from the top loads the rows ahead: with the data API held, rows 100 further are there already.
          await page.getByRole('grid').evaluate((el) => {
            el.scrollTop = 0;
          });
          await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('long 1');
          const height = await page.locator('[role="row"][aria-rowindex="2"]').evaluate((el) => el.getBoundingClientRect().height);
          await page.getByRole('grid').evaluate((el, top) => {
            el.scrollTop = top;
          }, 150 * height);
          await expect.poll(() => cell(page, 150, 'name').textContent()).toBe('long 151');
          const settled = requested.length;
          await expect
            .poll(async () => {
              const n = requested.length;
              await page.waitForTimeout(300);
              return requested.length === n;
            })
            .toBe(true);
          const held: Route[] = [];
          await page.route('**/api/v1/data/**', (route) => void held.push(route));
          await page.getByRole('grid').evaluate((el, top) => {
            el.scrollTop = top;
          }, 250 * height);
          await expect.poll(() => cell(page, 250, 'name').textContent()).toBe('long 251');
          expect(await page.locator('[role="row"][aria-rowindex="252"]').getAttribute('aria-busy')).toBe(null);
          for (const route of held) await route.continue();
          await page.unrouteAll();
          expect(settled).toBeGreaterThan(0);

          // A slow search shows that it runs and can be cancelled: the request is aborted, the statement cancelled, the rows before it back.
          await page.goto(gridUrl('slow_long', '?sort=id'));
          await onScreen(page, `grid-slow-${viewport.width}`, 'Slow long');
          await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('long 1');
          await page.getByLabel(msg('data.grid.search')).fill('nowhere');
          await page.getByRole('button', { name: msg('data.grid.searchSubmit') }).click();
          const status = page.getByRole('status').filter({ hasText: msg('data.grid.searching') });
          await status.waitFor();
          await expect.poll(running, { timeout: 15_000 }).toBe(1);
          await onScreen(page, `grid-searching-${viewport.width}`, 'Slow long');
          await status.getByRole('button', { name: msg('data.grid.searchCancel') }).click();
          await page.getByRole('status').getByText(msg('data.grid.searchCancelled')).waitFor();
          await expect.poll(() => new URL(page.url()).search).toBe('?sort=id');
          await expect.poll(() => cell(page, 0, 'name').textContent()).toBe('long 1');
          await expect.poll(running).toBe(0);
          expect(await page.getByLabel(msg('data.grid.search')).inputValue()).toBe('');
          expectNoProblems(problems);
        } finally {
          await c.end();
        }
      },
    );

    postgresOnly('lists the connections and their tables in the navigation while working there; a table there opens its grid', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, EDITOR);
      const nav = page.getByRole('navigation', { name: msg('nav.label') });
      // Elsewhere the navigation asks for no connection.
      expect(await nav.getByText(`Shop ${dialect}`, { exact: true }).count()).toBe(0);
      await nav.getByRole('link', { name: msg('nav.connections'), exact: true }).click();
      await onScreen(page, 'connections', msg('connections.title'));
      const shop = nav.locator('details').filter({ has: page.getByText(`Shop ${dialect}`, { exact: true }) });
      await shop.locator('summary').click();
      await nav.getByRole('link', { name: 'Product', exact: true }).click();
      await onScreen(page, 'grid-from-nav', 'Product');
      expect(new URL(page.url()).pathname).toBe(`/connections/${conn}/tables/product`);
      expect(await nav.getByRole('link', { name: 'Product', exact: true }).getAttribute('aria-current')).toBe('page');
      expect(await nav.getByRole('link', { name: msg('nav.connections'), exact: true }).getAttribute('aria-current')).toBe('location');
      expectNoProblems(problems);
    });

    postgresOnly('offers a viewer no edit control', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, VIEWER);
      await page.goto(gridUrl('product'));
      await onScreen(page, 'grid-viewer', 'Product');
      await expect.poll(() => cell(page, 0, 'name').textContent()).not.toBe('');
      expect(await page.getByRole('button', { name: msg('data.grid.newRow') }).count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await page.getByRole('grid').getAttribute('aria-readonly')).toBe('true');
      await cell(page, 0, 'name').dblclick();
      await cell(page, 0, 'name').press('Enter');
      expect(await page.locator('.data-cell-editor').count()).toBe(0);
      await page.goto(`${inst.url}/connections/${conn}/tables/customer/rows/2`);
      await onScreen(page, 'row-viewer', msg('data.row.heading', { table: 'Customer', id: '2' }));
      expect(await page.getByRole('button', { name: msg('data.row.save') }).count()).toBe(0);
      expect(await page.getByRole('button', { name: msg('data.row.delete') }).count()).toBe(0);
      expectNoProblems(problems);
    });

    postgresOnly('offers an editor no edit control on a read-only connection', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, EDITOR);
      await page.goto(`${inst.url}/connections/${readOnlyConn}/tables/product`);
      await onScreen(page, 'grid-read-only', 'Product');
      await expect.poll(() => cell(page, 0, 'name').textContent()).not.toBe('');
      expect(await page.getByRole('button', { name: msg('data.grid.newRow') }).count()).toBe(0);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      await cell(page, 0, 'name').dblclick();
      expect(await page.locator('.data-cell-editor').count()).toBe(0);
      expectNoProblems(problems);
    });

    it('names the foreign key that refuses a bulk delete', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage({ viewport: { width: 1440, height: 900 } });
      await signIn(page, inst.url, EDITOR);
      await page.goto(gridUrl('customer', '?sort=id'));
      await onScreen(page, 'grid-customer', 'Customer');
      await expect.poll(() => cell(page, 0, 'name').textContent()).not.toBe('');
      const id = await page.locator('[role="row"][aria-rowindex="2"]').getAttribute('data-record');
      await page.getByLabel(msg('data.grid.selectRow', { id: id! }), { exact: true }).check();
      await page.getByRole('button', { name: msg('data.selection.delete') }).click();
      // PostgreSQL names the constraint; SQLite's refusal names none.
      const expected =
        dialect === 'postgres' ? msg('data.refused.foreignKey', { constraint: 'product_customer_id_fkey' }) : msg('data.refused.foreignKeyUnnamed');
      await page.getByRole('status').getByText(expected, { exact: true }).waitFor();
      await onScreen(page, 'grid-delete-refused', 'Customer');
      expectNoProblems(problems, [409]);
    });

    postgresOnly('shows a row another client changed', async (ctx) => {
      if (!available) return ctx.skip();
      const { page, problems } = await openPage();
      await signIn(page, inst.url, EDITOR);
      await page.goto(gridUrl('product', '?sort=id'));
      await onScreen(page, 'grid', 'Product');
      await expect.poll(() => cell(page, 2, 'name').textContent()).toBe('Item 03');
      const id = await page.locator('[role="row"][aria-rowindex="4"]').getAttribute('data-record');
      const res = await admin.patch(`/api/v1/data/${conn}/product/${id}`, { values: { name: 'Changed elsewhere' } });
      expect(res.status, res.text).toBe(200);
      // The live channel (data.changed) refreshes the row; without it, coming back to the tab does.
      // Each look that does not yet show the change also sends the tab a focus, so the outcome
      // does not depend on how long the live channel takes on a loaded machine.
      await expect
        .poll(
          async () => {
            const text = await cell(page, 2, 'name').textContent();
            if (text !== 'Changed elsewhere') await page.evaluate(() => window.dispatchEvent(new Event('focus')));
            return text;
          },
          { timeout: 15_000, interval: 500 },
        )
        .toBe('Changed elsewhere');
      expectNoProblems(problems);
    });
  });
}

/**
 * The rows of the rowgroup matched by `selector` in the order Chromium's accessibility tree holds
 * them (what a screen reader reads), by their `aria-rowindex`.
 */
async function readingOrder(page: Page, selector: string): Promise<number[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.getDocument', { depth: 0 });
    const { result: found } = await cdp.send('Runtime.evaluate', { expression: `document.querySelector(${JSON.stringify(selector)})` });
    const { node } = await cdp.send('DOM.describeNode', { objectId: found.objectId! });
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const group = nodes.find((n) => n.backendDOMNodeId === node.backendNodeId);
    if (!group) throw new Error(`${selector} is not in the accessibility tree`);
    const rows: number[] = [];
    const walk = (id: string) => {
      const n = byId.get(id);
      if (!n) return;
      if (n.role?.value === 'row' && n.backendDOMNodeId !== undefined) rows.push(n.backendDOMNodeId);
      else for (const child of n.childIds ?? []) walk(child);
    };
    for (const child of group.childIds ?? []) walk(child);
    const order: number[] = [];
    for (const backendNodeId of rows) {
      const { object: row } = await cdp.send('DOM.resolveNode', { backendNodeId });
      const { result } = await cdp.send('Runtime.callFunctionOn', {
        objectId: row.objectId!,
        functionDeclaration: 'function () { return this.getAttribute("aria-rowindex"); }',
        returnByValue: true,
      });
      order.push(Number(result.value));
    }
    return order;
  } finally {
    await cdp.detach();
  }
}
