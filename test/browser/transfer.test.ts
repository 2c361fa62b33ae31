import { readFile } from 'node:fs/promises';
import type { Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../dashboard/src/areas/transfer/csv.js';
import { connect, emptySource, insertPeople, PEOPLE_DDL, people, type Source } from '../../plugins/exports/testing.js';
import { ITEMS_DDL } from '../../plugins/imports/testing.js';
import { humanize } from '../../plugins/schema/naming.js';
import type { HttpClient } from '../helpers/client.js';
import { databaseAvailable } from '../helpers/databases.js';
import { ROOT, setupAdmin } from '../helpers/identity.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser, WAIT_MS } from './harness.js';

/** Rows enough that an XLSX export of them runs for seconds, so a person can cancel it. */
const BIG_ROWS = 600_000;
const FILL_BIG = `create table big (id integer primary key not null, label text not null, amount real);
  insert into big (id, label, amount) with recursive s(i) as (select 1 union all select i + 1 from s where i < ${BIG_ROWS})
  select i, 'label number ' || i, i / 7.0 from s`;

/** The file a person imports: the quantity column is named differently, and line 3 holds no whole number. */
const STOCK_CSV = ['id,code,Quantity,price,note', '1,A-1,5,9.99,first', '2,B-2,many,1.00,"bad, quantity"', '3,C-3,7,,third'].join('\r\n') + '\r\n';

const USER = { ...ROOT };

describe.runIf(browserAvailable())('the dashboard in a real browser: import, export and jobs', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let shop: Source; // PostgreSQL: the import target
  let office: Source; // SQLite: the exports
  let shopId: string;
  let officeId: string;
  const { openPage, onScreen, signIn } = useDashboardBrowser('transfer');

  beforeAll(async () => {
    if (!(await databaseAvailable('postgres'))) throw new Error('PostgreSQL is needed for the import test');
    inst = await startInstance({ jobs: { pollMs: 50, progressThrottleMs: 100 } });
    admin = (await setupAdmin(inst)).client;
    shop = await emptySource('postgres');
    await shop.exec(ITEMS_DDL.postgres);
    shopId = await connect(admin, shop, 'Shop');
    office = await emptySource('sqlite');
    await office.exec(PEOPLE_DDL.sqlite);
    await insertPeople(office, people(40));
    await office.exec(FILL_BIG);
    officeId = await connect(admin, office, 'Office');
  }, 120_000);

  afterAll(async () => {
    await inst?.close();
    await shop?.cleanup();
    await office?.cleanup();
  });

  async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
    const [download] = (await Promise.all([page.waitForEvent('download', { timeout: WAIT_MS }), click()])) as [Download, void];
    const path = await download.path();
    return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
  }

  it('imports a CSV with one bad row: the mapping, the dry run shows the row and why, the run, the error report', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, USER);
    await page.goto(`${inst.url}/connections/${shopId}/tables/items/import`);
    const heading = msg('transfer.import.heading', { table: humanize('items') });
    await onScreen(page, 'import', heading);

    // The file chooser, then the upload.
    await page.getByLabel(msg('transfer.import.file')).setInputFiles({ name: 'stock.csv', mimeType: 'text/csv', buffer: Buffer.from(STOCK_CSV) });
    await page.getByRole('button', { name: msg('transfer.import.upload') }).click();
    // What the server sniffed: the name, the format, three records, five columns.
    await page.getByRole('status').filter({ hasText: 'stock.csv: CSV, 3 records, 5 columns' }).waitFor();
    await page.getByRole('progressbar', { name: msg('transfer.import.uploadProgress') }).waitFor();
    expect(await page.getByRole('progressbar', { name: msg('transfer.import.uploadProgress') }).getAttribute('value')).toBe('1');
    await onScreen(page, 'import-mapping', heading);

    // Same-named columns are mapped already; "Quantity" is not a column of the table.
    const quantity = page.getByLabel(msg('transfer.import.mapInto', { column: 'Quantity' }));
    expect(await quantity.inputValue()).toBe('');
    expect(await page.getByLabel(msg('transfer.import.mapInto', { column: 'code' })).inputValue()).toBe('code');
    await quantity.selectOption('qty');
    // The type preview: the file's Quantity holds text ("many"), the column takes integers.
    const mappingRow = (column: string) => page.getByTestId('mapping-row').filter({ has: page.getByRole('rowheader', { name: column, exact: true }) });
    const quantityRow = mappingRow('Quantity');
    expect(await quantityRow.textContent()).toContain(msg('transfer.import.fit.check', { guessed: 'text', type: 'integer' }));
    expect(await mappingRow('code').textContent()).toContain(msg('transfer.import.fit.ok'));

    // Refused records are skipped rather than failing the whole import.
    await page.getByLabel(msg('transfer.import.perRow')).check();
    await page.getByRole('button', { name: msg('transfer.import.dryRun') }).click();
    const dry = page.getByTestId('dry-run');
    await dry.getByRole('status').filter({ hasText: 'Dry run done' }).waitFor();
    // The refused rows may still be loading (a status of their own): read the outcome's.
    expect(await dry.getByRole('status').filter({ hasText: 'Dry run done' }).textContent()).toContain('one record of 3 would be refused');
    const refused = dry.getByTestId('refused-row');
    await expect.poll(() => refused.count()).toBe(1);
    const cells = await refused.getByRole('cell').allTextContents();
    expect(cells.slice(0, 2)).toEqual(['3', 'qty: not a whole number']);
    expect(cells).toContain('many');
    await onScreen(page, 'import-dry-run', heading);
    // A dry run writes nothing.
    expect((await shop.db().selectFrom('items').select('id').execute()).length).toBe(0);

    await page.getByRole('button', { name: msg('transfer.import.run'), exact: true }).click();
    const run = page.getByTestId('import-run');
    await run.getByRole('status').filter({ hasText: 'Import done' }).waitFor();
    expect(await run.getByRole('status').filter({ hasText: 'Import done' }).textContent()).toBe('Import done: 2 rows added, 0 updated, 1 record refused.');
    await onScreen(page, 'import-done', heading);

    const report = await downloaded(page, () => run.getByRole('link', { name: /^Download the error report/ }).click());
    expect(report.name).toMatch(/^import-.+-errors\.csv$/);
    expect(parseCsv(report.text)).toEqual([
      ['line', 'reason', 'id', 'code', 'Quantity', 'price', 'note'],
      ['3', 'qty: not a whole number', '2', 'B-2', 'many', '1.00', 'bad, quantity'],
    ]);

    // The rows arrived in the table.
    const rows = await shop.db().selectFrom('items').select(['id', 'code', 'qty', 'note']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 1, code: 'A-1', qty: 5, note: 'first' },
      { id: 3, code: 'C-3', qty: 7, note: 'third' },
    ]);
    expectNoProblems(problems);
  }, 90_000);

  it("exports the grid's filtered rows as CSV and downloads the file", async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, USER);
    // As the grid links here: its filter, sort, shown columns and search in its own query syntax.
    // Two conditions of one operator on one column both hold (EX9).
    const query = 'filter[active][eq]=true&filter[id][lte]=10&filter[id][gte]=1&filter[id][gte]=3&sort=-id&fields=id,name&search=O';
    await page.goto(`${inst.url}/connections/${officeId}/tables/people/export?${query}`);
    const heading = msg('transfer.export.heading', { table: humanize('people') });
    await onScreen(page, 'export', heading);
    const conditions = await page.getByTestId('export-conditions').getByRole('listitem').allTextContents();
    expect(conditions).toEqual(['Active is true', 'ID is at most 10', 'ID is at least 1', 'ID is at least 3']);
    await page.getByText('Sorted by ID (descending).').waitFor();
    // The grid's search is applied as the grid applies it (EX9), and the screen says so.
    await page.getByText(msg('transfer.export.search', { search: 'O' })).waitFor();
    // The grid's columns are chosen; the others are not.
    expect(await page.getByRole('checkbox', { name: 'ID' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Name' }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: 'Score' }).isChecked()).toBe(false);
    expect(await page.getByRole('radio', { name: 'CSV' }).isChecked()).toBe(true);

    await page.getByRole('button', { name: msg('transfer.export.start'), exact: true }).click();
    const run = page.getByTestId('export-run');
    await run.getByRole('status').filter({ hasText: 'The file is ready: 3 rows' }).waitFor();
    await onScreen(page, 'export-ready', heading);
    const file = await downloaded(page, () => run.getByRole('link', { name: /^Download / }).click());
    expect(file.name).toMatch(/\.csv$/);
    const expected = people(40)
      .filter((p) => p.active && p.id <= 10 && p.id >= 3 && [p.name, p.note ?? ''].some((t) => t.toLowerCase().includes('o')))
      .sort((a, b) => b.id - a.id)
      .map((p) => [String(p.id), p.name]);
    expect(parseCsv(file.text)).toEqual([['id', 'name'], ...expected]);
    expectNoProblems(problems);
  }, 60_000);

  it('cancels a long export, and the jobs page lists the jobs, cancels one and shows a job', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, USER);
    await page.goto(`${inst.url}/connections/${officeId}/tables/big/export`);
    const heading = msg('transfer.export.heading', { table: humanize('big') });
    await onScreen(page, 'export-big', heading);
    await page.getByRole('radio', { name: 'Excel (XLSX)' }).check();
    await page.getByRole('button', { name: msg('transfer.export.start'), exact: true }).click();
    const run = page.getByTestId('export-run');
    // Once rows are being written, cancel.
    await run.getByText(msg('transfer.stateIs', { state: msg('transfer.state').match(/running \{([^}]*)\}/)![1]! })).waitFor();
    await run.getByRole('button', { name: msg('transfer.export.cancel') }).click();
    await run
      .getByRole('status')
      .filter({ hasText: msg('transfer.export.cancelled') })
      .waitFor();
    expect(await run.getByRole('link', { name: /^Download / }).count()).toBe(0);
    // The pressed button went away with the run: the focus is on the export's heading, not lost to <body>.
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toBe(msg('transfer.export.step.run'));
    await onScreen(page, 'export-cancelled', heading);

    // Another long export, started elsewhere (over the API), is cancelled from the jobs page.
    const other = await admin.post('/api/v1/exports', { connectionId: officeId, table: 'big', format: 'xlsx' });
    expect(other.status, other.text).toBe(202);
    const otherJob = other.body.data.export.jobId as string;

    await page.getByRole('link', { name: msg('transfer.nav.jobs') }).click();
    await onScreen(page, 'jobs', msg('transfer.jobs.title'));
    expect(new URL(page.url()).pathname).toBe('/jobs');
    const rows = page.getByTestId('job-row');
    // Dry run, import, the filtered export, the cancelled export, the one just started.
    await expect.poll(() => rows.count()).toBe(5);
    const running = rows.filter({ hasText: otherJob });
    await running.getByRole('button', { name: /^Cancel the Export job/ }).click();
    await running.getByText('Cancelled').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toBe(msg('transfer.jobs.cancelAsked', { kind: 'Export' }));
    expect(await rows.filter({ hasText: 'Cancelled' }).count()).toBe(2);
    expect(await rows.filter({ hasText: 'Import' }).count()).toBe(2);
    // The ready export links to its file; the import to its counts.
    expect(await rows.getByRole('link', { name: /^Download people/ }).count()).toBe(1);
    await rows.filter({ hasText: 'Dry run of items' }).waitFor();
    await onScreen(page, 'jobs-after', msg('transfer.jobs.title'));
    // Only the cancelled ones, then only imports.
    await page.getByLabel(msg('transfer.jobs.filterState')).selectOption('cancelled');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel(msg('transfer.jobs.filterKind')).selectOption('import.run');
    await page.getByText(msg('transfer.jobs.noneMatch')).waitFor();
    await page.getByLabel(msg('transfer.jobs.filterState')).selectOption('');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.filter({ hasText: 'Export' }).count()).toBe(0);

    // A job's detail: the import behind it and its error report.
    const importRow = rows.filter({ hasText: 'items: 2 rows added' });
    await importRow.getByRole('link', { name: 'Import' }).click();
    await onScreen(page, 'job', msg('transfer.job.heading', { kind: 'Import into items' }));
    expect(await page.getByTestId('job-state').textContent()).toBe('Done');
    await page.getByRole('heading', { level: 2, name: msg('transfer.job.import') }).waitFor();
    await page.getByRole('link', { name: /^Download the error report/ }).waitFor();
    expectNoProblems(problems);
  }, 90_000);
});
