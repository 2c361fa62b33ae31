import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import { connectSqlite, sqliteSource, stockTable, type SqliteSource } from '../helpers/sqlite-source.js';
import type { TestInstance } from '../helpers/instance.js';
import { TestSmtpServer, type ReceivedMail } from '../helpers/smtp.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser, WAIT_MS, atWidth, PHONE, WIDE } from './harness.js';

const EDITOR = { email: 'ed@example.com', name: 'Ed Itor', password: 'editor-password-1' };
const VIEWER = { email: 'vi@example.com', name: 'Vi Ewer', password: 'viewer-password-1' };

/** The attachment of a received mail whose file name ends with `suffix`, decoded (nodemailer writes files in base64). */
function attachment(mail: ReceivedMail, suffix: string): { name: string; body: Buffer } | null {
  const boundaries = [...mail.raw.matchAll(/boundary="?([^";\r\n]+)"?/gi)].map((m) => m[1]!);
  for (const boundary of boundaries) {
    for (const part of mail.raw.split(`--${boundary}`)) {
      const split = part.indexOf('\r\n\r\n');
      if (split < 0) continue;
      const headers = part.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
      const name = /filename="?([^";\r\n]+)"?/i.exec(headers)?.[1];
      if (!name?.endsWith(suffix)) continue;
      return { name, body: Buffer.from(part.slice(split + 4).replace(/\s+/g, ''), 'base64') };
    }
  }
  return null;
}

describe.runIf(browserAvailable())('scheduled reports in a real browser', () => {
  let inst: TestInstance;
  let source: SqliteSource;
  let conn: string;
  const smtp = new TestSmtpServer();
  const { openPage, onScreen, signIn } = useDashboardBrowser('reports');

  beforeAll(async () => {
    await smtp.start();
    source = sqliteSource('reports', stockTable);
    const boot = await bootWithAdmin();
    inst = boot.inst;
    expect((await boot.admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    conn = await connectSqlite(boot.admin, source.file);
    const listPage = await boot.admin.post('/api/v1/pages', { title: 'Stock list', kind: 'list', connectionId: conn, table: 'product' });
    expect(listPage.status, listPage.text).toBe(201);
    const pageId = (listPage.body as any).data.page.id as string;
    const view = await boot.admin.post(`/api/v1/pages/${pageId}/views`, { name: 'Most first', query: { sort: '-qty' } });
    expect(view.status, view.text).toBe(201);
    await createUser(inst, { ...EDITOR, roles: ['editor'] });
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
    source?.dispose();
  });

  atWidth(PHONE, (viewport) => {
    it(`schedules a table report with a cron preview, edits it, runs it now and receives its CSV; a viewer cannot create one (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const { page, problems } = await openPage({ viewport });
      // SHOW_SCREENS=1: the form, the report after its run and the list, to look at.
      const shot = (name: string) =>
        process.env.SHOW_SCREENS === '1' ? page.screenshot({ path: `test-results/reports/shot-${name}-${w}.png`, fullPage: true }) : Promise.resolve();
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/reports`);
      await onScreen(page, `empty-${w}`, exactly(msg('reports.title')));
      await page.getByRole('heading', { name: msg('reports.empty.title') }).waitFor();
      await page
        .getByRole('link', { name: msg('reports.new') })
        .first()
        .click();
      await onScreen(page, `new-${w}`, exactly(msg('reports.new.title')));

      const name = `Stock ${w}`;
      await page.getByLabel(msg('reports.field.name'), { exact: true }).fill(name);
      await page.getByRole('radio', { name: 'A table with a query' }).check();
      await page.getByLabel(msg('reports.field.connection'), { exact: true }).selectOption({ label: 'Shop' });
      await expect.poll(() => page.getByLabel(msg('reports.field.table'), { exact: true }).locator('option').count(), { timeout: WAIT_MS }).toBeGreaterThan(1);
      await page.getByLabel(msg('reports.field.table'), { exact: true }).selectOption({ label: 'Product' });
      await page.getByLabel(msg('reports.field.query'), { exact: true }).fill('filter[qty][gt]=2&sort=-qty&fields=name,qty');
      await page.getByLabel(msg('reports.field.format'), { exact: true }).selectOption('csv');
      await page.getByLabel(msg('reports.field.timeZone'), { exact: true }).selectOption('Europe/Berlin');

      // Six fields: said at the field before anything is sent.
      const cron = page.getByLabel(msg('reports.field.cron'), { exact: true });
      await cron.fill('0 0 7 * * *');
      const fieldError = page.locator('.field', { has: cron }).locator('.field-error');
      await expect.poll(() => fieldError.textContent()).toContain('five fields');
      expect(await cron.getAttribute('aria-invalid')).toBe('true');

      // Every five minutes: a pattern the browser can run, refused by the server (too-frequent) at the field.
      await cron.fill('*/5 * * * *');
      await page.getByRole('checkbox', { name: new RegExp(EDITOR.name) }).check();
      await page.getByLabel(msg('reports.field.subject'), { exact: true }).fill(`Products ${w}`);
      await page.getByRole('button', { name: msg('reports.create') }).click();
      await expect.poll(() => fieldError.count()).toBe(1);
      await expect.poll(() => fieldError.textContent()).toMatch(/hour/i);

      // A valid pattern: its words and the next five runs in Berlin.
      await cron.fill('0 7 * * 1-5');
      const preview = page.getByTestId('next-runs');
      await expect.poll(() => preview.locator('li').count()).toBe(5);
      expect(await page.locator('.reports-preview').textContent()).toMatch(/07:00/);
      expect(await page.locator('.reports-preview').textContent()).toContain('Europe/Berlin');
      expect(await fieldError.count()).toBe(0);
      await shot('form');
      await page.getByRole('button', { name: msg('reports.create') }).click();
      await onScreen(page, `edit-${w}`, msg('reports.edit.heading', { name }));

      // Edit: rename.
      await page.getByLabel(msg('reports.field.name'), { exact: true }).fill(`${name} daily`);
      await page.getByRole('button', { name: msg('reports.save') }).click();
      await page.getByRole('heading', { level: 1, name: msg('reports.edit.heading', { name: `${name} daily` }) }).waitFor();

      // Run now: the run shows in the history as done, and the mail arrives with the CSV.
      const before = smtp.received.length;
      await page.getByRole('button', { name: msg('reports.runNow') }).click();
      await page.locator('[data-testid="run-row"][data-state="succeeded"]').waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('run-row').first().textContent()).toContain(msg('reports.state.succeeded'));
      await onScreen(page, `ran-${w}`, msg('reports.edit.heading', { name: `${name} daily` }));
      await shot('edit');
      const [mail] = (await smtp.waitFor(before + 1, 30_000)).slice(before);
      expect(mail!.to).toEqual([EDITOR.email]);
      expect(mail!.subject).toBe(`Products ${w}`);
      const csv = attachment(mail!, '.csv');
      expect(csv, mail!.raw.slice(0, 2000)).not.toBeNull();
      const rows = parseCsv(csv!.body.toString('utf8'), { columns: true, bom: true }) as Array<Record<string, string>>;
      expect(rows).toEqual([
        { name: 'Item 5', qty: '5' },
        { name: 'Item 4', qty: '4' },
        { name: 'Item 3', qty: '3' },
      ]);

      // A second run; after a reload (the screen forgot what it queued) both runs are still its
      // history: GET /jobs filtered by the run's progress message.
      await page.getByRole('button', { name: msg('reports.runNow') }).click();
      await expect.poll(() => page.locator('[data-testid="run-row"][data-state="succeeded"]').count(), { timeout: 60_000 }).toBe(2);
      await smtp.waitFor(before + 2, 30_000);
      await page.reload();
      await onScreen(page, `reloaded-${w}`, msg('reports.edit.heading', { name: `${name} daily` }));
      await expect.poll(() => page.locator('[data-testid="run-row"][data-state="succeeded"]').count()).toBe(2);

      // The list: schedule in words, next run, last run done, the toggle.
      await page
        .getByRole('link', { name: msg('reports.back') })
        .first()
        .click();
      await onScreen(page, `list-${w}`, exactly(msg('reports.title')));
      const row = page.getByTestId('report-row').filter({ hasText: `${name} daily` });
      await expect.poll(() => row.textContent()).toContain(msg('reports.state.succeeded'));
      expect(await row.textContent()).toContain('Table product');
      await shot('list');
      const toggle = page.getByRole('checkbox', { name: msg('reports.enabledOne', { name: `${name} daily` }) });
      expect(await toggle.isChecked()).toBe(true);
      await toggle.uncheck();
      await expect.poll(() => row.textContent()).toContain(msg('reports.next.none'));

      // Delete, with a confirmation: the list is empty again.
      await row.getByRole('link', { name: `${name} daily` }).click();
      await page.getByRole('button', { name: msg('reports.delete') }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: msg('reports.delete.confirm') })
        .click();
      await onScreen(page, `after-delete-${w}`, exactly(msg('reports.title')));
      await page.getByRole('heading', { name: msg('reports.empty.title') }).waitFor();
      expectNoProblems(problems, [400]);

      // A viewer (reports.read, no reports.write): no way to create one.
      const other = await openPage({ viewport });
      await signIn(other.page, inst.url, VIEWER);
      await other.page.goto(`${inst.url}/reports`);
      await onScreen(other.page, `viewer-${w}`, exactly(msg('reports.title')));
      await other.page.getByText(msg('reports.empty.readOnly')).waitFor();
      expect(await other.page.getByRole('link', { name: msg('reports.new') }).count()).toBe(0);
      expectNoProblems(other.problems);
    }, 180_000);
  });

  atWidth(WIDE, (viewport) => {
    it(`the grid opens a new report of its table with its query; a viewer's grid has no such link (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/connections/${conn}/tables/product?sort=-qty`);
      await page.getByRole('link', { name: msg('data.grid.scheduleReport') }).click();
      await onScreen(page, `from-grid-${w}`, exactly(msg('reports.new.title')));
      expect(await page.getByRole('radio', { name: 'A table with a query' }).isChecked()).toBe(true);
      await expect.poll(() => page.getByLabel(msg('reports.field.connection'), { exact: true }).locator('option:checked').textContent()).toBe('Shop');
      await expect.poll(() => page.getByLabel(msg('reports.field.table'), { exact: true }).locator('option:checked').textContent()).toBe('Product');
      expect(await page.getByLabel(msg('reports.field.query'), { exact: true }).inputValue()).toContain('sort=-qty');
      expectNoProblems(problems);

      const viewer = await openPage({ viewport });
      await signIn(viewer.page, inst.url, VIEWER);
      await viewer.page.goto(`${inst.url}/connections/${conn}/tables/product`);
      await viewer.page.getByRole('link', { name: msg('data.grid.export') }).waitFor();
      expect(await viewer.page.getByRole('link', { name: msg('data.grid.scheduleReport') }).count()).toBe(0);
      expectNoProblems(viewer.problems);
    });
  });

  atWidth(PHONE, (viewport) => {
    it(`schedules a page's shared view from the source picker (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/reports/new`);
      await onScreen(page, `view-new-${w}`, exactly(msg('reports.new.title')));
      await page.getByLabel(msg('reports.field.name'), { exact: true }).fill(`By view ${w}`);
      await page.getByRole('radio', { name: 'A page’s view' }).check();
      await page.getByLabel(msg('reports.field.page'), { exact: true }).selectOption({ label: 'Stock list' });
      const views = page.getByLabel(msg('reports.field.view'), { exact: true });
      await expect.poll(() => views.locator('option').count()).toBe(2);
      await views.selectOption({ label: 'Most first' });
      await page.getByRole('checkbox', { name: new RegExp(EDITOR.name) }).check();
      await page.getByRole('button', { name: msg('reports.create') }).click();
      await onScreen(page, `view-edit-${w}`, msg('reports.edit.heading', { name: `By view ${w}` }));
      expect(await views.inputValue()).not.toBe('');
      await page
        .getByRole('link', { name: msg('reports.back') })
        .first()
        .click();
      await onScreen(page, `view-list-${w}`, exactly(msg('reports.title')));
      const row = page.getByTestId('report-row').filter({ hasText: `By view ${w}` });
      expect(await row.textContent()).toContain(msg('reports.source.viewOf', { title: 'Stock list' }));
      await row.getByRole('link', { name: `By view ${w}` }).click();
      await page.getByRole('button', { name: msg('reports.delete') }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: msg('reports.delete.confirm') })
        .click();
      await onScreen(page, `view-after-delete-${w}`, exactly(msg('reports.title')));
      await page.getByRole('heading', { name: msg('reports.empty.title') }).waitFor();
      expectNoProblems(problems);
    });
  });
});
