import type { Page } from 'playwright-core';
import qrcode from 'qrcode-generator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRODUCT_NAME } from '../../kernel/version.js';
import { signedIn, totpAt, turnOnTwoFactor } from '../../plugins/auth/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { TestSmtpServer } from '../helpers/smtp.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser, WAIT_MS } from './harness.js';

const ADMIN = { email: 'ada@example.com', name: 'Ada Lovelace', password: 'first-password-1' };

/**
 * One instance, one story told in order: the first test sets the instance up, later ones use
 * the admin (and the colleague invited on the way) that earlier ones created; each test opens its
 * own browser context (own cookies).
 */
describe.runIf(browserAvailable())('the dashboard in a real browser: first visit and sign-in', () => {
  let inst: TestInstance;
  const smtp = new TestSmtpServer();
  const { openPage: open, onScreen } = useDashboardBrowser('dashboard');
  /** The admin's password as the tests change it. */
  let password = ADMIN.password;

  beforeAll(async () => {
    await smtp.start();
    inst = await startInstance();
  });

  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
  });

  const openPage = (colorScheme: 'light' | 'dark' = 'light') => open({ colorScheme });

  async function signInWithPassword(page: Page, email: string, pass: string): Promise<void> {
    await onScreen(page, 'sign-in', msg('signIn.title'));
    await page.getByLabel(msg('field.email')).fill(email);
    await page.getByLabel(msg('field.password'), { exact: true }).fill(pass);
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
  }

  async function expectHome(page: Page, name = ADMIN.name): Promise<void> {
    await onScreen(page, 'home', msg('home.greeting', { name }));
    expect(new URL(page.url()).pathname).toBe('/');
  }

  async function signOut(page: Page): Promise<void> {
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('user.signOut') }).click();
    await onScreen(page, 'sign-in', msg('signIn.title'));
  }

  /** The admin's API client (a separate cookie jar: another device of the same person). */
  function apiAs(pass = password): Promise<HttpClient> {
    return signedIn(inst, ADMIN.email, pass);
  }

  it('first visit: Setup shows the server’s field errors, creates the admin and lands signed in on Home', async () => {
    const { page, foreign, problems } = await openPage();
    const res = await page.goto(inst.url + '/', { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    await onScreen(page, 'setup', msg('setup.title'));
    expect(new URL(page.url()).pathname).toBe('/setup');

    // The browser's own checks are off: the server's validation lands on the fields.
    await page.getByLabel(msg('field.email')).fill('not-an-address');
    await page.getByLabel(msg('field.name')).fill(ADMIN.name);
    await page.getByLabel(msg('field.password')).fill('short');
    await page.getByRole('button', { name: msg('setup.submit') }).click();
    const email = page.getByLabel(msg('field.email'));
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel(msg('field.password')).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel(msg('field.name')).getAttribute('aria-invalid')).toBeNull();
    expect(await page.getByRole('alert').textContent()).toContain('The request is not valid.');
    await onScreen(page, 'setup-errors', msg('setup.title'));

    await email.fill(ADMIN.email);
    await page.getByLabel(msg('field.password')).fill(ADMIN.password);
    await page.getByRole('button', { name: msg('setup.submit') }).click();
    await expectHome(page);
    expect(await page.title()).toBe(msg('app.documentTitle', { screen: msg('home.title'), product: msg('app.name') }));
    await expect(
      page
        .getByRole('navigation', { name: msg('nav.label') })
        .getByRole('link')
        .count(),
    ).resolves.toBe(13); // Home and the areas' entries: connections, ask AI, jobs, public API, add-ons, manage pages, scheduled reports, users, roles, API keys, audit log, settings
    // Keyboard: the first Tab reaches the skip link, which moves focus to the main content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(msg('app.skipToContent'));
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // Following a navigation link shows the area, marks the link current and moves focus to the new content.
    const nav = page.getByRole('navigation', { name: msg('nav.label') });
    await nav.getByRole('link', { name: msg('nav.connections') }).click();
    await onScreen(page, 'connections', msg('nav.connections'));
    expect(await nav.getByRole('link', { name: msg('nav.connections') }).getAttribute('aria-current')).toBe('page');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await nav.getByRole('link', { name: msg('nav.home') }).click();

    // Setup is closed now: its address leads home.
    await page.goto(inst.url + '/setup', { waitUntil: 'load' });
    await expectHome(page);
    expect(foreign).toEqual([]);
    expectNoProblems(problems, [400]);
  });

  it('signs out, refuses a wrong password with the server’s message, and signs in again', async () => {
    const { page, foreign, problems } = await openPage();
    await page.goto(inst.url + '/', { waitUntil: 'load' });
    // Not signed in: the app asks for it.
    await signInWithPassword(page, ADMIN.email, 'wrong-password');
    const alert = page.getByRole('alert');
    await alert.waitFor({ state: 'visible' });
    expect(await alert.textContent()).toContain('The e-mail or password is wrong.');
    await onScreen(page, 'sign-in-error', msg('signIn.title'));

    await page.getByLabel(msg('field.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
    await expectHome(page);

    await signOut(page);
    // Signed out for real: the home page asks for sign-in again.
    await page.goto(inst.url + '/', { waitUntil: 'load' });
    await onScreen(page, 'sign-in', msg('signIn.title'));
    // A `next` that leaves the app (protocol-relative) is ignored: sign-in lands on Home, here.
    await page.goto(`${inst.url}/sign-in?next=${encodeURIComponent('//example.com/phish')}`, { waitUntil: 'load' });
    await signInWithPassword(page, ADMIN.email, password);
    await expectHome(page);
    expect(new URL(page.url()).origin).toBe(inst.url);
    expect(foreign).toEqual([]);
    // The wrong password's 401 is an answer the page expected, not a problem.
    expectNoProblems(problems, [401]);
  });

  it('sign-in says so when the server is out of reach or a proxy answers instead of it', async () => {
    const { page, foreign } = await openPage();
    await page.goto(inst.url + '/sign-in', { waitUntil: 'load' });
    await page.route('**/api/v1/auth/login', (route) => route.abort('connectionrefused'));
    await signInWithPassword(page, ADMIN.email, password);
    await page.getByText(msg('error.network')).waitFor({ state: 'visible' });
    await page.unroute('**/api/v1/auth/login');
    await page.route('**/api/v1/auth/login', (route) => route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' }));
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
    await page.getByText(msg('error.unexpected', { status: '502' })).waitFor({ state: 'visible' });
    await onScreen(page, 'sign-in-unreachable', msg('signIn.title'));
    await page.unroute('**/api/v1/auth/login');
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
    await expectHome(page);
    expect(foreign).toEqual([]);
  });

  it('forgot password: the e-mailed link opens the reset page, and the new password works', async () => {
    const admin = await apiAs();
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    const { page, foreign, problems } = await openPage();
    await page.goto(inst.url + '/sign-in', { waitUntil: 'load' });
    await onScreen(page, 'sign-in', msg('signIn.title'));
    await page.getByRole('link', { name: msg('signIn.forgot') }).click();
    await onScreen(page, 'forgot', msg('forgot.title'));
    await page.getByLabel(msg('field.email')).fill(ADMIN.email);
    const before = smtp.received.length;
    await page.getByRole('button', { name: msg('forgot.submit') }).click();
    await page.getByText(msg('forgot.sent', { email: ADMIN.email }).slice(0, 30)).waitFor({ state: 'visible' });
    await onScreen(page, 'forgot-sent', msg('forgot.title'));

    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail!.to).toEqual([ADMIN.email]);
    const link = /https?:\/\/\S+\/reset-password\?token=\S+/.exec(mail!.text)?.[0];
    expect(link, mail!.text).toBeDefined();
    expect(new URL(link!).origin).toBe(inst.url);

    await page.goto(link!, { waitUntil: 'load' });
    await onScreen(page, 'reset', msg('reset.title'));
    await page.getByLabel(msg('field.newPassword')).fill('short');
    await page.getByRole('button', { name: msg('reset.submit') }).click();
    await expect.poll(() => page.getByLabel(msg('field.newPassword')).getAttribute('aria-invalid')).toBe('true');

    password = 'second-password-2';
    await page.getByLabel(msg('field.newPassword')).fill(password);
    await page.getByRole('button', { name: msg('reset.submit') }).click();
    await page.getByText(msg('signIn.passwordChanged')).waitFor({ state: 'visible' });
    await signInWithPassword(page, ADMIN.email, password);
    await expectHome(page);

    // The link worked once.
    await page.goto(link!, { waitUntil: 'load' });
    await onScreen(page, 'reset-used', msg('reset.title'));
    await page.getByLabel(msg('field.newPassword')).fill('third-password-3');
    await page.getByRole('button', { name: msg('reset.submit') }).click();
    await page.getByRole('link', { name: msg('reset.askAgain') }).waitFor({ state: 'visible' });
    expect(foreign).toEqual([]);
    expectNoProblems(problems, [400]);
  });

  it('a session ended elsewhere: the next navigation asks for sign-in, then goes back where the person was', async () => {
    const { page, foreign, problems } = await openPage();
    await page.goto(inst.url + '/users', { waitUntil: 'load' });
    await signInWithPassword(page, ADMIN.email, password);
    await onScreen(page, 'users', msg('nav.users'));
    expect(new URL(page.url()).pathname).toBe('/users');

    // From another device: end every other session of the account (the browser's among them).
    const other = await apiAs();
    const sessions = (await other.get('/api/v1/auth/sessions')).body.data.sessions as Array<{ id: string; current: boolean }>;
    for (const s of sessions.filter((x) => !x.current)) expect((await other.delete(`/api/v1/auth/sessions/${s.id}`)).status).toBe(200);

    // The next navigation finds the session gone. (A request of the open screen may find it first,
    // a live refresh under load: then the sign-in comes from there and leads back to /users.)
    const auditLink = page.getByRole('navigation', { name: msg('nav.label') }).getByRole('link', { name: msg('nav.audit') });
    await auditLink.click({ timeout: 5_000 }).catch(() => undefined);
    await onScreen(page, 'sign-in-ended', msg('signIn.title'));
    expect(await page.getByText(msg('signIn.sessionEnded')).isVisible()).toBe(true);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/sign-in');
    const back = url.searchParams.get('next') ?? '';
    expect(['/audit', '/users']).toContain(back);

    await page.getByLabel(msg('field.email')).fill(ADMIN.email);
    await page.getByLabel(msg('field.password'), { exact: true }).fill(password);
    await page.getByRole('button', { name: msg('signIn.submit') }).click();
    await onScreen(page, back === '/audit' ? 'audit' : 'users-again', msg(back === '/audit' ? 'nav.audit' : 'nav.users'));
    expect(new URL(page.url()).pathname).toBe(back);
    expect(foreign).toEqual([]);
    // The 401 that revealed the ended session is expected.
    expectNoProblems(problems, [401]);
  });

  it('an invited colleague opens the e-mailed link, chooses a password and signs in', async () => {
    const admin = await apiAs();
    const before = smtp.received.length;
    const invited = await admin.post('/api/v1/users', { email: 'grace@example.com', name: 'Grace Hopper' });
    expect(invited.status, invited.text).toBe(201);
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    const link = /https?:\/\/\S+\/accept-invite\?token=\S+/.exec(mail!.text)?.[0];
    expect(link, mail!.text).toBeDefined();

    const { page, foreign, problems } = await openPage();
    await page.goto(link!, { waitUntil: 'load' });
    await onScreen(page, 'accept-invite', msg('invite.title'));
    await page.getByLabel(msg('field.email')).fill('grace@example.com');
    await page.getByLabel(msg('field.newPassword')).fill('grace-password-1');
    await page.getByRole('button', { name: msg('invite.submit') }).click();
    // The invitation ends signed in, not on an empty sign-in form.
    await expectHome(page, 'Grace Hopper');
    expect(foreign).toEqual([]);
    expectNoProblems(problems);
  });

  it('with 2FA on, sign-in asks for the code (or a recovery code) and accepts it', async () => {
    const admin = await apiAs();
    const { secret, recoveryCodes } = await turnOnTwoFactor(inst, admin);
    const { page, foreign, problems } = await openPage('dark'); // axe checks the dark theme's contrast
    await page.goto(inst.url + '/', { waitUntil: 'load' });
    await signInWithPassword(page, ADMIN.email, password);
    await onScreen(page, 'two-factor', msg('twoFactor.title'));
    const code = page.getByLabel(msg('field.code'));
    await code.fill('000000');
    await page.getByRole('button', { name: msg('twoFactor.submit') }).click();
    await page.getByText('The code is wrong.').waitFor({ state: 'visible' });
    await code.fill(await totpAt(inst, secret, 1));
    await page.getByRole('button', { name: msg('twoFactor.submit') }).click();
    await expectHome(page);

    // A recovery code instead of the app's code.
    await signOut(page);
    await signInWithPassword(page, ADMIN.email, password);
    await onScreen(page, 'two-factor', msg('twoFactor.title'));
    await page.getByRole('button', { name: msg('twoFactor.useRecovery') }).click();
    await onScreen(page, 'two-factor-recovery', msg('twoFactor.title'));
    await page.getByLabel(msg('field.recoveryCode')).fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: msg('twoFactor.submit') }).click();
    await expectHome(page);
    expect(foreign).toEqual([]);
    expectNoProblems(problems, [401]);
  });

  it('serves the app on a deep link (history fallback) and an unknown address says so', async () => {
    const { page, foreign, problems } = await openPage('dark');
    const res = await page.goto(inst.url + '/some/deep/path', { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toContain('text/html');
    await signInWithPassword(page, 'grace@example.com', 'grace-password-1');
    await onScreen(page, 'not-found', msg('notFound.title'));
    expect(new URL(page.url()).pathname).toBe('/some/deep/path');
    expect(foreign).toEqual([]);
    expectNoProblems(problems, [401]);
  });

  it('turns on 2FA in the dashboard (key, code, recovery codes to save); the next sign-in asks for the code', async () => {
    const { page, foreign, problems } = await openPage();
    await page.goto(inst.url + '/', { waitUntil: 'load' });
    await signInWithPassword(page, 'grace@example.com', 'grace-password-1');
    await expectHome(page, 'Grace Hopper');
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('security.link') }).click();
    await onScreen(page, 'two-factor-off', msg('security.title'));
    expect(await page.getByRole('menu').count()).toBe(0); // the followed link closed the menu
    await page.getByRole('button', { name: msg('security.start') }).click();
    const shown = page.getByTestId('totp-secret');
    await shown.waitFor({ state: 'visible' });
    await onScreen(page, 'two-factor-enrol', msg('security.title'));
    const secret = ((await shown.textContent()) ?? '').replace(/\s+/g, '');
    const otpauth = await page.getByRole('link', { name: msg('security.openApp') }).getAttribute('href');
    expect(otpauth).toMatch(/^otpauth:\/\/totp\//);
    // The QR code is the link's: the same modules as encoding the link here.
    const qr = page.getByRole('img', { name: msg('security.qrLabel') });
    const expected = qrcode(0, 'M');
    expected.addData(otpauth!);
    expected.make();
    const n = expected.getModuleCount();
    let dark = 0;
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (expected.isDark(r, c)) dark++;
    expect(await qr.getAttribute('viewBox')).toBe(`0 0 ${n + 8} ${n + 8}`);
    expect(((await qr.locator('path').getAttribute('d')) ?? '').split('z').filter(Boolean).length).toBe(dark);

    await page.getByLabel(msg('field.code')).fill('000000');
    await page.getByRole('button', { name: msg('security.activate') }).click();
    await page.getByText('The code is wrong.').waitFor({ state: 'visible' });
    await page.getByLabel(msg('field.code')).fill(await totpAt(inst, secret));
    await page.getByRole('button', { name: msg('security.activate') }).click();
    await onScreen(page, 'recovery-codes', msg('security.codesTitle'));
    await expect(page.getByTestId('recovery-codes').getByRole('listitem').count()).resolves.toBe(10);
    await page.getByRole('button', { name: msg('security.done') }).click();
    await page.getByText(msg('security.on')).waitFor({ state: 'visible' });

    await signOut(page);
    await signInWithPassword(page, 'grace@example.com', 'grace-password-1');
    await onScreen(page, 'two-factor', msg('twoFactor.title'));
    await page.getByLabel(msg('field.code')).fill(await totpAt(inst, secret, 1));
    await page.getByRole('button', { name: msg('twoFactor.submit') }).click();
    await expectHome(page, 'Grace Hopper');

    // And off again, with the password.
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('security.link') }).click();
    await page.getByText(msg('security.on')).waitFor({ state: 'visible' });
    await onScreen(page, 'two-factor-on', msg('security.title'));
    await page.getByLabel(msg('field.password')).fill('grace-password-1');
    await page.getByRole('button', { name: msg('security.disable') }).click();
    await page.getByText(msg('security.off')).waitFor({ state: 'visible' });
    expect(foreign).toEqual([]);
    expectNoProblems(problems, [401]);
  });

  it('renders the API reference at /docs from local assets, with no request off the machine', async () => {
    const { page, foreign, problems, requested } = await openPage();
    const res = await page.goto(inst.url + '/docs', { waitUntil: 'load' });
    expect(res?.status()).toBe(200);

    const title = page.locator('.swagger-ui .info .title');
    await title.waitFor({ state: 'visible', timeout: WAIT_MS });
    expect(await title.textContent()).toContain(`${PRODUCT_NAME} REST API`);
    // The operations come from /docs/openapi.json, so the document loaded and parsed.
    const healthz = page.locator('.opblock-summary-path', { hasText: '/api/v1/healthz' });
    await healthz.first().waitFor({ state: 'visible', timeout: WAIT_MS });

    const paths = requested.map((u) => new URL(u).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js', '/docs/init.js', '/docs/openapi.json']));
    expect(foreign).toEqual([]);
    expectNoProblems(problems);
  });
});
