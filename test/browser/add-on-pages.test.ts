import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../addons-sdk/src/manifest/index.js';
import { addonsReachingLoopback, fakeOAuthProvider, type FakeOAuthProvider, packFixture, uploadPackage } from '../../plugins/add-ons/testing.js';
import type { HttpClient } from '../helpers/client.js';
import { activeUser, bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { browserAvailable } from './chromium.js';
import { exactly, expectNoProblems, msg, useDashboardBrowser } from './harness.js';

const CLIENT = { id: 'client-pages', secret: 'cs-pages-secret-1234' };
const API_KEY = 'sk-live-browser-0b9e77';
const ACCOUNT = 'acct-browser-5521';

/** Answers what it got: the bridge's call reaches the app's own action with the staff session. */
const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({ actions: {
  echo: async (ctx, input) => ({ echoed: input, from: 'probe' }),
  peek: async (ctx) => ctx.connection,
  full: async (ctx) => ctx.refuse(409, 'DESK_FULL', 'The desk is full today; try tomorrow.', { seats: 0 }),
} });
`;

/**
 * The probe page: tries what a page walled off from the dashboard must not be able to do, then
 * calls its app's actions through the bridge, writes what happened into its own page and posts
 * it to the dashboard (which ignores a message that is not an action call).
 */
const PROBE_JS = `
const out = {};
const attempt = (name, fn) => {
  try { out[name] = { ok: true, value: String(fn()) }; } catch (e) { out[name] = { ok: false, error: e && e.name }; }
};
attempt('cookie', () => document.cookie);
attempt('parentDocument', () => window.parent.document.title);
attempt('topDocument', () => window.top.document.body.innerHTML);
attempt('localStorage', () => window.localStorage.getItem('svc-admin.look'));
const answers = new Map();
const waiting = new Map();
window.addEventListener('message', (event) => {
  const m = event.data;
  if (event.source !== window.parent || !m || m.type !== 'svc-action-result') return;
  answers.set(m.id, m);
  const resolve = waiting.get(m.id);
  if (resolve) { waiting.delete(m.id); resolve(m); }
});
const call = (id, name, input) => new Promise((resolve) => {
  waiting.set(id, resolve);
  window.parent.postMessage({ type: 'svc-action', id, name, input }, '*');
});
async function main() {
  try {
    const res = await fetch('/api/v1/users', { credentials: 'include' });
    out.fetch = { ok: true, value: String(res.status) };
  } catch (e) {
    out.fetch = { ok: false, error: e && e.name };
  }
  // Not the bridge's shape: ignored, never answered.
  window.parent.postMessage({ type: 'svc-action', id: 'ignored-extra', name: 'echo', input: 1, also: true }, '*');
  window.parent.postMessage({ type: 'svc-action', id: 'ignored-name', name: '../users', input: 1 }, '*');
  window.parent.postMessage('svc-action', '*');
  out.echo = await call('a1', 'echo', { n: 41 });
  out.missing = await call('a2', 'nope', null);
  out.tooLarge = await call('a3', 'echo', 'x'.repeat(70000));
  // The add-on's own refusal reaches the page whole, and the page says it where it called.
  out.refused = await call('a4', 'full', null);
  document.getElementById('said').textContent = out.refused.error.message;
  out.ignoredAnswered = [...answers.keys()].filter((id) => String(id).startsWith('ignored'));
  window.parent.postMessage({ type: 'probe-report', out }, '*');
  const pre = document.getElementById('out');
  pre.textContent = JSON.stringify(out);
  pre.dataset.done = 'true';
}
main();
`;

const PROBE: AddonManifestInput = {
  key: 'probe',
  name: 'Probe',
  version: '1.0.0',
  engine: '>=0.1.0',
  actions: ['echo', 'peek', 'full'],
  surfaces: [{ name: 'desk', kind: 'dashboard-page', title: 'Probe desk' }],
};
const VAULT: AddonManifestInput = {
  key: 'vault',
  name: 'Vault',
  version: '1.0.0',
  engine: '>=0.1.0',
  actions: ['peek'],
  connect: {
    kind: 'secret',
    fields: [
      { name: 'apiKey', label: 'API key' },
      { name: 'account', label: 'Account', description: 'Your account id at the provider.' },
    ],
  },
};
const oauthy = (provider: FakeOAuthProvider): AddonManifestInput => ({
  key: 'oauthy',
  name: 'Oauthy',
  version: '1.0.0',
  engine: '>=0.1.0',
  actions: ['peek'],
  settings: { type: 'object', properties: { clientId: { type: 'string' }, clientSecret: { type: 'string', secret: true } }, required: [] },
  connect: {
    kind: 'oauth2',
    authorizeUrl: provider.authorizeUrl,
    tokenUrl: provider.tokenUrl,
    scopes: ['read', 'write'],
    clientIdSetting: 'clientId',
    clientSecretSetting: 'clientSecret',
  },
});

describe.runIf(browserAvailable())("apps' pages in the navigation, the action bridge and connect, in a real browser", () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let provider: FakeOAuthProvider;
  const { openPage, onScreen, onDialog, signIn } = useDashboardBrowser('add-on-pages');

  const install = async (manifest: AddonManifestInput, files: Record<string, string> = {}, settings: Record<string, unknown> = {}) => {
    const pkg = await packFixture(manifest, SERVER, files);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = (await admin.get(`/api/v1/add-ons/${manifest.key}/plan?version=1.0.0`)).body.data.plan;
    const res = await admin.post('/api/v1/add-ons', { key: manifest.key, version: '1.0.0', planHash: plan.hash, settings });
    expect(res.status, res.text).toBe(201);
  };
  const peek = async (key: string) => {
    const res = await admin.post(`/api/v1/public/apps/${key}/actions/peek`, { input: null });
    expect(res.status, res.text).toBe(200);
    return res.body.data.result;
  };

  beforeAll(async () => {
    provider = await fakeOAuthProvider({ clientId: CLIENT.id, clientSecret: CLIENT.secret, access: ['at-pages-1', 'at-pages-2'], refresh: 'rt-pages' });
    // The token endpoint is on loopback, which the outbound rules refuse outside tests.
    ({ inst, admin } = await bootWithAdmin({ ...addonsReachingLoopback('fetch'), env: { SVC_NETWORK_FEATURES: 'true' } }));
    await install(PROBE, {
      'surfaces/desk/index.html':
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Probe desk</title><script src="probe.js" defer></script></head><body><main><h1>Probe desk</h1><p id="said" role="status"></p><pre id="out">running</pre></main></body></html>',
      'surfaces/desk/probe.js': PROBE_JS,
    });
    await install(VAULT);
    await install(oauthy(provider), {}, { clientId: CLIENT.id, clientSecret: CLIENT.secret });
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    await provider?.close();
  });

  async function openAddOn(page: Page, name: string): Promise<void> {
    await page.getByRole('link', { name: msg('nav.addons') }).click();
    await onScreen(page, 'add-ons', exactly(msg('addOns.title')));
    await page.getByTestId('installed-addon').getByRole('link', { name }).click();
    await onScreen(page, `add-on-${name}`, exactly(name));
  }

  it('places a dashboard page in the navigation, and the page runs walled off from the dashboard, calling its actions through the bridge', async () => {
    const { page, problems } = await openPage();
    // What the page posts to the dashboard, seen from the dashboard's window.
    await page.addInitScript(() => {
      const reports: unknown[] = [];
      (window as unknown as { probeReports: unknown[] }).probeReports = reports;
      window.addEventListener('message', (e) => {
        if ((e.data as { type?: string } | null)?.type === 'probe-report') reports.push((e.data as { out: unknown }).out);
      });
    });
    await signIn(page, inst.url, ROOT);
    const nav = page.getByRole('navigation', { name: msg('nav.label') });
    expect(await nav.getByRole('link', { name: 'Probe desk' }).count()).toBe(0);

    await openAddOn(page, 'Probe');
    const form = page.getByRole('form', { name: msg('addOns.pages.formLabel', { title: 'Probe desk' }) });
    expect(await form.textContent()).toContain(msg('addOns.pages.notPlaced'));
    // A section name the server refuses is said on its field.
    await form.getByLabel(msg('addOns.pages.section'), { exact: true }).fill('Front Desk');
    await form.getByRole('button', { name: msg('addOns.pages.place', { title: 'Probe desk' }) }).click();
    await expect.poll(() => form.getByLabel(msg('addOns.pages.section'), { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel(msg('addOns.pages.section'), { exact: true }).fill('front-desk');
    await form.getByLabel(msg('addOns.pages.order')).fill('2');
    await form.getByRole('button', { name: msg('addOns.pages.place', { title: 'Probe desk' }) }).click();
    await form
      .getByRole('status')
      .filter({ hasText: msg('addOns.pages.wasPlaced', { title: 'Probe desk' }) })
      .waitFor();
    const listed = (await admin.get('/api/v1/surfaces')).body.data.surfaces.find((s: { appKey: string }) => s.appKey === 'probe');
    expect(listed.placement).toEqual({ section: 'front-desk', order: 2 });
    await onScreen(page, 'add-on-placed', exactly('Probe'));

    // Listed under its section's name; followed like any navigation link.
    const section = nav.getByRole('list', { name: 'Front desk' });
    await section.getByRole('link', { name: 'Probe desk' }).click();
    await onScreen(page, 'app-page', exactly('Probe desk'));
    expect(new URL(page.url()).pathname).toBe('/apps/probe/desk');
    expect(await section.getByRole('link', { name: 'Probe desk' }).getAttribute('aria-current')).toBe('page');
    const iframe = page.locator('main iframe');
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts allow-forms');
    expect(await iframe.getAttribute('title')).toBe('Probe desk');
    expect(await iframe.getAttribute('src')).toBe('/api/v1/add-ons/probe/bundle/desk/index.html');

    const frame = page.frameLocator('main iframe');
    await frame.getByRole('heading', { name: 'Probe desk' }).waitFor();
    const done = frame.locator('#out[data-done="true"]');
    await done.waitFor();
    const out = JSON.parse((await done.textContent()) ?? '{}');
    // No session, no cookie, no dashboard DOM, no storage, no API with the staff session.
    expect(out.cookie).toEqual({ ok: false, error: 'SecurityError' });
    expect(out.parentDocument).toEqual({ ok: false, error: 'SecurityError' });
    expect(out.topDocument).toEqual({ ok: false, error: 'SecurityError' });
    expect(out.localStorage).toEqual({ ok: false, error: 'SecurityError' });
    expect(out.fetch).toEqual({ ok: false, error: 'TypeError' });
    // Its own app's action, called with the staff session through the bridge.
    expect(out.echo).toEqual({ type: 'svc-action-result', id: 'a1', ok: true, data: { echoed: { n: 41 }, from: 'probe' } });
    expect(out.missing).toMatchObject({ type: 'svc-action-result', id: 'a2', ok: false, error: { code: 'ADDON_HANDLER_MISSING' } });
    expect(out.tooLarge).toMatchObject({ type: 'svc-action-result', id: 'a3', ok: false, error: { code: 'BRIDGE_INPUT_TOO_LARGE' } });
    expect(out.ignoredAnswered).toEqual([]);
    expect(out.refused).toEqual({
      type: 'svc-action-result',
      id: 'a4',
      ok: false,
      error: { code: 'DESK_FULL', message: 'The desk is full today; try tomorrow.', status: 409, params: { seats: 0 } },
    });
    expect(await frame.getByRole('status').textContent()).toBe('The desk is full today; try tomorrow.');
    // The page's own report reached the dashboard's window (and did nothing there).
    await expect.poll(() => page.evaluate(() => (window as unknown as { probeReports: unknown[] }).probeReports.length)).toBe(1);
    // The frame's refused fetch is the page's own CSP at work (connect-src: the public API only).
    const csp = (p: string) => p.includes('Content Security Policy') && p.includes('/api/v1/users');
    expect(problems.some(csp)).toBe(true);
    expectNoProblems(
      problems.filter((p) => !csp(p)),
      [400, 404, 409],
    );
  });

  it('an editor sees the placed page in the navigation and opens it; taking it out of the navigation removes it', async () => {
    await activeUser(inst, admin, 'ed@example.com', ['editor']);
    const editor = await openPage();
    await signIn(editor.page, inst.url, { email: 'ed@example.com', password: 'long-enough-pw', name: 'ed' });
    const nav = editor.page.getByRole('navigation', { name: msg('nav.label') });
    await nav.getByRole('list', { name: 'Front desk' }).getByRole('link', { name: 'Probe desk' }).click();
    await onScreen(editor.page, 'app-page-editor', exactly('Probe desk'));
    const done = editor.page.frameLocator('main iframe').locator('#out[data-done="true"]');
    await done.waitFor();
    expect(JSON.parse((await done.textContent()) ?? '{}').echo).toMatchObject({ ok: true, data: { from: 'probe' } });

    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, 'Probe');
    const form = page.getByRole('form', { name: msg('addOns.pages.formLabel', { title: 'Probe desk' }) });
    await form.getByRole('button', { name: msg('addOns.pages.remove', { title: 'Probe desk' }) }).click();
    await form
      .getByRole('status')
      .filter({ hasText: msg('addOns.pages.wasRemoved', { title: 'Probe desk' }) })
      .waitFor();
    await expect
      .poll(() =>
        page
          .getByRole('navigation', { name: msg('nav.label') })
          .getByRole('link', { name: 'Probe desk' })
          .count(),
      )
      .toBe(0);
    expect(await form.textContent()).toContain(msg('addOns.pages.notPlaced'));
    expectNoProblems(problems);
  });

  it('connects an add-on with secret fields (password inputs, never shown again) and disconnects it after a confirmation', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, 'Vault');
    const status = page.getByTestId('connect-status');
    expect(await status.textContent()).toBe(msg('addOns.connect.notConnected'));
    const apiKey = page.getByLabel('API key');
    const account = page.getByLabel('Account', { exact: true });
    expect(await apiKey.getAttribute('type')).toBe('password');
    expect(await account.getAttribute('type')).toBe('password');
    const connect = page.getByRole('button', { name: msg('addOns.connect.submit', { name: 'Vault' }) });

    // Every field is needed: the missing one is named on its field.
    await apiKey.fill(API_KEY);
    await connect.click();
    await expect.poll(() => account.getAttribute('aria-invalid')).toBe('true');
    await account.fill(ACCOUNT);
    await apiKey.fill(API_KEY);
    await connect.click();
    await page
      .getByRole('status')
      .filter({ hasText: msg('addOns.connect.saved') })
      .waitFor();
    await expect.poll(() => status.textContent()).toMatch(/^Connected since /);
    expect(await apiKey.inputValue()).toBe('');
    expect(await peek('vault')).toEqual({ apiKey: API_KEY, account: ACCOUNT });
    await page.reload();
    await onScreen(page, 'vault-connected', exactly('Vault'));
    expect(await page.content()).not.toContain(API_KEY);
    await onScreen(page, 'vault-connected', exactly('Vault'));

    await page.getByRole('button', { name: msg('addOns.connect.disconnect', { name: 'Vault' }) }).click();
    const dialog = page.getByRole('dialog', { name: msg('addOns.connect.disconnectTitle', { name: 'Vault' }) });
    await dialog.waitFor();
    await onDialog(page, 'vault-disconnect-confirm', dialog);
    // Cancel first: nothing is forgotten, and the focus is back on the button.
    await dialog.getByRole('button', { name: msg('addOns.remove.cancel') }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(msg('addOns.connect.disconnect', { name: 'Vault' }));
    expect((await peek('vault')).apiKey).toBe(API_KEY);
    await page.getByRole('button', { name: msg('addOns.connect.disconnect', { name: 'Vault' }) }).click();
    await dialog.getByRole('button', { name: msg('addOns.connect.disconnectConfirm') }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByTestId('connect-status').textContent()).toBe(msg('addOns.connect.notConnected'));
    expect(await peek('vault')).toBeNull();
    expectNoProblems(problems, [400]);
  });

  it('connects an add-on with OAuth 2: to the provider and back to the callback screen, which completes', async () => {
    const { page, problems } = await openPage();
    await signIn(page, inst.url, ROOT);
    await openAddOn(page, 'Oauthy');
    expect(await page.getByTestId('connect-status').textContent()).toBe(msg('addOns.connect.notConnected'));
    expect(await page.getByText(msg('addOns.connect.scopes', { scopes: 'read, write' })).count()).toBe(1);
    await page.getByRole('button', { name: msg('addOns.connect.oauth', { name: 'Oauthy' }) }).click();

    // The provider sends the browser straight back with a code; the callback screen completes.
    await onScreen(page, 'oauth-callback', exactly(msg('addOns.callback.title', { name: 'Oauthy' })));
    await page
      .getByRole('status')
      .filter({ hasText: msg('addOns.callback.done', { name: 'Oauthy' }) })
      .waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe('/add-ons/oauthy/connect/callback');
    expect(url.search).toBe(''); // the single-use code does not stay in the address bar
    expect(provider.requests.map((r) => r.form.grant_type)).toEqual(['authorization_code']);
    expect((await peek('oauthy')).accessToken).toBe('at-pages-1');

    await page.getByRole('link', { name: msg('addOns.callback.back', { name: 'Oauthy' }) }).click();
    await onScreen(page, 'oauthy-connected', exactly('Oauthy'));
    await expect.poll(() => page.getByTestId('connect-status').textContent()).toMatch(/^Connected since /);

    // An answer that does not belong to this session's start is refused, with the way back.
    await page.goto(`${inst.url}/add-ons/oauthy/connect/callback?code=forged&state=not-a-state`);
    await onScreen(page, 'oauth-callback-refused', exactly(msg('addOns.callback.title', { name: 'Oauthy' })));
    await page
      .getByRole('alert')
      .filter({ hasText: msg('addOns.callback.invalid') })
      .waitFor();
    await page.getByRole('link', { name: msg('addOns.callback.back', { name: 'Oauthy' }) }).click();
    await onScreen(page, 'oauthy-after-refusal', exactly('Oauthy'));
    expectNoProblems(problems, [400]);
  });
});
