import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installFromCatalog } from '../../catalog/testing.js';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable, launchChromium } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const TB = 'Table booking';
const PAGE = 'Book a table';

describe.runIf(browserAvailable())("an add-on's mapped domains on its page, in a real browser (D28)", () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let onDomain: Browser | undefined;
  const { openPage, onScreen, onDialog, openAddOn, signIn } = useDashboardBrowser('add-on-domains');

  /** The whole mapping as the server has it. */
  const mapping = async () => {
    const res = await admin.get('/api/v1/surfaces');
    expect(res.status, res.text).toBe(200);
    return (res.body.data.surfaces as Array<{ appKey: string; domains: Array<{ host: string; surface: string }> }>)
      .flatMap((s) => s.domains.map((d) => `${d.host} ${s.appKey}/${d.surface}`))
      .sort();
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://shop.example' } }));
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    await installFromCatalog(admin, 'table-booking', '1.0.0', conn.body.data.connection.id);
    // A name mapped before the screen opens: every change must send it back, or it would be unmapped.
    const pre = await admin.put('/api/v1/surfaces/domains', { domains: [{ host: 'tables.example', appKey: 'table-booking', surface: 'widget' }] });
    expect(pre.status, pre.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await onDomain?.close().catch(() => undefined);
    await inst?.close();
    await source?.cleanup();
  });

  it('lists the names mapped to the public page, maps one (a refused name said on its field), opens it, and removes it after a confirmation', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, TB, 'add-on');
    const section = page.locator('section', { has: page.getByRole('heading', { level: 2, name: msg('addOns.domains.title') }) });
    const list = section.getByRole('list', { name: msg('addOns.domains.listLabel', { name: TB }) });
    await list.getByRole('link', { name: 'tables.example' }).waitFor();
    expect(await list.getByRole('link', { name: 'tables.example' }).getAttribute('href')).toBe('http://tables.example/');
    expect(await list.getByRole('link', { name: 'tables.example' }).getAttribute('target')).toBe('_blank');
    // Where the page works (AO30): on its mapped names.
    expect(await section.getByTestId('usable-at').textContent()).toBe(msg('addOns.domains.usableAt', { title: PAGE, hosts: 'tables.example' }));
    // The help line leads to the public API screen.
    expect(await section.getByRole('link', { name: msg('addOns.domains.publicApiLink') }).getAttribute('href')).toBe('/public-api');

    const form = page.getByRole('form', { name: msg('addOns.domains.formLabel', { name: TB }) });
    const host = form.getByLabel(msg('addOns.domains.host'));
    const add = form.getByRole('button', { name: msg('addOns.domains.add') });
    // Refused names are said on the field, in words for the server's issue code.
    for (const [typed, words] of [
      ['Bad Host', msg('addOns.domains.issue.hostInvalid')],
      ['localhost', msg('addOns.domains.issue.hostInvalid')],
      ['tables.example:8080', msg('addOns.domains.issue.hostDuplicate')],
    ] as const) {
      await host.fill(typed);
      // Two names in a row are refused in the same words: wait for this refusal, not the last one still shown.
      const refused = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith('/surfaces/domains'));
      await add.click();
      await refused;
      await expect.poll(() => form.locator('.field-error').textContent()).toBe(words);
      await expect.poll(() => add.isEnabled()).toBe(true);
      expect(await host.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await host.getAttribute('aria-describedby')) ?? '';
      expect(await page.locator(`[id="${describedBy.split(' ').pop()}"]`).textContent()).toBe(words);
    }
    await onScreen(page, 'domain-refused', exactly(TB));
    expect(await mapping()).toEqual(['tables.example table-booking/widget']);

    await host.fill('booking.test');
    await add.click();
    await section
      .getByRole('status')
      .filter({ hasText: msg('addOns.domains.added', { host: 'booking.test', title: PAGE }) })
      .waitFor();
    await list.getByRole('link', { name: 'booking.test' }).waitFor();
    expect(await list.getByRole('link', { name: 'booking.test' }).getAttribute('href')).toBe('http://booking.test/');
    expect(await host.inputValue()).toBe('');
    expect(await host.getAttribute('aria-invalid')).toBeNull();
    // The name already mapped was sent back with the new one.
    expect(await mapping()).toEqual(['booking.test table-booking/widget', 'tables.example table-booking/widget']);
    await onScreen(page, 'domain-mapped', exactly(TB));

    // The name serves the page: a browser that resolves it to the instance opens the widget at its root
    // (mapped without a port, the name answers on the instance's port too).
    onDomain = await launchChromium(['--host-resolver-rules=MAP booking.test 127.0.0.1']);
    const widget = await (await onDomain.newContext()).newPage();
    await widget.goto(`http://booking.test:${new URL(inst.url).port}/`);
    await widget.getByRole('heading', { level: 1, name: PAGE }).waitFor({ timeout: 15_000 });
    await onDomain.close();
    onDomain = undefined;

    // Removal asks first; Cancel keeps the name and gives the focus back to the button.
    const remove = list.getByRole('button', { name: msg('addOns.domains.remove', { host: 'booking.test' }) });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: msg('addOns.domains.removeTitle', { host: 'booking.test' }) });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(msg('addOns.domains.removeBody', { host: 'booking.test', title: PAGE }));
    await onDialog(page, 'domain-remove-confirm', dialog);
    await dialog.getByRole('button', { name: msg('addOns.remove.cancel') }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(msg('addOns.domains.remove', { host: 'booking.test' }));
    expect(await mapping()).toHaveLength(2);

    await remove.click();
    await dialog.getByRole('button', { name: msg('addOns.domains.removeConfirm') }).click();
    await dialog.waitFor({ state: 'hidden' });
    await section
      .getByRole('status')
      .filter({ hasText: msg('addOns.domains.removed', { host: 'booking.test' }) })
      .waitFor();
    expect(await list.getByRole('link', { name: 'booking.test' }).count()).toBe(0);
    expect(await mapping()).toEqual(['tables.example table-booking/widget']);
    // The removed name's button is gone: the section's heading has the focus.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(msg('addOns.domains.title'));
    await onScreen(page, 'domain-removed', exactly(TB));
    expectNoProblems(problems, [400]);
  });

  it('passes axe in dark mode with names listed', async () => {
    const { page, problems } = await openPage({ colorScheme: 'dark' });
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, TB, 'add-on-dark');
    await page.getByRole('link', { name: 'tables.example' }).waitFor();
    await onScreen(page, 'add-on-dark-domains', exactly(TB));
    expectNoProblems(problems);
  });
});
