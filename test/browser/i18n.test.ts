import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupAdmin } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { connectSqlite, sqliteSource, stockTable, type SqliteSource } from '../helpers/sqlite-source.js';
import { formatIn, messages, messagesIn, type MessageId } from '../messages.js';
import { browserAvailable } from './chromium.js';
import { atWidth, exactly, expectNoProblems, msg, PHONE, useDashboardBrowser, WIDE, type Viewport } from './harness.js';

const ADMIN = { email: 'root@example.com', name: 'Root', password: 'root-password' };

/** The Arabic catalogue the dashboard shows (i18n/ar), filled like `msg`. */
const AR = messagesIn('ar');
const ar = (id: MessageId, values: Record<string, string> = {}) => AR[id].replace(/\{(\w+)\}/g, (_m, key: string) => values[key] ?? `{${key}}`);
/** An Arabic message with its plural chosen as the dashboard chooses it. */
const arPlural = formatIn('ar');

/** An English message formatted as the dashboard formats it (plural and select included). */
const format = (id: MessageId, values: Record<string, string | number>) => String(new IntlMessageFormat(messages[id], 'en').format(values));

/**
 * The dashboard in other languages (issue 31): a translation made in the editor shows at once in
 * a dashboard open elsewhere (the `i18n.changed` event, no reload); Arabic mirrors every main
 * screen (dir=rtl, nothing wider than the window, axe clean); Settings → Languages adds, disables
 * and deletes locales and says each refusal in words.
 */
describe.runIf(browserAvailable())('the dashboard in a real browser: languages and translations', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let arabicName: string;
  let source: SqliteSource;
  let conn: string;
  const { openPage, onScreen, signIn } = useDashboardBrowser('i18n');

  beforeAll(async () => {
    inst = await startInstance();
    admin = await setupAdmin(inst);
    const locales = (await admin.get('/api/v1/i18n/locales')).body.data.locales as Array<{ locale: string; name: string; enabled: boolean }>;
    const arabic = locales.find((l) => l.locale === 'ar');
    expect(arabic?.enabled).toBe(true);
    arabicName = arabic!.name;
    // A connection with a table, for the Arabic walk to reach the connections and the grid.
    source = sqliteSource('i18n', stockTable);
    conn = await connectSqlite(admin, source.file);
  });

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  const html = (page: Page, attribute: string) => page.evaluate((a) => document.documentElement.getAttribute(a), attribute);
  const setLocale = async (locale: string | null) => expect((await admin.patch('/api/v1/me/prefs', { locale, dir: null })).status).toBe(200);

  atWidth(WIDE, (viewport, w) => {
    it(`translates a message and sees it at once in another open dashboard, with the ICU check as it is typed (${w} px)`, async () => {
      await setLocale(null);
      const reader = await openPage({ viewport });
      await signIn(reader.page, inst.url, ADMIN);
      const translator = await openPage({ viewport });
      await signIn(translator.page, inst.url, ADMIN);
      // The open dashboard: Home, in Arabic and mirrored.
      await setLocale('ar');
      await reader.page.goto(inst.url + '/', { waitUntil: 'load' });
      await expect.poll(() => html(reader.page, 'lang')).toBe('ar');
      await expect.poll(() => html(reader.page, 'dir')).toBe('rtl');
      await reader.page.getByText(ar('home.intro')).waitFor();

      // The translator, in another browser: the editor of Arabic at the shell's home.intro.
      await translator.page.goto(`${inst.url}/settings/languages/ar?namespace=shell&q=home.intro`, { waitUntil: 'load' });
      const page = translator.page;
      await onScreen(page, 'i18n-editor', exactly(msg('i18n.editor.title', { name: arabicName })));
      const row = page.locator('li[data-key="home.intro"]');
      await row.getByText(msg('home.intro'), { exact: true }).waitFor();
      await row.getByRole('button', { name: msg('i18n.editor.edit', { key: 'home.intro' }) }).click();
      const field = row.getByLabel(msg('i18n.editor.valueLabel', { name: arabicName, key: 'home.intro' }));
      const save = row.getByRole('button', { name: msg('i18n.editor.save'), exact: true });

      // An unclosed brace: said at once, and it cannot be saved.
      await field.fill('لوحتك {name');
      await row.locator('.i18n-check-bad').waitFor();
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await save.isDisabled()).toBe(true);
      // A placeholder the English does not have.
      await field.fill('لوحتك يا {who}');
      await row.getByText(msg('i18n.editor.problem.placeholders', { expected: msg('i18n.editor.nothing'), found: '{who}' })).waitFor();
      expect(await save.isDisabled()).toBe(true);
      await onScreen(page, 'i18n-editor-problem', exactly(msg('i18n.editor.title', { name: arabicName })));

      const translated = 'قواعد بياناتك وصفحاتك ومهامك، كلها هنا.';
      await field.fill(translated);
      await row.getByText(msg('i18n.editor.checkOk')).waitFor();
      await save.click();
      await row
        .getByRole('status')
        .filter({ hasText: msg('i18n.editor.saved') })
        .waitFor();

      // The open dashboard shows it without a reload.
      await reader.page.getByText(translated).waitFor();
      expect(await reader.page.getByText(ar('home.intro')).count()).toBe(0);

      // A plural is previewed in each of Arabic's six forms; the placeholders are chips.
      await page.goto(`${inst.url}/settings/languages/ar?namespace=shell&q=notifications.unreadShort`, { waitUntil: 'load' });
      const plural = page.locator('li[data-key="notifications.unreadShort"]');
      await plural.getByRole('button', { name: msg('i18n.editor.edit', { key: 'notifications.unreadShort' }) }).click();
      await plural.getByText(msg('i18n.editor.pluralCategories', { categories: 'zero, one, two, few, many, other' })).waitFor();
      expect(await plural.locator('.i18n-plurals li').count()).toBe(6);
      expect(await plural.locator('.i18n-chip').allTextContents()).toEqual(['{count, plural}']);
      await onScreen(page, 'i18n-editor-plural', exactly(msg('i18n.editor.title', { name: arabicName })));

      // Export: Arabic's shell as PO (the namespace filter applies), English as each msgid.
      const formatField = page.getByLabel(msg('i18n.transfer.format'));
      await formatField.selectOption('po');
      const href = await page.getByRole('link', { name: msg('i18n.transfer.export', { name: arabicName }) }).getAttribute('href');
      expect(href).toBe('/api/v1/i18n/export/ar?format=po&namespace=shell');
      const po = await page.request.get(inst.url + href!);
      expect(po.status()).toBe(200);
      expect(await po.text()).toContain('msgctxt "shell.home.title"');

      // Import: a dry run of a JSON file with one good and one broken message refuses the broken one alone, in words.
      const file = {
        name: 'ar.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ shell: { 'home.title': 'البداية', 'nav.home': 'الرئيسية {oops' } })),
      };
      await formatField.selectOption('json');
      await page.getByLabel(msg('i18n.transfer.file')).setInputFiles(file);
      await page.getByRole('button', { name: msg('i18n.transfer.import'), exact: true }).click();
      await page.getByText(format('i18n.transfer.rejected', { namespace: 'shell', key: 'nav.home', reason: 'icu_syntax' })).waitFor();
      await page
        .getByRole('status')
        .filter({ hasText: /1 refused/ })
        .waitFor();
      // The same file said to be XLIFF: the file as a whole cannot be read.
      await formatField.selectOption('xliff');
      await page.getByRole('button', { name: msg('i18n.transfer.import'), exact: true }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: format('i18n.transfer.invalid', { reason: 'format', format: msg('i18n.transfer.formatXliff') }) })
        .waitFor();
      await onScreen(page, 'i18n-editor-import', exactly(msg('i18n.editor.title', { name: arabicName })));

      // Removing the translation brings the shipped text back, there too.
      await page.goto(`${inst.url}/settings/languages/ar?namespace=shell&q=home.intro`, { waitUntil: 'load' });
      await row.getByRole('button', { name: msg('i18n.editor.edit', { key: 'home.intro' }) }).click();
      await row.getByRole('button', { name: msg('i18n.editor.remove') }).click();
      await row
        .getByRole('status')
        .filter({ hasText: msg('i18n.editor.removed') })
        .waitFor();
      await reader.page.getByText(ar('home.intro')).waitFor();

      expectNoProblems(reader.problems);
      expectNoProblems(translator.problems, [400]);
      await setLocale(null);
    });
  });

  for (const viewport of [PHONE, WIDE] as Viewport[]) {
    atWidth(viewport, (viewport, w) => {
      it(`switches Preferences to Arabic and walks the main screens mirrored (${w} px)`, async () => {
        await setLocale(null);
        const { page, problems } = await openPage({ viewport });
        await signIn(page, inst.url, ADMIN);
        await page.goto(inst.url + '/account/preferences', { waitUntil: 'load' });
        await onScreen(page, `preferences-${w}`, exactly(msg('prefs.title')));
        // The languages offered are the instance's (GET /i18n/locales), each in its own name.
        const select = page.getByLabel(msg('prefs.locale'));
        expect(await select.locator('option[value="ar"]').textContent()).toBe(arabicName);
        await select.selectOption('ar');
        await expect.poll(() => html(page, 'dir')).toBe('rtl');
        await expect.poll(() => html(page, 'lang')).toBe('ar');
        await page.getByRole('heading', { level: 1, name: exactly(ar('prefs.title')) }).waitFor();

        const screens: Array<[string, string, string]> = [
          ['/', 'home', ar('home.greeting', { name: ADMIN.name })],
          ['/account/preferences', 'preferences', exactly(ar('prefs.title')).source],
          ['/connections', 'connections', exactly(ar('connections.title')).source],
          [`/connections/${conn}`, 'connection', exactly('Shop').source],
          [`/connections/${conn}/tables/product`, 'grid', exactly('Product').source],
          [`/connections/${conn}/tables/product/rows/1`, 'row', exactly(ar('data.row.heading', { table: 'Product', id: '1' })).source],
          ['/users', 'users', exactly(ar('nav.users')).source],
          ['/audit', 'audit', exactly(ar('nav.audit')).source],
          ['/settings', 'settings', exactly(msg('settings.title')).source],
          ['/settings/languages', 'languages', exactly(msg('i18n.languages.title')).source],
        ];
        for (const [path, name, heading] of screens) {
          await page.goto(inst.url + path, { waitUntil: 'load' });
          await onScreen(page, `${name}-ar-${w}`, name === 'home' ? heading : new RegExp(heading));
          // The connections and the grid speak Arabic below their headings too (connections and data namespaces).
          if (name === 'connections') await page.getByRole('link', { name: 'Shop' }).waitFor();
          if (name === 'connection') await page.getByRole('heading', { level: 2, name: exactly(ar('connections.tables.title')) }).waitFor();
          if (name === 'grid') {
            await page.getByText(arPlural('data.grid.count', { count: 5 }), { exact: true }).waitFor();
            await page.getByRole('button', { name: ar('data.grid.newRow') }).waitFor();
          }
          expect(await html(page, 'dir'), path).toBe('rtl');
          expect(await html(page, 'lang'), path).toBe('ar');
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `${path} is wider than the window`).toBeLessThanOrEqual(0);
        }
        // Mirrored: at 1440 the navigation column is on the right of main.
        if (w >= 900) {
          const nav = await page.getByRole('navigation', { name: ar('nav.label') }).boundingBox();
          const main = await page.locator('main').boundingBox();
          expect(nav!.x).toBeGreaterThan(main!.x);
        }
        await setLocale(null);
        expectNoProblems(problems);
      });
    });
  }

  atWidth(PHONE, (viewport, w) => {
    it(`adds, disables and deletes languages, each refusal said in words (${w} px)`, async () => {
      await setLocale(null);
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ADMIN);
      await page.goto(inst.url + '/settings', { waitUntil: 'load' });
      await page
        .getByRole('navigation', { name: msg('settings.sectionsLabel') })
        .getByRole('link', { name: msg('settings.languages.link') })
        .click();
      await onScreen(page, 'languages', exactly(msg('i18n.languages.title')));
      const table = page.getByRole('table', { name: msg('i18n.languages.listLabel') });
      await table.locator('tr[data-locale="ar"]').waitFor();

      // A code with a hyphen is refused on the form.
      await page.getByLabel(msg('i18n.add.code')).fill('pt-BR');
      await page.getByLabel(msg('i18n.add.name')).fill('Português (Brasil)');
      await page.getByRole('button', { name: msg('i18n.add.submit') }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: msg('i18n.refusal.localeInvalid') })
        .waitFor();
      await onScreen(page, 'languages-refused', exactly(msg('i18n.languages.title')));

      await page.getByLabel(msg('i18n.add.code')).fill('pt_BR');
      await page.getByLabel(msg('i18n.add.name')).fill('Português (Brasil)');
      await page.getByRole('button', { name: msg('i18n.add.submit') }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('i18n.add.added', { name: 'Português (Brasil)' }) })
        .waitFor();
      const brazil = table.locator('tr[data-locale="pt_BR"]');
      await brazil.getByText(msg('i18n.languages.enabled'), { exact: true }).waitFor();

      // The same code again.
      await page.getByLabel(msg('i18n.add.code')).fill('pt_BR');
      await page.getByLabel(msg('i18n.add.name')).fill('Brasil');
      await page.getByRole('button', { name: msg('i18n.add.submit') }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: msg('i18n.refusal.exists') })
        .waitFor();

      // A fallback cycle: Arabic falls back to Brazilian Portuguese, which cannot then fall back to Arabic.
      const arabic = table.locator('tr[data-locale="ar"]');
      await arabic.getByLabel(msg('i18n.languages.fallbackOf', { name: arabicName })).selectOption('pt_BR');
      await page
        .getByRole('status')
        .filter({ hasText: msg('i18n.languages.changed', { name: arabicName }) })
        .waitFor();
      await brazil.getByLabel(msg('i18n.languages.fallbackOf', { name: 'Português (Brasil)' })).selectOption('ar');
      await brazil
        .getByRole('alert')
        .filter({ hasText: msg('i18n.refusal.fallbackCycle') })
        .waitFor();
      await arabic.getByLabel(msg('i18n.languages.fallbackOf', { name: arabicName })).selectOption('en');
      await page
        .getByRole('status')
        .filter({ hasText: msg('i18n.languages.changed', { name: arabicName }) })
        .waitFor();

      // English is the source: it cannot be disabled.
      const english = table.locator('tr[data-locale="en"]');
      const englishName = (await english.locator('th span[lang]').textContent())!;
      await english.getByRole('button', { name: msg('i18n.languages.disable', { name: englishName }) }).click();
      await english
        .getByRole('alert')
        .filter({ hasText: msg('i18n.refusal.sourceLocale') })
        .waitFor();

      // A shipped language cannot be deleted, only disabled.
      await arabic.getByRole('button', { name: msg('i18n.languages.delete', { name: arabicName }) }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: msg('i18n.languages.delete', { name: arabicName }) })
        .click();
      await arabic
        .getByRole('alert')
        .filter({ hasText: msg('i18n.refusal.shippedLocale') })
        .waitFor();

      // Disabled: no longer offered in the manifest.
      await brazil.getByRole('button', { name: msg('i18n.languages.disable', { name: 'Português (Brasil)' }) }).click();
      await brazil.getByText(msg('i18n.languages.disabled'), { exact: true }).waitFor();
      const manifest = (await admin.get('/api/v1/i18n/manifest')).body.data as { locales: Array<{ locale: string }> };
      expect(manifest.locales.map((l) => l.locale)).not.toContain('pt_BR');

      // Deleted.
      await brazil.getByRole('button', { name: msg('i18n.languages.delete', { name: 'Português (Brasil)' }) }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: msg('i18n.languages.delete', { name: 'Português (Brasil)' }) })
        .click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('i18n.languages.deleted', { name: 'Português (Brasil)' }) })
        .waitFor();
      await brazil.waitFor({ state: 'detached' });
      expectNoProblems(problems, [400, 409]);
    });
  });
  atWidth(WIDE, (viewport, w) => {
    it(`says an API error in the person's language, from the errors namespace (${w} px)`, async () => {
      const DE = JSON.parse(readFileSync(new URL('../../i18n/de/errors.json', import.meta.url), 'utf8')) as Record<string, string>;
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ADMIN);
      await setLocale('de');
      // An unknown user: the API answers 404 NOT_FOUND with its English message; the panel says the German one.
      await page.goto(inst.url + '/users/u_nobody', { waitUntil: 'load' });
      await expect.poll(() => html(page, 'lang')).toBe('de');
      const alert = page.getByRole('alert').filter({ hasText: DE['errors.NOT_FOUND']! });
      await alert.waitFor();
      await setLocale(null);
      expectNoProblems(problems, [404]);
    });
  });
});
