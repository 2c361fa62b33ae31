import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../plugins/auth/testing.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import { connectSqlite, sqliteSource, type SqliteSource } from '../helpers/sqlite-source.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser, atWidth, PHONE, WIDE } from './harness.js';

const VIEWER = { email: 'viola@example.com', name: 'Viola Reader', password: 'viewer-password-1' };
const SHOTS = join(process.cwd(), 'test-results', 'palette');

/** Opens the palette with the keyboard; its field has the focus. */
async function openPalette(page: Page): Promise<void> {
  await page.keyboard.press('Control+k');
  await page.getByRole('dialog', { name: msg('palette.label') }).waitFor();
  await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('combobox');
}

/** Types into the palette and waits for an option of the group `group` named `title`. */
async function find(page: Page, text: string, group: string, title: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: msg('palette.label') });
  await dialog.getByRole('combobox').fill(text);
  await dialog
    .getByRole('group', { name: group })
    .getByRole('option', { name: new RegExp(title) })
    .waitFor();
}

describe.runIf(browserAvailable())('the command palette in a real browser', () => {
  let inst: TestInstance;
  let source: SqliteSource;
  let connectionId: string;
  const { openPage, onScreen, signIn } = useDashboardBrowser('palette');

  beforeAll(async () => {
    source = sqliteSource('palette', (db) => {
      db.exec(`create table customer (id integer primary key autoincrement, name varchar(40) not null);`);
      const insert = db.prepare('insert into customer (name) values (?)');
      for (const name of ['Zephyrine Quartz', 'Ada Lovelace', 'Grace Hopper']) insert.run(name);
    });
    const boot = await bootWithAdmin();
    inst = boot.inst;
    connectionId = await connectSqlite(boot.admin, source.file, 'Marigold CRM');
    const pageRes = await boot.admin.post('/api/v1/pages', { title: 'Customer directory', kind: 'list', connectionId, table: 'customer' });
    expect(pageRes.status).toBe(201);
    const pageId = (pageRes.body as any).data.page.id as string;
    const config = await boot.admin.patch(`/api/v1/pages/${pageId}/config`, { searchable: true, displayColumn: 'name' });
    expect(config.status).toBe(200);
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  atWidth(WIDE, (viewport) => {
    it(`an admin finds a page, a connection, a user and a row and opens each; commands and shortcuts (${viewport.width} px)`, async () => {
      const w = viewport.width;
      const { page, problems, requested } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);

      // The palette's code is not in the first load: it arrives when the palette first opens.
      const home = page.url();
      const paletteChunk = () => requested.some((url) => /\/assets\/Palette-[^/]*\.js$/.test(new URL(url).pathname));
      expect(paletteChunk()).toBe(false);
      await openPalette(page);
      expect(paletteChunk()).toBe(true);
      const dialog = page.getByRole('dialog', { name: msg('palette.label') });
      // Before typing: the commands this admin may use.
      const commands = dialog.getByRole('group', { name: msg('palette.commands') });
      for (const id of ['palette.cmd.newConnection', 'palette.cmd.inviteUser', 'palette.cmd.newPage', 'palette.cmd.signOut'] as const)
        await commands.getByRole('option', { name: msg(id) }).waitFor();
      await onScreen(page, `palette-${w}`, msg('home.greeting', { name: ROOT.name }));
      mkdirSync(SHOTS, { recursive: true });
      await find(page, 'customer dir', msg('palette.group.page'), 'Customer directory');
      await page.screenshot({ path: join(SHOTS, `palette-open-${w}.png`) });

      // A page: Enter on the first result opens it.
      await page.keyboard.press('Enter');
      await expect.poll(() => new URL(page.url()).pathname).toBe('/p/customer-directory');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

      // A connection, found with a typo, chosen with the arrow keys.
      await openPalette(page);
      await find(page, 'marigld', msg('palette.group.connection'), 'Marigold CRM');
      await dialog
        .getByRole('group', { name: msg('palette.group.connection') })
        .getByRole('option', { name: /Marigold CRM/ })
        .click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/connections/${connectionId}`);

      // A user by name, its e-mail as the subtitle.
      await openPalette(page);
      await find(page, 'viola', msg('palette.group.user'), VIEWER.name);
      const user = dialog.getByRole('group', { name: msg('palette.group.user') }).getByRole('option', { name: new RegExp(VIEWER.name) });
      expect(await user.textContent()).toContain(VIEWER.email);
      await user.click();
      await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/users\/[^/]+$/);
      await page.getByRole('heading', { level: 1, name: VIEWER.name }).waitFor();

      // A row of the searchable page's table, by its display column.
      await openPalette(page);
      await find(page, 'zephyr', msg('palette.group.row'), 'Zephyrine Quartz');
      await page.keyboard.press('Enter');
      await expect.poll(() => new URL(page.url()).pathname).toMatch(new RegExp(`^/connections/${connectionId}/tables/customer/rows/`));
      await expect.poll(() => page.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Zephyrine Quartz');

      // Escape closes, and the focus goes back where it was.
      await page.goto(home);
      await onScreen(page, `home-${w}`, msg('home.greeting', { name: ROOT.name }));
      const button = page.getByRole('button', { name: msg('palette.open') });
      await button.click();
      await dialog.waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
      await expect.poll(() => button.evaluate((el) => el === document.activeElement)).toBe(true);

      // A command: the theme switches at once.
      await openPalette(page);
      await dialog.getByRole('combobox').fill('theme');
      await commands.getByRole('option', { name: msg('palette.cmd.themeDark') }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await openPalette(page);
      await dialog.getByRole('combobox').fill('theme');
      await commands.getByRole('option', { name: msg('palette.cmd.themeLight') }).click();
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');

      // `?` outside a field lists the shortcuts; inside the palette's field it is a question mark.
      await page.locator('main').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('?');
      const shortcuts = page.getByRole('dialog', { name: msg('shortcuts.title') });
      await shortcuts.waitFor();
      expect(await shortcuts.textContent()).toContain(msg('shortcuts.palette'));
      await onScreen(page, `shortcuts-${w}`, msg('home.greeting', { name: ROOT.name }));
      await page.screenshot({ path: join(SHOTS, `shortcuts-${w}.png`) });
      await shortcuts.getByRole('button', { name: msg('shortcuts.close') }).click();
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);

      // New page: the editor's form.
      await openPalette(page);
      await dialog.getByRole('combobox').fill('new page');
      await commands.getByRole('option', { name: msg('palette.cmd.newPage') }).click();
      await onScreen(page, `new-page-${w}`, exactly(msg('pages.new.title')));

      // Sign out.
      await openPalette(page);
      await dialog.getByRole('combobox').fill('sign');
      await commands.getByRole('option', { name: msg('palette.cmd.signOut') }).click();
      await onScreen(page, `signed-out-${w}`, msg('signIn.title'));
      expectNoProblems(problems);
    });
  });

  atWidth(PHONE, (viewport) => {
    it(`a viewer sees no admin command (${viewport.width} px)`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, VIEWER);
      await openPalette(page);
      const commands = page.getByRole('dialog', { name: msg('palette.label') }).getByRole('group', { name: msg('palette.commands') });
      await commands.getByRole('option', { name: msg('palette.cmd.signOut') }).waitFor();
      for (const id of ['palette.cmd.newConnection', 'palette.cmd.inviteUser', 'palette.cmd.newPage'] as const)
        expect(await commands.getByRole('option', { name: msg(id) }).count()).toBe(0);
      // Nor users among the results (no users.read), while the connection is there (connections.read).
      await find(page, 'marigold', msg('palette.group.connection'), 'Marigold CRM');
      await page.getByRole('combobox').fill('lovelace root');
      await page.getByText(msg('palette.empty')).waitFor();
      expect(await page.getByRole('group', { name: msg('palette.group.user') }).count()).toBe(0);
      expectNoProblems(problems);
    });
  });
});
