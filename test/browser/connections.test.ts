import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlUser, sqliteDatabase } from '../../plugins/connections/testing.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../helpers/databases.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser } from './harness.js';

/** The super-admin that setupAdmin creates. */
const ADMIN = { email: 'root@example.com', password: 'root-password', name: 'Root' };

const pgUp = await databaseAvailable('postgres');
const myUp = await databaseAvailable('mysql');

/**
 * One story in order: a person adds connections (a real PostgreSQL database, a SQLite file),
 * is refused with the server's reason for a wrong password, browses the schema, sets display
 * settings, sees a change of the database as a new snapshot and its diff, generates pages and
 * deletes a connection after reading what goes with it. Each test opens its own browser context.
 */
describe.runIf(browserAvailable() && pgUp && myUp)('the dashboard in a real browser: connections', () => {
  let inst: TestInstance;
  let shop: TempDatabase;
  let warehouse: TempDatabase;
  let warehouseUser: Awaited<ReturnType<typeof mysqlUser>>;
  let dir: string;
  let sqliteFile: string;
  /** The PostgreSQL connection's id, once the person saved it. */
  let shopId = '';
  const { openPage, onScreen, signIn } = useDashboardBrowser('connections');

  async function onShop(sql: string): Promise<void> {
    const c = new pg.Client({ connectionString: shop.url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  }

  beforeAll(async () => {
    inst = await startInstance();
    const res = await inst.client().post('/api/v1/setup/super-admin', ADMIN);
    if (res.status !== 201) throw new Error(`setup answered ${res.status}: ${res.text}`);
    shop = await createTempDatabase('postgres');
    await onShop(`
      create table customers (id serial primary key, name text not null, email text, notes text);
      create table orders (id serial primary key, customer_id integer not null references customers(id) on delete cascade, total numeric(10,2) not null, placed_at timestamptz default now());
      create index orders_customer_idx on orders (customer_id);
      create table audit_log (id bigserial primary key, message text);
      create view big_orders as select * from orders where total > 100;
      insert into customers (name, email) values ('Ann', 'ann@example.com');
    `);
    warehouse = await createTempDatabase('mysql');
    warehouseUser = await mysqlUser(warehouse.name);
    dir = mkdtempSync(join(tmpdir(), 'conn-browser-'));
    sqliteFile = sqliteDatabase(dir, 'notes.db');
  });

  afterAll(async () => {
    await inst?.close();
    await shop?.drop();
    await warehouseUser?.drop();
    await warehouse?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function signInAt(page: Page): Promise<void> {
    await signIn(page, inst.url, ADMIN);
  }

  async function openConnections(page: Page): Promise<void> {
    await page
      .getByRole('navigation', { name: msg('nav.label') })
      .getByRole('link', { name: msg('nav.connections') })
      .click();
    await onScreen(page, 'connections', msg('connections.title'));
    expect(new URL(page.url()).pathname).toBe('/connections');
  }

  async function openShop(page: Page): Promise<void> {
    await openConnections(page);
    await page.getByRole('link', { name: 'Shop', exact: true }).click();
    await onScreen(page, 'shop', 'Shop');
  }

  async function openSection(page: Page, section: Parameters<typeof msg>[0], screen: string): Promise<void> {
    await page
      .getByRole('navigation', { name: msg('connections.sections') })
      .getByRole('link', { name: msg(section) })
      .click();
    await onScreen(page, screen, msg('connections.sectionTitle', { section: msg(section), name: 'Shop' }));
  }

  it('starts empty, refuses a wrong password with the server’s reason and saves nothing, then adds PostgreSQL and SQLite connections', async () => {
    const { page, problems } = await openPage();
    await signInAt(page);
    await openConnections(page);
    await page.getByRole('heading', { level: 2, name: msg('connections.empty.title') }).waitFor();
    await page.getByRole('link', { name: msg('connections.add') }).click();
    await onScreen(page, 'new', msg('connections.new.title'));
    expect(new URL(page.url()).pathname).toBe('/connections/new');

    // MariaDB checks passwords (PostgreSQL on loopback trusts everyone): a wrong one is refused.
    await page.getByLabel(msg('connections.form.name'), { exact: true }).fill('Warehouse');
    await page.getByRole('radio', { name: msg('connections.dialect.mysql') }).check();
    expect(await page.getByLabel(msg('connections.form.port')).inputValue()).toBe('3306');
    await page.getByLabel(msg('connections.form.host')).fill('127.0.0.1');
    await page.getByLabel(msg('connections.form.database')).fill(warehouse.name);
    await page.getByLabel(msg('connections.form.user')).fill(warehouseUser.user);
    await page.getByLabel(msg('connections.form.password'), { exact: true }).fill('not-the-password');
    await page.getByRole('button', { name: msg('connections.form.test') }).click();
    const refused = page.getByTestId('test-outcome').getByRole('alert').filter({ hasText: 'The database refused the user name or password.' });
    await refused.waitFor();
    expect(await refused.textContent()).toContain(msg('connections.failureReason', { code: 'auth-failed' }));
    await onScreen(page, 'new-refused', msg('connections.new.title'));
    // Saving tests again: refused the same way, nothing stored.
    await page.getByRole('button', { name: msg('connections.form.save') }).click();
    await page.getByTestId('save-outcome').getByRole('alert').filter({ hasText: 'auth-failed' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/connections/new');
    await openConnections(page);
    await page.getByRole('heading', { level: 2, name: msg('connections.empty.title') }).waitFor();
    expect(await page.getByTestId('connection').count()).toBe(0);

    // PostgreSQL, by separate fields: tested, then saved; its page lists its tables and views.
    await page.getByRole('link', { name: msg('connections.add') }).click();
    await onScreen(page, 'new', msg('connections.new.title'));
    await page.getByLabel(msg('connections.form.name'), { exact: true }).fill('Shop');
    await page.getByRole('radio', { name: msg('connections.dialect.postgres') }).check();
    await page.getByLabel(msg('connections.form.host')).fill('127.0.0.1');
    await page.getByLabel(msg('connections.form.port')).fill('5432');
    await page.getByLabel(msg('connections.form.database')).fill(shop.name);
    await page.getByLabel(msg('connections.form.user')).fill('postgres');
    await page.getByLabel(msg('connections.form.password'), { exact: true }).fill('any-password');
    await page.getByRole('button', { name: msg('connections.form.test') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Connected: PostgreSQL|^Connected: \d/ })
      .waitFor();
    await page.getByRole('button', { name: msg('connections.form.save') }).click();
    await onScreen(page, 'shop', 'Shop');
    shopId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    expect(shopId).not.toBe('new');
    const tables = page.getByRole('list', { name: msg('connections.tables.tablesLabel') });
    for (const [label, ref] of [
      ['Customers', 'customers'],
      ['Orders', 'orders'],
      ['Audit log', 'audit_log'],
    ]) {
      expect(await tables.getByRole('link', { name: label, exact: true }).getAttribute('href')).toBe(
        `/connections/${encodeURIComponent(shopId)}/tables/${ref}`,
      );
    }
    const views = page.getByRole('list', { name: msg('connections.tables.viewsLabel') });
    expect(await views.getByRole('link', { name: 'Big orders' }).getAttribute('href')).toBe(`/connections/${encodeURIComponent(shopId)}/tables/big_orders`);

    // SQLite, by its file; read-only.
    await openConnections(page);
    await page.getByRole('link', { name: msg('connections.add') }).click();
    await onScreen(page, 'new', msg('connections.new.title'));
    await page.getByLabel(msg('connections.form.name'), { exact: true }).fill('Notes');
    await page.getByRole('radio', { name: msg('connections.dialect.sqlite') }).check();
    await page.getByLabel(msg('connections.form.file')).fill(sqliteFile);
    await page.getByLabel(msg('connections.form.readOnly')).check();
    await page.getByRole('button', { name: msg('connections.form.test') }).click();
    await page.getByRole('status').filter({ hasText: 'Connected:' }).waitFor();
    await page.getByRole('button', { name: msg('connections.form.save') }).click();
    await onScreen(page, 'notes', 'Notes');
    await page
      .getByRole('list', { name: msg('connections.tables.tablesLabel') })
      .getByRole('link', { name: 'Items', exact: true })
      .waitFor();

    // The list: both, with dialect, access and health (the save's test).
    await openConnections(page);
    const rows = page.getByTestId('connection');
    await expect.poll(() => rows.count()).toBe(2);
    const shopRow = rows.filter({ hasText: 'Shop' });
    expect(await shopRow.textContent()).toContain(msg('connections.dialect.postgres'));
    expect(await shopRow.textContent()).toContain(msg('connections.readWrite'));
    expect(await shopRow.textContent()).toContain(`127.0.0.1:5432/${shop.name}`);
    const notesRow = rows.filter({ hasText: 'Notes' });
    expect(await notesRow.textContent()).toContain(msg('connections.dialect.sqlite'));
    expect(await notesRow.textContent()).toContain(msg('connections.readOnly'));
    expect(await notesRow.textContent()).toContain(sqliteFile);
    for (const row of [shopRow, notesRow]) expect(await row.textContent()).toMatch(/Reachable \(\d+ ms, tested /);

    expectNoProblems(problems, [400]);
  });

  it('browses the schema: columns with types, primary keys, indexes, foreign keys', async () => {
    const { page, problems } = await openPage();
    await signInAt(page);
    await openShop(page);
    await openSection(page, 'connections.tab.schema', 'schema');
    const orders = page.getByTestId('schema-table').filter({ has: page.getByRole('heading', { name: /^Orders/ }) });
    const columns = orders.getByRole('table', { name: msg('connections.schema.columnsOf', { table: 'orders' }) });
    const customerId = columns.getByRole('row', { name: /customer_id/ });
    expect(await customerId.textContent()).toContain('integer');
    expect(await columns.getByRole('row', { name: /^id/ }).textContent()).toContain(msg('connections.flag.primaryKey'));
    expect(await columns.getByRole('row', { name: /^total/ }).textContent()).toContain('numeric(10,2)');
    const text = (await orders.textContent()) ?? '';
    expect(text).toContain(msg('connections.schema.index', { name: 'orders_customer_idx', columns: 'customer_id' }));
    expect(text).toContain(msg('connections.schema.foreignKey', { columns: 'customer_id', table: 'customers', referenced: 'id', onDelete: 'cascade' }));
    // The grid of a table is one link away.
    expect(await orders.getByRole('link', { name: msg('connections.schema.openGrid', { table: 'Orders' }) }).getAttribute('href')).toBe(
      `/connections/${encodeURIComponent(shopId)}/tables/orders`,
    );
    await page
      .getByTestId('schema-table')
      .filter({ has: page.getByRole('heading', { name: /^Big orders/ }) })
      .getByText(msg('connections.schema.view'), { exact: true })
      .waitFor();
    expectNoProblems(problems);
  });

  it('labels a table, hides a column and a table, and sees it applied', async () => {
    const { page, problems } = await openPage();
    await signInAt(page);
    await openShop(page);
    await openSection(page, 'connections.tab.overrides', 'overrides');
    await page
      .getByRole('navigation', { name: msg('connections.overrides.tables') })
      .getByRole('link', { name: 'Customers' })
      .click();
    await page.getByRole('heading', { level: 2, name: msg('connections.overrides.of', { table: 'customers' }) }).waitFor();
    await page.getByLabel(msg('connections.overrides.label'), { exact: true }).fill('Clients');
    await page.getByLabel(msg('connections.overrides.columnHidden', { column: 'notes' })).check();
    await page.getByLabel(msg('connections.overrides.columnPersonal', { column: 'email' })).check();
    await page.getByLabel(msg('connections.overrides.displayColumn')).selectOption('name');
    await page.getByRole('button', { name: msg('connections.overrides.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('connections.overrides.saved', { table: 'customers' }) })
      .waitFor();
    await onScreen(page, 'overrides-saved', msg('connections.sectionTitle', { section: msg('connections.tab.overrides'), name: 'Shop' }));

    await page
      .getByRole('navigation', { name: msg('connections.overrides.tables') })
      .getByRole('link', { name: 'Audit log' })
      .click();
    await page.getByRole('heading', { level: 2, name: msg('connections.overrides.of', { table: 'audit_log' }) }).waitFor();
    await page.getByLabel(msg('connections.overrides.hidden')).check();
    await page.getByRole('button', { name: msg('connections.overrides.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('connections.overrides.saved', { table: 'audit_log' }) })
      .waitFor();

    // Applied: the connection's page lists "Clients", no longer the hidden audit log.
    await page
      .getByRole('navigation', { name: msg('connections.sections') })
      .getByRole('link', { name: msg('connections.tab.overview') })
      .click();
    await onScreen(page, 'shop', 'Shop');
    const tables = page.getByRole('list', { name: msg('connections.tables.tablesLabel') });
    await tables.getByRole('link', { name: 'Clients', exact: true }).waitFor();
    expect(await tables.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    await page.getByText('1 hidden table is not listed.').waitFor();

    // And in the schema browser: the label, the hidden column, the personal-data flag, the display column.
    await openSection(page, 'connections.tab.schema', 'schema-after-overrides');
    const customers = page.getByTestId('schema-table').filter({ has: page.getByRole('heading', { name: /^Clients/ }) });
    expect(await customers.textContent()).toContain(msg('connections.schema.displayColumn', { column: 'name' }));
    const columns = customers.getByRole('table');
    expect(await columns.getByRole('row', { name: /^notes/ }).textContent()).toContain(msg('connections.flag.hidden'));
    expect(await columns.getByRole('row', { name: /^email/ }).textContent()).toContain(msg('connections.flag.personal'));
    expectNoProblems(problems);
  });

  it('reads the schema again after the database changed: a new snapshot and what changed', async () => {
    await onShop(
      'alter table orders add column shipped_at timestamptz; create table refunds (id serial primary key, order_id integer references orders(id), amount numeric(10,2))',
    );
    const { page, problems } = await openPage();
    await signInAt(page);
    await openShop(page);
    await page.getByRole('button', { name: msg('connections.introspect.run') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /The schema changed: a new snapshot was stored \(1 table added, 0 removed, 1 changed\)/ })
      .waitFor();
    // The new table is listed at once.
    await page
      .getByRole('list', { name: msg('connections.tables.tablesLabel') })
      .getByRole('link', { name: 'Refunds', exact: true })
      .waitFor();
    await page.getByRole('link', { name: msg('connections.introspect.seeDiff') }).click();
    await onScreen(page, 'snapshots', msg('connections.sectionTitle', { section: msg('connections.tab.snapshots'), name: 'Shop' }));
    await expect.poll(() => page.getByTestId('snapshot').count()).toBe(2);
    const diff = page.getByRole('region', { name: msg('connections.diff.regionLabel') });
    await diff.getByTestId('diff-added').filter({ hasText: 'refunds' }).waitFor();
    const changed = diff.getByTestId('diff-changed').filter({ hasText: 'orders' });
    expect(await changed.textContent()).toContain(msg('connections.diff.columnAdded', { column: 'shipped_at', type: 'timestamp with time zone' }));

    // Reading again without a change stores nothing.
    await page.getByRole('button', { name: msg('connections.introspect.run') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Nothing changed since the snapshot of / })
      .waitFor();
    expect(await page.getByTestId('snapshot').count()).toBe(2);

    // The first snapshot against the latest: the same change, picked by hand.
    await page.getByLabel(msg('connections.diff.from')).selectOption({ index: 2 });
    await page.getByRole('button', { name: msg('connections.diff.compare') }).click();
    await diff.getByTestId('diff-added').filter({ hasText: 'refunds' }).waitFor();
    await onScreen(page, 'snapshots-compared', msg('connections.sectionTitle', { section: msg('connections.tab.snapshots'), name: 'Shop' }));
    expectNoProblems(problems);
  });

  it('generates pages with the labels, leaving the hidden table out; generating again creates nothing new', async () => {
    const { page, problems } = await openPage();
    await signInAt(page);
    await openShop(page);
    await openSection(page, 'connections.tab.generate', 'generate');
    expect(await page.getByRole('checkbox', { name: /Audit log/ }).isChecked()).toBe(false);
    expect(await page.getByRole('checkbox', { name: /Clients/ }).isChecked()).toBe(true);

    await page.getByRole('button', { name: msg('connections.generate.preview') }).click();
    await page.getByRole('heading', { level: 2, name: msg('connections.generate.previewTitle') }).waitFor();
    const preview = (await page.getByRole('status').filter({ hasText: 'would be created' }).textContent()) ?? '';
    const wouldCreate = Number(/^(\d+) pages would be created/.exec(preview)?.[1]);
    expect(wouldCreate).toBeGreaterThan(0);

    await page.getByRole('button', { name: msg('connections.generate.run') }).click();
    await page.getByRole('heading', { level: 2, name: msg('connections.generate.doneTitle') }).waitFor();
    await page
      .getByRole('status')
      .filter({ hasText: `${wouldCreate} pages created, 0 already there` })
      .waitFor();
    const created = page.getByTestId('connections.generate.createdList');
    expect(await created.textContent()).toContain('List: Clients');
    expect(await created.textContent()).not.toContain('Audit log');
    await onScreen(page, 'generated', msg('connections.sectionTitle', { section: msg('connections.tab.generate'), name: 'Shop' }));

    await page.getByRole('button', { name: msg('connections.generate.run') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `0 pages created, ${wouldCreate} already there` })
      .waitFor();
    expectNoProblems(problems);
  });

  it('deletes a connection after reading what goes with it, and says what the server removed', async () => {
    const { page, problems } = await openPage();
    await signInAt(page);
    await openShop(page);
    await openSection(page, 'connections.tab.delete', 'delete');
    const goes = page.getByTestId('what-goes');
    await goes.waitFor();
    const before = (await goes.textContent()) ?? '';
    expect(before).toContain('2 schema snapshots');
    expect(before).toContain('display settings of 2 tables');
    const pages = Number(/(\d+) pages bound to its tables/.exec(before)?.[1]);
    expect(pages).toBeGreaterThan(0);

    await page.getByRole('button', { name: msg('connections.delete.confirm', { name: 'Shop' }) }).click();
    await onScreen(page, 'deleted', msg('connections.delete.doneTitle'));
    await page
      .getByRole('status')
      .filter({ hasText: msg('connections.delete.done', { name: 'Shop' }) })
      .waitFor();
    const removed = (await page.getByTestId('removed').textContent()) ?? '';
    expect(removed).toContain('2 schema snapshots');
    expect(removed).toContain(`${pages} pages bound to its tables`);
    expect(removed).toContain('its display settings');

    await page.getByRole('link', { name: msg('connections.delete.back') }).click();
    await onScreen(page, 'connections', msg('connections.title'));
    const rows = page.getByTestId('connection');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Notes');
    expectNoProblems(problems);
  });

  it('renames a connection and makes it writable; a new address that fails is refused and changes nothing', async () => {
    const { page, problems } = await openPage({ colorScheme: 'dark' });
    await signInAt(page);
    await openConnections(page);
    await page.getByRole('link', { name: 'Notes', exact: true }).click();
    await onScreen(page, 'notes', 'Notes');
    await page
      .getByRole('navigation', { name: msg('connections.sections') })
      .getByRole('link', { name: msg('connections.tab.edit') })
      .click();
    const editTitle = msg('connections.sectionTitle', { section: msg('connections.tab.edit'), name: 'Notes' });
    await onScreen(page, 'edit', editTitle);
    // The stored URL is never shown: the address stays unless the person asks to replace it.
    expect(await page.getByLabel(msg('connections.form.file')).count()).toBe(0);
    await page.getByLabel(msg('connections.form.replaceUrl')).check();
    const file = page.getByLabel(msg('connections.form.file'));
    expect(await file.inputValue()).toBe(sqliteFile);
    await file.fill(join(dir, 'missing.db'));
    await page.getByRole('button', { name: msg('connections.form.test') }).click();
    await page.getByTestId('test-outcome').getByRole('alert').filter({ hasText: 'file-not-found' }).waitFor();
    await page.getByRole('button', { name: msg('connections.form.saveChanges') }).click();
    await page.getByTestId('save-outcome').getByRole('alert').filter({ hasText: 'file-not-found' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(1);
    await onScreen(page, 'edit-refused', editTitle);

    // The connection's own settings: a colour the server refuses names the field; then saved.
    const settings = page.getByRole('region', { name: msg('connections.settings.title') });
    await settings.getByText(msg('connections.settings.sqliteNote')).waitFor();
    await settings.getByLabel(msg('connections.settings.label')).fill('Notebook');
    await settings.getByLabel(msg('connections.settings.color')).fill('blue');
    await settings.getByRole('button', { name: msg('connections.settings.save') }).click();
    const colour = settings.getByLabel(msg('connections.settings.color'));
    await expect.poll(() => colour.getAttribute('aria-invalid')).toBe('true');
    await colour.fill('#AABBCC');
    await settings.getByRole('button', { name: msg('connections.settings.save') }).click();
    await settings
      .getByRole('status')
      .filter({ hasText: msg('connections.settings.saved') })
      .waitFor();
    await onScreen(page, 'edit-settings', editTitle);

    await page.getByLabel(msg('connections.form.replaceUrl')).uncheck();
    await page.getByLabel(msg('connections.form.name'), { exact: true }).fill('Field notes');
    await page.getByLabel(msg('connections.form.readOnly')).uncheck();
    await page.getByRole('button', { name: msg('connections.form.saveChanges') }).click();
    await onScreen(page, 'field-notes', 'Field notes');
    const about = (await page.getByRole('region', { name: msg('connections.about') }).textContent()) ?? '';
    expect(about).toContain(msg('connections.readWrite'));
    expect(about).toContain(sqliteFile);

    // Tested now: the outcome is the connection's health in the list.
    await page.getByRole('button', { name: msg('connections.testNow') }).click();
    await page.getByRole('status').filter({ hasText: 'Connected:' }).waitFor();
    await openConnections(page);
    const rows = page.getByTestId('connection');
    await expect.poll(() => rows.count()).toBe(1);
    // The list paints what it has cached before it asks again: the rename is already in it.
    expect(await rows.first().textContent()).toContain('Field notes');
    expect(await rows.first().textContent()).toContain(msg('connections.readWrite'));
    expectNoProblems(problems, [400]);
  });
});
