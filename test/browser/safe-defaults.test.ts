import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import { packFixture, uploadPackage } from '../../plugins/add-ons/testing.js';
import { totpAt } from '../../plugins/auth/testing.js';
import { sourceFixture, sqliteDatabase, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { databaseAvailable } from '../helpers/databases.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser, atWidth } from './harness.js';

/** The two widths every changed screen is read at (issue 29): a desk and a phone. */
const WIDTHS = [
  { name: 'wide', viewport: { width: 1440, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

/** An add-on with a table: its plan needs a connection. */
const NOTEBOOK: AddonManifestInput = {
  key: 'notebook',
  name: 'Notebook',
  version: '1.0.0',
  engine: '>=0.1.0',
  tables: [
    {
      name: 'notes',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'body', type: 'string', maxLength: 200, nullable: false },
      ],
    },
  ],
};

/** An installed add-on, for its page. */
const GUESTBOOK: AddonManifestInput = { ...NOTEBOOK, key: 'guestbook', name: 'Guestbook', tables: [{ ...NOTEBOOK.tables![0]!, name: 'entries' }] };

/**
 * The page is no wider than the window (nothing to scroll sideways). Signed-in screens at phone
 * width are left to the responsive shell of issue 29 (its sidebar does not collapse yet): there
 * this checks that the screen's own content is no wider than the main column.
 */
async function fitsTheWidth(page: Page): Promise<void> {
  const { scroll, inner, main } = await page.evaluate(() => {
    const m = document.querySelector('main');
    return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, main: m ? { scroll: m.scrollWidth, client: m.clientWidth } : null };
  });
  if (main && inner < 900) expect(main.scroll).toBeLessThanOrEqual(main.client);
  else expect(scroll).toBeLessThanOrEqual(inner);
}

describe.runIf(browserAvailable())('the dashboard in a real browser: setup in its own words', () => {
  let inst: TestInstance;
  const { openPage, onScreen } = useDashboardBrowser('safe-defaults-setup');
  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(async () => inst?.close());

  for (const { name, viewport } of WIDTHS)
    it(`an empty setup form names each field's problem in our words and counts fields, not issues (${name})`, async () => {
      const { page, problems } = await openPage({ viewport });
      await page.goto(inst.url + '/setup', { waitUntil: 'load' });
      await onScreen(page, `setup-${name}`, msg('setup.title'));
      await page.getByRole('button', { name: msg('setup.submit') }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      // Three fields, although the empty e-mail is both too short and not an address (four issues).
      expect(await alert.textContent()).toContain('3 fields need attention.');
      const errorOf = async (label: string) => {
        const field = page.getByLabel(label, { exact: true });
        const ids = (await field.getAttribute('aria-describedby'))!.split(' ');
        return page.locator(`[id="${ids[ids.length - 1]}"]`).textContent();
      };
      expect(await errorOf(msg('field.email'))).toBe(msg('setup.emailMissing'));
      expect(await errorOf(msg('field.name'))).toBe(msg('setup.nameMissing'));
      expect(await errorOf(msg('field.password'))).toBe(msg('setup.passwordTooShort'));
      await page.getByLabel(msg('field.email')).fill('not-an-address');
      await page.getByRole('button', { name: msg('setup.submit') }).click();
      await expect.poll(() => errorOf(msg('field.email'))).toBe(msg('setup.emailInvalid'));
      expect(await page.locator('body').textContent()).not.toMatch(/Too small|expected string/);
      await onScreen(page, `setup-errors-${name}`, msg('setup.title'));
      await fitsTheWidth(page);
      expectNoProblems(problems, [400]);
    });
});

const hasPostgres = await databaseAvailable('postgres');

describe.runIf(browserAvailable() && hasPostgres)('the dashboard in a real browser: safe defaults and rough edges', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let sqliteFile: string;
  const work = mkdtempSync(join(tmpdir(), 'safe-defaults-'));
  const { openPage, onScreen, onDialog, signIn } = useDashboardBrowser('safe-defaults');

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://shop.example' } }));
    source = await sourceFixture('postgres');
    sqliteFile = sqliteDatabase(work, 'notes.db');
    // Two connections that can take an add-on's tables; the PostgreSQL one without encryption.
    const shop = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'postgres', url: `${source.url}?sslmode=disable` });
    expect(shop.status, shop.text).toBe(201);
    const notes = await admin.post('/api/v1/connections', { name: 'Notes', dialect: 'sqlite', url: `sqlite:${sqliteFile}` });
    expect(notes.status, notes.text).toBe(201);
    const shopId = shop.body.data.connection.id as string;
    expect((await admin.post(`/api/v1/connections/${shopId}/introspect`, {})).status).toBe(200);
    expect((await uploadPackage(inst.url, admin, (await packFixture(NOTEBOOK, null)).bytes)).status).toBe(201);
    expect((await uploadPackage(inst.url, admin, (await packFixture(GUESTBOOK, null)).bytes)).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/guestbook/plan?version=1.0.0&connectionId=${shopId}`);
    expect(plan.status, plan.text).toBe(200);
    const installed = await admin.post('/api/v1/add-ons', { key: 'guestbook', version: '1.0.0', connectionId: shopId, planHash: plan.body.data.plan.hash });
    expect(installed.status, installed.text).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    rmSync(work, { recursive: true, force: true });
  });

  atWidth(WIDTHS[0].viewport, (viewport) => {
    const name = WIDTHS[0].name;
    it(`the public API switch asks first; a new endpoint is read-only; DELETE asks first (${name})`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(inst.url + '/public-api', { waitUntil: 'load' });
      await onScreen(page, `public-api-${name}`, msg('publicApi.title'));
      const on = (await page.getByTestId('public-api-state').textContent()) === msg('publicApi.switch.on');
      const button = msg(on ? 'publicApi.switch.turnOff' : 'publicApi.switch.turnOn');
      const dialogTitle = msg(on ? 'publicApi.switch.confirmOffTitle' : 'publicApi.switch.confirmOnTitle');
      // Cancel changes nothing.
      await page.getByRole('button', { name: button }).click();
      const dialog = page.getByRole('dialog', { name: dialogTitle });
      await dialog.waitFor();
      expect(await dialog.textContent()).toContain(msg(on ? 'publicApi.switch.confirmOffText' : 'publicApi.switch.confirmOnText'));
      await onDialog(page, `public-api-confirm-${name}`, dialog);
      await dialog.getByRole('button', { name: msg('publicApi.cancel') }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await page.getByTestId('public-api-state').textContent()).toBe(msg(on ? 'publicApi.switch.on' : 'publicApi.switch.off'));
      // Confirming switches it.
      await page.getByRole('button', { name: button }).click();
      await dialog.getByRole('button', { name: button }).click();
      await expect.poll(() => page.getByTestId('public-api-state').textContent()).toBe(msg(on ? 'publicApi.switch.off' : 'publicApi.switch.on'));

      // A new endpoint over the SQLite file's items: GET only, nothing writable.
      const ref = `items_${name}`;
      await page.goto(inst.url + '/public-api/endpoints', { waitUntil: 'load' });
      await onScreen(page, `endpoints-${name}`, msg('publicApi.endpoints.title'));
      await page.getByLabel(msg('publicApi.create.connection')).selectOption({ label: 'Notes' });
      await page.getByLabel(msg('publicApi.create.table')).selectOption('items');
      await page.getByLabel(msg('publicApi.create.ref')).fill(ref);
      await page.getByRole('button', { name: msg('publicApi.create.submit') }).click();
      await onScreen(page, `endpoint-${name}`, msg('publicApi.editor.title', { ref }));
      expect(JSON.parse(await page.getByLabel(msg('publicApi.json.label')).inputValue())).toMatchObject({ methods: ['GET'], writable: [] });
      const writable = page.getByRole('checkbox', { name: /writable/i });
      for (const box of await writable.all()) expect(await box.isChecked()).toBe(false);
      for (const m of ['POST', 'PATCH', 'PUT', 'DELETE', 'BATCH']) expect(await page.getByRole('checkbox', { name: m, exact: true }).isChecked()).toBe(false);
      expect(await page.getByRole('checkbox', { name: 'GET', exact: true }).isChecked()).toBe(true);

      // Ticking DELETE asks first: Keep DELETE off leaves it unticked, Allow ticks it.
      const del = page.getByRole('checkbox', { name: 'DELETE', exact: true });
      await del.click();
      const ask = page.getByRole('dialog', { name: msg('publicApi.editor.deleteConfirmTitle', { ref }) });
      await ask.waitFor();
      await onDialog(page, `endpoint-delete-confirm-${name}`, ask);
      await ask.getByRole('button', { name: msg('publicApi.editor.deleteCancel') }).click();
      await ask.waitFor({ state: 'detached' });
      expect(await del.isChecked()).toBe(false);
      await del.click();
      await ask.getByRole('button', { name: msg('publicApi.editor.deleteConfirm') }).click();
      await ask.waitFor({ state: 'detached' });
      expect(await del.isChecked()).toBe(true);
      // Unticking needs no question.
      await del.click();
      expect(await del.isChecked()).toBe(false);
      expect(await page.getByRole('dialog').count()).toBe(0);
      await fitsTheWidth(page);
      expectNoProblems(problems);
    });
  });

  atWidth(WIDTHS[1].viewport, (viewport) => {
    const name = WIDTHS[1].name;
    it(`the add-on plan waits for the operator's connection when two could take its tables (${name})`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(inst.url + '/add-ons/notebook/versions/1.0.0/plan', { waitUntil: 'load' });
      await onScreen(page, `plan-${name}`, msg('addOns.plan.installTitle', { name: 'Notebook', version: '1.0.0' }));
      await page.getByTestId('choose-connection').waitFor();
      const picker = page.getByLabel(msg('addOns.plan.connection'));
      expect(await picker.inputValue()).toBe('');
      expect(await picker.locator('option:checked').textContent()).toBe(msg('addOns.plan.choosePlaceholder'));
      expect(await page.getByRole('button', { name: /^Install/ }).count()).toBe(0);
      await fitsTheWidth(page);
      await picker.selectOption({ label: msg('addOns.plan.connectionOption', { name: 'Notes', dialect: 'sqlite' }) });
      await page.getByRole('button', { name: msg('addOns.plan.install', { name: 'Notebook', version: '1.0.0', connection: 'Notes' }) }).waitFor();
      await onScreen(page, `plan-chosen-${name}`, msg('addOns.plan.installTitle', { name: 'Notebook', version: '1.0.0' }));
      // The plan without a connection is refused (409 ADDON_CONNECTION_REQUIRED): that is the page asking for one.
      expectNoProblems(problems, [409]);
    });
  });

  // The layout differs by width: this one is at both.
  for (const { name, viewport } of WIDTHS) {
    it(`an installed add-on's page: sections side by side when wide, Disable not the main button (${name})`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(inst.url + '/add-ons/guestbook', { waitUntil: 'load' });
      await onScreen(page, `addon-${name}`, exactly('Guestbook'));
      const disable = page.getByRole('button', { name: msg('addOns.page.disable', { name: 'Guestbook' }) });
      expect(await disable.getAttribute('class')).toContain('secondary');
      const about = (await page.getByRole('heading', { name: msg('addOns.page.about') }).boundingBox())!;
      const settings = (await page.getByRole('heading', { name: msg('addOns.settings.title') }).boundingBox())!;
      if (viewport.width >= 1100) {
        // Facts on the right, beside the settings (not below them).
        expect(about.x).toBeGreaterThan(settings.x + settings.width / 2);
        expect(Math.abs(about.y - settings.y)).toBeLessThan(200);
      } else expect(about.y).toBeLessThan(settings.y);
      await fitsTheWidth(page);
      expectNoProblems(problems);
    });
  }

  atWidth(WIDTHS[1].viewport, (viewport) => {
    const name = WIDTHS[1].name;
    it(`sessions name the browser; the SQLite wizard has no URL choice; TLS in words (${name})`, async () => {
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ROOT);
      await page.goto(inst.url + '/account/sessions', { waitUntil: 'load' });
      await onScreen(page, `sessions-${name}`, msg('sessions.title'));
      const current = page.getByTestId('session').filter({ hasText: msg('sessions.current') });
      const device = current.getByText(msg('sessions.device', { browser: 'Chrome', system: 'Linux' }), { exact: true });
      expect(await device.getAttribute('title')).toBe(await page.evaluate(() => navigator.userAgent));
      await fitsTheWidth(page);

      await page.goto(inst.url + '/connections/new', { waitUntil: 'load' });
      await onScreen(page, `wizard-${name}`, msg('connections.new.title'));
      expect(await page.getByRole('group', { name: msg('connections.form.entry') }).count()).toBe(1);
      await page.getByRole('radio', { name: msg('connections.dialect.sqlite') }).check();
      expect(await page.getByRole('group', { name: msg('connections.form.entry') }).count()).toBe(0);
      await page.getByLabel(msg('connections.form.file')).waitFor();
      await onScreen(page, `wizard-sqlite-${name}`, msg('connections.new.title'));
      await fitsTheWidth(page);

      await page.goto(inst.url + '/connections', { waitUntil: 'load' });
      await page.getByRole('link', { name: 'Shop', exact: true }).first().click();
      await onScreen(page, `connection-${name}`, exactly('Shop'));
      const facts = await page.locator('dl.conn-facts').textContent();
      expect(facts).toContain(`${msg('connections.fact.tls')}${msg('connections.form.tlsDisable')}`);
      expect(facts).not.toContain('disable');
      expectNoProblems(problems);
    });
  });

  it('without SMTP an invitation shows its link; the invited person ends signed in', async () => {
    const { page, problems } = await openPage({ viewport: WIDTHS[0].viewport });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, inst.url, ROOT);
    await page.goto(inst.url + '/users', { waitUntil: 'load' });
    await onScreen(page, 'users', msg('nav.users'));
    const invite = page.getByRole('region', { name: msg('people.invite.title') });
    await invite.getByLabel(msg('field.email')).fill('ada@example.com');
    await invite.getByLabel(msg('field.name')).fill('Ada Lovelace');
    await invite.getByRole('button', { name: msg('people.invite.submit') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.invite.linkReady', { email: 'ada@example.com' }) })
      .waitFor();
    const link = await page.getByLabel(msg('people.invite.linkLabel')).inputValue();
    expect(link).toMatch(new RegExp(`^${inst.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/accept-invite\\?token=`));
    await page.getByRole('button', { name: msg('people.invite.linkCopy') }).click();
    await page.getByText(msg('secret.copied')).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await onScreen(page, 'users-invite-link', msg('nav.users'));

    // The page at both widths; the phone's accepts.
    let ada: Awaited<ReturnType<typeof openPage>> | null = null;
    for (const { name, viewport } of WIDTHS) {
      ada = await openPage({ viewport });
      await ada.page.goto(link, { waitUntil: 'load' });
      await onScreen(ada.page, `accept-invite-${name}`, msg('invite.title'));
      await fitsTheWidth(ada.page);
    }
    ada = ada!;
    await ada.page.getByLabel(msg('field.email')).fill('ada@example.com');
    await ada.page.getByLabel(msg('field.newPassword')).fill('ada-password-1');
    await ada.page.getByRole('button', { name: msg('invite.submit') }).click();
    await onScreen(ada.page, 'invited-home', msg('home.greeting', { name: 'Ada Lovelace' }));
    expectNoProblems(problems);
    expectNoProblems(ada.problems);
  });

  it('recovery codes can be copied and downloaded as a text file', async () => {
    const { page, problems } = await openPage({ viewport: WIDTHS[1].viewport });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, inst.url, ROOT);
    await page.goto(inst.url + '/account/two-factor', { waitUntil: 'load' });
    await onScreen(page, 'two-factor', msg('security.title'));
    await page.getByRole('button', { name: msg('security.start') }).click();
    const shown = page.getByTestId('totp-secret');
    await shown.waitFor();
    const secret = ((await shown.textContent()) ?? '').replace(/\s+/g, '');
    await page.getByLabel(msg('field.code')).fill(await totpAt(inst, secret));
    await page.getByRole('button', { name: msg('security.activate') }).click();
    await onScreen(page, 'recovery-codes', msg('security.codesTitle'));
    const codes = (await page.getByTestId('recovery-codes').getByRole('listitem').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    await page.getByRole('button', { name: msg('security.codesCopy') }).click();
    await page.getByText(msg('secret.copied')).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: msg('security.codesDownload') }).click()]);
    expect(download.suggestedFilename()).toBe('recovery-codes.txt');
    const file = readFileSync((await download.path())!, 'utf8');
    for (const code of codes) expect(file).toContain(`\n${code}`);
    await fitsTheWidth(page);
    await onScreen(page, 'recovery-codes-copied', msg('security.codesTitle'));
    expectNoProblems(problems);
  });
});
