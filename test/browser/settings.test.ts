import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, setupAdmin } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const ADMIN = { email: 'root@example.com', name: 'Root', password: 'root-password' };
const VIEWER = { email: 'vera@example.com', name: 'Vera Viewer', password: 'vera-password-1' };
const READER = { email: 'rita@example.com', name: 'Rita Reader', password: 'rita-password-1' };

describe.runIf(browserAvailable())('the dashboard in a real browser: settings', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  const { openPage, onScreen, signIn } = useDashboardBrowser('settings');

  beforeAll(async () => {
    inst = await startInstance();
    admin = await setupAdmin(inst);
    await createUser(inst, { ...VIEWER, roles: ['viewer'] });
    // A custom role that may read the settings but not change them.
    const role = await admin.post('/api/v1/roles', { name: 'Settings reader' });
    expect(role.status).toBe(201);
    const roleId = (role.body as { data: { role: { id: string } } }).data.role.id;
    expect((await admin.put(`/api/v1/roles/${roleId}/permissions`, { grants: [{ permission: 'settings.read' }] })).status).toBe(200);
    await createUser(inst, { ...READER, roles: [roleId] });
  });

  afterAll(async () => {
    await inst?.close();
  });

  const html = (page: Page, attribute: string) => page.evaluate((a) => document.documentElement.getAttribute(a), attribute);

  async function openSection(page: Page, link: string, title: string, name: string): Promise<void> {
    await page
      .getByRole('navigation', { name: msg('settings.sectionsLabel') })
      .getByRole('link', { name: link })
      .click();
    await onScreen(page, name, title);
  }

  it('shows the instance read-only and sets the default preferences everyone gets', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);
    await page
      .getByRole('navigation', { name: msg('nav.label') })
      .getByRole('link', { name: msg('nav.settings') })
      .click();
    await onScreen(page, 'settings', msg('settings.title'));
    expect(new URL(page.url()).pathname).toBe('/settings');
    // The overview: one read of the workspace (BR13), with the version the bootstrap brought.
    const instance = page.getByRole('region', { name: msg('settings.overview.instanceTitle') });
    await instance.getByText(msg('settings.system.version')).waitFor();
    expect(await instance.textContent()).toContain((await admin.get('/api/v1/bootstrap')).body.data.instance.version);
    // Breadcrumbs: home, then this screen as the current page.
    const crumbs = page.getByRole('navigation', { name: msg('breadcrumbs.label') });
    expect(await crumbs.getByRole('link', { name: msg('nav.home') }).count()).toBe(1);

    await openSection(page, msg('settings.defaults.link'), msg('settings.defaults.title'), 'settings-defaults');
    await page.getByLabel(msg('prefs.theme')).selectOption({ label: msg('prefs.themeDark') });
    await page.getByLabel(msg('prefs.accent')).selectOption({ label: msg('prefs.accentViolet') });
    await page.getByRole('button', { name: msg('settings.defaults.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('settings.saved') })
      .waitFor({ state: 'visible' });
    // The admin chose nothing for themselves: the new defaults apply to them at once.
    await expect.poll(() => html(page, 'data-theme')).toBe('dark');
    await expect.poll(() => html(page, 'data-accent')).toBe('violet');
    await onScreen(page, 'settings-defaults-dark', msg('settings.defaults.title'));
    expect((await admin.get('/api/v1/settings/defaults')).body.data.defaults).toEqual({
      theme: 'dark',
      accent: 'violet',
      density: null,
      locale: null,
      dir: null,
    });

    // Every settings screen, in dark, passes axe.
    await openSection(page, msg('settings.overview'), msg('settings.title'), 'settings-dark');
    await openSection(page, msg('settings.email.link'), msg('settings.email.title'), 'settings-email-dark');
    await openSection(page, msg('settings.security.link'), msg('settings.security.title'), 'settings-security-dark');

    await openSection(page, msg('settings.defaults.link'), msg('settings.defaults.title'), 'settings-defaults-again');
    await page.getByLabel(msg('prefs.theme')).selectOption({ label: msg('settings.defaults.system') });
    await page.getByLabel(msg('prefs.accent')).selectOption({ label: msg('settings.defaults.system') });
    await page.getByRole('button', { name: msg('settings.defaults.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('settings.saved') })
      .waitFor({ state: 'visible' });
    await expect.poll(() => html(page, 'data-theme')).toBe('system');
    expectNoProblems(problems);
  });

  it('sets the SMTP server, showing the server refusing a field on that field, then turns e-mail off', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/settings/email', { waitUntil: 'load' });
    await onScreen(page, 'settings-email', msg('settings.email.title'));
    await page.getByText(msg('settings.email.off')).waitFor();

    await page.getByLabel(msg('settings.email.host')).fill('smtp.example.com');
    await page.getByLabel(msg('settings.email.port')).fill('twenty-five');
    await page.getByLabel(msg('settings.email.security')).selectOption({ label: msg('settings.email.securityNone') });
    await page.getByLabel(msg('settings.email.user')).fill('mailer');
    await page.getByLabel(msg('settings.email.password'), { exact: true }).fill('smtp-secret');
    await page.getByLabel(msg('settings.email.from')).fill('Admin <admin@example.com>');
    await page.getByRole('button', { name: msg('settings.email.save') }).click();
    await page.getByRole('alert').waitFor({ state: 'visible' });
    const port = page.getByLabel(msg('settings.email.port'));
    expect(await port.getAttribute('aria-invalid')).toBe('true');
    await onScreen(page, 'settings-email-invalid', msg('settings.email.title'));

    await port.fill('2525');
    await page.getByRole('button', { name: msg('settings.email.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('settings.saved') })
      .waitFor({ state: 'visible' });
    await page.getByText(msg('settings.email.on')).waitFor();
    await page.getByText(msg('settings.email.passwordKept')).waitFor();
    const stored = (await admin.get('/api/v1/settings/email')).body.data;
    expect(stored).toEqual({
      configured: true,
      smtp: { host: 'smtp.example.com', port: 2525, security: 'none', user: 'mailer', passwordSet: true, from: 'Admin <admin@example.com>', replyTo: null },
    });

    await page.getByRole('button', { name: msg('settings.email.turnOff') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('settings.email.turnedOff') })
      .waitFor({ state: 'visible' });
    await page.getByText(msg('settings.email.off')).waitFor();
    expect((await admin.get('/api/v1/settings/email')).body.data).toEqual({ configured: false, smtp: null });
    expectNoProblems(problems, [400]);
  });

  it('requires two-step verification for the roles ticked', async () => {
    const { page, problems } = await openPage({ colorScheme: 'dark' });
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/settings/security', { waitUntil: 'load' });
    await onScreen(page, 'settings-security', msg('settings.security.title'));
    const group = page.getByRole('group', { name: msg('settings.security.roles') });
    await group.getByRole('checkbox', { name: 'editor', exact: false }).first().check();
    await page.getByRole('button', { name: msg('settings.security.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('settings.saved') })
      .waitFor({ state: 'visible' });
    expect((await admin.get('/api/v1/settings/security')).body.data.security).toEqual({ requireTwoFactorForRoles: ['editor'] });
    await group.getByRole('checkbox', { name: 'editor', exact: false }).first().uncheck();
    await page.getByRole('button', { name: msg('settings.security.save') }).click();
    await expect.poll(async () => (await admin.get('/api/v1/settings/security')).body.data.security.requireTwoFactorForRoles).toEqual([]);
    expectNoProblems(problems);
  });

  it('tells a person without the permission that they may not see or change the settings', async () => {
    const viewer = await openPage();
    await signIn(viewer.page, inst.url, VIEWER);
    // Without settings.read the screens are not drawn: a headed refusal names the permission (DB38).
    for (const [path, screen] of [
      ['/settings', 'settings-viewer'],
      ['/settings/email', 'settings-email-viewer'],
    ] as const) {
      await viewer.page.goto(inst.url + path, { waitUntil: 'load' });
      await onScreen(viewer.page, screen, msg('refusal.title'));
      await expect.poll(() => viewer.page.locator('main').innerText()).toContain(msg('refusal.missing', { permission: msg('permission.settings.read') }));
    }
    expect(await viewer.page.getByRole('button', { name: msg('settings.email.save') }).count()).toBe(0);
    expectNoProblems(viewer.problems);

    const reader = await openPage();
    await signIn(reader.page, inst.url, READER);
    await reader.page.goto(inst.url + '/settings/security', { waitUntil: 'load' });
    await onScreen(reader.page, 'settings-security-reader', msg('settings.security.title'));
    // Without roles.read the role ids are typed.
    await reader.page.getByLabel(msg('settings.security.rolesText')).fill('viewer');
    await reader.page.getByRole('button', { name: msg('settings.security.save') }).click();
    await reader.page
      .getByRole('alert')
      .filter({ hasText: msg('settings.deniedWrite') })
      .waitFor({ state: 'visible' });
    expect((await admin.get('/api/v1/settings/security')).body.data.security).toEqual({ requireTwoFactorForRoles: [] });
    expectNoProblems(reader.problems, [403]);
  });
});
