import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpAt } from '../../plugins/auth/testing.js';
import { packFixture, uploadPackage } from '../../plugins/add-ons/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { activeUser, bootWithAdmin } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { TestSmtpServer } from '../helpers/smtp.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const OWNER = { email: 'owner@example.com', name: 'owner', password: 'long-enough-pw' };
const ORDERS: Array<[string, string, number]> = [
  ['Ada', 'paid', 30],
  ['Grace', 'paid', 20],
  ['Linus', 'open', 10],
  ['Zephyrine Quartz', 'open', 5],
  ['Edsger', 'void', 1],
];

/**
 * Issue 28's "done when", as one person does it in the browser: the generated pages of a
 * connection are in the navigation with no step; a dashboard of three widgets; a saved view;
 * a scheduled report received on a loopback SMTP server; a row found through the palette; and
 * the onboarding checklist finished. Each screen is proven on its own (at 1440 and 390 px) by
 * its own test; this one joins them, at 1440 px.
 */
describe.runIf(browserAvailable())('issue 28 end to end: pages, dashboards, views, reports, palette, onboarding', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let dir: string;
  const smtp = new TestSmtpServer();
  const { openPage, onScreen, signIn } = useDashboardBrowser('journey-pages');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'journey-src-'));
    const file = join(dir, 'shop.db');
    const db = new Database(file);
    db.exec(`create table orders (id integer primary key autoincrement, customer varchar(40) not null, status varchar(10) not null, amount integer not null);`);
    const insert = db.prepare('insert into orders (customer, status, amount) values (?, ?, ?)');
    for (const row of ORDERS) insert.run(...row);
    db.close();
    await smtp.start();
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://shop.example' } }));
    // What the rest of the checklist asks is done already: e-mail, a colleague, an add-on, the public API.
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    await activeUser(inst, admin, OWNER.email, ['admin']);
    const pkg = await packFixture({ key: 'desk', name: 'Desk', version: '1.0.0', engine: '>=0.1.0', actions: [], surfaces: [] }, null, {});
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = (await admin.get('/api/v1/add-ons/desk/plan?version=1.0.0')).body.data.plan;
    expect((await admin.post('/api/v1/add-ons', { key: 'desk', version: '1.0.0', planHash: plan.hash, settings: {} })).status).toBe(201);
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    // The connection, introspected and its pages generated: they show in the navigation with no step.
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: `sqlite:${file}` });
    expect(created.status, created.text).toBe(201);
    const conn = created.body.data.connection.id as string;
    expect((await admin.post(`/api/v1/connections/${conn}/introspect`, undefined)).status).toBeLessThan(300);
    const generated = await admin.post(`/api/v1/connections/${conn}/generate`, {});
    expect(generated.status, generated.text).toBeLessThan(300);
    const key = await admin.post('/api/v1/public-keys', { name: 'Shop sync', kind: 'server', expires: 'never', grants: [{ ref: 'orders', methods: ['GET'] }] });
    expect(key.status, key.text).toBe(201);
  }, 90_000);

  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const nav = (page: Page) => page.getByRole('navigation', { name: msg('nav.label') });

  it('builds a dashboard, saves a view, schedules a report that arrives, finds a row through the palette, and finishes the onboarding', async () => {
    const viewport = { width: 1440, height: 900 };
    const { page, problems } = await openPage({ viewport });
    await signIn(page, inst.url, OWNER);
    await onScreen(page, 'home', msg('home.greeting', { name: OWNER.name }));
    const checklist = page.getByRole('region', { name: msg('home.onboarding.title') });
    await checklist.waitFor();

    // The generated list page of the table is in the navigation already.
    const ordersLink = nav(page).getByRole('link', { name: /Orders/ });
    await ordersLink.first().waitFor();

    // 1. A dashboard page with three widgets.
    await nav(page)
      .getByRole('link', { name: msg('nav.pagesEditor') })
      .click();
    await page
      .getByRole('link', { name: msg('pages.list.new') })
      .first()
      .click();
    await onScreen(page, 'new-page', exactly(msg('pages.new.title')));
    await page.getByLabel(msg('pages.field.title')).fill('Sales');
    await page.getByLabel(msg('pages.field.kind')).selectOption('dashboard');
    await page.getByRole('button', { name: msg('pages.new.submit') }).click();
    await nav(page).getByRole('link', { name: /Sales/ }).click();
    await onScreen(page, 'dashboard-empty', exactly('Sales'));
    await page.getByRole('button', { name: msg('dashboards.addFirst') }).click();
    const addWidget = async (title: string, fill: (d: ReturnType<Page['getByRole']>) => Promise<void>) => {
      const dialog = page.getByRole('dialog', { name: msg('dashboards.editor.addTitle') });
      await dialog.waitFor();
      await dialog.getByLabel(msg('dashboards.field.title')).fill(title);
      await dialog.getByLabel(msg('dashboards.field.connection')).selectOption({ label: 'Shop' });
      await expect.poll(() => dialog.getByLabel(msg('dashboards.field.table')).locator('option').count()).toBeGreaterThan(1);
      await dialog.getByLabel(msg('dashboards.field.table')).selectOption({ label: 'Orders' });
      await fill(dialog);
      await dialog.getByRole('button', { name: msg('dashboards.editor.apply') }).click();
      await dialog.waitFor({ state: 'detached' });
    };
    await addWidget('Order count', async (d) => {
      await d.getByLabel(msg('dashboards.field.viz')).selectOption('number');
      await d.getByLabel(msg('dashboards.field.op')).selectOption('count');
    });
    await page.getByRole('button', { name: msg('dashboards.add') }).click();
    await addWidget('By status', async (d) => {
      await d.getByLabel(msg('dashboards.field.viz')).selectOption('bar');
      await d.getByLabel(msg('dashboards.field.groupColumn')).selectOption('status');
    });
    await page.getByRole('button', { name: msg('dashboards.add') }).click();
    await addWidget('Amount', async (d) => {
      await d.getByLabel(msg('dashboards.field.viz')).selectOption('number');
      await d.getByLabel(msg('dashboards.field.op')).selectOption('sum');
      await d.getByLabel(msg('dashboards.field.column')).selectOption('amount');
    });
    await page.getByRole('button', { name: msg('dashboards.save') }).click();
    await page.getByRole('button', { name: msg('dashboards.edit') }).waitFor();
    const number = (title: string) => page.getByRole('listitem', { name: title }).getByTestId('widget-number');
    await expect.poll(() => number('Order count').textContent()).toBe('5');
    await expect.poll(() => number('Amount').textContent()).toBe('66');
    await onScreen(page, 'dashboard', exactly('Sales'));

    // 2. A saved view on the generated list page: the open orders.
    await ordersLink.first().click();
    await page.getByRole('grid').waitFor();
    await page.goto(`${page.url().split('?')[0]}?filter[status][eq]=open`);
    await page.getByRole('gridcell', { name: 'Linus' }).waitFor();
    await page.getByRole('button', { name: msg('pages.views.save') }).click();
    await page.getByLabel(msg('pages.views.name')).fill('Open orders');
    await page.getByRole('button', { name: msg('pages.views.saveSubmit'), exact: true }).click();
    await expect.poll(() => page.getByLabel(msg('pages.views.view'), { exact: true }).locator('option:checked').textContent()).toBe('Open orders');
    await onScreen(page, 'view-saved', /Orders/);

    // 3. A scheduled report of that view, mailed to the person; Run now, and it arrives.
    await nav(page)
      .getByRole('link', { name: msg('nav.reports') })
      .click();
    await onScreen(page, 'reports', exactly(msg('reports.title')));
    await page
      .getByRole('link', { name: msg('reports.new') })
      .first()
      .click();
    await page.getByLabel(msg('reports.field.name'), { exact: true }).fill('Open orders daily');
    await page.getByRole('radio', { name: 'A page’s view' }).check();
    const pagePicker = page.getByLabel(msg('reports.field.page'), { exact: true });
    const ordersOption = (await pagePicker.locator('option').allTextContents()).find((o) => /Orders/.test(o))!;
    await pagePicker.selectOption({ label: ordersOption });
    const views = page.getByLabel(msg('reports.field.view'), { exact: true });
    await expect.poll(() => views.locator('option').allTextContents()).toContain('Open orders');
    await views.selectOption({ label: 'Open orders' });
    await page.getByLabel(msg('reports.field.cron'), { exact: true }).fill('0 7 * * 1-5');
    await expect.poll(() => page.getByTestId('next-runs').locator('li').count()).toBe(5);
    await page.getByRole('checkbox', { name: new RegExp(OWNER.name) }).check();
    await page.getByRole('button', { name: msg('reports.create') }).click();
    await onScreen(page, 'report', msg('reports.edit.heading', { name: 'Open orders daily' }));
    const before = smtp.received.length;
    await page.getByRole('button', { name: msg('reports.runNow') }).click();
    await expect.poll(() => page.getByTestId('run-row').first().textContent(), { timeout: 30_000 }).toContain(msg('reports.state.succeeded'));
    const [mail] = (await smtp.waitFor(before + 1, 15_000)).slice(before);
    expect(mail!.to).toEqual([OWNER.email]);
    expect(mail!.raw).toMatch(/filename="?[^"\r\n]+\.csv/);

    // 4. A row found through the palette: the list page searchable by the customer's name.
    const pages = (await admin.get('/api/v1/pages?kind=list')).body.data.pages as Array<{ id: string; table: string | null }>;
    const ordersPage = pages.find((p) => p.table === 'orders')!;
    expect((await admin.patch(`/api/v1/pages/${ordersPage.id}/config`, { searchable: true, displayColumn: 'customer' })).status).toBe(200);
    await expect.poll(async () => JSON.stringify((await admin.get('/api/v1/search?q=zephyr&types=row')).body)).toContain('Zephyrine Quartz');
    await page.keyboard.press('Control+k');
    const palette = page.getByRole('dialog', { name: msg('palette.label') });
    await palette.waitFor();
    await palette.getByRole('combobox').fill('zephyr');
    const row = palette.getByRole('option', { name: /Zephyrine Quartz/ });
    await row.waitFor();
    await page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    // The row's own screen: its values (in fields, as the row page shows them).
    await expect.poll(() => page.url()).toMatch(/\/rows\/4$/);
    await expect
      .poll(() =>
        page
          .locator('main')
          .evaluate((m) => `${(m as HTMLElement).innerText} ${[...m.querySelectorAll('input, textarea')].map((i) => (i as HTMLInputElement).value).join(' ')}`),
      )
      .toContain('Zephyrine Quartz');

    // 5. The last step of the checklist: two-step verification; then it is finished.
    await page.getByRole('link', { name: msg('nav.home') }).click();
    await checklist.getByRole('link', { name: msg('home.step.enable-two-factor') }).click();
    await onScreen(page, 'two-factor', msg('security.title'));
    await page.getByRole('button', { name: msg('security.start') }).click();
    const shown = page.getByTestId('totp-secret');
    await shown.waitFor();
    const secret = ((await shown.textContent()) ?? '').replace(/\s+/g, '');
    await page.getByLabel(msg('field.code')).fill(await totpAt(inst, secret));
    await page.getByRole('button', { name: msg('security.activate') }).click();
    await page.getByRole('button', { name: msg('security.done') }).click();
    await page.getByRole('link', { name: msg('nav.home') }).click();
    await expect.poll(() => checklist.textContent()).toContain(msg('home.onboarding.completed', { completed: '7', total: '7' }));
    await onScreen(page, 'onboarding-finished', msg('home.greeting', { name: OWNER.name }));
    await checklist.getByRole('button', { name: msg('home.onboarding.dismiss') }).click();
    await checklist.waitFor({ state: 'detached' });
    expectNoProblems(problems);
  }, 180_000);
});
