import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import { connectSqlite, sqliteSource, stockTable, type SqliteSource } from '../helpers/sqlite-source.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser, atWidth, PHONE, WIDE } from './harness.js';

const VIEWER = { email: 'pv-viewer@example.com', name: 'Pat Viewer', password: 'viewer-password-1' };
const EDITOR = { email: 'pv-editor@example.com', name: 'Eddie Tor', password: 'editor-password-1' };

describe.runIf(browserAvailable())('a page’s views, config, detail and form in a real browser', () => {
  let inst: TestInstance;
  let source: SqliteSource;
  let conn: string;
  let admin: Awaited<ReturnType<typeof bootWithAdmin>>['admin'];
  const { openPage, onScreen, signIn } = useDashboardBrowser('page-views');

  /** A page made through the API (the editor's own screens are pages.test.ts'). */
  async function makePage(body: Record<string, unknown>): Promise<{ id: string; slug: string }> {
    const res = await admin.post('/api/v1/pages', { connectionId: conn, table: 'product', ...body });
    expect(res.status).toBe(201);
    return (res.body as any).data.page;
  }

  beforeAll(async () => {
    // product for the views and the config, part for the detail and form pages that write rows.
    source = sqliteSource('page-views', (db) => {
      stockTable(db);
      db.exec(`create table part (id integer primary key autoincrement, name varchar(20) not null, qty integer not null default 0);`);
      const part = db.prepare('insert into part (name, qty) values (?, ?)');
      for (let i = 1; i <= 5; i++) part.run(`Part ${i}`, i);
    });
    const boot = await bootWithAdmin();
    inst = boot.inst;
    admin = boot.admin;
    conn = await connectSqlite(admin, source.file);
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
    await createUser(inst, { ...EDITOR, roles: ['editor'] });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  atWidth(WIDE, (viewport, w) => {
    it(`saves a view, renames it, makes it the default (the page opens with it), deletes it; a viewer has no write controls (${w} px)`, async () => {
      const list = await makePage({ title: `Stock ${w}`, slug: `stock-${w}`, kind: 'list' });
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      const firstName = () => page.locator('[data-column="name"]').first().textContent();

      // The grid sorted by quantity, largest first: saved as a view.
      await page.goto(`${inst.url}/p/${list.slug}?sort=-qty`);
      await onScreen(page, `list-${w}`, exactly(`Stock ${w}`));
      await expect.poll(firstName).toBe('Item 5');
      const picker = page.getByLabel(msg('pages.views.view'), { exact: true });
      await page.getByRole('button', { name: msg('pages.views.save') }).click();
      await page.getByLabel(msg('pages.views.name')).fill('Top');
      await page.getByLabel(msg('pages.views.makeDefault')).waitFor();
      await onScreen(page, `save-view-${w}`, exactly(`Stock ${w}`));
      await page.getByRole('button', { name: msg('pages.views.saveSubmit'), exact: true }).click();
      await page
        .getByRole('status')
        .getByText(msg('pages.views.saved', { name: 'Top' }))
        .waitFor();
      await expect.poll(() => picker.locator('option:checked').textContent()).toBe('Top');

      // Rename, then make it the default.
      await page.getByRole('button', { name: msg('pages.views.rename'), exact: true }).click();
      await page.getByLabel(msg('pages.views.newName')).fill('Most stock');
      await page
        .getByRole('button', { name: msg('pages.views.renameSubmit'), exact: true })
        .last()
        .click();
      await page
        .getByRole('status')
        .getByText(msg('pages.views.renamed', { name: 'Most stock' }))
        .waitFor();
      await page.getByRole('button', { name: msg('pages.views.setDefault') }).click();
      await page
        .getByRole('status')
        .getByText(msg('pages.views.madeDefault', { name: 'Most stock' }))
        .waitFor();
      await expect.poll(() => picker.locator('option:checked').textContent()).toBe(msg('pages.views.defaultName', { name: 'Most stock' }));

      // Choosing "the page as set up" leaves the view; opening the page again applies the default.
      await picker.selectOption({ label: msg('pages.views.pageDefault') });
      await expect.poll(firstName).toBe('Item 1');
      await page.goto(`${inst.url}/p/${list.slug}`);
      await onScreen(page, `reopened-${w}`, exactly(`Stock ${w}`));
      await expect.poll(() => new URL(page.url()).search).toBe('?sort=-qty');
      await expect.poll(firstName).toBe('Item 5');

      // Delete it, after a confirmation: the page opens as set up again.
      await page.getByRole('button', { name: msg('pages.views.delete') }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: msg('pages.views.deleteConfirm') })
        .click();
      await page
        .getByRole('status')
        .getByText(msg('pages.views.deleted', { name: 'Most stock' }))
        .waitFor();
      await expect.poll(() => picker.locator('option').allTextContents()).not.toContain(msg('pages.views.defaultName', { name: 'Most stock' }));
      await page.goto(`${inst.url}/p/${list.slug}`);
      await onScreen(page, `after-delete-${w}`, exactly(`Stock ${w}`));
      await expect.poll(firstName).toBe('Item 1');
      expect(new URL(page.url()).search).toBe('');
      expectNoProblems(problems);

      // A viewer chooses among the views but sees no control that writes them.
      await admin.post(`/api/v1/pages/${list.id}/views`, { name: 'Few first', query: { sort: 'qty' } });
      const other = await openPage({ viewport });
      await signIn(other.page, inst.url, VIEWER);
      await other.page.goto(`${inst.url}/p/${list.slug}`);
      await onScreen(other.page, `viewer-${w}`, exactly(`Stock ${w}`));
      const viewerPicker = other.page.getByLabel(msg('pages.views.view'), { exact: true });
      await viewerPicker.selectOption({ label: 'Few first' });
      await expect.poll(() => new URL(other.page.url()).search).toBe('?sort=qty');
      expect(await other.page.getByRole('button', { name: msg('pages.views.save') }).count()).toBe(0);
      expect(await other.page.getByRole('button', { name: msg('pages.views.rename') }).count()).toBe(0);
      expect(await other.page.getByRole('button', { name: msg('pages.views.delete') }).count()).toBe(0);
      expect(await other.page.getByRole('button', { name: msg('pages.views.setDefault') }).count()).toBe(0);
      expectNoProblems(other.problems);
    });
  });

  atWidth(PHONE, (viewport, w) => {
    it(`the config form saves the columns the list shows, and shows a refused filter at its row (${w} px)`, async () => {
      const list = await makePage({ title: `Catalogue ${w}`, slug: `catalogue-${w}`, kind: 'list' });
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/pages/${list.id}/edit`);
      await onScreen(page, `editor-${w}`, msg('pages.edit.heading', { title: `Catalogue ${w}` }));
      const columns = page.getByRole('group', { name: msg('pages.config.columns') });
      await columns.getByRole('checkbox', { name: /qty/i }).uncheck();
      await page.getByRole('button', { name: msg('pages.config.save') }).click();
      await page.getByText(msg('pages.config.saved')).waitFor();
      // A save refreshes the page and the navigation: let that finish before leaving by a new load.
      await page.waitForLoadState('networkidle');

      // The list shows the key and the name, not the quantity.
      await page.goto(`${inst.url}/p/${list.slug}`);
      await onScreen(page, `columns-${w}`, exactly(`Catalogue ${w}`));
      await expect.poll(() => page.locator('[data-column="name"]').first().textContent()).toBe('Item 1');
      expect(await page.locator('[data-column="qty"]').count()).toBe(0);
      expect(new URL(page.url()).searchParams.get('fields')).toBe('id,name');

      // A filter "quantity greater than abc": the server's refusal shows at that filter.
      await page.goto(`${inst.url}/pages/${list.id}/edit`);
      await onScreen(page, `editor-again-${w}`, msg('pages.edit.heading', { title: `Catalogue ${w}` }));
      await page.getByRole('button', { name: msg('pages.config.addFilter') }).click();
      const filter = page.getByRole('group', { name: msg('pages.config.filterN', { n: '1' }) });
      await filter.getByLabel(msg('pages.config.column')).selectOption('qty');
      await filter.getByLabel(msg('pages.config.op')).selectOption('gt');
      await filter.getByLabel(msg('pages.config.value')).fill('abc');
      await page.getByRole('button', { name: msg('pages.config.save') }).click();
      await filter.locator('.field-error').waitFor();
      await expect.poll(() => filter.getByLabel(msg('pages.config.value')).getAttribute('aria-invalid')).toBe('true');
      await onScreen(page, `config-refused-${w}`, msg('pages.edit.heading', { title: `Catalogue ${w}` }));
      await page.waitForLoadState('networkidle');

      // A dashboard's refresh under 30 seconds: refused at the field; 60 is kept.
      const board = await makePage({ title: `Board ${w}`, slug: `board-${w}`, kind: 'dashboard', connectionId: undefined, table: undefined });
      await page.waitForLoadState('networkidle');
      await page.goto(`${inst.url}/pages/${board.id}/edit`);
      await onScreen(page, `board-config-${w}`, msg('pages.edit.heading', { title: `Board ${w}` }));
      const refresh = page.getByLabel(msg('pages.config.refresh'));
      await refresh.fill('10');
      await page.getByLabel(msg('pages.config.range')).selectOption('7d');
      await page.getByRole('button', { name: msg('pages.config.save') }).click();
      await expect.poll(() => refresh.getAttribute('aria-invalid')).toBe('true');
      await refresh.fill('60');
      await page.getByRole('button', { name: msg('pages.config.save') }).click();
      await page.getByText(msg('pages.config.saved')).waitFor();
      const stored = ((await admin.get(`/api/v1/pages/${board.id}`)).body as any).data.page.config;
      expect(stored).toMatchObject({ refreshSeconds: 60, defaultRange: '7d' });
      expectNoProblems(problems, [400]);

      // An editor cannot list roles (GET /roles needs roles.read): role ids are typed instead.
      const other = await openPage({ viewport });
      await signIn(other.page, inst.url, EDITOR);
      await other.page.goto(`${inst.url}/pages/${list.id}/edit`);
      await onScreen(other.page, `editor-roles-${w}`, msg('pages.edit.heading', { title: `Catalogue ${w}` }));
      const typed = other.page.getByLabel(msg('pages.field.visibleToTyped'));
      await typed.fill('no-such-role');
      await other.page.getByRole('button', { name: msg('pages.edit.save'), exact: true }).click();
      await expect.poll(() => typed.getAttribute('aria-invalid')).toBe('true');
      await onScreen(other.page, `editor-roles-refused-${w}`, msg('pages.edit.heading', { title: `Catalogue ${w}` }));
      await typed.fill('editor, admin');
      await other.page.getByRole('button', { name: msg('pages.edit.save'), exact: true }).click();
      await expect.poll(async () => ((await admin.get(`/api/v1/pages/${list.id}`)).body as any).data.page.visibleTo).toEqual({ roles: ['editor', 'admin'] });
      expectNoProblems(other.problems, [400, 403]);
    });
  });

  atWidth(WIDE, (viewport, w) => {
    it(`a detail page picks a row and lays it out by its fields; a form page creates a row with its defaults (${w} px)`, async () => {
      const detail = await makePage({
        table: 'part',
        title: `Product card ${w}`,
        slug: `product-card-${w}`,
        kind: 'detail',
        config: { fields: [{ column: 'name', readOnly: true }, { column: 'qty' }] },
      });
      const form = await makePage({
        table: 'part',
        title: `Add product ${w}`,
        slug: `add-product-${w}`,
        kind: 'form',
        config: { fields: [{ column: 'name' }, { column: 'qty' }], defaults: { qty: 7 }, afterSave: 'detail' },
      });
      const parts = await makePage({ table: 'part', title: `Parts ${w}`, slug: `parts-${w}`, kind: 'list', config: { detailPage: detail.id } });
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);

      // A list page whose rows open in its detail page.
      await page.goto(`${inst.url}/p/${parts.slug}`);
      await onScreen(page, `parts-${w}`, exactly(`Parts ${w}`));
      await page.getByRole('link', { name: msg('data.grid.openRow', { id: '3' }) }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/p/${detail.slug}/3`);
      await onScreen(page, `parts-row-${w}`, /row 3/);

      // The detail page without a row: the grid to choose one.
      await page.goto(`${inst.url}/p/${detail.slug}`);
      await onScreen(page, `detail-pick-${w}`, exactly(`Product card ${w}`));
      await page.getByText(msg('pages.detail.choose')).waitFor();
      await page.getByRole('link', { name: msg('data.grid.openRow', { id: '2' }) }).click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/p/${detail.slug}/2`);
      await onScreen(page, `detail-row-${w}`, /row 2/);
      // The name is read-only, the quantity is edited.
      await expect.poll(() => page.locator('output.data-readonly-value').first().textContent()).toBe('Part 2');
      const qty = page.getByRole('spinbutton', { name: /qty/i }).or(page.getByRole('textbox', { name: /qty/i }));
      await qty.fill(String(w));
      await page.getByRole('button', { name: msg('data.row.save') }).click();
      await page.getByText(msg('data.toast.saved')).waitFor();
      await page.getByRole('link', { name: msg('pages.row.back', { title: `Product card ${w}` }) }).click();
      await onScreen(page, `detail-back-${w}`, exactly(`Product card ${w}`));

      // The detail page's config form: the quantity made read-only, then shown, not edited.
      await page.goto(`${inst.url}/pages/${detail.id}/edit`);
      await onScreen(page, `detail-config-${w}`, msg('pages.edit.heading', { title: `Product card ${w}` }));
      await page.getByRole('checkbox', { name: msg('pages.config.readOnlyField', { column: 'Qty' }) }).check();
      await page.getByRole('button', { name: msg('pages.config.save') }).click();
      await page.getByText(msg('pages.config.saved')).waitFor();
      await page.goto(`${inst.url}/p/${detail.slug}/2`);
      await onScreen(page, `detail-readonly-${w}`, /row 2/);
      await expect.poll(() => page.locator('output.data-readonly-value').allTextContents()).toEqual(['Part 2', new Intl.NumberFormat('en').format(w)]);
      expect(await page.getByRole('button', { name: msg('data.row.save') }).count()).toBe(0);

      // The form page: the default is filled in; after the save the new row opens.
      await page.goto(`${inst.url}/p/${form.slug}`);
      await onScreen(page, `form-${w}`, exactly(`Add product ${w}`));
      const formQty = page.getByRole('spinbutton', { name: /qty/i }).or(page.getByRole('textbox', { name: /qty/i }));
      await expect.poll(() => formQty.inputValue()).toBe('7');
      await page.getByRole('textbox', { name: /name/i }).fill(`Made ${w}`);
      await page.getByRole('button', { name: msg('pages.form.submit'), exact: true }).click();
      await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^/p/${form.slug}/\\d+$`));
      await onScreen(page, `form-created-${w}`, /row \d+/);
      const id = new URL(page.url()).pathname.split('/').pop()!;
      const row = await admin.get(`/api/v1/data/${conn}/part/${id}`);
      expect((row.body as any).data.row).toMatchObject({ name: `Made ${w}`, qty: 7 });

      // afterSave "new": the form stays, empty again but for its default, and links the row made.
      const patched = await admin.patch(`/api/v1/pages/${form.id}/config`, {
        fields: [{ column: 'name' }, { column: 'qty' }],
        defaults: { qty: 7 },
        afterSave: 'new',
      });
      expect(patched.status).toBe(200);
      await page.goto(`${inst.url}/p/${form.slug}`);
      await onScreen(page, `form-new-${w}`, exactly(`Add product ${w}`));
      await page.getByRole('textbox', { name: /name/i }).fill(`Again ${w}`);
      await page.getByRole('button', { name: msg('pages.form.submit'), exact: true }).click();
      await page.getByRole('status').getByText(msg('pages.form.created')).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/p/${form.slug}`);
      await expect.poll(() => page.getByRole('textbox', { name: /name/i }).inputValue()).toBe('');
      await expect.poll(() => formQty.inputValue()).toBe('7');
      await onScreen(page, `form-again-${w}`, exactly(`Add product ${w}`));
      expectNoProblems(problems);
    });
  });
});
