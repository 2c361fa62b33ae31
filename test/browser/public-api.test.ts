import type { Page } from 'playwright-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import { packFixture, uploadPackage } from '../../plugins/add-ons/testing.js';
import { setupAdmin } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { createTempDatabase, databaseAvailable, type TempDatabase } from '../helpers/databases.js';
import { openEvents } from '../helpers/identity.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { TestSmtpServer } from '../helpers/smtp.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const ADMIN = { email: 'root@example.com', name: 'Root', password: 'root-password' };
/** The page origin browser keys are for (SVC_PUBLIC_API_ORIGINS); the test's own fetch sends it. */
const SHOP = 'https://shop.example';

/** An app with one table and one endpoint: installing it makes an app endpoint and an app key. */
const GUESTBOOK: AddonManifestInput = {
  key: 'guestbook',
  name: 'Guestbook',
  version: '1.0.0',
  engine: '>=0.1.0',
  tables: [
    {
      name: 'entries',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'integer', autoIncrement: true, nullable: false },
        { name: 'author', type: 'string', maxLength: 80, nullable: false },
      ],
    },
  ],
  endpoints: [{ ref: 'entries', table: 'entries', methods: ['GET', 'POST'], writable: ['author'] }],
};

const hasPostgres = await databaseAvailable('postgres');

/**
 * Screen 7 told as one story on a real instance with a real PostgreSQL database: the switch,
 * an endpoint with a default filter, a browser key that reads only the filtered rows, rotation,
 * a refused edit shown at its field, and an e-mail template edited, previewed and test-sent.
 */
describe.runIf(browserAvailable() && hasPostgres)('the dashboard in a real browser: public API', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: TempDatabase;
  let connectionId: string;
  const smtp = new TestSmtpServer();
  const { openPage, onScreen, onDialog, signIn } = useDashboardBrowser('public-api');

  beforeAll(async () => {
    await smtp.start();
    source = await createTempDatabase('postgres');
    const db = new pg.Client({ connectionString: source.url });
    await db.connect();
    await db.query(`create table products (id serial primary key, name text not null, visible boolean not null default true)`);
    await db.query(`insert into products (name, visible) values ('Apple', true), ('Secret plan', false), ('Pear', true)`);
    await db.query(`create table reservations (id serial primary key, at timestamptz not null, party integer not null, email text)`);
    await db.end();

    inst = await startInstance({ env: { SVC_PUBLIC_API_ORIGINS: SHOP } });
    admin = await setupAdmin(inst);
    // The stage: a connection to the database and e-mail settings (other screens' work).
    const created = await admin.post('/api/v1/connections', { name: 'Shop', dialect: 'postgres', url: source.url });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { data: { connection: { id: string } } }).data.connection.id;
    connectionId = id;
    const introspected = await admin.post(`/api/v1/connections/${id}/introspect`, {});
    expect(introspected.status, introspected.text).toBe(200);
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
  });

  afterAll(async () => {
    await inst?.close();
    await source?.drop();
    await smtp.stop();
  });

  /** A page's request with a key, as a shop page on SHOP would send it. */
  const readProducts = (secret: string) =>
    fetch(`${inst.url}/api/v1/public/records/products`, { headers: { authorization: `Bearer ${secret}`, origin: SHOP } });

  async function section(page: Page, label: string, name: string, heading: string | RegExp): Promise<void> {
    await page
      .getByRole('navigation', { name: msg('publicApi.sectionsLabel') })
      .getByRole('link', { name: label })
      .click();
    await onScreen(page, name, heading);
  }

  it('switch on, endpoint with a default filter, browser key that reads only those rows, rotate, a refused edit at its field', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);

    // 1. The switch: off at first; the origin from SVC_PUBLIC_API_ORIGINS is listed; turned on.
    await page
      .getByRole('navigation', { name: msg('nav.label') })
      .getByRole('link', { name: msg('nav.publicApi'), exact: true })
      .click();
    await onScreen(page, 'overview', msg('publicApi.title'));
    await page.getByText(msg('publicApi.switch.off')).waitFor();
    expect(await page.getByRole('list', { name: msg('publicApi.origins.listLabel') }).textContent()).toBe(SHOP);
    expect((await readProducts('adm_pub_nothing')).status).toBe(503);
    await page.getByRole('button', { name: msg('publicApi.switch.turnOn') }).click();
    await page
      .getByRole('dialog', { name: msg('publicApi.switch.confirmOnTitle') })
      .getByRole('button', { name: msg('publicApi.switch.turnOn') })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.switch.turnedOn') })
      .waitFor();
    await page.getByText(msg('publicApi.switch.on')).waitFor();
    await onScreen(page, 'overview-on', msg('publicApi.title'));

    // 2. An endpoint over products: store the generated one, then give it a default filter.
    await section(page, msg('publicApi.section.endpoints'), 'endpoints', msg('publicApi.endpoints.title'));
    const row = page.getByTestId('endpoint-row').filter({ hasText: 'products' });
    expect(await row.textContent()).toContain(msg('publicApi.endpoints.state.virtual'));
    await page.getByLabel(msg('publicApi.create.table')).selectOption('products');
    await page.getByRole('button', { name: msg('publicApi.create.submit') }).click();
    await onScreen(page, 'endpoint', msg('publicApi.editor.title', { ref: 'products' }));
    expect(new URL(page.url()).pathname).toBe('/public-api/endpoints/products');
    // Stored from the dashboard, it starts read-only.
    expect(JSON.parse(await page.getByLabel(msg('publicApi.json.label')).inputValue())).toMatchObject({ methods: ['GET'], writable: [] });
    await page.getByRole('button', { name: msg('publicApi.editor.addFilter') }).click();
    await page.getByLabel(msg('publicApi.editor.filterColumn', { n: '1' })).selectOption('visible');
    await page.getByLabel(msg('publicApi.editor.filterOp', { n: '1' })).selectOption('eq');
    await page.getByLabel(msg('publicApi.editor.filterValue', { n: '1' })).fill('true');
    await page.getByRole('button', { name: msg('publicApi.editor.addDefault'), exact: true }).click();
    await page.getByLabel(msg('publicApi.editor.defaultColumn', { n: '1' })).selectOption('name');
    await page.getByLabel(msg('publicApi.editor.defaultValue', { n: '1' })).fill('Unnamed');
    await page.getByRole('button', { name: msg('publicApi.editor.save'), exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.editor.saved') })
      .first()
      .waitFor();
    await onScreen(page, 'endpoint-saved', msg('publicApi.editor.title', { ref: 'products' }));
    // The whole definition, as stored, shows both.
    const stored = JSON.parse(await page.getByLabel(msg('publicApi.json.label')).inputValue());
    expect(stored).toMatchObject({ filters: [{ column: 'visible', op: 'eq', value: true }], defaults: { name: 'Unnamed' } });

    // 3. A browser key granted GET on it, shown again, and used from the test like a shop page would.
    await section(page, msg('publicApi.section.keys'), 'keys', msg('publicApi.keys.title'));
    await page.getByLabel(msg('publicApi.keys.create.name')).fill('Shop page');
    await page.getByLabel(msg('publicApi.keys.kind.browser')).check();
    await page.getByLabel(msg('publicApi.keys.create.endpoint', { n: '1' })).selectOption('products');
    const grant = page.getByTestId('grant-row');
    expect(await grant.getByRole('checkbox', { name: 'GET' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: msg('publicApi.keys.create.submit') }).click();
    await page.getByText(msg('publicApi.keys.secret.created', { name: 'Shop page' })).waitFor();
    await page.getByRole('button', { name: msg('publicApi.keys.secret.hide') }).click();
    const key = page.getByTestId('key').filter({ hasText: 'Shop page' });
    expect(await key.textContent()).toContain(msg('publicApi.keys.kind.browser'));
    await key.getByRole('button', { name: msg('publicApi.keys.revealLabel', { name: 'Shop page' }) }).click();
    await page.getByText(msg('publicApi.keys.secret.revealed', { name: 'Shop page' })).waitFor();
    const secret = await page.getByTestId('key-secret').inputValue();
    expect(secret).toMatch(/^adm_pub_/);
    await onScreen(page, 'keys-revealed', msg('publicApi.keys.title'));

    const read = await readProducts(secret);
    expect(read.status).toBe(200);
    const body = (await read.json()) as { data: Array<{ name: string }> };
    expect(body.data.map((r) => r.name).sort()).toEqual(['Apple', 'Pear']);

    // 4. Rotate: the old secret stops at once, the new one works.
    await key.getByRole('button', { name: msg('publicApi.keys.rotateLabel', { name: 'Shop page' }) }).click();
    // Rotating asks first, in a dialog (DB60) named by what it does.
    const asking = page.getByRole('dialog', { name: msg('publicApi.keys.rotateLabel', { name: 'Shop page' }) });
    await asking.getByText(msg('publicApi.keys.confirm.rotate', { name: 'Shop page' })).waitFor();
    await onDialog(page, 'key-rotate-confirm', asking);
    await asking.getByRole('button', { name: msg('publicApi.keys.rotate'), exact: true }).click();
    await page.getByText(msg('publicApi.keys.secret.rotated', { name: 'Shop page' })).waitFor();
    const rotated = await page.getByTestId('key-secret').inputValue();
    expect(rotated).not.toBe(secret);
    expect((await readProducts(secret)).status).toBe(401);
    expect((await readProducts(rotated)).status).toBe(200);
    // Usage in the last 24 hours is shown (approximate; kept in memory, so at least a number).
    expect(await key.getByTestId('key-usage').textContent()).toMatch(/\d/);
    await onScreen(page, 'keys-rotated', msg('publicApi.keys.title'));

    // 5. A refused edit: rate limit 0 is shown at the rate limit field; a bad shape in the JSON at its path.
    await section(page, msg('publicApi.section.endpoints'), 'endpoints-again', msg('publicApi.endpoints.title'));
    expect(await row.textContent()).toContain(msg('publicApi.endpoints.state.edited'));
    await row.getByRole('link', { name: 'products' }).click();
    await onScreen(page, 'endpoint-again', msg('publicApi.editor.title', { ref: 'products' }));
    const rate = page.getByLabel(msg('publicApi.editor.rateLimit'));
    await rate.fill('0');
    await page.getByRole('button', { name: msg('publicApi.editor.save'), exact: true }).click();
    await page.getByRole('alert').first().waitFor();
    expect(await rate.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await rate.getAttribute('aria-describedby'))!;
    const fieldError = await page.locator(`[id="${describedBy}"]`).textContent();
    expect(fieldError).toMatch(/>=\s*1/);
    await onScreen(page, 'endpoint-refused', msg('publicApi.editor.title', { ref: 'products' }));

    const json = page.getByLabel(msg('publicApi.json.label'));
    const text = await json.inputValue();
    await json.fill(text.replace('"shape": "wrapped"', '"shape": "table"'));
    await page.getByRole('button', { name: msg('publicApi.json.save') }).click();
    const at = page.getByTestId('json-errors').getByRole('button', { name: /^shape \(line \d+\)$/ });
    await at.click();
    const selected = await json.evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd));
    expect(selected).toBe('"shape": "table"');
    await onScreen(page, 'endpoint-json-refused', msg('publicApi.editor.title', { ref: 'products' }));
    // Nothing of it was stored: the filter still holds and the key still reads.
    expect((await readProducts(rotated)).status).toBe(200);

    expectNoProblems(problems, [400]);
  });

  it('edits an e-mail template with a live preview and sends a test', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/public-api', { waitUntil: 'load' });
    await onScreen(page, 'overview', msg('publicApi.title'));
    await section(page, msg('publicApi.section.templates'), 'templates', msg('publicApi.templates.title'));
    await page.getByRole('link', { name: msg('publicApi.templates.editLabel', { key: 'public.booking-confirmation', locale: 'en' }) }).click();
    await onScreen(page, 'template', msg('publicApi.template.title', { key: 'public.booking-confirmation', locale: 'en' }));

    const subject = page.getByLabel(msg('publicApi.template.subject'), { exact: true });
    await subject.fill('Booked at the Shop: {{code}} on {{time}}');
    // The preview follows the typing, placeholders shown by name.
    await expect.poll(() => page.getByTestId('preview-subject').textContent()).toBe('Booked at the Shop: [code] on [time]');
    const text = page.getByLabel(msg('publicApi.template.text'), { exact: true });
    await text.fill('See you soon. Code {{code}}.');
    await expect.poll(() => page.getByTestId('preview-text').textContent()).toBe('See you soon. Code [code].');
    await onScreen(page, 'template-preview', msg('publicApi.template.title', { key: 'public.booking-confirmation', locale: 'en' }));
    await page.getByRole('button', { name: msg('publicApi.template.save') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.template.saved') })
      .waitFor();

    await page.getByLabel(msg('publicApi.template.to')).fill('owner@example.com');
    const before = smtp.received.length;
    await page.getByRole('button', { name: msg('publicApi.template.send') }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.template.sent', { to: 'owner@example.com', locale: 'en' }) })
      .waitFor();
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual(['owner@example.com']);
    expect(mail!.subject).toMatch(/^Booked at the Shop: \S+ on .+/);
    expect(mail!.subject).not.toContain('{{');
    expect(mail!.text).toContain('See you soon. Code ');
    await onScreen(page, 'template-sent', msg('publicApi.template.title', { key: 'public.booking-confirmation', locale: 'en' }));

    // The list marks it edited.
    await page.getByRole('link', { name: msg('publicApi.template.back') }).click();
    await onScreen(page, 'templates-after', msg('publicApi.templates.title'));
    // Only the English one is edited; a locale without its own text (ar) shows the English it falls back to, unedited.
    const edited = page
      .getByTestId('template')
      .filter({ hasText: 'Booked at the Shop' })
      .filter({ hasText: msg('publicApi.templates.edited') });
    expect(await edited.count()).toBe(1);
    expect(await edited.getByRole('link').textContent()).toBe('en');
    expectNoProblems(problems);
  });
  it("shows an app's endpoint read-only and its key without revoke, naming the app", async () => {
    // The stage: the app installed on the same connection (the add-ons screen's work).
    const pkg = await packFixture(GUESTBOOK, null);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = (await admin.get(`/api/v1/add-ons/guestbook/plan?version=1.0.0&connectionId=${connectionId}`)).body as { data: { plan: { hash: string } } };
    const installed = await admin.post('/api/v1/add-ons', { key: 'guestbook', version: '1.0.0', connectionId, planHash: plan.data.plan.hash });
    expect(installed.status, installed.text).toBe(201);

    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/public-api/endpoints', { waitUntil: 'load' });
    await onScreen(page, 'endpoints', msg('publicApi.endpoints.title'));
    const row = page.getByTestId('endpoint-row').filter({ hasText: msg('publicApi.endpoints.state.app', { app: 'Guestbook' }) });
    expect(await row.count()).toBe(1);
    const ref = (await row.getByRole('link').textContent())!;
    await row.getByRole('link').click();
    await onScreen(page, 'app-endpoint', msg('publicApi.editor.title', { ref }));
    expect(await page.getByTestId('app-owned').textContent()).toContain(msg('publicApi.editor.appOwned', { app: 'Guestbook' }));
    // Nothing to change: the form's controls are disabled and there is no save or delete.
    expect(await page.getByLabel(msg('publicApi.editor.rateLimit')).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: msg('publicApi.editor.save') }).count()).toBe(0);
    expect(await page.getByRole('button', { name: msg('publicApi.json.save') }).count()).toBe(0);
    expect(await page.getByRole('button', { name: msg('publicApi.remove.delete') }).count()).toBe(0);

    await section(page, msg('publicApi.section.keys'), 'keys-app', msg('publicApi.keys.title'));
    const key = page.getByTestId('key').filter({ hasText: msg('publicApi.keys.kind.app') });
    expect(await key.count()).toBe(1);
    expect(await key.textContent()).toContain(msg('publicApi.keys.appOwned', { app: 'Guestbook' }));
    expect(await key.getByRole('button', { name: new RegExp(msg('publicApi.keys.revoke')) }).count()).toBe(0);
    // The app's key is a browser key: it can be shown.
    expect(await key.getByRole('button', { name: new RegExp(msg('publicApi.keys.reveal')) }).count()).toBe(1);
    expectNoProblems(problems);
  });
  it('sets booking rules in the form; a refused capacity is shown at its field', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/public-api/endpoints', { waitUntil: 'load' });
    await onScreen(page, 'endpoints', msg('publicApi.endpoints.title'));
    await page.getByTestId('endpoint-row').getByRole('link', { name: 'reservations', exact: true }).click();
    await onScreen(page, 'reservations', msg('publicApi.editor.title', { ref: 'reservations' }));
    await page.getByLabel(msg('publicApi.booking.on')).check();
    await page.getByLabel(msg('publicApi.booking.timeColumn')).selectOption('at');
    await page.getByLabel(msg('publicApi.booking.partyColumn')).selectOption('party');
    await page.getByLabel(msg('publicApi.booking.emailColumn')).selectOption('email');
    const capacity = page.getByLabel(msg('publicApi.booking.capacity'));
    await capacity.fill('0');
    await page.getByLabel('Friday').fill('18:00-22:00');
    await page.getByLabel('Saturday').fill('12:00-14:30, 18:00-23:00');
    await page.getByLabel(msg('publicApi.booking.timeZone')).fill('Europe/Vienna');
    await onScreen(page, 'reservations-booking', msg('publicApi.editor.title', { ref: 'reservations' }));
    const save = page.getByRole('button', { name: msg('publicApi.editor.save'), exact: true });
    await save.click();
    await page.getByRole('alert').first().waitFor();
    expect(await capacity.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`[id="${await capacity.getAttribute('aria-describedby')}"]`).textContent()).toMatch(/>=\s*1/);
    await capacity.fill('12');
    await save.click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.editor.saved') })
      .first()
      .waitFor();
    const stored = JSON.parse(await page.getByLabel(msg('publicApi.json.label')).inputValue());
    expect(stored).toMatchObject({
      timeZone: 'Europe/Vienna',
      booking: {
        timeColumn: 'at',
        partyColumn: 'party',
        emailColumn: 'email',
        capacity: 12,
        openingHours: {
          fri: [['18:00', '22:00']],
          sat: [
            ['12:00', '14:30'],
            ['18:00', '23:00'],
          ],
        },
      },
    });
    await onScreen(page, 'reservations-saved', msg('publicApi.editor.title', { ref: 'reservations' }));

    // Back to the generated form: no key grants it, so it is virtual again, without booking rules.
    await page.getByRole('button', { name: msg('publicApi.remove.reset') }).click();
    await page.getByRole('button', { name: msg('publicApi.remove.confirm', { ref: 'reservations' }) }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.remove.done') })
      .waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent ?? '')).toContain(msg('publicApi.remove.done'));
    await page.getByText(msg('publicApi.endpoints.state.virtual')).waitFor();
    expect(await page.getByLabel(msg('publicApi.booking.on')).isChecked()).toBe(false);
    expect(await page.getByRole('button', { name: msg('publicApi.remove.reset') }).count()).toBe(0);
    expectNoProblems(problems, [400]);
  });
  it('a server key is shown once, works without an origin, and is revoked', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/public-api/keys', { waitUntil: 'load' });
    await onScreen(page, 'keys', msg('publicApi.keys.title'));
    await page.getByLabel(msg('publicApi.keys.create.name')).fill('Backend');
    await page.getByLabel(msg('publicApi.keys.kind.server')).check();
    await page.getByLabel(msg('publicApi.keys.create.expires')).selectOption({ label: msg('publicApi.keys.lifetime.30d') });
    await page.getByLabel(msg('publicApi.keys.create.endpoint', { n: '1' })).selectOption('products');
    await page.getByRole('button', { name: msg('publicApi.keys.create.submit') }).click();
    await page.getByText(msg('publicApi.keys.secret.created', { name: 'Backend' })).waitFor();
    await page.getByText(msg('publicApi.keys.secret.serverOnce')).waitFor();
    const secret = await page.getByTestId('key-secret').inputValue();
    expect(secret).toMatch(/^adm_srv_/);
    const read = () => fetch(`${inst.url}/api/v1/public/records/products`, { headers: { authorization: `Bearer ${secret}` } });
    expect((await read()).status).toBe(200);

    const key = page.getByTestId('key').filter({ hasText: 'Backend' });
    expect(await key.textContent()).toContain(msg('publicApi.keys.notRevealable'));
    expect(await key.getByRole('button', { name: msg('publicApi.keys.revealLabel', { name: 'Backend' }) }).count()).toBe(0);
    await onScreen(page, 'keys-server', msg('publicApi.keys.title'));
    await key.getByRole('button', { name: msg('publicApi.keys.revokeLabel', { name: 'Backend' }) }).click();
    const asking = page.getByRole('dialog', { name: msg('publicApi.keys.revokeLabel', { name: 'Backend' }) });
    await asking.getByRole('button', { name: msg('publicApi.keys.revoke'), exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('publicApi.keys.revoked', { name: 'Backend' }) })
      .waitFor();
    await expect.poll(() => key.count()).toBe(0);
    expect((await read()).status).toBe(401);
    await onScreen(page, 'keys-revoked', msg('publicApi.keys.title'));
    expectNoProblems(problems);
  });

  it('a change another client makes through the API shows on the open endpoints and keys lists within 2 s, without a reload', async () => {
    const { page, problems } = await openPage();
    // What the page's live channel (its WebSocket) receives, by kind.
    const received: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => received.push(String((JSON.parse(String(payload)) as { kind?: string }).kind))));
    await signIn(page, inst.url, ADMIN);
    await page.goto(inst.url + '/public-api/endpoints', { waitUntil: 'load' });
    await onScreen(page, 'endpoints-live', msg('publicApi.endpoints.title'));
    // A change made before the channel is subscribed would be missed (a reload would show it).
    await expect.poll(() => received.includes('ready')).toBe(true);
    const events = await openEvents(inst, admin);
    // Each change is shown by the 2 s deadline: the event, then the area's declared keys read again.
    const shown = { timeout: 2_000 };
    try {
      const created = await admin.post('/api/v1/public-scopes', { ref: 'featured', connectionId, table: 'products' });
      expect(created.status, created.text).toBe(201);
      const row = page.getByTestId('endpoint-row').filter({ hasText: 'featured' });
      await expect.poll(() => row.count(), shown).toBe(1);
      await events.waitFor((e) => e.kind === 'public.changed' && e.data.what === 'scopes');
      expect(received).toContain('public.changed');

      await section(page, msg('publicApi.section.keys'), 'keys-live', msg('publicApi.keys.title'));
      const made = await admin.post('/api/v1/public-keys', {
        name: 'Made elsewhere',
        kind: 'server',
        expires: '30d',
        grants: [{ ref: 'featured', methods: ['GET'] }],
      });
      expect(made.status, made.text).toBe(201);
      const key = page.getByTestId('key').filter({ hasText: 'Made elsewhere' });
      await expect.poll(() => key.count(), shown).toBe(1);
      // A revoke is told as public.key-revoked only: the list follows it too.
      const keyId = (made.body as { data: { key: { id: string } } }).data.key.id;
      expect((await admin.delete(`/api/v1/public-keys/${keyId}`)).status).toBe(200);
      await expect.poll(() => key.count(), shown).toBe(0);
      await events.waitFor((e) => e.kind === 'public.key-revoked' && e.data.id === keyId);
      await onScreen(page, 'keys-live-revoked', msg('publicApi.keys.title'));
    } finally {
      events.close();
    }
    expect((await admin.delete('/api/v1/public-scopes/featured')).status).toBe(200);
    expectNoProblems(problems);
  });
});
