import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser, atWidth, PHONE, WIDE } from './harness.js';

/** The orders of the SQLite table the widgets read: 7 rows, 4 paid, 2 open, 1 void, over three days. */
const ORDERS: Array<[status: string, amount: number, createdAt: string]> = [
  ['paid', 10, '2026-03-01 12:00:00'],
  ['paid', 20, '2026-03-01 12:30:00'],
  ['open', 5, '2026-03-01 13:00:00'],
  ['paid', 7, '2026-03-02 12:00:00'],
  ['void', 1, '2026-03-02 12:10:00'],
  ['paid', 3, '2026-03-03 11:00:00'],
  ['open', 9, '2026-03-03 12:00:00'],
];

/** The groups of the "By status" widget once its filter leaves out the void orders. */
const GROUPS = [
  ['paid', '4'],
  ['open', '2'],
];

const VIEWER = { email: 'dash-viewer@example.com', name: 'Dee Viewer', password: 'viewer-password-1' };

describe.runIf(browserAvailable())('dashboards in a real browser', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let dir: string;
  let file: string;
  let conn: string;
  const { openPage, onScreen, signIn } = useDashboardBrowser('dashboards');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dashboards-src-'));
    file = join(dir, 'shop.db');
    const db = new Database(file);
    db.exec(`create table orders (id integer primary key autoincrement, status varchar(20) not null, amount integer not null, created_at datetime not null);`);
    const insert = db.prepare('insert into orders (status, amount, created_at) values (?, ?, ?)');
    for (const row of ORDERS) insert.run(...row);
    // One table per viewport that a test drops under a saved widget (its query then fails at the database).
    db.exec(`create table refund_1440 (id integer primary key); create table refund_390 (id integer primary key);`);
    db.close();
    const boot = await bootWithAdmin();
    inst = boot.inst;
    admin = boot.admin;
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: `sqlite:${file}` });
    conn = (created.body as any).data.connection.id as string;
    await admin.post(`/api/v1/connections/${conn}/introspect`, undefined);
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The page's stored shared layout, through the API. */
  async function storedLayout(pageId: string): Promise<{ version: number; widgets: any[] }> {
    const res = await admin.get(`/api/v1/pages/${pageId}`);
    return (res.body as any).data.page.layout;
  }

  /** Adds a widget through the editor dialog, as a person would. */
  async function addWidget(page: Page, w: number, name: string, fill: (dialog: ReturnType<Page['getByRole']>) => Promise<void>) {
    const dialog = page.getByRole('dialog', { name: msg('dashboards.editor.addTitle') });
    await dialog.waitFor();
    await dialog.getByLabel(msg('dashboards.field.title')).fill(name);
    await dialog.getByLabel(msg('dashboards.field.connection')).selectOption({ label: 'Shop' });
    await expect.poll(() => dialog.getByLabel(msg('dashboards.field.table')).locator('option').count()).toBeGreaterThan(1);
    await dialog.getByLabel(msg('dashboards.field.table')).selectOption({ label: 'Orders' });
    await fill(dialog);
    await onScreen(page, `editor-${name}-${w}`, new RegExp(`Sales ${w}`));
    await shot(page, `editor-${name}-${w}`);
    await dialog.getByRole('button', { name: msg('dashboards.editor.apply') }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('listitem', { name }).waitFor();
  }

  /** A screenshot of a state no heading names (the editor open, edit mode), to look at with SHOW_SCREENS=1. */
  const shot = async (page: Page, name: string) => {
    if (process.env.SHOW_SCREENS === '1') await page.screenshot({ path: join(process.cwd(), 'test-results', 'dashboards', `${name}.png`), fullPage: true });
  };
  const widget = (page: Page, name: string) => page.getByRole('listitem', { name });
  /** The values a chart's text alternative (its table) lists, as [label, value] rows. */
  const values = (page: Page, name: string) =>
    widget(page, name)
      .getByTestId('widget-values')
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]));

  atWidth(WIDE, (viewport) => {
    it(`an editor builds a dashboard of three widgets over a SQLite table, moves one with the keyboard, and a broken widget shows its own error (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const created = await admin.post('/api/v1/pages', { title: `Sales ${w}`, kind: 'dashboard' });
      expect(created.status).toBe(201);
      const pageId = (created.body as any).data.page.id as string;
      expect((await admin.patch(`/api/v1/pages/${pageId}/config`, { refreshSeconds: 300 })).status).toBe(200);

      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/p/sales-${w}`);
      await onScreen(page, `empty-${w}`, exactly(`Sales ${w}`));
      await page.getByText(msg('dashboards.empty')).waitFor();

      // Three widgets through the editor: a count, a bar by group, a line by day.
      await page.getByRole('button', { name: msg('dashboards.addFirst') }).click();
      await addWidget(page, w, 'Orders', async (dialog) => {
        await dialog.getByLabel(msg('dashboards.field.viz')).selectOption('number');
        await dialog.getByLabel(msg('dashboards.field.op')).selectOption('count');
      });
      await page.getByRole('button', { name: msg('dashboards.add') }).click();
      await addWidget(page, w, 'By status', async (dialog) => {
        await dialog.getByLabel(msg('dashboards.field.viz')).selectOption('bar');
        await dialog.getByLabel(msg('dashboards.field.groupColumn')).selectOption('status');
      });
      await page.getByRole('button', { name: msg('dashboards.add') }).click();
      await addWidget(page, w, 'Per day', async (dialog) => {
        await dialog.getByLabel(msg('dashboards.field.viz')).selectOption('line');
        // A sum of text is refused by the server, in the dialog, at its field.
        await dialog.getByLabel(msg('dashboards.field.op')).selectOption('sum');
        await dialog.getByLabel(msg('dashboards.field.column')).selectOption('status');
        await dialog.getByRole('button', { name: msg('dashboards.editor.apply') }).click();
        await expect.poll(() => dialog.getByLabel(msg('dashboards.field.column')).getAttribute('aria-invalid')).toBe('true');
        await dialog.getByRole('alert').waitFor();
        await dialog.getByLabel(msg('dashboards.field.column')).selectOption('amount');
        await dialog.getByLabel(msg('dashboards.field.bucketColumn')).selectOption('created_at');
        await dialog.getByLabel(msg('dashboards.field.unit')).selectOption('day');
        // The browser's own zone is the default.
        expect(await dialog.getByLabel(msg('dashboards.field.timeZone')).inputValue()).toBe(
          await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone),
        );
        await dialog.getByLabel(msg('dashboards.field.timeZone')).fill('UTC');
      });
      await onScreen(page, `editing-${w}`, exactly(`Sales ${w}`));
      await shot(page, `editing-${w}`);
      await page.getByRole('button', { name: msg('dashboards.save') }).click();
      await page.getByRole('button', { name: msg('dashboards.edit') }).waitFor();

      // The numbers equal the data.
      await expect.poll(() => widget(page, 'Orders').getByTestId('widget-number').textContent()).toBe('7');
      await expect
        .poll(() => values(page, 'By status'))
        .toEqual([
          ['paid', '4'],
          ['open', '2'],
          ['void', '1'],
        ]);
      await expect.poll(async () => (await values(page, 'Per day')).map((r) => r[1])).toEqual(['35', '8', '12']);
      await page.getByText(msg('dashboards.autoRefresh', { seconds: '300' }), { exact: false }).waitFor();
      await onScreen(page, `numbers-${w}`, exactly(`Sales ${w}`));
      await shot(page, `numbers-${w}`);

      // Edit a widget: the editor opens with its query; a filter (the data API's grammar) leaves out the void orders.
      await page.getByRole('button', { name: msg('dashboards.edit') }).click();
      await page.getByRole('button', { name: msg('dashboards.editOne', { title: 'By status' }) }).click();
      const edit = page.getByRole('dialog', { name: msg('dashboards.editor.editTitle') });
      expect(await edit.getByLabel(msg('dashboards.field.groupColumn')).inputValue()).toBe('status');
      await edit.getByRole('button', { name: msg('dashboards.filter.add') }).click();
      await edit.getByLabel(msg('dashboards.field.filterColumn'), { exact: true }).selectOption('status');
      await edit.getByLabel(msg('dashboards.field.filterOp')).selectOption('ne');
      await edit.getByLabel(msg('dashboards.field.filterValue'), { exact: true }).fill('void');
      await onScreen(page, `edit-widget-${w}`, exactly(`Sales ${w}`));
      await shot(page, `edit-widget-${w}`);
      await edit.getByRole('button', { name: msg('dashboards.editor.apply') }).click();
      await edit.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: msg('dashboards.save') }).click();
      await page.getByRole('button', { name: msg('dashboards.edit') }).waitFor();
      await expect.poll(() => values(page, 'By status')).toEqual(GROUPS);
      const saved = await storedLayout(pageId);
      expect(saved.widgets.map((x) => [x.title, x.viz.type])).toEqual([
        ['Orders', 'number'],
        ['By status', 'bar'],
        ['Per day', 'line'],
      ]);
      const orders = saved.widgets.find((x) => x.title === 'Orders');

      // Move the count one row down with the keyboard: announced, then saved.
      await page.getByRole('button', { name: msg('dashboards.edit') }).click();
      const handle = page.getByRole('button', { name: msg('dashboards.handle', { title: 'Orders' }) });
      await handle.focus();
      await page.keyboard.press('ArrowDown');
      await expect
        .poll(() => page.getByTestId('dash-announce').textContent())
        .toBe(msg('dashboards.move.moved', { title: 'Orders', x: String(orders.x + 1), y: String(orders.y + 2) }));
      await page.keyboard.press('Shift+ArrowLeft');
      await page.getByRole('button', { name: msg('dashboards.save') }).click();
      await page.getByRole('button', { name: msg('dashboards.edit') }).waitFor();
      const moved = (await storedLayout(pageId)).widgets.find((x) => x.title === 'Orders');
      expect([moved.x, moved.y, moved.w, moved.h]).toEqual([orders.x, orders.y + 1, orders.w - 1, orders.h]);

      if (w === 1440) {
        // With the mouse: drag the line chart's handle six columns to the right.
        await page.getByRole('button', { name: msg('dashboards.edit') }).click();
        const line = (await storedLayout(pageId)).widgets.find((x) => x.title === 'Per day');
        const lineHandle = page.getByRole('button', { name: msg('dashboards.handle', { title: 'Per day' }) });
        const grid = await page.getByRole('list', { name: msg('dashboards.widgets') }).boundingBox();
        const box = await lineHandle.boundingBox();
        const step = (grid!.width + 16) / 12;
        await page.mouse.move(box!.x + box!.width / 2, box!.y + box!.height / 2);
        await page.mouse.down();
        for (let i = 1; i <= 6; i++) await page.mouse.move(box!.x + box!.width / 2 + i * step, box!.y + box!.height / 2);
        await page.mouse.up();
        await page.getByRole('button', { name: msg('dashboards.save') }).click();
        await page.getByRole('button', { name: msg('dashboards.edit') }).waitFor();
        const dragged = (await storedLayout(pageId)).widgets.find((x) => x.title === 'Per day');
        expect([dragged.x, dragged.y]).toEqual([line.x + 6, line.y]);
      }

      // Someone else saves meanwhile (a widget over a table that is then dropped): this save is stale.
      await page.getByRole('button', { name: msg('dashboards.edit') }).click();
      const now = await storedLayout(pageId);
      const broken = {
        id: 'broken',
        x: 0,
        y: 20,
        w: 4,
        h: 2,
        title: 'Refunds',
        query: { connectionId: conn, table: `refund_${w}`, metric: { op: 'count' } },
        viz: { type: 'number', options: {} },
      };
      const byStatus = now.widgets.find((x) => x.title === 'By status').query;
      const pie = { id: 'pie', x: 4, y: 20, w: 4, h: 3, title: 'Status share', query: byStatus, viz: { type: 'pie', options: {} } };
      const table = { id: 'table', x: 8, y: 20, w: 4, h: 3, title: 'Status table', query: byStatus, viz: { type: 'table', options: {} } };
      const other = await admin.patch(`/api/v1/pages/${pageId}/layout`, { widgets: [...now.widgets, broken, pie, table], version: now.version });
      expect(other.status).toBe(200);
      const db = new Database(file);
      db.exec(`drop table refund_${w}`);
      db.close();
      await page.getByRole('button', { name: msg('dashboards.handle', { title: 'Orders' }) }).focus();
      await page.keyboard.press('Shift+ArrowRight');
      await page.getByRole('button', { name: msg('dashboards.save') }).click();
      await page.getByRole('alert').getByText(msg('dashboards.stale')).waitFor();
      await onScreen(page, `stale-${w}`, exactly(`Sales ${w}`));
      await shot(page, `stale-${w}`);
      await page.getByRole('button', { name: msg('dashboards.reload') }).click();

      // The broken widget shows its own error; the others still show their numbers.
      await widget(page, 'Refunds').getByTestId('widget-error').waitFor();
      expect(await widget(page, 'Refunds').getByTestId('widget-number').count()).toBe(0);
      await expect.poll(() => widget(page, 'Orders').getByTestId('widget-number').textContent()).toBe('7');
      await expect.poll(() => values(page, 'By status')).toEqual(GROUPS);
      await expect.poll(() => values(page, 'Status table')).toEqual(GROUPS);
      await expect.poll(() => values(page, 'Status share')).toEqual(GROUPS);
      await onScreen(page, `broken-${w}`, exactly(`Sales ${w}`));

      // Refresh asks again (a new row shows).
      const more = new Database(file);
      more.prepare('insert into orders (status, amount, created_at) values (?, ?, ?)').run('open', 1, '2026-03-03 12:30:00');
      more.close();
      await page.getByRole('button', { name: msg('dashboards.refresh') }).click();
      await expect.poll(() => widget(page, 'Orders').getByTestId('widget-number').textContent()).toBe('8');
      const less = new Database(file);
      less.prepare('delete from orders where id = (select max(id) from orders)').run();
      less.close();

      // Anyone who sees the page may arrange it for themselves: only they see it, the shared layout stays.
      await page.getByRole('button', { name: msg('dashboards.mine.arrange') }).click();
      await page.getByRole('button', { name: msg('dashboards.handle', { title: 'Orders' }) }).focus();
      await page.keyboard.press('ArrowUp');
      await page.getByRole('button', { name: msg('dashboards.mine.save') }).click();
      await page.getByText(msg('dashboards.mine.shown')).waitFor();
      await onScreen(page, `mine-${w}`, exactly(`Sales ${w}`));
      await shot(page, `mine-${w}`);
      const mine = (await admin.get(`/api/v1/pages/${pageId}`)).body as any;
      expect(mine.data.myLayout.layout.widgets.find((x: any) => x.title === 'Orders').y).toBe(moved.y - 1);
      expect((await storedLayout(pageId)).widgets.find((x) => x.title === 'Orders').y).toBe(moved.y);
      await page.getByRole('button', { name: msg('dashboards.mine.drop') }).click();
      await page.getByText(msg('dashboards.mine.shown')).waitFor({ state: 'detached' });
      expect(((await admin.get(`/api/v1/pages/${pageId}`)).body as any).data.myLayout).toBeNull();

      // The page is no wider than the window.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(w);
      // 400: the refused sum of text in the editor; 409: the stale save.
      expectNoProblems(problems, [400, 409]);

      // A viewer sees the numbers and may arrange the page for themselves, but not edit it.
      const viewer = await openPage({ viewport });
      await signIn(viewer.page, inst.url, VIEWER);
      await viewer.page.goto(`${inst.url}/p/sales-${w}`);
      await onScreen(viewer.page, `viewer-${w}`, exactly(`Sales ${w}`));
      // The row was deleted in the database directly: a result of moments ago may still count it (WD6); Refresh asks the database.
      await viewer.page.getByRole('button', { name: msg('dashboards.refresh') }).click();
      await expect.poll(() => widget(viewer.page, 'Orders').getByTestId('widget-number').textContent()).toBe('7');
      await viewer.page.getByRole('button', { name: msg('dashboards.mine.arrange') }).waitFor();
      expect(await viewer.page.getByRole('button', { name: msg('dashboards.edit') }).count()).toBe(0);
      expectNoProblems(viewer.problems);
    }, 180_000);
  });

  atWidth(PHONE, (viewport) => {
    it(`the page's default time range bounds its time widgets, and the picker changes it (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const created = await admin.post('/api/v1/pages', { title: `Recent ${w}`, kind: 'dashboard' });
      const pageId = (created.body as any).data.page.id as string;
      const orders = { connectionId: conn, table: 'orders', metric: { op: 'count' } };
      const widgets = [
        { id: 'all', x: 0, y: 0, w: 3, h: 2, title: 'Orders', query: orders, viz: { type: 'number', options: {} } },
        {
          id: 'day',
          x: 3,
          y: 0,
          w: 6,
          h: 3,
          title: 'Per day',
          query: { ...orders, timeBucket: { column: 'created_at', unit: 'day' } },
          viz: { type: 'bar', options: {} },
        },
      ];
      expect((await admin.patch(`/api/v1/pages/${pageId}/layout`, { widgets, version: 0 })).status).toBe(200);
      // The orders are of March 2026: none in the last 24 hours.
      expect((await admin.patch(`/api/v1/pages/${pageId}/config`, { defaultRange: '24h' })).status).toBe(200);

      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/p/recent-${w}`);
      const picker = page.getByLabel(msg('dashboards.range'));
      await expect.poll(() => picker.locator('option:checked').textContent()).toBe(msg('dashboards.range.24h'));
      await widget(page, 'Per day').getByText(msg('dashboards.viz.noData')).waitFor();
      // A widget without a time column counts every row whatever the range.
      await expect.poll(() => widget(page, 'Orders').getByTestId('widget-number').textContent()).toBe('7');
      await onScreen(page, `range-${w}`, exactly(`Recent ${w}`));

      await picker.selectOption({ label: msg('dashboards.range.all') });
      await expect.poll(async () => (await values(page, 'Per day')).map((r) => r[1])).toEqual(['3', '2', '2']);
      expectNoProblems(problems);
    }, 120_000);
  });
});
