import type { Page } from 'playwright-core';
import { IntlMessageFormat } from 'intl-messageformat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, setupAdmin } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { contrastWithWhite } from '../../dashboard/src/shared/contrast.js';
import { messages, type MessageId } from '../messages.js';
import { browserAvailable } from './chromium.js';
import { atWidth, expectNoProblems, msg, PHONE, showNav, useDashboardBrowser, WIDE } from './harness.js';
import { png } from '../helpers/images.js';

/** A message with select or plural arguments, formatted as the dashboard does. */
const format = (id: MessageId, values: Record<string, string | number>) => String(new IntlMessageFormat(messages[id], 'en').format(values));

const ADMIN = { email: 'root@example.com', name: 'Root', password: 'root-password' };
const READER = { email: 'rita@example.com', name: 'Rita Reader', password: 'rita-password-1' };

const PRODUCT = 'Acme Operations';
const MESSAGE = 'Welcome to Acme. Staff only: ask IT for an account.';
const COLOUR = '#7c2d12';

describe.runIf(browserAvailable())('the dashboard in a real browser: branding, the settings overview and telemetry', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  const { openPage, onScreen, signIn } = useDashboardBrowser('settings-branding');

  beforeAll(async () => {
    inst = await startInstance();
    admin = await setupAdmin(inst);
    // A custom role that may read the settings but holds no branding.write (admins only, BR1).
    const role = await admin.post('/api/v1/roles', { name: 'Settings reader' });
    expect(role.status).toBe(201);
    const roleId = (role.body as { data: { role: { id: string } } }).data.role.id;
    expect((await admin.put(`/api/v1/roles/${roleId}/permissions`, { grants: [{ permission: 'settings.read' }] })).status).toBe(200);
    await createUser(inst, { ...READER, roles: [roleId] });
  });

  afterAll(async () => {
    await inst?.close();
  });

  const accent = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
  const productLink = (page: Page) => page.getByRole('banner').getByRole('link', { name: PRODUCT });
  const alert = (page: Page, text: string) => page.getByRole('alert').filter({ hasText: text });
  const status = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text });

  atWidth(WIDE, (viewport, w) => {
    it(`an admin brands the instance (the contrast checked as the colour is typed, refused logos in words), an open dashboard follows, and the sign-in page shows it (${w} px)`, async () => {
      // Someone else has the dashboard open: the branding comes to them live (branding.changed).
      // (In the dark theme: the brand's colour is the light theme's accent only, BR11, and the screens stay axe-clean.)
      const other = await openPage({ viewport, colorScheme: 'dark' });
      await signIn(other.page, inst.url, READER);

      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, ADMIN);
      const defaultAccent = await accent(page);
      await page.goto(inst.url + '/settings/branding', { waitUntil: 'load' });
      await onScreen(page, `branding-${w}`, msg('settings.branding.title'));

      await page.getByLabel(msg('settings.branding.productName')).fill(PRODUCT);
      // A light colour: the check says so at once, before anything is sent.
      const colour = page.getByLabel(msg('settings.branding.primary'), { exact: true });
      await colour.fill('#ffcc00');
      const check = page.getByTestId('contrast-check');
      await expect
        .poll(() => check.innerText())
        .toContain(msg('settings.branding.contrastLow', { color: '#ffcc00', ratio: contrastWithWhite('#ffcc00').toFixed(2), min: '4.5' }));
      await colour.fill('red');
      await expect.poll(() => check.innerText()).toContain(msg('settings.branding.colorInvalid'));
      // Sent anyway, the server refuses it on the field with the same rule.
      await colour.fill('#ffcc00');
      await page.getByRole('button', { name: msg('settings.branding.save') }).click();
      await page.getByRole('alert').first().waitFor();
      await expect.poll(() => colour.getAttribute('aria-invalid')).toBe('true');
      expect((await admin.get('/api/v1/branding')).body.data.productName).toBe('Admin');

      await colour.fill(COLOUR);
      await expect
        .poll(() => check.innerText())
        .toContain(msg('settings.branding.contrastOk', { color: COLOUR, ratio: contrastWithWhite(COLOUR).toFixed(2), min: '4.5' }));
      await page.getByLabel(msg('settings.branding.signInMessage')).fill(MESSAGE);
      await page.getByRole('button', { name: msg('settings.branding.save') }).click();
      await status(page, msg('settings.saved')).waitFor();
      expect((await admin.get('/api/v1/branding')).body.data).toMatchObject({ productName: PRODUCT, colors: { primary: COLOUR }, signInMessage: MESSAGE });
      // The shell takes the name and the colour as its accent.
      await productLink(page).waitFor();
      await expect.poll(() => accent(page)).toBe(COLOUR);
      expect(COLOUR).not.toBe(defaultAccent);
      await onScreen(page, `branding-saved-${w}`, msg('settings.branding.title'));
      // … and so does the dashboard open elsewhere, without a reload.
      await productLink(other.page).waitFor();
      await expect.poll(() => other.page.evaluate(() => document.documentElement.dataset.brand)).toBe('');
      expect(await accent(other.page)).not.toBe(COLOUR);
      await expect.poll(() => other.page.title()).toContain(PRODUCT);
      // Their settings overview shows it too.
      await other.page.goto(inst.url + '/settings', { waitUntil: 'load' });
      await onScreen(other.page, `overview-${w}`, msg('settings.title'));
      await expect.poll(() => other.page.getByRole('region', { name: msg('settings.overview.brandingTitle') }).innerText()).toContain(PRODUCT);

      // Logos: a 4,000 px PNG and an SVG with a script are refused in words; a good PNG is taken.
      const file = page.getByLabel(msg('settings.branding.logoFile'));
      const upload = page.getByRole('button', { name: msg('settings.branding.upload') });
      await file.setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: png(4000, 10) });
      await upload.click();
      await alert(page, msg('settings.branding.refused.dimensions')).waitFor();
      await file.setInputFiles({
        name: 'logo.svg',
        mimeType: 'image/svg+xml',
        buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'),
      });
      await upload.click();
      await alert(page, msg('settings.branding.refused.svgUnsafe')).waitFor();
      expect((await admin.get('/api/v1/branding')).body.data.logo).toBeNull();
      await file.setInputFiles({ name: 'acme.png', mimeType: 'image/png', buffer: png(120, 40) });
      await upload.click();
      await status(page, msg('settings.branding.uploaded')).waitFor();
      const preview = page.getByRole('img', { name: msg('settings.branding.logoAlt') });
      await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
      // The header's mark is the logo now.
      await expect.poll(() => page.locator('header .product-logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
      await onScreen(page, `branding-logo-${w}`, msg('settings.branding.title'));

      // Signed out, in a new browser: the sign-in page is branded.
      const visitor = await openPage({ viewport });
      await visitor.page.goto(inst.url + '/sign-in', { waitUntil: 'load' });
      await onScreen(visitor.page, `sign-in-branded-${w}`, msg('signIn.title'));
      const brand = visitor.page.locator('.auth .brand');
      await expect.poll(() => brand.innerText()).toContain(PRODUCT);
      await expect.poll(() => brand.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
      expect(await visitor.page.getByTestId('sign-in-message').innerText()).toBe(MESSAGE);
      await expect.poll(() => accent(visitor.page)).toBe(COLOUR);
      await expect.poll(() => visitor.page.title()).toBe(msg('app.documentTitle', { screen: msg('signIn.title'), product: PRODUCT }));
      // The next visit paints in the brand's colour at once: with the bootstrap held back, the
      // accent is already the brand's (no flash of the built-in accent on every load).
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await visitor.page.route('**/api/v1/bootstrap', async (route) => {
        await held;
        await route.continue();
      });
      await visitor.page.reload({ waitUntil: 'load' });
      expect(await accent(visitor.page)).toBe(COLOUR);
      const answered = visitor.page.waitForResponse('**/api/v1/bootstrap');
      release();
      await answered;
      await visitor.page.unroute('**/api/v1/bootstrap');
      await expect.poll(() => brand.innerText()).toContain(PRODUCT);
      expectNoProblems(visitor.problems);

      // The logo goes again.
      await page.getByRole('button', { name: msg('settings.branding.remove') }).click();
      await status(page, msg('settings.branding.removed')).waitFor();
      await page.getByText(msg('settings.branding.logoNone')).waitFor();
      expect((await admin.get('/api/v1/branding')).body.data.logo).toBeNull();
      expectNoProblems(problems, [400]);
      expectNoProblems(other.problems);
    });
  });

  atWidth(PHONE, (viewport, w) => {
    it(`a reader sees the overview of the workspace and the branding read-only; telemetry shows its preview and is refused in words (${w} px)`, async () => {
      // The brand's colour is the accent of whoever chose none; an accent a person chose wins (BR11).
      expect((await admin.put('/api/v1/settings/branding', { colors: { primary: COLOUR } })).status).toBe(200);
      const { page, problems } = await openPage({ viewport });
      await signIn(page, inst.url, READER);
      const brand = () => page.evaluate(() => document.documentElement.dataset.brand ?? null);
      await expect.poll(brand).toBe('');
      await expect.poll(() => accent(page)).toBe(COLOUR);
      const chose = await page.request.patch(inst.url + '/api/v1/me/prefs', { data: { accent: 'teal' }, headers: { origin: inst.url } });
      expect(chose.status()).toBe(200);
      await page.reload({ waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: msg('home.greeting', { name: READER.name }) }).waitFor();
      await expect.poll(brand).toBe(null);
      await expect.poll(() => accent(page)).toBe('#0f766e');
      const nav = await showNav(page);
      await nav.getByRole('link', { name: msg('nav.settings') }).click();
      await onScreen(page, `overview-${w}`, msg('settings.title'));
      const workspace = (await admin.get('/api/v1/settings/workspace')).body.data.workspace;
      const branding = page.getByRole('region', { name: msg('settings.overview.brandingTitle') });
      await expect.poll(() => branding.innerText()).toContain(workspace.name);
      const instance = page.getByRole('region', { name: msg('settings.overview.instanceTitle') });
      await expect.poll(() => instance.innerText()).toContain(format('settings.overview.metaValue', { dialect: 'sqlite', embedded: 'true' }));
      expect(await page.getByRole('region', { name: msg('settings.overview.emailTitle') }).innerText()).toContain(
        format('settings.overview.emailState', { configured: 'false' }),
      );
      expect(await page.getByRole('region', { name: msg('settings.overview.telemetryTitle') }).innerText()).toContain(
        format('settings.overview.telemetryState', { enabled: 'false' }),
      );

      // From the overview to Branding: read-only, no field to change.
      await page.getByRole('link', { name: msg('settings.overview.open', { section: msg('settings.branding.link') }) }).click();
      await onScreen(page, `branding-read-only-${w}`, msg('settings.branding.title'));
      await page.getByText(msg('settings.branding.readOnly')).waitFor();
      await expect.poll(() => page.locator('main dl').innerText()).toContain(workspace.name);
      expect(await page.getByRole('button', { name: msg('settings.branding.save') }).count()).toBe(0);
      expect(await page.getByLabel(msg('settings.branding.productName')).count()).toBe(0);
      expectNoProblems(problems);

      // Telemetry, as the admin: the preview in full, above the switch; turning it on is refused in words.
      const adminPage = await openPage({ viewport, colorScheme: 'dark' });
      await signIn(adminPage.page, inst.url, ADMIN);
      await adminPage.page.goto(inst.url + '/settings/telemetry', { waitUntil: 'load' });
      await onScreen(adminPage.page, `telemetry-${w}`, msg('settings.telemetry.title'));
      const preview = adminPage.page.getByTestId('telemetry-preview');
      const expected = (await admin.get('/api/v1/settings/telemetry')).body.data.preview as Record<string, unknown>;
      await expect.poll(async () => JSON.parse(await preview.innerText()) as unknown).toEqual(expected);
      const toggle = adminPage.page.getByRole('switch', { name: msg('settings.telemetry.switch') });
      const [previewBox, switchBox] = [await preview.boundingBox(), await toggle.boundingBox()];
      expect(previewBox!.y).toBeLessThan(switchBox!.y);
      expect(await toggle.isChecked()).toBe(false);
      await toggle.click({ force: true });
      await alert(adminPage.page, msg('settings.telemetry.notConfigured')).waitFor();
      expect(await toggle.isChecked()).toBe(false);
      expect((await admin.get('/api/v1/settings/telemetry')).body.data.enabled).toBe(false);
      expectNoProblems(adminPage.problems, [409]);
    });
  });
});
