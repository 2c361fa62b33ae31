import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, setupAdmin, signedIn } from '../../plugins/auth/testing.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { expectNoProblems, msg, one, useDashboardBrowser } from './harness.js';

const USER = { email: 'ada@example.com', name: 'Ada Lovelace', password: 'ada-password-1' };
const TAKEN = { email: 'charles@example.com', name: 'Charles Babbage', password: 'charles-password-1' };
const DARK = { email: 'mary@example.com', name: 'Mary Somerville', password: 'mary-password-1' };

describe.runIf(browserAvailable())('the dashboard in a real browser: my profile', () => {
  let inst: TestInstance;
  const { openPage, onScreen, signIn } = useDashboardBrowser('profile');

  beforeAll(async () => {
    inst = await startInstance();
    await setupAdmin(inst); // closes first-run setup
    for (const u of [USER, TAKEN, DARK]) await createUser(inst, { ...u, roles: ['viewer'] });
  });

  afterAll(async () => {
    await inst?.close();
  });

  async function openProfile(page: Page): Promise<void> {
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('profile.link') }).click();
    await onScreen(page, 'profile', msg('profile.title'));
    expect(new URL(page.url()).pathname).toBe('/account/profile');
  }

  const details = (page: Page) => page.getByRole('region', { name: msg('profile.detailsTitle') });
  const passwordSection = (page: Page) => page.getByRole('region', { name: msg('profile.passwordTitle') });

  /** The field is marked invalid and its description (what a screen reader reads with it) holds the message. */
  async function expectFieldError(field: Locator, message: string): Promise<void> {
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    const page = field.page();
    const described = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(described.join(' ')).toContain(message);
  }

  it('renames, changes the e-mail (wrong password, taken address, then right), changes the password and signs in with it', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, USER);
    await openProfile(page);
    const form = details(page);
    const name = form.getByLabel(msg('profile.name'));
    const email = form.getByLabel(msg('profile.email'));
    const password = form.getByLabel(msg('profile.emailPassword'));
    expect(await name.inputValue()).toBe(USER.name);
    expect(await email.inputValue()).toBe(USER.email);

    // A new name: saved, and the header says it at once.
    await name.fill('Ada King');
    await form.getByRole('button', { name: msg('profile.save') }).click();
    await form
      .getByRole('status')
      .filter({ hasText: msg('profile.saved') })
      .waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('header .user-menu-name').textContent()).toBe('Ada King');
    await onScreen(page, 'profile-saved', msg('profile.title'));

    // A new e-mail with a wrong password: refused on the password field, which gets the focus.
    await email.fill('ada.king@example.com');
    await password.fill('not-my-password');
    await form.getByRole('button', { name: msg('profile.save') }).click();
    await expectFieldError(password, msg('profile.passwordWrong'));
    await form
      .getByRole('alert')
      .filter({ hasText: one('error.formSummary') })
      .waitFor({ state: 'visible' });
    expect(await password.evaluate((el) => el === document.activeElement)).toBe(true);
    await onScreen(page, 'profile-wrong-password', msg('profile.title'));

    // An address another person has: the conflict is said on the e-mail field.
    await email.fill(TAKEN.email);
    await password.fill(USER.password);
    await form.getByRole('button', { name: msg('profile.save') }).click();
    await expectFieldError(email, msg('profile.emailTaken'));
    expect(await password.getAttribute('aria-invalid')).toBeNull();
    await onScreen(page, 'profile-email-taken', msg('profile.title'));

    // With the right password and a free address: saved; the password field is emptied.
    await email.fill('ada.king@example.com');
    await password.fill(USER.password);
    await form.getByRole('button', { name: msg('profile.save') }).click();
    await form
      .getByRole('status')
      .filter({ hasText: msg('profile.saved') })
      .waitFor({ state: 'visible' });
    await expect.poll(() => email.inputValue()).toBe('ada.king@example.com');
    expect(await password.inputValue()).toBe('');
    expect(await email.getAttribute('aria-invalid')).toBeNull();
    await page.locator('header .user-menu').click();
    await page.getByText(msg('user.signedInAs', { email: 'ada.king@example.com' })).waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');

    // Another device of the same person, signed in over the API: the password change ends it.
    const phone = await signedIn(inst, 'ada.king@example.com', USER.password);

    // A new password: the current one first wrong, then right.
    const change = passwordSection(page);
    const current = change.getByLabel(msg('profile.currentPassword'));
    const next = change.getByLabel(msg('profile.newPassword'));
    await current.fill('not-my-password');
    await next.fill('ada-new-password-2');
    await change.getByRole('button', { name: msg('profile.changePassword') }).click();
    await expectFieldError(current, msg('profile.passwordWrong'));
    await onScreen(page, 'profile-password-wrong', msg('profile.title'));
    await current.fill(USER.password);
    await change.getByRole('button', { name: msg('profile.changePassword') }).click();
    await change
      .getByRole('status')
      .filter({ hasText: msg('profile.passwordChanged') })
      .waitFor({ state: 'visible' });
    expect(await current.inputValue()).toBe('');
    expect(await next.inputValue()).toBe('');
    await onScreen(page, 'profile-password-changed', msg('profile.title'));
    expect((await phone.get('/api/v1/me')).status).toBe(401);
    // This device stays signed in.
    await page
      .getByRole('navigation', { name: msg('nav.label') })
      .getByRole('link', { name: msg('nav.home') })
      .click();
    await onScreen(page, 'home', msg('home.greeting', { name: 'Ada King' }));

    // Signed out, and in again with the new e-mail and the new password; the old password no longer works.
    await page.locator('header .user-menu').click();
    await page.getByRole('menuitem', { name: msg('user.signOut') }).click();
    await onScreen(page, 'sign-in', msg('signIn.title'));
    const old = await inst.client().post('/api/v1/auth/login', { email: 'ada.king@example.com', password: USER.password });
    expect(old.status).toBe(401);
    await signIn(page, inst.url, { email: 'ada.king@example.com', password: 'ada-new-password-2', name: 'Ada King' });

    expectNoProblems(problems, [401, 409]);
  }, 120_000);

  it('is accessible in the dark theme, with its refusals and outcomes', async () => {
    const { page, problems } = await openPage({ colorScheme: 'dark' });
    await signIn(page, inst.url, DARK);
    await openProfile(page);
    const change = passwordSection(page);
    await change.getByLabel(msg('profile.currentPassword')).fill(DARK.password);
    await change.getByLabel(msg('profile.newPassword')).fill('short');
    await change.getByRole('button', { name: msg('profile.changePassword') }).click();
    await expect.poll(() => change.getByLabel(msg('profile.newPassword')).getAttribute('aria-invalid')).toBe('true');
    await onScreen(page, 'profile-dark-invalid', msg('profile.title'));

    const form = details(page);
    await form.getByLabel(msg('profile.email')).fill(TAKEN.email);
    await form.getByLabel(msg('profile.emailPassword')).fill(DARK.password);
    await form.getByRole('button', { name: msg('profile.save') }).click();
    await expectFieldError(form.getByLabel(msg('profile.email')), msg('profile.emailTaken'));
    await onScreen(page, 'profile-dark-taken', msg('profile.title'));

    await form.getByLabel(msg('profile.name')).fill('Mary Fairfax');
    await form.getByLabel(msg('profile.email')).fill(DARK.email);
    await form.getByRole('button', { name: msg('profile.save') }).click();
    await form
      .getByRole('status')
      .filter({ hasText: msg('profile.saved') })
      .waitFor({ state: 'visible' });
    await onScreen(page, 'profile-dark-saved', msg('profile.title'));

    expectNoProblems(problems, [400, 409]);
  }, 90_000);
});
