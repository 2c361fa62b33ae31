import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../helpers/client.js';
import { bootWithAdmin, ROOT } from '../helpers/identity.js';
import type { TestInstance } from '../helpers/instance.js';
import { connectSqlite, sqliteSource, type SqliteSource } from '../helpers/sqlite-source.js';
import { browserAvailable } from './chromium.js';
import { atWidth, exactly, expectNoProblems, msg, PHONE, useDashboardBrowser, WIDE } from './harness.js';

/*
 * The person's time zone (issue 29, decision ME8): chosen on the preferences screen and kept in
 * this browser (the seed's preferences have no place for it), it decides the wall time of every
 * instant the grid and the row page show; unset, or not a zone the browser knows, the browser's
 * zone does. The browser runs in Europe/Berlin; the chosen zone is Asia/Tokyo (the next day's
 * morning).
 */

const INSTANT = '2026-11-27T20:14:36Z';
const IN_BERLIN = 'Nov 27, 2026, 9:14:36 PM GMT+1';
const IN_TOKYO = 'Nov 28, 2026, 5:14:36 AM GMT+9';
/** Where values/context.ts keeps the choice. */
const STORED = 'svc-admin.timeZone';
const SEED_PREF_KEYS = ['accent', 'density', 'dir', 'locale', 'theme'];

describe.runIf(browserAvailable())('the time zone values are shown in', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let conn: string;
  let source: SqliteSource;
  const { openPage, onScreen, signIn } = useDashboardBrowser('time-zone');

  beforeAll(async () => {
    source = sqliteSource('zones', (db) => {
      db.exec('create table reading (id integer primary key autoincrement, taken_at timestamptz, note text)');
      db.prepare('insert into reading (taken_at, note) values (?, ?)').run(INSTANT, 'first');
    });
    ({ inst, admin } = await bootWithAdmin());
    conn = await connectSqlite(admin, source.file, 'Zones');
  }, 60_000);

  afterAll(async () => {
    await inst?.close();
    source?.dispose();
  });

  const takenAt = (page: Page) => page.locator('[role="row"][aria-rowindex="2"] [data-column="taken_at"]');
  const zoneField = (page: Page) => page.getByLabel(msg('prefs.timeZone'), { exact: true });
  const stored = (page: Page) => page.evaluate((key) => localStorage.getItem(key), STORED);

  async function openGrid(page: Page, screen: string): Promise<void> {
    await page.goto(`${inst.url}/connections/${conn}/tables/reading`);
    await onScreen(page, screen, 'Reading');
  }

  async function openPreferences(page: Page, screen: string): Promise<void> {
    await page.goto(`${inst.url}/account/preferences`);
    await onScreen(page, screen, exactly(msg('prefs.title')));
  }

  atWidth(WIDE, (viewport, w) => {
    it(`a chosen zone is the one the grid shows in this browser, and in no other (${w} px)`, async () => {
      const { page, problems } = await openPage({ viewport, timezoneId: 'Europe/Berlin' });
      await signIn(page, inst.url, ROOT);
      await openGrid(page, `grid-browser-zone-${w}`);
      await expect.poll(() => takenAt(page).textContent()).toBe(IN_BERLIN);

      await openPreferences(page, `prefs-${w}`);
      await page.getByText(msg('prefs.timeZoneFollowsBrowser', { zone: 'Europe/Berlin' })).waitFor();
      // A name that is no zone is refused on the spot, naming the problem beside the field.
      await zoneField(page).fill('Europe/Pariss');
      await page.getByRole('button', { name: exactly(msg('prefs.timeZoneUse')) }).click();
      await page.getByText(msg('prefs.timeZoneUnknown')).waitFor();
      expect(await zoneField(page).getAttribute('aria-invalid')).toBe('true');
      expect(await stored(page)).toBeNull();
      await onScreen(page, `prefs-unknown-zone-${w}`, exactly(msg('prefs.title')));
      // The zones are offered as a list to search.
      const listed = await page
        .locator(`datalist#${await zoneField(page).getAttribute('list')} option`)
        .evaluateAll((o) => o.map((e) => (e as HTMLOptionElement).value));
      expect(listed).toContain('Asia/Tokyo');
      expect(listed).toContain('Europe/Berlin');

      await zoneField(page).fill('asia/tokyo');
      await page.getByRole('button', { name: exactly(msg('prefs.timeZoneUse')) }).click();
      await page.getByRole('status').getByText(msg('prefs.timeZoneKept')).waitFor();
      expect(await zoneField(page).inputValue()).toBe('Asia/Tokyo');
      expect(await zoneField(page).getAttribute('aria-invalid')).toBeNull();
      await page.getByText(msg('prefs.timeZoneChosen')).waitFor();
      expect(await stored(page)).toBe('Asia/Tokyo');
      // Kept in the browser: the person's preferences on the server hold the seed's five fields.
      const kept = (await admin.get('/api/v1/me/prefs')).body.data;
      expect(Object.keys(kept.prefs).sort()).toEqual(SEED_PREF_KEYS);
      expect(Object.keys(kept.resolved.source).sort()).toEqual(SEED_PREF_KEYS);

      await openGrid(page, `grid-chosen-zone-${w}`);
      await expect.poll(() => takenAt(page).textContent()).toBe(IN_TOKYO);
      // The exact stored value stays on hover.
      await takenAt(page).hover();
      expect(await takenAt(page).getAttribute('title')).toBe(INSTANT);

      // Another browser of the same person shows its own zone.
      const other = await openPage({ viewport, timezoneId: 'Europe/Berlin' });
      await signIn(other.page, inst.url, ROOT);
      await openGrid(other.page, `grid-other-browser-${w}`);
      await expect.poll(() => takenAt(other.page).textContent()).toBe(IN_BERLIN);
      expectNoProblems(problems);
      expectNoProblems(other.problems);
    });
  });

  atWidth(PHONE, (viewport, w) => {
    it(`the zone stays in this browser across a new sign-in; a stored zone it cannot use, or "this browser's zone", goes back to the browser's (${w} px)`, async () => {
      const { page, problems } = await openPage({ viewport, timezoneId: 'Europe/Berlin' });
      await signIn(page, inst.url, ROOT);
      await openPreferences(page, `prefs-${w}`);
      await zoneField(page).fill('Asia/Tokyo');
      await page.getByRole('button', { name: exactly(msg('prefs.timeZoneUse')) }).click();
      await page.getByRole('status').getByText(msg('prefs.timeZoneKept')).waitFor();

      // Signed out and in again, in the same browser: the zone is still the chosen one.
      expect((await page.request.post(`${inst.url}/api/v1/auth/logout`, { headers: { origin: inst.url } })).status()).toBe(200);
      await signIn(page, inst.url, ROOT);
      await openGrid(page, `grid-chosen-zone-${w}`);
      await expect.poll(() => takenAt(page).textContent()).toBe(IN_TOKYO);

      // A stored value this browser cannot format in (edited by hand, or from a newer tz database) is not used.
      await page.evaluate((key) => localStorage.setItem(key, 'Mars/Olympus'), STORED);
      await page.reload();
      await onScreen(page, `grid-unusable-zone-${w}`, 'Reading');
      await expect.poll(() => takenAt(page).textContent()).toBe(IN_BERLIN);
      await openPreferences(page, `prefs-unusable-zone-${w}`);
      await page.getByText(msg('prefs.timeZoneFollowsBrowser', { zone: 'Europe/Berlin' })).waitFor();
      expect(await zoneField(page).inputValue()).toBe('');

      await zoneField(page).fill('Asia/Tokyo');
      await page.getByRole('button', { name: exactly(msg('prefs.timeZoneUse')) }).click();
      await page.getByRole('button', { name: exactly(msg('prefs.timeZoneUseBrowser')) }).click();
      await page.getByText(msg('prefs.timeZoneFollowsBrowser', { zone: 'Europe/Berlin' })).waitFor();
      expect(await zoneField(page).inputValue()).toBe('');
      expect(await stored(page)).toBeNull();

      await openGrid(page, `grid-browser-zone-${w}`);
      await expect.poll(() => takenAt(page).textContent()).toBe(IN_BERLIN);
      expectNoProblems(problems);
    });
  });
});
