import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, browserAvailable } from './chromium.js';
import { expectNoProblems, msg, useDashboardBrowser } from './harness.js';
import { goInside, screenSettled, startPopulated, type PopulatedInstance } from './populated.js';

/**
 * Every signed-in screen reflows (issue 29, decision DB37): at 390×844 and at 1440×900 the page
 * never scrolls sideways (`scrollWidth > innerWidth`); wide content scrolls inside its own box.
 * The routes come from the areas' declarations (areas/index.ts AREA_ROUTES, the shell's home
 * first), their parameters filled from the objects the set-up made.
 */
const dashboard = (path: string) => import(new URL(`../../dashboard/src/${path}`, import.meta.url).href);
const { AREA_ROUTES } = (await dashboard('areas/index.ts')) as { AREA_ROUTES: ReadonlyArray<{ path: string; shown?: string }> };
const SIGNED_IN = ['/', ...AREA_ROUTES.filter((r) => (r.shown ?? 'signed-in') === 'signed-in').map((r) => r.path)];

/** Routes not walked, each with why: a route in this list that no area declares any more fails the test. */
const SKIPPED: Record<string, string> = {
  '/add-ons/:key/connect/callback': 'the OAuth return of an add-on: it needs a state the provider sends back',
  '/apps/:appKey/:surface': 'an installed add-on’s own screen: add-ons.test.ts and add-on-pages.test.ts install one',
  '/add-ons/:key/versions/:version/plan': 'needs a staged add-on bundle (add-ons.test.ts uploads one)',
  '/add-ons/:key': 'needs an installed add-on (add-ons.test.ts installs one)',
};

/** SHOW_SCREENS=1: every walked screen is photographed, light and dark, into test-results/screens/ (otherwise none is). */
const SHOW_SCREENS = process.env.SHOW_SCREENS === '1';
const SCREENS = join(process.cwd(), 'test-results', 'screens');
if (SHOW_SCREENS) mkdirSync(SCREENS, { recursive: true });

type Walk = { path: string; url: string } | { path: string; skipped: string };

/** Each signed-in route with its address, or the reason it is not walked. */
function addresses(p: PopulatedInstance): Walk[] {
  const fill: Record<string, string | undefined> = {
    id: undefined, // depends on the route's area, below
    conn: p.connectionId,
    table: p.table,
    recordId: p.recordId,
    slug: p.listPage.slug,
    ref: p.endpointRef,
    key: p.template?.key,
    locale: p.template?.locale,
  };
  const idFor = (path: string): string | undefined => {
    if (path.startsWith('/connections/')) return p.connectionId;
    if (path.startsWith('/jobs/')) return p.jobId;
    if (path.startsWith('/pages/')) return p.listPage.id;
    if (path.startsWith('/users/')) return p.adminId;
    if (path.startsWith('/roles/')) return p.roleIds.editor;
    if (path.startsWith('/audit/')) return p.auditId;
    if (path.startsWith('/reports/')) return p.reportId;
    return undefined;
  };
  return SIGNED_IN.map((path) => {
    if (SKIPPED[path]) return { path, skipped: SKIPPED[path] };
    let missing: string | undefined;
    const url = path.replace(/:(\w+)/g, (_m, name: string) => {
      const value = name === 'id' ? idFor(path) : fill[name];
      if (value === undefined) missing ??= name;
      return encodeURIComponent(value ?? '');
    });
    return missing ? { path, skipped: `the set-up made no ${missing}` } : { path, url };
  });
}

interface Overflow {
  scrollWidth: number;
  innerWidth: number;
  /** The widest element sticking out on the right whose parent does not: where the overflow starts. */
  widest: string;
}

/** How far the page is wider than the window, and what makes it so. */
function measure(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const limit = window.innerWidth;
    const name = (el: Element) =>
      `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}> ` +
      `"${(el.textContent ?? '').trim().slice(0, 40)}"`;
    let widest: { el: Element; width: number } | undefined;
    for (const el of document.body.querySelectorAll('*')) {
      const rect = el.getBoundingClientRect();
      if (rect.right <= limit + 0.5) continue;
      const parent = el.parentElement?.getBoundingClientRect();
      if (parent && parent.right > limit + 0.5) continue;
      if (!widest || rect.width > widest.width) widest = { el, width: rect.width };
    }
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: limit,
      widest: widest ? `${name(widest.el)} (${Math.round(widest.width)} px wide)` : '(none found)',
    };
  });
}

describe.runIf(browserAvailable())('every signed-in screen fits the window and passes axe (390 and 1440 px)', () => {
  let p: PopulatedInstance;
  const { openPage, onScreen, signIn } = useDashboardBrowser('overflow');

  beforeAll(async () => {
    p = await startPopulated();
  }, 90_000);

  afterAll(async () => {
    await p?.close();
  });

  it('skips only routes that exist, each with a reason', () => {
    for (const path of Object.keys(SKIPPED)) expect(SIGNED_IN, `skipped route ${path} is no longer declared`).toContain(path);
    expect(SIGNED_IN.length).toBeGreaterThan(40);
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1440, height: 900 },
  ]) {
    it(`walks every signed-in route at ${viewport.width}×${viewport.height}: no sideways scrolling, no serious axe violation`, async () => {
      const { page } = await openPage({ viewport });
      await signIn(page, p.inst.url, p.root);
      const walks = addresses(p);
      const overflowing: string[] = [];
      const inaccessible: string[] = [];
      const walked: string[] = [];
      for (const walk of walks) {
        if (!('url' in walk)) continue;
        await goInside(page, walk.url);
        await screenSettled(page);
        const m = await measure(page);
        walked.push(walk.path);
        if (SHOW_SCREENS) {
          // Every route's screen, light and dark, in one folder for a reviewer to look through
          // (test-results/screens/<route>-<width>-<theme>.png); dark is checked by axe too.
          const name = walk.path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'home';
          await page.screenshot({ path: join(SCREENS, `${name}-${viewport.width}-light.png`), fullPage: true });
          const theme = await page.evaluate(() => {
            const before = document.documentElement.getAttribute('data-theme');
            document.documentElement.setAttribute('data-theme', 'dark');
            return before;
          });
          await page.screenshot({ path: join(SCREENS, `${name}-${viewport.width}-dark.png`), fullPage: true });
          for (const v of await axeViolations(page))
            if (v.impact === 'serious' || v.impact === 'critical')
              inaccessible.push(`${walk.path} (dark): ${v.id} (${v.impact}) at ${v.targets.slice(0, 3).join(', ')}`);
          await page.evaluate((before) => {
            if (before === null) document.documentElement.removeAttribute('data-theme');
            else document.documentElement.setAttribute('data-theme', before);
          }, theme);
        }
        if (m.scrollWidth > m.innerWidth) overflowing.push(`${walk.url} (${walk.path}): ${m.scrollWidth} px > ${m.innerWidth} px; widest: ${m.widest}`);
        // axe on every screen at both widths: the stories elsewhere each run at one (DB49).
        for (const v of await axeViolations(page))
          if (v.impact === 'serious' || v.impact === 'critical')
            inaccessible.push(`${walk.path}: ${v.id} (${v.impact}) at ${v.targets.slice(0, 3).join(', ')}`);
      }
      const skipped = walks.filter((w) => 'skipped' in w).map((w) => `${w.path}: ${(w as { skipped: string }).skipped}`);
      console.info(`walked ${walked.length} routes at ${viewport.width} px; skipped:\n  ${skipped.join('\n  ')}`);
      expect(overflowing, `screens wider than ${viewport.width} px`).toEqual([]);
      expect(inaccessible, `serious or critical axe violations at ${viewport.width} px`).toEqual([]);
      expect(walked.length).toBeGreaterThanOrEqual(SIGNED_IN.length - Object.keys(SKIPPED).length);
      // The measure sees an overflow when there is one (so an empty list above means something).
      await page.evaluate(() => {
        const wide = document.createElement('div');
        wide.id = 'too-wide';
        wide.style.width = '2000px';
        wide.style.height = '1rem';
        document.querySelector('main')!.append(wide);
      });
      const probe = await measure(page);
      expect(probe.scrollWidth).toBeGreaterThan(probe.innerWidth);
      expect(probe.widest).toContain('div#too-wide');
      await page.evaluate(() => document.getElementById('too-wide')!.remove());
      await onScreen(page, `last-${viewport.width}`, /.+/);
    }, 600_000);
  }

  it('opens the navigation as a drawer at 390 px: focus inside and kept there, Escape closes, focus back on the button; axe clean', async () => {
    const { page, problems } = await openPage({ viewport: { width: 390, height: 844 } });
    await signIn(page, p.inst.url, p.root);
    // The drawer's navigation landmark; located by id as it is hidden (display: none) while closed.
    const nav = page.locator('nav#main-nav');
    const button = page.getByRole('button', { name: msg('nav.menu'), exact: true });
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await button.getAttribute('aria-controls')).toBe('main-nav');
    expect(await nav.getAttribute('aria-label')).toBe(msg('nav.label'));
    // The bell and the account menu stay on screen.
    for (const control of [page.locator('header .bell'), page.locator('header .user-menu')]) {
      await control.waitFor({ state: 'visible' });
      const box = await control.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    }

    await button.click();
    await nav.waitFor({ state: 'visible' });
    expect(await button.getAttribute('aria-expanded')).toBe('true');
    const focusInNav = () => page.evaluate(() => document.activeElement?.closest('nav') !== null && document.activeElement !== document.body);
    expect(await focusInNav()).toBe(true);
    await onScreen(page, 'drawer-open-390', /.+/);
    // The backdrop covers the rest of the screen, the top bar included (a click there closes the drawer).
    expect(await page.evaluate(() => document.elementFromPoint(370, 20)?.className)).toBe('drawer-backdrop');
    if (SHOW_SCREENS) await page.screenshot({ path: join(SCREENS, 'drawer-open-390-light.png') });
    // Past the last entry and before the first, Tab wraps inside the drawer.
    const count = await nav.locator('a[href], button, summary').count();
    for (let i = 0; i < count + 2; i++) {
      await page.keyboard.press('Tab');
      expect(await focusInNav(), `after ${i + 1} Tab`).toBe(true);
    }
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await focusInNav(), `after ${i + 1} Shift+Tab`).toBe(true);
    }

    await page.keyboard.press('Escape');
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await button.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('menu-button'))).toBe(true);
    await onScreen(page, 'drawer-closed-390', /.+/);

    // Following a link closes it and the new screen is shown.
    await button.click();
    await nav.getByRole('link', { name: msg('transfer.nav.jobs') }).click();
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(new URL(page.url()).pathname).toBe('/jobs');
    expectNoProblems(problems);
  });

  for (const width of [390, 1440]) {
    it(`home at ${width} px: the checklist, connections with their health, what was opened lately, the latest jobs`, async () => {
      const { page, problems } = await openPage({ viewport: { width, height: width === 390 ? 844 : 900 } });
      await signIn(page, p.inst.url, p.root);
      const card = (title: string) => page.locator('section.home-card').filter({ has: page.getByRole('heading', { name: title, exact: true }) });
      expect(await page.getByRole('heading', { name: msg('home.onboarding.title') }).isVisible()).toBe(true);
      await card(msg('home.connections.title')).getByRole('link', { name: 'Shop with a rather long connection name' }).waitFor();
      // Tested when it was added: reachable, with when.
      expect(await card(msg('home.connections.title')).innerText()).toContain(msg('home.connections.ok').split('{at}')[0]!);
      await card(msg('home.jobs.title')).getByRole('link', { name: 'Export' }).waitFor();
      // Nothing opened yet in this browser: the person's pages are offered instead.
      expect(await card(msg('home.recent.title')).getByRole('link').allInnerTexts()).toEqual(['Customers', 'Overview']);

      // A table and a page opened are listed under "Recently opened", newest first.
      await goInside(page, `/connections/${p.connectionId}/tables/customers`);
      await screenSettled(page);
      await goInside(page, `/p/${p.listPage.slug}`);
      await screenSettled(page);
      await goInside(page, '/');
      await screenSettled(page);
      const recent = card(msg('home.recent.title')).getByRole('link');
      await expect.poll(() => recent.allInnerTexts()).toEqual(['Customers', 'customers']);
      await onScreen(page, `home-${width}`, msg('home.greeting', { name: p.root.name }));
      expectNoProblems(problems);
    });
  }

  it('keeps the navigation beside the screen at 1440 px, with no menu button', async () => {
    const { page } = await openPage({ viewport: { width: 1440, height: 900 } });
    await signIn(page, p.inst.url, p.root);
    expect(await page.getByRole('navigation', { name: msg('nav.label') }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: msg('nav.menu'), exact: true }).isVisible()).toBe(false);
  });
});
