import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../messages.js';
import { setupAdmin } from '../../plugins/auth/testing.js';
import { sqliteDatabase } from '../../plugins/connections/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { TestSmtpServer } from '../helpers/smtp.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, one, useDashboardBrowser } from './harness.js';

const ROOT = { email: 'root@example.com', name: 'Root', password: 'root-password' };
const GRACE = { email: 'grace@example.com', name: 'Grace Hopper', password: 'grace-password-1' };
const HELPDESK = 'Helpdesk';

/** A plural message's `other` branch with `#` filled. */
function other(id: keyof typeof messages, count: number): string {
  const m = /other \{([^}]*)\}/.exec(messages[id]);
  if (!m) throw new Error(`${id} has no "other" branch`);
  return m[1]!.replace('#', String(count));
}

/**
 * One instance, one story told in order: the admin invites Grace with a custom role, changes
 * what that role may do, suspends her, works with API keys, and reads the audit trail of it all.
 */
describe.runIf(browserAvailable())('the dashboard in a real browser: people and access', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let helpdeskId = '';
  let shopId = '';
  let dir = '';
  const smtp = new TestSmtpServer();
  const { openPage, onScreen, onDialog, signIn } = useDashboardBrowser('people');

  beforeAll(async () => {
    await smtp.start();
    inst = await startInstance();
    admin = await setupAdmin(inst);
    // The stage: a custom role that may see users (and nothing about API keys or the audit log).
    const role = await admin.post('/api/v1/roles', { name: HELPDESK, description: 'Answers questions about accounts' });
    expect(role.status, role.text).toBe(201);
    helpdeskId = role.body.data.role.id as string;
    expect((await admin.put(`/api/v1/roles/${helpdeskId}/permissions`, { grants: [{ permission: 'users.read' }] })).status).toBe(200);
    // A connection (a SQLite file with a table `items`) for a scoped grant.
    dir = mkdtempSync(join(tmpdir(), 'people-'));
    const shop = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'sqlite', url: `sqlite:${sqliteDatabase(dir, 'shop.db')}` });
    expect(shop.status, shop.text).toBe(201);
    shopId = shop.body.data.connection.id as string;
  });

  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const navLink = (page: Page, label: string) => page.getByRole('navigation', { name: msg('nav.label') }).getByRole('link', { name: label, exact: true });

  async function go(page: Page, label: string, name: string, heading: string | RegExp): Promise<void> {
    await page
      .getByRole('navigation', { name: msg('nav.label') })
      .getByRole('link', { name: label, exact: true })
      .click();
    await onScreen(page, name, heading);
  }

  it('invites a colleague with a role; she accepts by the e-mailed link, signs in and sees what the role allows', async () => {
    const { page, problems } = await openPage({ locale: 'en-GB' });
    await signIn(page, inst.url, ROOT);
    await go(page, msg('nav.users'), 'users', msg('nav.users'));
    const rows = page.getByTestId('user-row');
    await expect.poll(() => rows.count()).toBe(1);
    // Without outgoing e-mail, the screen says so before anyone is invited.
    await page.getByText(msg('people.invite.mailOff')).waitFor();
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    await page.reload({ waitUntil: 'load' });
    await onScreen(page, 'users-mail-on', msg('nav.users'));
    await expect.poll(() => rows.count()).toBe(1);
    expect(await page.getByText(msg('people.invite.mailOff')).count()).toBe(0);

    const before = smtp.received.length;
    const invite = page.getByRole('region', { name: msg('people.invite.title') });
    await invite.getByLabel(msg('field.email')).fill(GRACE.email);
    await invite.getByLabel(msg('field.name')).fill(GRACE.name);
    await invite.getByRole('checkbox', { name: HELPDESK }).check();
    await invite.getByRole('button', { name: msg('people.invite.submit') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.invite.sent', { email: GRACE.email }) })
      .waitFor();
    const grace = rows.filter({ hasText: GRACE.email });
    await grace
      .filter({ hasText: msg('people.status.invited') })
      .filter({ hasText: HELPDESK })
      .waitFor();
    // Filtered by role, the list shows only Grace.
    const filters = page.getByRole('search', { name: msg('people.users.filterLabel') });
    await filters.getByLabel(msg('people.users.roleFilter')).selectOption({ label: HELPDESK });
    await filters.getByRole('button', { name: msg('people.filter.apply') }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.textContent()).toContain(GRACE.email);
    await filters.getByLabel(msg('people.users.roleFilter')).selectOption({ label: msg('people.users.anyRole') });
    await filters.getByRole('button', { name: msg('people.filter.apply') }).click();
    await expect.poll(() => rows.count()).toBe(2);
    // The form is empty again for the next person.
    expect(await invite.getByLabel(msg('field.email')).inputValue()).toBe('');
    await onScreen(page, 'users-invited', msg('nav.users'));

    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual([GRACE.email]);
    expect(mail!.subject).toContain(ROOT.name);
    const link = /https?:\/\/\S+\/accept-invite\?token=\S+/.exec(mail!.text)?.[0];
    expect(link, mail!.text).toBeDefined();

    // Grace, on her own computer.
    const colleague = await openPage();
    await colleague.page.goto(link!, { waitUntil: 'load' });
    await onScreen(colleague.page, 'accept-invite', msg('invite.title'));
    await colleague.page.getByLabel(msg('field.email')).fill(GRACE.email);
    await colleague.page.getByLabel(msg('field.newPassword')).fill(GRACE.password);
    await colleague.page.getByRole('button', { name: msg('invite.submit') }).click();
    // The invitation ends signed in.
    await onScreen(colleague.page, 'colleague-home', msg('home.greeting', { name: GRACE.name }));
    // Helpdesk may see users...
    await go(colleague.page, msg('nav.users'), 'colleague-users', msg('nav.users'));
    await expect.poll(() => colleague.page.getByTestId('user-row').count()).toBe(2);
    // ...but not API keys: no entry in the navigation, and the address says so.
    expect(await navLink(colleague.page, msg('people.nav.apiKeys')).count()).toBe(0);
    await colleague.page.goto(`${inst.url}/api-keys`, { waitUntil: 'load' });
    // The screen is not drawn: a headed refusal names the permission (DB38).
    await onScreen(colleague.page, 'colleague-keys', msg('refusal.title'));
    await expect.poll(() => colleague.page.locator('main').innerText()).toContain(msg('refusal.missing', { permission: msg('permission.api-keys.read') }));

    // The admin's list now says Grace is active and when she signed in.
    await page.reload({ waitUntil: 'load' });
    await onScreen(page, 'users-active', msg('nav.users'));
    await grace.filter({ hasText: msg('people.status.active') }).waitFor();
    expect(await grace.textContent()).not.toContain(msg('people.users.never'));

    expectNoProblems(problems);
    expectNoProblems(colleague.problems, [403]);
  }, 120_000);

  it('creates, renames and deletes a role; the matrix keeps built-in roles read-only and its change is real for the colleague', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await go(page, msg('people.nav.roles'), 'roles', msg('people.roles.title'));

    // Built-in columns are read-only: admin holds everything, viewer does not manage users.
    const cell = (permission: string, role: string) => page.getByRole('checkbox', { name: msg('people.matrix.cell', { permission, role }), exact: true });
    expect(await cell('Manage users', 'admin').isChecked()).toBe(true);
    expect(await cell('Manage users', 'admin').isDisabled()).toBe(true);
    expect(await cell('Read rows', 'viewer').isChecked()).toBe(true);
    expect(await cell('Manage users', 'viewer').isChecked()).toBe(false);

    // A role is created, renamed and deleted.
    const create = page.getByRole('region', { name: msg('people.roles.new') });
    await create.getByLabel(msg('people.roles.name')).fill('Temporary');
    await create.getByRole('button', { name: msg('people.roles.create') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.roles.created', { name: 'Temporary' }) })
      .waitFor();
    await page.getByRole('link', { name: 'Temporary', exact: true }).click();
    await onScreen(page, 'role', 'Temporary');
    await page.getByLabel(msg('people.roles.name'), { exact: true }).fill('Short-lived');
    await page.getByRole('button', { name: msg('people.role.save'), exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.role.renamed') })
      .waitFor();
    await page.getByRole('heading', { level: 1, name: 'Short-lived' }).waitFor();
    await page.getByRole('button', { name: msg('people.role.delete') }).click();
    const dialog = page.getByRole('dialog', { name: msg('people.role.deleteTitle', { name: 'Short-lived' }) });
    await dialog.waitFor();
    await onDialog(page, 'role-delete-dialog', dialog);
    await dialog.getByRole('button', { name: msg('people.role.deleteConfirm') }).click();
    await onScreen(page, 'roles-after-delete', msg('people.roles.title'));
    expect(await page.getByRole('link', { name: 'Short-lived', exact: true }).count()).toBe(0);

    // Grace signs in: she sees users, not the audit log.
    const colleague = await openPage();
    await signIn(colleague.page, inst.url, GRACE);
    expect(await navLink(colleague.page, msg('nav.audit')).count()).toBe(0);
    await colleague.page.evaluate(() => {
      history.pushState(null, '', '/audit');
      dispatchEvent(new PopStateEvent('popstate'));
    });
    await onScreen(colleague.page, 'colleague-audit-before', msg('refusal.title'));
    await expect.poll(() => colleague.page.locator('main').innerText()).toContain(msg('refusal.missing', { permission: msg('permission.audit.read') }));

    // Helpdesk: the audit log instead of the user list.
    await cell('Read the audit log', HELPDESK).check();
    await cell('See users', HELPDESK).uncheck();
    await page.getByRole('button', { name: one('people.matrix.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: one('people.matrix.saved') })
      .waitFor();
    expect(await cell('Read the audit log', HELPDESK).isChecked()).toBe(true);
    expect(await cell('See users', HELPDESK).isChecked()).toBe(false);
    await onScreen(page, 'roles-saved', msg('people.roles.title'));
    const saved = (await admin.get(`/api/v1/roles/${helpdeskId}/permissions`)).body.data.grants as Array<{ permission: string }>;
    expect(saved.map((g) => g.permission)).toEqual(['audit.read']);

    // A scoped grant on the role's page: reading the label column of Shop's items only.
    await page.getByRole('link', { name: HELPDESK, exact: true }).click();
    await onScreen(page, 'role-helpdesk', HELPDESK);
    const scoped = page.getByRole('region', { name: msg('people.scope.title') });
    await scoped.getByLabel(msg('people.matrix.permission')).selectOption('data.read');
    await scoped.getByLabel(msg('people.scope.connection')).selectOption({ label: 'Shop' });
    await scoped.getByLabel(msg('people.scope.table')).fill('items');
    await scoped.getByLabel(msg('people.scope.columns')).fill('label');
    await scoped.getByRole('button', { name: msg('people.scope.add') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.role.grantsSaved') })
      .waitFor();
    const where = msg('people.role.scope', { connection: 'Shop', table: 'items', columns: 'label' });
    await page.getByRole('row', { name: new RegExp(where) }).waitFor();
    await onScreen(page, 'role-scoped', HELPDESK);
    const withScope = (await admin.get(`/api/v1/roles/${helpdeskId}/permissions`)).body.data.grants;
    expect(withScope).toContainEqual({ permission: 'data.read', scope: { connectionId: shopId, table: 'items', columns: ['label'] } });
    // The built-in role's page is read-only.
    await page.getByRole('link', { name: msg('people.role.back') }).click();
    await onScreen(page, 'roles-2', msg('people.roles.title'));
    await page.getByRole('link', { name: 'viewer', exact: true }).click();
    await onScreen(page, 'role-viewer', 'viewer');
    await page.getByText(msg('people.role.builtinNote')).waitFor();
    expect(await page.getByRole('button', { name: msg('people.role.delete') }).count()).toBe(0);
    expect(await page.getByRole('button', { name: msg('people.role.remove') }).count()).toBe(0);
    await page.goBack();
    await onScreen(page, 'roles-3', msg('people.roles.title'));
    // The matrix shows the scoped grant beside the (unticked) unscoped one, and keeps it when saving.
    await page.getByRole('link', { name: one('people.matrix.scoped') }).waitFor();
    expect(await cell('Read rows', HELPDESK).isChecked()).toBe(false);
    await cell('Export data', HELPDESK).check();
    await page.getByRole('button', { name: one('people.matrix.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: one('people.matrix.saved') })
      .waitFor();
    const after = (await admin.get(`/api/v1/roles/${helpdeskId}/permissions`)).body.data.grants as Array<{ permission: string }>;
    expect(after.map((g) => g.permission).sort()).toEqual(['audit.read', 'data.read', 'exports.run']);

    // Her next navigation asks for her permissions again: Users goes, the audit log comes.
    await navLink(colleague.page, msg('nav.home')).click();
    await expect.poll(() => navLink(colleague.page, msg('nav.users')).count()).toBe(0);
    await go(colleague.page, msg('nav.audit'), 'colleague-audit-after', msg('nav.audit'));
    await expect.poll(() => colleague.page.getByTestId('audit-row').count(), { timeout: 15_000 }).toBeGreaterThan(0);

    expectNoProblems(problems);
    expectNoProblems(colleague.problems, [403]);
  }, 120_000);

  it('suspends the colleague: her session stops at once; resends and withdraws another invitation', async () => {
    const colleague = await openPage();
    await signIn(colleague.page, inst.url, GRACE);

    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await go(page, msg('nav.users'), 'users', msg('nav.users'));
    await page.getByRole('link', { name: GRACE.name }).click();
    await onScreen(page, 'user', GRACE.name);
    await page.getByRole('button', { name: msg('people.user.suspend') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.user.done.suspend', { name: GRACE.name }) })
      .waitFor();
    await page.getByText(msg('people.user.suspendedHint')).waitFor();
    await onScreen(page, 'user-suspended', GRACE.name);

    // Grace's next click finds her signed out, and she cannot sign in again.
    await go(colleague.page, msg('nav.audit'), 'colleague-ended', msg('signIn.title'));
    expect(new URL(colleague.page.url()).pathname).toBe('/sign-in');

    // Her roles change on her page: viewer besides Helpdesk.
    const roles = page.getByRole('group', { name: msg('people.user.rolesLegend', { name: GRACE.name }) });
    await roles.getByRole('checkbox', { name: 'viewer' }).check();
    await page.getByRole('button', { name: msg('people.user.saveRoles') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.user.done.roles', { name: GRACE.name }) })
      .waitFor();
    const held = await admin.get(`/api/v1/users/${new URL(page.url()).pathname.split('/').pop()}`);
    expect((held.body.data.roleIds as string[]).sort()).toEqual([helpdeskId, 'viewer'].sort());

    await page.getByRole('button', { name: msg('people.user.reactivate') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.user.done.reactivate', { name: GRACE.name }) })
      .waitFor();

    // Another invitation: sent again (a second mail), then withdrawn by deleting the person.
    const before = smtp.received.length;
    const invited = await admin.post('/api/v1/users', { email: 'alan@example.com', name: 'Alan Turing', roleIds: ['viewer'] });
    expect(invited.status).toBe(201);
    await smtp.waitFor(before + 1);
    await page.getByRole('link', { name: msg('people.user.back') }).click();
    await onScreen(page, 'users-2', msg('nav.users'));
    await page.getByRole('link', { name: 'Alan Turing' }).click();
    await onScreen(page, 'user-invited', 'Alan Turing');
    // A corrected address gets a new invitation; then it is sent once more.
    await page.getByLabel(msg('field.email'), { exact: true }).fill('alan.turing@example.com');
    await page.getByRole('button', { name: msg('people.user.saveDetails') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.user.done.edit', { name: 'Alan Turing' }) })
      .waitFor();
    const [moved] = (await smtp.waitFor(before + 2)).slice(before + 1);
    expect(moved!.to).toEqual(['alan.turing@example.com']);
    await page.getByRole('button', { name: msg('people.user.resend') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.user.done.resend', { email: 'alan.turing@example.com' }) })
      .waitFor();
    const [again] = (await smtp.waitFor(before + 3)).slice(before + 2);
    expect(again!.to).toEqual(['alan.turing@example.com']);
    await onScreen(page, 'user-resent', 'Alan Turing');
    await page.getByRole('button', { name: msg('people.user.delete') }).click();
    const dialog = page.getByRole('dialog', { name: msg('people.user.deleteTitle', { name: 'Alan Turing' }) });
    await dialog.waitFor();
    // Cancel first: nothing happens.
    await dialog.getByRole('button', { name: msg('people.cancel') }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: msg('people.user.delete') }).click();
    await dialog.getByRole('button', { name: msg('people.user.deleteConfirm') }).click();
    await onScreen(page, 'users-after-delete', msg('nav.users'));
    await expect.poll(() => page.getByTestId('user-row').count()).toBe(2);
    expect(await page.getByRole('link', { name: 'Alan Turing' }).count()).toBe(0);

    expectNoProblems(problems);
    expectNoProblems(colleague.problems, [401]);
  }, 120_000);

  it('creates an API key, copies the secret, uses it over HTTP, deletes it (then 401)', async () => {
    const { page, problems } = await openPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: inst.url });
    await signIn(page, inst.url, ROOT);
    await go(page, msg('people.nav.apiKeys'), 'api-keys', msg('people.keys.title'));
    await page.getByText(msg('people.keys.empty')).waitFor();

    const form = page.getByRole('region', { name: msg('people.keys.new') });
    await form.getByLabel(msg('people.keys.name')).fill('Nightly sync');
    await form.getByLabel(msg('people.keys.role')).selectOption({ label: 'viewer' });
    await form.getByRole('button', { name: msg('people.keys.create') }).click();
    const secretBox = page.getByRole('region', { name: msg('people.keys.secretTitle', { name: 'Nightly sync' }) });
    await secretBox.getByText(msg('people.keys.secretWarning')).waitFor();
    await onScreen(page, 'api-key-secret', msg('people.keys.title'));
    const shown = (await page.getByTestId('api-key-secret').inputValue()).trim();
    expect(shown).toMatch(/^adm_sk_/);
    await secretBox.getByRole('button', { name: msg('secret.copy') }).click();
    await secretBox
      .getByRole('status')
      .filter({ hasText: msg('secret.copied') })
      .waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(shown);

    const row = page.getByTestId('api-key-row').filter({ hasText: 'Nightly sync' });
    await row.waitFor();
    expect(await row.textContent()).toContain(copied.slice(0, 12));
    expect(await row.textContent()).not.toContain(copied);

    // The key works over HTTP with the viewer's permissions.
    const call = () => fetch(`${inst.url}/api/v1/connections`, { headers: { authorization: `Bearer ${copied}` } });
    expect((await call()).status).toBe(200);

    // Once stored, the secret is gone from the screen.
    await secretBox.getByRole('button', { name: msg('people.keys.secretDone') }).click();
    expect(await page.getByTestId('api-key-secret').count()).toBe(0);

    await row.getByRole('button', { name: msg('people.keys.deleteLabel', { name: 'Nightly sync' }) }).click();
    const dialog = page.getByRole('dialog', { name: msg('people.keys.deleteTitle', { name: 'Nightly sync' }) });
    await dialog.getByRole('button', { name: msg('people.keys.deleteConfirm') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('people.keys.deleted', { name: 'Nightly sync' }) })
      .waitFor();
    await page.getByText(msg('people.keys.empty')).waitFor();
    await onScreen(page, 'api-keys-after', msg('people.keys.title'));
    expect((await call()).status).toBe(401);
    expectNoProblems(problems);
  }, 120_000);

  it('filters the audit log, loads more, and opens an entry with its before/after diff', async () => {
    // 55 renames: more than one page of the filtered log.
    const temp = await admin.post('/api/v1/roles', { name: 'Rename me 0' });
    const tempId = temp.body.data.role.id as string;
    for (let i = 1; i <= 55; i++) expect((await admin.patch(`/api/v1/roles/${tempId}`, { name: `Rename me ${i}` })).status).toBe(200);

    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await go(page, msg('nav.audit'), 'audit', msg('nav.audit'));
    const rows = page.getByTestId('audit-row');
    await expect.poll(() => rows.count()).toBe(50);

    const filters = page.getByRole('search', { name: msg('people.audit.filterLabel') });
    await filters.getByLabel(msg('people.audit.action'), { exact: true }).fill('roles.update');
    await filters.getByRole('button', { name: msg('people.filter.apply') }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('roles.update');
    await page.getByRole('table', { name: other('people.audit.caption', 50) }).waitFor();
    await page.getByRole('button', { name: msg('people.loadMore') }).click();
    // 55 from the stage and one rename in the roles test.
    await page.getByRole('table', { name: other('people.audit.caption', 56) }).waitFor();
    expect(await page.getByRole('button', { name: msg('people.loadMore') }).count()).toBe(0);
    for (const text of await rows.allTextContents()) expect(text).toContain('roles.update');
    await onScreen(page, 'audit-filtered', msg('nav.audit'));

    // Family prefix, the admin as actor, and a time range ending in the past: nothing.
    await filters.getByLabel(msg('people.audit.action'), { exact: true }).fill('users.');
    await filters.getByLabel(msg('people.audit.actor'), { exact: true }).selectOption({ label: ROOT.name });
    await filters.getByRole('button', { name: msg('people.filter.apply') }).click();
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain('users.');
      expect(text).toContain(ROOT.name);
    }
    await filters.getByLabel(msg('people.audit.to')).fill('2020-01-01T00:00');
    await filters.getByRole('button', { name: msg('people.filter.apply') }).click();
    await page.getByText(msg('people.audit.noMatch')).waitFor();
    await page.getByRole('button', { name: msg('people.filter.clear') }).click();
    await expect.poll(() => rows.count()).toBe(50);

    // The suspension's entry: status before and after.
    await filters.getByLabel(msg('people.audit.action'), { exact: true }).fill('users.update');
    await filters.getByRole('button', { name: msg('people.filter.apply') }).click();
    await expect.poll(() => rows.count()).toBe(3); // Grace suspended, then active again; Alan's new address
    await rows
      .last()
      .getByRole('link', { name: new RegExp(`^${msg('people.audit.open', { action: 'users.update', when: '' })}`) })
      .click();
    await onScreen(page, 'audit-entry', msg('people.audit.entryHeading', { action: 'users.update' }));
    const diff = page.getByRole('table', { name: msg('people.audit.diffCaption') });
    const status = diff.getByRole('row', { name: /status/ });
    expect(await status.getByRole('cell').allTextContents()).toEqual(['"active"', '"suspended"']);
    await page.getByRole('link', { name: msg('people.audit.back') }).click();
    await onScreen(page, 'audit-back', msg('nav.audit'));
    // The list is as it was filtered.
    expect(new URL(page.url()).searchParams.get('action')).toBe('users.update');
    await expect.poll(() => rows.count()).toBe(3);

    // A target leads to everything recorded about it: Grace's invitation, suspension, roles, return.
    await rows
      .getByRole('link', { name: msg('people.audit.targetHistory', { target: `user ${GRACE.name}` }) })
      .first()
      .click();
    await expect.poll(() => new URL(page.url()).searchParams.get('targetType')).toBe('user');
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(4);
    const history = await rows.allTextContents();
    for (const text of history) expect(text).toContain(`user ${GRACE.name}`);
    for (const action of ['users.create', 'users.update', 'users.roles.set', 'auth.login']) expect(history.join('\n')).toContain(action);
    await onScreen(page, 'audit-target', msg('nav.audit'));
    expectNoProblems(problems);
  }, 120_000);
});
