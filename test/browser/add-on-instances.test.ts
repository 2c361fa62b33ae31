import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installFromCatalog } from '../../catalog/testing.js';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const TB = 'Table booking';
const PAGE = 'Book a table';
const ORIGIN = 'https://shop.example';
const BOOKINGS = 'table-booking-bookings';

type Venue = { id: string; name: string; settings: Record<string, unknown>; keyPrefix: string | null };

describe.runIf(browserAvailable())("an app's venues (instances) on its page, in a real browser (D28)", () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  const { openPage, onScreen, openAddOn, signIn } = useDashboardBrowser('add-on-instances');

  /** The app's venues as the server has them. */
  const venues = async (): Promise<Venue[]> => {
    const res = await admin.get('/api/v1/surfaces');
    expect(res.status, res.text).toBe(200);
    return (res.body.data.surfaces as Array<{ appKey: string; instances: Venue[] }>).find((s) => s.appKey === 'table-booking')!.instances;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    await installFromCatalog(admin, 'table-booking', '1.0.0', conn.body.data.connection.id);
    // A venue made before the screen opens: every change must send it back, or it would be removed.
    const pre = await admin.put('/api/v1/surfaces/instances', { appKey: 'table-booking', instances: [{ id: 'garden', name: 'Garden' }] });
    expect(pre.status, pre.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('adds a venue (a refused id said on its field; the key shown once), edits its settings, refuses to remove it while it has rows, and removes one', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, TB, 'add-on');
    const section = page.locator('section', { has: page.getByRole('heading', { level: 2, name: msg('addOns.instances.title') }) });
    const list = section.getByRole('list', { name: msg('addOns.instances.listLabel', { name: TB }) });
    const garden = list.getByTestId('instance-garden');
    await garden.waitFor();
    expect(await garden.textContent()).toContain(msg('addOns.instances.id', { id: 'garden' }));
    const gardenPrefix = (await venues())[0]!.keyPrefix!;
    expect(await garden.locator('code').textContent()).toBe(gardenPrefix);
    // The public page opens for the venue: its URL carries the venue's id.
    const open = garden.getByRole('link', { name: msg('addOns.instances.openPage', { title: PAGE, name: 'Garden' }) });
    expect(await open.getAttribute('href')).toBe('/api/v1/add-ons/table-booking/bundle/widget/index.html?instance=garden');

    const form = page.getByRole('form', { name: msg('addOns.instances.formLabel', { name: TB }) });
    const name = form.getByLabel(msg('addOns.instances.name'));
    const id = form.getByLabel(msg('addOns.instances.idLabel'));
    const add = form.getByRole('button', { name: msg('addOns.instances.add') });
    // The id follows the name until it is typed in.
    await name.fill('Harbour Café');
    expect(await id.inputValue()).toBe('harbour-cafe');
    // Refused ids are said on the field, in words for the server's issue code.
    for (const [typed, words] of [
      ['Bad_Id', msg('addOns.instances.issue.idInvalid')],
      ['default', msg('addOns.instances.issue.reserved')],
      ['garden', msg('addOns.instances.issue.duplicate')],
    ] as const) {
      await id.fill(typed);
      await add.click();
      await expect.poll(() => form.locator('.field-error').first().textContent()).toBe(words);
      expect(await id.getAttribute('aria-invalid')).toBe('true');
    }
    await onScreen(page, 'instance-refused', exactly(TB));
    expect((await venues()).map((v) => v.id)).toEqual(['garden']);

    // Its own settings, one refused on its input first.
    await name.fill('Harbour');
    await id.fill('harbour');
    await form.getByLabel(msg('addOns.instances.ownSettings')).check();
    const seats = form.getByLabel('Seats per slot');
    await seats.fill('0');
    await add.click();
    await expect.poll(async () => (await seats.getAttribute('aria-invalid')) === 'true').toBe(true);
    await seats.fill('4');
    await form.getByLabel('Venue name').fill('The harbour');
    await add.click();
    await section
      .getByRole('status')
      .filter({ hasText: msg('addOns.instances.added', { name: 'Harbour' }) })
      .waitFor();
    const secret = await section.getByTestId('instance-key-secret').inputValue();
    const after = await venues();
    // The venue made before was sent back with the new one.
    expect(after.map((v) => v.id)).toEqual(['garden', 'harbour']);
    expect(after[1]!.settings).toMatchObject({ venueName: 'The harbour', capacity: 4, slotMinutes: 30 });
    expect(secret.startsWith(after[1]!.keyPrefix!)).toBe(true);
    const harbour = list.getByTestId('instance-harbour');
    expect(await harbour.locator('code').textContent()).toBe(after[1]!.keyPrefix);
    expect(await section.getByRole('link', { name: msg('addOns.instances.keysLink') }).getAttribute('href')).toBe('/public-api/keys');
    expect(await name.inputValue()).toBe('');
    await onScreen(page, 'instance-added', exactly(TB));
    // Shown once: hidden, it is not on the page any more.
    await section.getByRole('button', { name: msg('addOns.instances.secretHide') }).click();
    expect(await section.getByTestId('instance-key-secret').count()).toBe(0);

    // Its settings are edited on its row; the other venue's are untouched.
    await harbour.getByRole('button', { name: msg('addOns.instances.editSettings', { name: 'Harbour' }) }).click();
    const settings = harbour.getByRole('form', { name: msg('addOns.instances.settingsLabel', { name: 'Harbour' }) });
    expect(await settings.getByLabel('Venue name').inputValue()).toBe('The harbour');
    await settings.getByLabel('Seats per slot').fill('0');
    await settings.getByRole('button', { name: msg('addOns.settings.save') }).click();
    await expect.poll(async () => (await settings.getByLabel('Seats per slot').getAttribute('aria-invalid')) === 'true').toBe(true);
    await settings.getByLabel('Seats per slot').fill('6');
    await settings.getByLabel('Venue name').fill('Harbour terrace');
    await settings.getByRole('button', { name: msg('addOns.settings.save') }).click();
    await settings
      .getByRole('status')
      .filter({ hasText: msg('addOns.settings.saved') })
      .waitFor();
    const edited = await venues();
    expect(edited[1]!.settings).toMatchObject({ venueName: 'Harbour terrace', capacity: 6 });
    expect(edited[0]!.settings).toEqual(after[0]!.settings);
    await onScreen(page, 'instance-settings', exactly(TB));

    // A booking with the harbour's key: the harbour cannot go while it holds it.
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const booked = await fetch(`${inst.url}/api/v1/public/records/${BOOKINGS}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ values: { booked_at: `${date}T12:00`, party: 2, name: 'Mary', email: 'mary@example.com' } }),
    });
    expect(booked.status, await booked.text()).toBe(201);
    await harbour.getByRole('button', { name: msg('addOns.instances.remove', { name: 'Harbour' }) }).click();
    const dialog = page.getByRole('dialog', { name: msg('addOns.instances.removeTitle', { name: 'Harbour' }) });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: msg('addOns.instances.removeConfirm') }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => harbour.getByTestId('instance-not-empty').textContent()).toBe('Harbour still has 1 row in bookings: delete them first.');
    expect((await venues()).map((v) => v.id)).toEqual(['garden', 'harbour']);
    await onScreen(page, 'instance-not-empty', exactly(TB));

    // Cancel keeps the venue and gives the focus back; confirmed, an empty venue goes.
    const removeGarden = garden.getByRole('button', { name: msg('addOns.instances.remove', { name: 'Garden' }) });
    await removeGarden.click();
    const gardenDialog = page.getByRole('dialog', { name: msg('addOns.instances.removeTitle', { name: 'Garden' }) });
    await gardenDialog.getByRole('button', { name: msg('addOns.remove.cancel') }).click();
    await gardenDialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(msg('addOns.instances.remove', { name: 'Garden' }));
    await removeGarden.click();
    await gardenDialog.getByRole('button', { name: msg('addOns.instances.removeConfirm') }).click();
    await section
      .getByRole('status')
      .filter({ hasText: msg('addOns.instances.removed', { name: 'Garden' }) })
      .waitFor();
    expect(await list.getByTestId('instance-garden').count()).toBe(0);
    expect((await venues()).map((v) => v.id)).toEqual(['harbour']);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(msg('addOns.instances.title'));
    await onScreen(page, 'instance-removed', exactly(TB));
    expectNoProblems(problems, [400, 409]);
  });

  it('passes axe in dark mode with venues listed', async () => {
    const { page, problems } = await openPage({ colorScheme: 'dark' });
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, TB, 'add-on-dark');
    await page.getByTestId('instance-harbour').waitFor();
    await onScreen(page, 'add-on-dark-instances', exactly(TB));
    expectNoProblems(problems);
  });
});
