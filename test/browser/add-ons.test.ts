import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAddon } from '../../addons-sdk/src/cli/pack.js';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import { packFixture, sqliteTablesLike, uploadPackage } from '../../plugins/add-ons/testing.js';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { databaseAvailable } from '../helpers/databases.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const CATALOG_APP = fileURLToPath(new URL('../../catalog/table-booking', import.meta.url));
const FIXTURE_110 = fileURLToPath(new URL('../fixtures/addons/table-booking-1.1.0', import.meta.url));
const TB = { name: 'Table booking', tables: ['table_booking__bookings', 'table_booking__venue_settings'] };
const ADMIN = ROOT;
const SECRET = 'tok-7f3a9c-never-shown';
const SECRET_2 = 'tok-second-value-b81e';

/** A second add-on, uploaded: a secret (required) setting, an enum, outbound hosts, no tables. */
const SHOP_SYNC: AddonManifestInput = {
  key: 'shop-sync',
  name: 'Shop sync',
  version: '1.0.0',
  engine: '>=0.1.0 <1',
  description: 'Sends new orders to the shop platform.',
  capabilities: ['fetch', 'kv'],
  outbound: ['api.shop.example', '*.cdn.shop.example'],
  settings: {
    type: 'object',
    properties: {
      apiToken: { type: 'string', title: 'API token', secret: true, minLength: 8 },
      region: { type: 'string', title: 'Region', enum: ['eu', 'us'], default: 'eu' },
      batch: { type: 'integer', title: 'Batch size', minimum: 1, maximum: 50, default: 10 },
      dryRun: { type: 'boolean', title: 'Dry run', default: false },
    },
    required: ['apiToken', 'region'],
  },
};

/** The tables of the add-ons (names starting with table_booking or shop_sync) on the connection. */
async function tablesOf(dialect: 'sqlite' | 'postgres', source: SourceFixture): Promise<string[]> {
  if (dialect === 'sqlite') {
    return sqliteTablesLike(source.database, 'table_booking');
  }
  const client = new pg.Client({ connectionString: source.url });
  await client.connect();
  try {
    const res = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_name like 'table_booking%' order by table_name",
    );
    return res.rows.map((r) => r.table_name);
  } finally {
    await client.end();
  }
}

async function columnsOf(dialect: 'sqlite' | 'postgres', source: SourceFixture, table: string): Promise<string[]> {
  if (dialect === 'sqlite') {
    const db = new Database(source.database, { readonly: true });
    try {
      return (db.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: source.url });
  await client.connect();
  try {
    const res = await client.query<{ column_name: string }>(
      'select column_name from information_schema.columns where table_name = $1 order by ordinal_position',
      [table],
    );
    return res.rows.map((r) => r.column_name);
  } finally {
    await client.end();
  }
}

const available = { sqlite: true, postgres: await databaseAvailable('postgres') };

/**
 * One story per connection dialect, told in order: a person finds table-booking in the built-in
 * catalog, reads its plan, installs it, configures it, disables and enables it, upgrades it to an
 * uploaded 1.1.0 after reading the plan's changes and removes it with its data; a second,
 * uploaded add-on shows a secret setting staying write-only (on SQLite; see sqliteOnly).
 */
for (const dialect of ['sqlite', 'postgres'] as const)
  describe.runIf(browserAvailable() && available[dialect])(`the add-ons screens in a real browser (${dialect} connection)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let source: SourceFixture;
    let connectionId: string;
    const work = mkdtempSync(join(tmpdir(), 'addons-browser-'));
    let package110 = '';
    let shopSync = '';
    const { openPage, onScreen, onDialog, signIn } = useDashboardBrowser(`add-ons-${dialect}`);
    // What the connection's dialect changes (the tables an install, an upgrade and a removal
    // make, alter and drop) runs on both; the rest of the story, the same screens over the same
    // API, runs on SQLite only.
    const sqliteOnly = dialect === 'sqlite' ? it : () => undefined;

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin());
      source = await sourceFixture(dialect);
      const created = await admin.post('/api/v1/connections', { name: 'Bistro', dialect, url: source.url });
      expect(created.status, created.text).toBe(201);
      connectionId = created.body.data.connection.id;
      // 1.1.0 as catalog/table-booking.test.ts makes it: the catalog's folder with the fixture laid over it.
      const dir = join(work, 'table-booking');
      cpSync(CATALOG_APP, dir, { recursive: true, filter: (p) => !p.endsWith('.test.ts') });
      cpSync(FIXTURE_110, dir, { recursive: true, filter: (p) => !p.endsWith('README.md') });
      package110 = (await packAddon(dir, join(work, 'table-booking-1.1.0.tgz'))).file;
      shopSync = join(work, 'shop-sync-1.0.0.tgz');
      writeFileSync(shopSync, (await packFixture(SHOP_SYNC, null)).bytes);
    }, 60_000);

    afterAll(async () => {
      await inst?.close();
      await source?.cleanup();
      rmSync(work, { recursive: true, force: true });
    });

    async function openAddOns(page: Page): Promise<void> {
      await signIn(page, inst.url, ADMIN);
      await page.getByRole('link', { name: msg('nav.addons') }).click();
      await onScreen(page, 'add-ons', exactly(msg('addOns.title')));
      expect(new URL(page.url()).pathname).toBe('/add-ons');
    }

    async function openTableBooking(page: Page): Promise<void> {
      await openAddOns(page);
      await page.getByTestId('installed-addon').getByRole('link', { name: TB.name }).click();
      await onScreen(page, 'add-on', exactly(TB.name));
    }

    it('finds table-booking in the catalog by search, reads its plan and installs it onto the connection', async () => {
      const { page, problems } = await openPage();
      await openAddOns(page);
      await page.getByText(msg('addOns.installed.empty')).waitFor();

      // Refreshing the remote catalogs needs the network features, off on this instance: it says so.
      await page.getByRole('button', { name: msg('addOns.catalog.refresh') }).click();
      await page.getByRole('alert').filter({ hasText: 'SVC_NETWORK_FEATURES=false' }).waitFor();

      const search = page.getByLabel(msg('addOns.catalog.search'));
      const entries = page.getByTestId('catalog-addon');
      await search.fill('no such add-on');
      await page.getByText('No add-on matches.').waitFor();
      expect(await entries.count()).toBe(0);
      await search.fill('BOOK a table');
      await expect.poll(() => entries.count()).toBe(1);
      const entry = entries.first();
      await entry.getByRole('heading', { name: TB.name }).waitFor();
      expect(await entry.textContent()).toContain(msg('addOns.catalog.builtIn'));

      await entry.getByRole('button', { name: msg('addOns.catalog.download', { name: TB.name, version: '1.0.0' }) }).click();
      const title = msg('addOns.plan.installTitle', { name: TB.name, version: '1.0.0' });
      await onScreen(page, 'install-plan', title);
      expect(new URL(page.url()).pathname).toBe('/add-ons/table-booking/versions/1.0.0/plan');

      // The connection is chosen: the only one there is.
      expect(await page.getByLabel(msg('addOns.plan.connection')).inputValue()).toBe(connectionId);
      // Verified first and prominent: it came from the catalog.
      const verified = page.getByTestId('plan-verified');
      expect(await verified.textContent()).toContain(msg('addOns.verified.yes'));
      expect(await verified.textContent()).toContain(msg('addOns.plan.verifiedYes'));
      // Every table with every column.
      const tables = page.getByTestId('plan-table');
      await expect.poll(() => tables.count()).toBe(2);
      const bookings = tables.filter({ hasText: 'table_booking__bookings' });
      for (const column of ['id', 'booked_at', 'party', 'name', 'email', 'code', 'locale', 'created_at'])
        await bookings.getByRole('rowheader', { name: column, exact: true }).waitFor();
      expect(await tables.filter({ hasText: 'table_booking__venue_settings' }).textContent()).toContain('(new table)');
      // The endpoints with their methods, the capabilities and the outbound hosts (none).
      const endpoints = page.getByTestId('plan-endpoints');
      expect(await endpoints.getByRole('row', { name: /table-booking-bookings/ }).textContent()).toContain('POST');
      expect(await endpoints.getByRole('row', { name: /table-booking-my-booking/ }).textContent()).toContain('GET, PATCH, DELETE');
      await page.getByRole('heading', { name: msg('addOns.plan.capabilities') }).waitFor();
      expect(await page.getByTestId('plan-outbound').textContent()).toBe(msg('addOns.plan.noOutbound'));

      expect(await tablesOf(dialect, source)).toEqual([]);
      await page.getByRole('button', { name: msg('addOns.plan.install', { name: TB.name, version: '1.0.0', connection: 'Bistro' }) }).click();
      await onScreen(page, 'add-on', exactly(TB.name));
      expect(new URL(page.url()).pathname).toBe('/add-ons/table-booking');
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.page.installed', { version: '1.0.0' }) })
        .waitFor();
      expect(await page.getByTestId('addon-status').textContent()).toBe(msg('addOns.status.enabled'));
      expect(await page.getByTestId('addon-facts').textContent()).toContain('Bistro');
      expect(await tablesOf(dialect, source)).toEqual(TB.tables);
      // The outcome is said once: a reload does not say it again.
      await page.reload();
      await onScreen(page, 'add-on-reloaded-after-install', exactly(TB.name));
      expect(await page.getByText(msg('addOns.page.installed', { version: '1.0.0' })).count()).toBe(0);

      // The list shows it installed: status, version, connection.
      await page.getByRole('link', { name: msg('addOns.backToList') }).click();
      await onScreen(page, 'add-ons-installed', exactly(msg('addOns.title')));
      const item = page.getByTestId('installed-addon');
      await item.getByRole('link', { name: TB.name }).waitFor();
      expect(await item.textContent()).toContain(msg('addOns.status.enabled'));
      expect(await item.textContent()).toContain('1.0.0');
      expect(await item.textContent()).toContain('Bistro');
      expectNoProblems(problems, [409]);
    });

    it('fills its settings from the form its schema generates, a refused value shown on its field', async () => {
      const { page, problems } = await openPage();
      await openTableBooking(page);
      // Nothing on the page takes the focus by itself (the screen's main region has it).
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
      const seats = page.getByLabel('Seats per slot');
      expect(await seats.inputValue()).toBe('20');
      expect(await seats.getAttribute('type')).toBe('number');
      expect(await seats.getAttribute('min')).toBe('1');
      await seats.fill('0');
      await page.getByLabel('Venue name').fill('Chez Test');
      await page.getByRole('button', { name: msg('addOns.settings.save') }).click();
      const error = page.getByTestId('setting-capacity').locator('.field-error');
      await error.waitFor();
      expect(await error.textContent()).toContain('at least 1');
      expect(await seats.getAttribute('aria-invalid')).toBe('true');

      await seats.fill('24');
      await page.getByRole('button', { name: msg('addOns.settings.save') }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.settings.saved') })
        .waitFor();
      await page.reload();
      await onScreen(page, 'add-on-reloaded', exactly(TB.name));
      expect(await page.getByLabel('Seats per slot').inputValue()).toBe('24');
      expect(await page.getByLabel('Venue name').inputValue()).toBe('Chez Test');
      const view = (await admin.get('/api/v1/add-ons')).body.data.addons[0];
      expect(view.settings).toMatchObject({ capacity: 24, venueName: 'Chez Test', slotMinutes: 30 });
      expectNoProblems(problems, [400]);
    });

    sqliteOnly('disables and enables it', async () => {
      const { page, problems } = await openPage();
      await openTableBooking(page);
      await page.getByRole('button', { name: msg('addOns.page.disable', { name: TB.name }) }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.page.wasDisabled') })
        .waitFor();
      expect(await page.getByTestId('addon-status').textContent()).toBe(msg('addOns.status.disabled'));
      expect((await admin.get('/api/v1/add-ons')).body.data.addons[0].enabled).toBe(false);
      await page.reload();
      await onScreen(page, 'add-on-disabled', exactly(TB.name));
      expect(await page.getByTestId('addon-status').textContent()).toBe(msg('addOns.status.disabled'));

      await page.getByRole('button', { name: msg('addOns.page.enable', { name: TB.name }) }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.page.wasEnabled') })
        .waitFor();
      expect(await page.getByTestId('addon-status').textContent()).toBe(msg('addOns.status.enabled'));
      expect((await admin.get('/api/v1/add-ons')).body.data.addons[0].enabled).toBe(true);
      expectNoProblems(problems);
    });

    it('upgrades to an uploaded 1.1.0 after reading the plan’s changes', async () => {
      const { page, problems } = await openPage();
      await openAddOns(page);
      await page.getByLabel(msg('addOns.upload.file')).setInputFiles(package110);
      await page.getByRole('button', { name: msg('addOns.upload.submit') }).click();
      const title = msg('addOns.plan.upgradeTitle', { name: TB.name, from: '1.0.0', to: '1.1.0' });
      await onScreen(page, 'upgrade-plan', title);
      // Uploaded: not verified, and said so before anything else.
      const verified = page.getByTestId('plan-verified');
      expect(await verified.textContent()).toContain(msg('addOns.verified.no'));
      expect(await verified.textContent()).toContain(msg('addOns.plan.verifiedNo'));
      // The diff: one new column, and the endpoint that now shows and takes it; the connection stays (no picker).
      const changes = page.getByTestId('plan-changes').getByRole('listitem');
      await expect
        .poll(() => changes.allTextContents())
        .toEqual([
          msg('addOns.diff.newColumn', { column: 'notes', type: 'text', table: 'table_booking__bookings' }),
          msg('addOns.diff.changeEndpoint', { ref: 'table-booking-bookings', fields: 'columns, writable' }),
        ]);
      expect(await page.getByLabel(msg('addOns.plan.connection')).count()).toBe(0);
      const notes = page
        .getByTestId('plan-table')
        .filter({ hasText: 'table_booking__bookings' })
        .getByRole('row', { name: /^notes/ });
      expect(await notes.textContent()).toContain('New');

      await page.getByRole('button', { name: msg('addOns.plan.upgrade', { name: TB.name, version: '1.1.0' }) }).click();
      await onScreen(page, 'add-on-upgraded', exactly(TB.name));
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.page.upgraded', { version: '1.1.0' }) })
        .waitFor();
      expect(await page.getByTestId('addon-version').textContent()).toBe('1.1.0');
      expect(await columnsOf(dialect, source, 'table_booking__bookings')).toContain('notes');
      // The settings made before are kept.
      expect(await page.getByLabel('Seats per slot').inputValue()).toBe('24');
      expectNoProblems(problems);
    });

    it('removes it, with its data dropped after a confirmation naming its tables', async () => {
      const { page, problems } = await openPage();
      await openTableBooking(page);
      await page.getByLabel(msg('addOns.remove.drop')).check();
      await page.getByRole('button', { name: msg('addOns.remove.open', { name: TB.name }) }).click();
      const dialog = page.getByRole('dialog', { name: msg('addOns.remove.confirmTitle', { name: TB.name }) });
      await dialog.waitFor();
      expect(await dialog.getByTestId('drop-tables').getByRole('listitem').allTextContents()).toEqual(TB.tables);
      await onDialog(page, 'remove-confirm', dialog);
      // Cancel first: nothing happens.
      await dialog.getByRole('button', { name: msg('addOns.remove.cancel') }).click();
      await dialog.waitFor({ state: 'hidden' });
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(msg('addOns.remove.open', { name: TB.name }));
      expect(await tablesOf(dialect, source)).toEqual(TB.tables);

      await page.getByRole('button', { name: msg('addOns.remove.open', { name: TB.name }) }).click();
      await dialog.getByRole('button', { name: msg('addOns.remove.confirmDrop') }).click();
      await onScreen(page, 'add-ons-after-removal', exactly(msg('addOns.title')));
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.removed.dropped', { name: TB.name, tables: TB.tables.join(', ') }) })
        .waitFor();
      await page.getByText(msg('addOns.installed.empty')).waitFor();
      expect(await tablesOf(dialect, source)).toEqual([]);
      expect((await admin.get('/api/v1/add-ons')).body.data.addons).toEqual([]);
      expectNoProblems(problems);
    });

    sqliteOnly('keeps a secret setting write-only: typed once, then only “set”, never its value', async () => {
      const { page, problems } = await openPage();
      await openAddOns(page);
      await page.getByLabel(msg('addOns.upload.file')).setInputFiles(shopSync);
      await page.getByRole('button', { name: msg('addOns.upload.submit') }).click();
      await onScreen(page, 'install-plan-upload', msg('addOns.plan.installTitle', { name: 'Shop sync', version: '1.0.0' }));
      expect(await page.getByTestId('plan-verified').textContent()).toContain(msg('addOns.verified.no'));
      expect(await page.getByTestId('plan-outbound').getByRole('listitem').allTextContents()).toEqual(['api.shop.example', '*.cdn.shop.example']);
      expect(await page.getByText(msg('addOns.plan.noTables')).count()).toBe(1);
      // No tables: no connection needed.
      await page.getByLabel(msg('addOns.plan.connection')).selectOption('');

      const install = page.getByRole('button', {
        name: msg('addOns.plan.installNoConnection', { name: 'Shop sync', version: '1.0.0' }),
        exact: true,
      });
      // The plan without a connection is read afresh (it is what the hash below is of): wait for it,
      // else the upload that follows can land before that read and nothing is stale.
      await install.waitFor();
      // Meanwhile someone uploads another package of the same version, reaching one more host:
      // the plan read is stale, the install is refused and the new plan is shown instead.
      const changed = await packFixture({ ...SHOP_SYNC, outbound: [...(SHOP_SYNC.outbound ?? []), 'hooks.shop.example'] }, null);
      expect((await uploadPackage(inst.url, admin, changed.bytes)).status).toBe(201);
      await install.click();
      await page
        .getByRole('alert')
        .filter({ hasText: msg('addOns.plan.changed') })
        .waitFor();
      await page.getByRole('heading', { name: msg('addOns.plan.newPlan') }).waitFor();
      await expect
        .poll(() => page.getByTestId('plan-outbound').getByRole('listitem').allTextContents())
        .toEqual(['api.shop.example', '*.cdn.shop.example', 'hooks.shop.example']);
      await onScreen(page, 'install-plan-changed', msg('addOns.plan.installTitle', { name: 'Shop sync', version: '1.0.0' }));

      // The required secret is asked for on the plan; without it the install is refused on its field.
      const token = page.getByLabel(msg('addOns.plan.secretSetting', { name: 'apiToken' }));
      await install.click();
      await expect.poll(() => token.getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByText('API token is required.').count()).toBe(1);
      await token.fill(SECRET);
      await install.click();
      await onScreen(page, 'shop-sync', exactly('Shop sync'));

      const secret = page.getByTestId('secret-apiToken');
      expect(await secret.textContent()).toBe(msg('addOns.settings.secretSet'));
      const tokenInput = page.getByLabel('API token');
      expect(await tokenInput.getAttribute('type')).toBe('password');
      expect(await tokenInput.inputValue()).toBe('');
      // The enum is a list of its values; the others keep their defaults.
      expect(await page.getByLabel('Region').inputValue()).toBe('eu');
      await page.getByLabel('Region').selectOption('us');
      await tokenInput.fill(SECRET_2);
      await page.getByRole('button', { name: msg('addOns.settings.save') }).click();
      await page
        .getByRole('status')
        .filter({ hasText: msg('addOns.settings.saved') })
        .waitFor();
      expect(await tokenInput.inputValue()).toBe('');

      await page.reload();
      await onScreen(page, 'shop-sync-reloaded', exactly('Shop sync'));
      expect(await page.getByTestId('secret-apiToken').textContent()).toBe(msg('addOns.settings.secretSet'));
      expect(await page.getByLabel('API token').inputValue()).toBe('');
      expect(await page.getByLabel('Region').inputValue()).toBe('us');
      const html = await page.content();
      expect(html).not.toContain(SECRET);
      expect(html).not.toContain(SECRET_2);
      const view = (await admin.get('/api/v1/add-ons')).body.data.addons.find((a: { key: string }) => a.key === 'shop-sync');
      expect(view).toMatchObject({ settings: { region: 'us', batch: 10, dryRun: false }, secretsSet: ['apiToken'] });
      expectNoProblems(problems, [400, 409]);
    });

    sqliteOnly('passes axe in dark mode, keyboard only: list, plan and an add-on page', async () => {
      const { page, problems } = await openPage({ colorScheme: 'dark' });
      await openAddOns(page);
      // From the list to the add-on with the keyboard alone.
      const link = page.getByTestId('installed-addon').getByRole('link', { name: 'Shop sync' });
      await link.focus();
      await page.keyboard.press('Enter');
      await onScreen(page, 'shop-sync-dark', exactly('Shop sync'));
      // table-booking 1.0.0 is still staged after its removal: its plan can be read again (a deep link).
      await page.goto(`${inst.url}/add-ons/table-booking/versions/1.0.0/plan`);
      await onScreen(page, 'plan-dark', msg('addOns.plan.installTitle', { name: TB.name, version: '1.0.0' }));
      await page.getByTestId('plan-verified').waitFor();
      await onScreen(page, 'plan-dark-loaded', msg('addOns.plan.installTitle', { name: TB.name, version: '1.0.0' }));
      expectNoProblems(problems);
    });
  });
