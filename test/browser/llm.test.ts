import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, setupAdmin } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { startFakeLlm, type FakeLlm } from '../helpers/fake-llm.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { connectSqlite, sqliteSource, stockTable, type SqliteSource } from '../helpers/sqlite-source.js';
import { browserAvailable } from './chromium.js';
import { atWidth, expectNoProblems, msg, PHONE, showNav, useDashboardBrowser, WIDE } from './harness.js';

const ADMIN = { email: 'root@example.com', name: 'Root', password: 'root-password' };
const EDITOR = { email: 'eddie@example.com', name: 'Eddie Editor', password: 'eddie-password-1' };

describe.runIf(browserAvailable())('the dashboard in a real browser: AI assist', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SqliteSource;
  let fake: FakeLlm;
  let connectionId: string;
  const { openPage, onScreen, signIn } = useDashboardBrowser('llm');

  beforeAll(async () => {
    fake = await startFakeLlm();
    inst = await startInstance();
    admin = await setupAdmin(inst);
    await createUser(inst, { ...EDITOR, roles: ['editor'] });
    source = sqliteSource('llm-shop', stockTable);
    connectionId = await connectSqlite(admin, source.file, 'Shop');
  });
  afterAll(async () => {
    await inst?.close();
    await fake?.close();
    source?.dispose();
  });

  const qty = async (id: number) => {
    const res = await admin.get(`/api/v1/data/${connectionId}/product/${id}`);
    return (res.body as { data: { row: { qty: number } } }).data.row.qty;
  };

  atWidth(WIDE, (viewport) => {
    it('manual mode: an admin turns it on, an editor copies the prompt, pastes the answer, reviews the diff, applies and undoes', async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ADMIN);
      await (await showNav(page)).getByRole('link', { name: msg('nav.ask') }).click();
      await onScreen(page, 'ask', msg('llm.ask.title'));
      await page.getByRole('link', { name: msg('llm.ask.toSettings') }).click();
      await onScreen(page, 'ai-settings', msg('llm.settings.title'));
      await page.getByLabel(msg('llm.settings.mode'), { exact: true }).selectOption({ label: msg('llm.settings.modeManual') });
      await page.getByRole('button', { name: msg('llm.settings.save') }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('llm.settings.saved') })
        .waitFor();
      expect((await admin.get('/api/v1/llm/config')).body.data.mode).toBe('manual');
      expectNoProblems(problems);

      const editor = await openPage({ viewport });
      await signIn(editor.page, inst.url, EDITOR);
      const p = editor.page;
      // From the connection's sections, the Ask screen opens on that connection.
      await p.goto(`${inst.url}/connections/${connectionId}`);
      await p
        .getByRole('navigation', { name: msg('connections.sections') })
        .getByRole('link', { name: msg('connections.tab.ask') })
        .click();
      await onScreen(p, 'ask-editor', msg('llm.ask.title'));
      expect(new URL(p.url()).search).toBe(`?connection=${connectionId}`);
      // The settings are not theirs: no link.
      expect(await p.getByRole('link', { name: msg('llm.ask.toSettings') }).count()).toBe(0);
      await p.getByLabel('product').check();
      await p.getByLabel(msg('llm.ask.request')).fill('Set the quantity of Item 1 to 40 and add a Widget');
      await p.getByLabel(msg('llm.ask.samples')).fill('2');
      await p.getByText(msg('llm.ask.sendsSamples', { count: '2' })).waitFor();
      await p.getByRole('button', { name: msg('llm.ask.submit') }).click();
      const prompt = p.getByLabel(msg('llm.manual.prompt'));
      await expect.poll(async () => (await prompt.inputValue()).includes('Table "product"')).toBe(true);
      expect(await prompt.inputValue()).toContain('Item 1');
      await p.getByRole('button', { name: msg('llm.manual.copy') }).click();
      await p.getByLabel(msg('llm.manual.answer')).fill(
        'Here you are:\n```json\n' +
          JSON.stringify({
            changes: [
              { op: 'update', table: 'product', key: { id: 1 }, values: { qty: 40 } },
              { op: 'insert', table: 'product', values: { name: 'Widget', qty: 3 } },
            ],
          }) +
          '\n```',
      );
      await p.getByRole('button', { name: msg('llm.manual.submit') }).click();
      const table = p.getByRole('table', { name: msg('llm.diff.caption') });
      await table.waitFor();
      await onScreen(p, 'ask-diff', msg('llm.ask.title'));
      const first = table.getByRole('row').nth(1);
      expect(await first.textContent()).toContain('qty');
      expect(await first.textContent()).toContain('40');
      await p.getByRole('button', { name: msg('llm.diff.apply') }).click();
      await p.getByText(msg('llm.applied.notice', { insert: '1', update: '1', delete: '0', pages: '0', views: '0' })).waitFor();
      expect(await qty(1)).toBe(40);
      await p.getByRole('button', { name: msg('llm.applied.undo'), exact: true }).click();
      await p.getByText(msg('llm.run.undone')).waitFor();
      expect(await qty(1)).toBe(1);
      // The run is in the history.
      const history = p.getByRole('region', { name: msg('llm.history.heading') });
      await history.getByRole('link', { name: 'Set the quantity of Item 1 to 40 and add a Widget' }).waitFor();
      // From a table's grid, the Ask screen opens on that connection with the table ticked.
      await p.goto(`${inst.url}/connections/${connectionId}/tables/product`);
      await p
        .locator('#main')
        .getByRole('link', { name: msg('data.grid.ask') })
        .click();
      await onScreen(p, 'ask-from-table', msg('llm.ask.title'));
      expect(await p.getByLabel('product').isChecked()).toBe(true);
      expectNoProblems(editor.problems);
    });
  });

  atWidth(PHONE, (viewport) => {
    it('provider mode: an admin sets the provider, tests it and lists its models; an invalid change is flagged and skipped', async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ADMIN);
      // Settings → AI assist.
      await (await showNav(page)).getByRole('link', { name: msg('nav.settings') }).click();
      await onScreen(page, 'settings-phone', msg('settings.title'));
      await page
        .getByRole('navigation', { name: msg('settings.sectionsLabel') })
        .getByRole('link', { name: msg('settings.ai.link') })
        .click();
      await onScreen(page, 'ai-settings-phone', msg('llm.settings.title'));
      await page.getByLabel(msg('llm.settings.mode'), { exact: true }).selectOption({ label: msg('llm.settings.modeProvider') });
      await page.getByLabel(msg('llm.settings.baseUrl')).fill(fake.baseUrl);
      await page.getByLabel(msg('llm.settings.model'), { exact: true }).fill('fake-small');
      await page.getByLabel(msg('llm.settings.apiKey')).fill('sk-browser-key');
      await page.getByRole('button', { name: msg('llm.settings.save') }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('llm.settings.saved') })
        .waitFor();
      await page.getByText(msg('llm.settings.apiKeyKept')).waitFor();
      await page.getByRole('button', { name: msg('llm.settings.test') }).click();
      await page.getByText(msg('llm.settings.testOk', { model: 'fake-small', ms: '' }).split(' in ')[0]!).waitFor();
      await page.getByRole('button', { name: msg('llm.settings.loadModels') }).click();
      await page
        .getByRole('list', { name: msg('llm.settings.modelsLabel') })
        .getByRole('button', { name: 'fake-large' })
        .click();
      expect(await page.getByLabel(msg('llm.settings.model'), { exact: true }).inputValue()).toBe('fake-large');

      fake.answer = {
        changes: [
          { op: 'update', table: 'product', key: { id: 2 }, values: { qty: 22 } },
          { op: 'update', table: 'product', key: { id: 3 }, values: { qty: 'many' } },
        ],
      };
      await page.goto(inst.url + '/ask');
      await onScreen(page, 'ask-phone', msg('llm.ask.title'));
      await page.getByLabel(msg('llm.ask.request')).fill('Restock items 2 and 3');
      await page.getByRole('button', { name: msg('llm.ask.submit') }).click();
      await page.getByRole('button', { name: msg('llm.provider.send') }).click();
      const table = page.getByRole('table', { name: msg('llm.diff.caption') });
      await table.waitFor();
      await onScreen(page, 'ask-diff-phone', msg('llm.ask.title'));
      await page.getByText(msg('llm.diff.invalid')).waitFor();
      const apply = page.getByRole('button', { name: msg('llm.diff.apply') });
      expect(await apply.isDisabled()).toBe(true);
      await page.getByLabel(msg('llm.diff.skipInvalid', { count: '1' })).check();
      await apply.click();
      await page.getByText(msg('llm.applied.notice', { insert: '0', update: '1', delete: '0', pages: '0', views: '0' })).waitFor();
      expect(await qty(2)).toBe(22);
      expect(await qty(3)).toBe(3);
      expectNoProblems(problems);
    });
  });

  // The undo token is the server's to give back (decisions LL10): a reload keeps Undo, the pages and views made go with it.
  for (const width of [WIDE, PHONE]) {
    atWidth(width, (viewport, w) => {
      it(`create-page and create-view are applied, shown, and undone after a reload (${w} px)`, async () => {
        expect((await admin.put('/api/v1/llm/config', { mode: 'manual' })).status).toBe(200);
        const listPage = await admin.post('/api/v1/pages', { title: `Stock ${w}`, kind: 'list', connectionId, table: 'product' });
        expect(listPage.status, listPage.text).toBe(201);
        const pageId = listPage.body.data.page.id as string;
        // A row of its own at each width.
        const id = w === WIDE.width ? 4 : 5;
        const { page: p, problems } = await openPage({ viewport });
        await signIn(p, inst.url, EDITOR);
        await p.goto(`${inst.url}/ask?connection=${connectionId}`);
        await onScreen(p, `ask-made-${w}`, msg('llm.ask.title'));
        await p.getByLabel('product').check();
        await p.getByLabel(msg('llm.ask.request')).fill(`A page and a view of low stock (${w})`);
        await p.getByRole('button', { name: msg('llm.ask.submit') }).click();
        await p.getByLabel(msg('llm.manual.answer')).fill(
          JSON.stringify({
            changes: [
              { op: 'update', table: 'product', key: { id }, values: { qty: 40 + id } },
              { op: 'create-page', title: `Restock ${w}`, kind: 'list', table: 'product' },
              { op: 'create-view', pageId, name: `Low stock ${w}`, query: { filters: [{ column: 'qty', op: 'lt', value: '3' }], sort: 'qty' } },
            ],
          }),
        );
        await p.getByRole('button', { name: msg('llm.manual.submit') }).click();
        const table = p.getByRole('table', { name: msg('llm.diff.caption') });
        await table.waitFor();
        await p.getByText(msg('llm.diff.summary', { insert: '0', update: '1', delete: '0', pages: '1', views: '1', invalid: '0' })).waitFor();
        expect(await table.getByRole('row').nth(3).textContent()).toContain(`Low stock ${w}`);
        await onScreen(p, `ask-made-diff-${w}`, msg('llm.ask.title'));
        await p.getByRole('button', { name: msg('llm.diff.apply') }).click();
        await p.getByText(msg('llm.applied.notice', { insert: '0', update: '1', delete: '0', pages: '1', views: '1' })).waitFor();
        // Shown: the page made, linked, and the view.
        const runPanel = p.getByRole('region', { name: msg('llm.run.heading') });
        const madeLink = runPanel.getByRole('link', { name: `Restock ${w}` });
        await madeLink.waitFor();
        await p.getByText(msg('llm.applied.madeViews')).waitFor();
        await onScreen(p, `ask-made-applied-${w}`, msg('llm.ask.title'));
        const views = async () => ((await admin.get(`/api/v1/pages/${pageId}/views`)).body.data.views as Array<{ name: string }>).map((v) => v.name);
        expect(await views()).toContain(`Low stock ${w}`);
        const madeSlug = new URL(await madeLink.evaluate((a) => (a as HTMLAnchorElement).href)).pathname.split('/').pop()!;
        const madePage = (
          (await admin.get(`/api/v1/pages?connectionId=${connectionId}&limit=100`)).body.data.pages as Array<{ id: string; slug: string }>
        ).find((x) => x.slug === madeSlug)!;
        expect(madePage).toBeDefined();
        expect(await qty(id)).toBe(40 + id);

        // After a reload (nothing kept in the tab), Undo is still offered, here and in the history.
        await p.reload();
        await onScreen(p, `ask-made-reloaded-${w}`, msg('llm.ask.title'));
        const history = p.getByRole('region', { name: msg('llm.history.heading') });
        await history.getByRole('button', { name: msg('llm.history.undo', { request: `A page and a view of low stock (${w})` }) }).waitFor();
        await runPanel.getByRole('button', { name: msg('llm.applied.undo'), exact: true }).click();
        await p.getByText(msg('llm.run.undone')).waitFor();
        await onScreen(p, `ask-made-undone-${w}`, msg('llm.ask.title'));
        expect(await qty(id)).toBe(id);
        expect(await views()).not.toContain(`Low stock ${w}`);
        expect((await admin.get(`/api/v1/pages/${madePage.id}`)).status).toBe(404);
        await expect
          .poll(() => history.getByRole('button', { name: msg('llm.history.undo', { request: `A page and a view of low stock (${w})` }) }).count())
          .toBe(0);
        expectNoProblems(problems);
      });
    });
  }
});
