import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageId } from '../messages.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';
import { sessionFor } from '../helpers/identity.js';
import { goInside, screenSettled, startPopulated, type PopulatedInstance } from './populated.js';

/**
 * Screens that know who you are (issue 29, decisions DB31 and DB38): the navigation and the
 * actions a person sees follow their permissions, and a screen their permissions do not cover
 * is a headed refusal naming the missing permission, not an error with "Try again".
 */
type Who = 'viewer' | 'editor' | 'scoped' | 'admin';

/** The main navigation's area entries (pages placed in the navigation are left out). */
const AREA_ENTRIES: MessageId[] = [
  'nav.home',
  'nav.connections',
  'transfer.nav.jobs',
  'nav.publicApi',
  'nav.addons',
  'nav.pagesEditor',
  'nav.reports',
  'nav.users',
  'people.nav.roles',
  'people.nav.apiKeys',
  'nav.audit',
  'nav.settings',
];

const SEES: Record<Who, MessageId[]> = {
  viewer: ['nav.home', 'nav.connections', 'transfer.nav.jobs', 'nav.reports'],
  editor: ['nav.home', 'nav.connections', 'transfer.nav.jobs', 'nav.pagesEditor', 'nav.reports'],
  scoped: ['nav.home', 'nav.connections'],
  admin: AREA_ENTRIES,
};

const PASSWORD = 'role-password-1';
const person = (who: Who) => ({ email: `${who}@example.com`, name: `${who[0]!.toUpperCase()}${who.slice(1)} Person`, password: PASSWORD });

describe.runIf(browserAvailable())('what each role sees: navigation, actions, refusals', () => {
  let p: PopulatedInstance;
  const { openPage, onScreen, signIn } = useDashboardBrowser('roles');

  beforeAll(async () => {
    p = await startPopulated();
    const role = await p.admin.post('/api/v1/roles', { name: 'Customer readers', description: 'Reads the customers table only' });
    expect(role.status, role.text).toBe(201);
    const roleId = role.body.data.role.id as string;
    const grants = await p.admin.put(`/api/v1/roles/${roleId}/permissions`, {
      grants: [
        { permission: 'data.read', scope: { connectionId: p.connectionId, table: 'customers' } },
        { permission: 'pages.read' },
        { permission: 'connections.read' },
      ],
    });
    expect(grants.status, grants.text).toBe(200);
    const roleOf: Record<Who, string> = { viewer: p.roleIds.viewer, editor: p.roleIds.editor, scoped: roleId, admin: p.roleIds.admin };
    for (const who of Object.keys(roleOf) as Who[]) {
      const u = person(who);
      const res = await p.admin.post('/api/v1/users', { email: u.email, name: u.name, password: u.password, roleIds: [roleOf[who]] });
      expect(res.status, res.text).toBe(201);
    }
  }, 90_000);

  afterAll(async () => {
    await p?.close();
  });

  /** The area entries of the navigation, in order, as the person reads them. */
  async function navEntries(page: Page): Promise<string[]> {
    const labels = new Set(AREA_ENTRIES.map((id) => msg(id)));
    const texts = await page.locator('nav#main-nav a').allInnerTexts();
    return texts.map((s) => s.trim()).filter((s) => labels.has(s));
  }

  async function open(page: Page, url: string): Promise<void> {
    await goInside(page, url);
    await screenSettled(page);
  }

  const refusal = (page: Page) => page.getByRole('heading', { name: exactly(msg('refusal.title')) });
  const visible = (page: Page, role: 'link' | 'button' | 'heading', name: string) => page.getByRole(role, { name: exactly(name) }).isVisible();

  /** A refusal names the permission in words (its label), its id beside it in smaller print. */
  async function expectNamed(page: Page, permission: string): Promise<void> {
    const label = msg(`permission.${permission}` as MessageId);
    await expect.poll(() => page.locator('main').innerText()).toContain(msg('refusal.missing', { permission: label }));
    expect(await page.locator('main .refusal-id small').innerText()).toBe(msg('refusal.permissionId', { id: permission }));
    expect(await page.locator('main').innerText()).not.toContain(`“${permission}”`);
  }

  async function expectRefused(page: Page, url: string, permission: string, screen: string): Promise<void> {
    await open(page, url);
    await refusal(page).waitFor({ state: 'visible' });
    await expectNamed(page, permission);
    expect(await page.getByRole('button', { name: msg('error.retry') }).count()).toBe(0);
    await onScreen(page, screen, exactly(msg('refusal.title')));
  }

  for (const who of ['viewer', 'editor', 'scoped', 'admin'] as Who[]) {
    it(`${who}: the navigation holds exactly the entries the role's permissions cover`, async () => {
      const { page, problems } = await openPage({ viewport: { width: 1440, height: 900 } });
      await signIn(page, p.inst.url, person(who));
      expect(await navEntries(page)).toEqual(SEES[who].map((id) => msg(id)));
      expectNoProblems(problems);
    });
  }

  it('viewer: reads connections and tables without the controls that change them; admin screens are headed refusals', async () => {
    const { page, problems } = await openPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, p.inst.url, person('viewer'));
    await open(page, '/connections');
    expect(await visible(page, 'link', msg('connections.add'))).toBe(false);
    await open(page, `/connections/${p.connectionId}`);
    expect(await visible(page, 'link', msg('connections.tab.schema'))).toBe(true);
    for (const id of ['connections.tab.edit', 'connections.tab.delete', 'connections.tab.generate'] as MessageId[]) {
      expect(await visible(page, 'link', msg(id)), msg(id)).toBe(false);
    }
    expect(await visible(page, 'button', msg('connections.testNow'))).toBe(false);
    expect(await visible(page, 'button', msg('connections.introspect.run'))).toBe(false);
    await open(page, `/connections/${p.connectionId}/tables/customers`);
    expect(await visible(page, 'link', msg('data.grid.export'))).toBe(true);
    // Importing needs imports.run, which a viewer does not hold.
    expect(await visible(page, 'link', msg('data.grid.import'))).toBe(false);
    expect(await visible(page, 'button', msg('data.grid.newRow'))).toBe(false);

    await expectRefused(page, '/users', 'users.read', 'viewer-users');
    await expectRefused(page, '/api-keys', 'api-keys.read', 'viewer-api-keys');
    await expectRefused(page, '/settings', 'settings.read', 'viewer-settings');
    expectNoProblems(problems);
  });

  it('editor: imports and edits rows, but adds no connection, invites no one and makes no API key', async () => {
    const { page, problems } = await openPage({ viewport: { width: 390, height: 844 } });
    await signIn(page, p.inst.url, person('editor'));
    await open(page, '/connections');
    expect(await visible(page, 'link', msg('connections.add'))).toBe(false);
    await open(page, `/connections/${p.connectionId}/tables/customers`);
    expect(await visible(page, 'button', msg('data.grid.newRow'))).toBe(true);
    // On a phone the links to the table's other screens are in its "More" menu, each as the editor's permissions allow.
    await page.getByRole('button', { name: exactly(msg('data.grid.more')) }).click();
    const more = page.getByRole('menu');
    await more.waitFor();
    expect(await more.getByRole('menuitem').allTextContents()).toEqual(
      (['data.grid.import', 'data.grid.export', 'data.grid.scheduleReport', 'data.grid.ask'] as MessageId[]).map((id) => msg(id)),
    );
    await page.keyboard.press('Escape');
    await expectRefused(page, '/api-keys', 'api-keys.read', 'editor-api-keys-390');
    await expectRefused(page, '/users', 'users.read', 'editor-users-390');
    expectNoProblems(problems);
  });

  it('a role without pages.read is offered no page in the navigation (GET /bootstrap)', async () => {
    const role = await p.admin.post('/api/v1/roles', { name: 'Bare readers' });
    const roleId = role.body.data.role.id as string;
    await p.admin.put(`/api/v1/roles/${roleId}/permissions`, {
      grants: [{ permission: 'data.read', scope: { connectionId: p.connectionId, table: 'customers' } }],
    });
    const user = await p.admin.post('/api/v1/users', { email: 'bare@example.com', name: 'Bare Reader', password: PASSWORD, roleIds: [roleId] });
    const session = await sessionFor(p.inst, user.body.data.user.id as string);
    const boot = await session.get('/api/v1/bootstrap');
    expect(boot.status, boot.text).toBe(200);
    const entries = (boot.body.data.session.nav.sections as Array<{ entries: Array<{ type: string }> }>).flatMap((s) => s.entries);
    expect(entries.filter((e) => e.type === 'page')).toEqual([]);
    // The same pages for one who also holds pages.read: the customers page is offered.
    const readers = await sessionFor(p.inst, (await p.admin.get('/api/v1/users?q=scoped')).body.data.users[0].id as string);
    const offered = (
      (await readers.get('/api/v1/bootstrap')).body.data.session.nav.sections as Array<{ entries: Array<{ type: string; slug?: string }> }>
    ).flatMap((s) => s.entries);
    expect(offered.map((e) => e.slug)).toContain(p.listPage.slug);
  });

  it('a role reading one table: the rows on its page, no write controls, jobs a headed refusal', async () => {
    const { page, problems } = await openPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, p.inst.url, person('scoped'));
    await expectRefused(page, '/jobs', 'jobs.read', 'scoped-jobs');
    await open(page, '/connections');
    expect(await visible(page, 'link', msg('connections.add'))).toBe(false);
    // The page on its table shows its rows; nothing offers to change them.
    await open(page, `/p/${p.listPage.slug}`);
    await page.getByText('Customer number 1', { exact: true }).first().waitFor({ state: 'visible' });
    expect(await visible(page, 'button', msg('data.grid.newRow'))).toBe(false);
    await onScreen(page, 'scoped-page', /.+/);
    expect(await page.locator('nav#main-nav').getByRole('link', { name: 'Customers' }).isVisible()).toBe(true);

    expectNoProblems(problems);
  });

  it('a role with only data.read on two columns of one table opens its grid and sees those columns, and nothing else (SC6)', async () => {
    const role = await p.admin.post('/api/v1/roles', { name: 'Customer names' });
    const roleId = role.body.data.role.id as string;
    const scope = { connectionId: p.connectionId, table: 'customers', columns: ['full_name'] };
    await p.admin.put(`/api/v1/roles/${roleId}/permissions`, { grants: [{ permission: 'data.read', scope }] });
    const names = { email: 'names@example.com', name: 'Names Reader', password: PASSWORD };
    expect((await p.admin.post('/api/v1/users', { ...names, roleIds: [roleId] })).status).toBe(201);
    const { page, problems } = await openPage({ viewport: { width: 390, height: 844 } });
    await signIn(page, p.inst.url, names);
    expect(await navEntries(page)).toEqual([msg('nav.home')]);

    await open(page, `/connections/${p.connectionId}/tables/customers`);
    await page.getByText('Customer number 1', { exact: true }).first().waitFor({ state: 'visible' });
    await onScreen(page, 'names-grid-390', /.+/);
    // The key addresses the row; the granted column shows; the others are not drawn at all.
    const row = page.locator('[role="row"][aria-rowindex="2"]');
    expect(await row.locator('[data-column="full_name"]').count()).toBe(1);
    for (const column of ['email', 'notes', 'website', 'created_at']) expect(await page.locator(`[data-column="${column}"]`).count(), column).toBe(0);
    expect(await visible(page, 'button', msg('data.grid.newRow'))).toBe(false);

    // Nothing else: the connections screen is a refusal naming the permission in words, and a
    // connection the role has no grant on is refused by the API the same way (no "Try again").
    await expectRefused(page, '/connections', 'connections.read', 'names-connections-390');
    await open(page, '/connections/01aaaaaaaaaaaaaaaaaaaaaaaa/tables/customers');
    await refusal(page).waitFor({ state: 'visible' });
    await expectNamed(page, 'connections.read');
    expect(await page.getByRole('button', { name: msg('error.retry') }).count()).toBe(0);
    await onScreen(page, 'names-api-refusal-390', /.+/);
    // The grid asks for its first page beside the schema: the data API answers 404 for a
    // connection the caller's grants do not reach.
    expectNoProblems(problems, [403, 404]);
  });

  it('with pages.read beside it, the list page on that table shows its rows without connections.read', async () => {
    const role = await p.admin.post('/api/v1/roles', { name: 'Customer page readers' });
    const roleId = role.body.data.role.id as string;
    await p.admin.put(`/api/v1/roles/${roleId}/permissions`, {
      grants: [{ permission: 'data.read', scope: { connectionId: p.connectionId, table: 'customers' } }, { permission: 'pages.read' }],
    });
    const reader = { email: 'page-reader@example.com', name: 'Page Reader', password: PASSWORD };
    expect((await p.admin.post('/api/v1/users', { ...reader, roleIds: [roleId] })).status).toBe(201);
    const { page, problems } = await openPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, p.inst.url, reader);
    expect(await navEntries(page)).toEqual([msg('nav.home')]);
    await page.locator('nav#main-nav').getByRole('link', { name: 'Customers' }).click();
    await page.getByText('Customer number 1', { exact: true }).first().waitFor({ state: 'visible' });
    await onScreen(page, 'page-reader-list', /.+/);
    expect(await visible(page, 'button', msg('data.grid.newRow'))).toBe(false);
    expectNoProblems(problems);
  });

  it('admin: sees every action (Add a connection, Invite someone, New API key, Import, Export, the connection’s edit controls)', async () => {
    const { page, problems } = await openPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, p.inst.url, person('admin'));
    await open(page, '/connections');
    expect(await visible(page, 'link', msg('connections.add'))).toBe(true);
    await open(page, `/connections/${p.connectionId}`);
    for (const id of ['connections.tab.edit', 'connections.tab.delete', 'connections.tab.generate'] as MessageId[]) {
      expect(await visible(page, 'link', msg(id)), msg(id)).toBe(true);
    }
    expect(await visible(page, 'button', msg('connections.testNow'))).toBe(true);
    await open(page, `/connections/${p.connectionId}/tables/customers`);
    expect(await visible(page, 'link', msg('data.grid.import'))).toBe(true);
    expect(await visible(page, 'link', msg('data.grid.export'))).toBe(true);
    await open(page, '/users');
    expect(await visible(page, 'heading', msg('people.invite.title'))).toBe(true);
    await open(page, '/api-keys');
    expect(await visible(page, 'heading', msg('people.keys.new'))).toBe(true);
    expectNoProblems(problems);
  });
});
