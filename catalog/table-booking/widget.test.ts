import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import { axeViolations, browserAvailable, launchChromium, recordForeignRequests, recordPageProblems } from '../../test/browser/chromium.js';
import { atWidth, exactly, expectNoProblems, PHONE, useDashboardBrowser, WIDE } from '../../test/browser/harness.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin, ROOT } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { installFromCatalog, mappedDomain, surfaceHost, type SurfaceHost } from '../testing.js';

const WAIT_MS = 15_000;
const WIDGET = fileURLToPath(new URL('./surfaces/widget/', import.meta.url));
const DAY_TIMES = ['12:00', '12:30', '13:00', '13:30', '14:00', '18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '21:00', '21:30'];
/** A day and a time as a visitor reading `locale` sees them (what the pages show with Intl). */
const dayIn = (locale: string, date: string) =>
  new Intl.DateTimeFormat(locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
const timeIn = (locale: string, time: string) =>
  new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', timeZone: 'UTC' }).format(new Date(`2000-01-01T${time}:00Z`));

describe.runIf(browserAvailable())('table-booking in a real browser: guests book, change and cancel; the owner sees the day', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let browser: Browser;
  /** The widget of the venue (Chez Test, UTC) and of a second venue whose bookings close 10 hours before (Night Owl, Paris). */
  let host: SurfaceHost;
  let lateHost: SurfaceHost;
  let appKey = '';
  let lateKey = '';
  const { openPage, onScreen, signIn } = useDashboardBrowser('table-booking');
  const date = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    host = await surfaceHost(WIDGET, () => ({ appKey, apiBase: `${inst.url}/api/v1`, api: inst.url }));
    lateHost = await surfaceHost(WIDGET, () => ({ appKey: lateKey, apiBase: `${inst.url}/api/v1`, api: inst.url }));
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: `${host.origin},${lateHost.origin}` } }));
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    ({ appKey } = await installFromCatalog(admin, 'table-booking', '1.0.0', conn.body.data.connection.id, { venueName: 'Chez Test' }));
    const allDay = JSON.stringify(Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]])));
    const late = await admin.put('/api/v1/surfaces/instances', {
      appKey: 'table-booking',
      instances: [
        { id: 'night-owl', name: 'Night Owl', settings: { venueName: 'Night Owl', openingHours: allDay, cancelBeforeMinutes: 600, timeZone: 'Europe/Paris' } },
      ],
    });
    expect(late.status, late.text).toBe(200);
    lateKey = late.body.data.created[0].secret;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await host?.close();
    await lateHost?.close();
    await inst?.close();
    await source?.cleanup();
  });

  const bookingsOf = (email: string) => {
    const db = new Database(source.database, { readonly: true });
    try {
      return db.prepare('select booked_at, party, email, code, status from table_booking__bookings where email = ?').all(email) as Array<
        Record<string, unknown>
      >;
    } finally {
      db.close();
    }
  };

  /** A guest's booking through the widget at `url` in `locale`: a day, the party, a time, name and e-mail; the code it shows. */
  async function bookThroughWidget(
    page: Page,
    url: string,
    opts: { locale: string; party: number; time: string; name: string; email: string; problems: string[]; foreign: string[] },
  ): Promise<string> {
    await page.goto(url);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: WAIT_MS }).toBe('Book a table at Chez Test');
    await page.locator('#tb-date').fill(date);
    await page.locator('#tb-date').dispatchEvent('change');
    await page.locator('#tb-party').fill(String(opts.party));
    await page.locator('#tb-party').dispatchEvent('change');
    // The last change's answer is in once the times are no longer busy.
    await page.locator('#tb-times[aria-busy="false"]').waitFor({ state: 'attached' });
    expect(await page.locator('.tb-time').allTextContents()).toEqual(DAY_TIMES.map((t) => timeIn(opts.locale, t)));
    await page.getByRole('button', { name: timeIn(opts.locale, opts.time), exact: true }).click();
    await page.getByLabel('Name').fill(opts.name);
    await page.getByLabel('E-mail').fill(opts.email);
    await page.getByRole('button', { name: 'Book', exact: true }).click();
    await page.locator('#tb-done').waitFor({ state: 'visible' });
    const code = (await page.locator('#tb-code').textContent())?.trim() ?? '';
    expect(code.length).toBeGreaterThan(3);
    expect(await page.locator('#tb-when').textContent()).toBe(`${opts.party} guests on ${dayIn(opts.locale, date)} at ${timeIn(opts.locale, opts.time)}.`);
    expectNoProblems(opts.problems);
    expect(opts.foreign).toEqual([]);
    return code;
  }

  atWidth(WIDE, (viewport) => {
    it('a guest books, then changes the time and party on the manage page, then cancels (en-GB)', async () => {
      const { page, problems, foreign } = await openPage({ viewport, locale: 'en-GB' });
      const code = await bookThroughWidget(page, `${host.origin}/index.html`, {
        locale: 'en-GB',
        party: 3,
        time: '19:30',
        name: '  Katherine Johnson ',
        email: 'katherine@example.com',
        problems,
        foreign,
      });
      expect(bookingsOf('katherine@example.com')).toEqual([
        { booked_at: `${date} 19:30:00`, party: 3, email: 'katherine@example.com', code, status: 'booked' },
      ]);
      expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

      // The confirmation links to the manage page with the code filled in; the guest gives the e-mail.
      await page.getByRole('link', { name: 'Change or cancel this booking' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your booking' }).waitFor();
      expect(await page.getByLabel('Booking code').inputValue()).toBe(code);
      await page.getByLabel('E-mail').fill('katherine@example.com');
      await page.getByRole('button', { name: 'Find my booking' }).click();
      await page.getByRole('heading', { level: 2, name: `Booking ${code}` }).waitFor();
      expect(await page.locator('#mb-when').textContent()).toBe(`3 guests on ${dayIn('en-GB', date)} at 19:30, at Chez Test.`);
      expect(await page.locator('#mb-name').textContent()).toBe('Booked for Katherine Johnson.');
      // Closes 120 minutes before 19:30 on the venue's clock (UTC).
      const closes = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(`${date}T17:30:00Z`));
      expect(await page.locator('#mb-deadline').textContent()).toBe(`You can change or cancel it online until ${closes}.`);
      expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);

      await page.getByRole('button', { name: 'Change the booking' }).click();
      await page.getByLabel('Guests').fill('4');
      // The tap on a time right after typing the party (its change event fires on that very tap) is kept.
      await page.getByRole('button', { name: '20:00', exact: true }).click();
      await page.locator('#mb-times[aria-busy="false"]').waitFor({ state: 'attached' });
      await expect.poll(() => page.getByRole('button', { name: '20:00', exact: true }).getAttribute('aria-pressed'), { timeout: WAIT_MS }).toBe('true');
      await page.getByRole('button', { name: 'Save the change' }).click();
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: WAIT_MS }).toBe('Your booking is changed.');
      expect(await page.locator('#mb-when').textContent()).toBe(`4 guests on ${dayIn('en-GB', date)} at 20:00, at Chez Test.`);
      expect(bookingsOf('katherine@example.com')).toMatchObject([{ booked_at: `${date} 20:00:00`, party: 4, code }]);

      await page.getByRole('button', { name: 'Cancel the booking' }).click();
      expect(await page.locator('#mb-confirm-text').textContent()).toBe(`Cancel your booking for 4 on ${dayIn('en-GB', date)} at 20:00?`);
      await page.getByRole('button', { name: 'Yes, cancel it' }).click();
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: WAIT_MS }).toBe(`Your booking ${code} is cancelled.`);
      expect(bookingsOf('katherine@example.com')).toEqual([]);

      // A wrong e-mail finds nothing, and says so.
      await page.goto(`${host.origin}/manage.html?code=${code}`);
      await page.getByLabel('E-mail').fill('katherine@example.com');
      await page.getByRole('button', { name: 'Find my booking' }).click();
      await expect.poll(() => page.getByRole('alert').textContent(), { timeout: WAIT_MS }).toBe('We found no booking with that code and e-mail address.');
      expectNoProblems(problems, [404]);
      expect(foreign).toEqual([]);
    });
  });

  atWidth(PHONE, (viewport) => {
    it('keeps the first tap on a time after the party changes, in the visitor’s language (en-US), at 390 px', async () => {
      const { page, problems, foreign } = await openPage({ viewport, locale: 'en-US' });
      await page.goto(`${host.origin}/index.html`);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: WAIT_MS }).toBe('Book a table at Chez Test');
      await page.locator('#tb-date').fill(date);
      await page.locator('#tb-date').dispatchEvent('change');
      await page.locator('#tb-times[aria-busy="false"]').waitFor({ state: 'attached' });
      expect(await page.locator('.tb-time').allTextContents()).toEqual(DAY_TIMES.map((t) => timeIn('en-US', t)));
      expect(await page.locator('.tb-time').first().textContent()).toBe('12:00 PM');
      // Type a new party, then tap a time at once: the party field's change event fires on that tap.
      await page.getByLabel('Guests').fill('5');
      await page.getByRole('button', { name: '7:30 PM', exact: true }).click();
      await page.locator('#tb-times[aria-busy="false"]').waitFor({ state: 'attached' });
      await expect.poll(() => page.getByRole('button', { name: '7:30 PM', exact: true }).getAttribute('aria-pressed'), { timeout: WAIT_MS }).toBe('true');
      await page.getByLabel('Name').fill('Mary Jackson');
      await page.getByLabel('E-mail').fill('mary@example.com');
      await page.getByRole('button', { name: 'Book', exact: true }).click();
      await page.locator('#tb-done').waitFor({ state: 'visible' });
      expect(await page.locator('#tb-when').textContent()).toBe(`5 guests on ${dayIn('en-US', date)} at 7:30 PM.`);
      expect(bookingsOf('mary@example.com')).toMatchObject([{ booked_at: `${date} 19:30:00`, party: 5 }]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      expectNoProblems(problems);
      expect(foreign).toEqual([]);
    });
  });

  atWidth(WIDE, (viewport) => {
    it('says a booking too close to its time can no longer be changed online (the venue’s window and clock)', async () => {
      // Night Owl books all day and closes changes 10 hours before: a booking 2 hours ahead is inside that.
      const at = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 1_800_000) * 1_800_000);
      const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris', dateStyle: 'short', timeStyle: 'short' }).format(at).replace(' ', 'T');
      const booked = await fetch(`${inst.url}/api/v1/public/records/table-booking-bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${lateKey}`, origin: lateHost.origin, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { booked_at: wall, party: 2, name: 'Night Guest', email: 'night@example.com' } }),
      });
      const body = await booked.json();
      expect(booked.status, JSON.stringify(body)).toBe(201);
      const { page, problems, foreign } = await openPage({ viewport, locale: 'fr-FR', timezoneId: 'America/New_York' });
      await page.goto(`${lateHost.origin}/manage.html?code=${body.data.code}`);
      await page.getByLabel('E-mail').fill('night@example.com');
      await page.getByRole('button', { name: 'Find my booking' }).click();
      await page.getByRole('heading', { level: 2, name: `Booking ${body.data.code}` }).waitFor();
      // The day and time in French, on the venue's clock (Paris), whatever the visitor's own clock.
      expect(await page.locator('#mb-when').textContent()).toBe(
        `2 guests on ${dayIn('fr-FR', wall.slice(0, 10))} at ${timeIn('fr-FR', wall.slice(11, 16))}, at Night Owl.`,
      );
      expect(await page.locator('#mb-deadline').textContent()).toBe('It is too close to the time to change or cancel it online. Please call us.');
      expect(await page.getByRole('button', { name: 'Cancel the booking' }).isVisible()).toBe(false);
      // The widget of that venue says whose clock its times are on.
      await page.goto(`${lateHost.origin}/index.html`);
      await expect.poll(() => page.locator('#tb-zone').textContent(), { timeout: WAIT_MS }).toBe("Times are the venue's local time (Europe/Paris).");
      expectNoProblems(problems);
      expect(foreign).toEqual([]);
    });
  });

  atWidth(PHONE, (viewport) => {
    it('the owner opens Bookings from the navigation: the day by time, the next days, and marks a guest arrived', async () => {
      const placed = await admin.put('/api/v1/surfaces/table-booking/placement', { surface: 'bookings', nav: { section: 'venue', order: 1 } });
      expect(placed.status, placed.text).toBe(200);
      const booking = await fetch(`${inst.url}/api/v1/public/records/table-booking-bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${appKey}`, origin: host.origin, 'content-type': 'application/json' },
        body: JSON.stringify({ values: { booked_at: `${date}T12:00`, party: 2, name: 'Dorothy Vaughan', email: 'dorothy@example.com' } }),
      });
      expect(booking.status).toBe(201);
      const { page, problems } = await openPage({ viewport, locale: 'en-GB' });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/apps/table-booking/bookings`);
      await onScreen(page, 'table-booking-bookings', exactly('Bookings'));
      const frame = page.frameLocator('main iframe');
      const status = frame.getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toMatch(/bookings?|No bookings/);
      // Today on the venue's clock (UTC) first; four days on is the booked day.
      const today = new Date().toISOString().slice(0, 10);
      await expect.poll(() => frame.getByRole('heading', { level: 2 }).textContent(), { timeout: WAIT_MS }).toBe(dayIn('en-GB', today));
      for (let i = 0; i < 4; i++) {
        const before = await frame.getByRole('heading', { level: 2 }).textContent();
        await frame.getByRole('button', { name: 'Next day' }).click();
        await expect.poll(() => frame.getByRole('heading', { level: 2 }).textContent(), { timeout: WAIT_MS }).not.toBe(before);
      }
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('2 bookings, 7 guests.');
      expect(await frame.locator('.bk-item .bk-time').allTextContents()).toEqual(['12:00', '19:30']);
      expect(await frame.locator('.bk-item strong').allTextContents()).toEqual(['Dorothy Vaughan', 'Mary Jackson']);
      expect(await frame.locator('.bk-item .bk-party').allTextContents()).toEqual(['2 guests', '5 guests']);
      await frame.getByLabel('Status of Dorothy Vaughan at 12:00').selectOption('arrived');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('Dorothy Vaughan at 12:00: Arrived.');
      expect(bookingsOf('dorothy@example.com')).toMatchObject([{ status: 'arrived' }]);
      // Cancelled meanwhile (on another screen): the app refuses the change (ctx.refuse, 404) and the page says why.
      const db = new Database(source.database);
      const { id } = db.prepare('select id from table_booking__bookings where email = ?').get('dorothy@example.com') as { id: number };
      db.prepare('delete from table_booking__bookings where id = ?').run(id);
      db.close();
      await frame.getByLabel('Status of Dorothy Vaughan at 12:00').selectOption('no-show');
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe(`There is no booking ${id}: it may have been cancelled.`);
      expect(await frame.getByLabel('Status of Dorothy Vaughan at 12:00').inputValue()).toBe('arrived');
      await frame.getByRole('button', { name: 'Previous day' }).click();
      await expect.poll(() => status.textContent(), { timeout: WAIT_MS }).toBe('No bookings on this day.');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expectNoProblems(problems, [404]);
      const framed = page.frames().find((f) => f.url().endsWith('/api/v1/add-ons/table-booking/bundle/bookings/index.html'));
      expect(framed).toBeDefined();
      expect((await axeViolations(framed!)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    });
  });

  it('books through its own surface served by the instance on a mapped domain (D28)', async () => {
    // The browser resolves the name to the instance; the page's origin is http://booking.test:<port>, listed nowhere.
    const onDomain = await mappedDomain(inst, admin, { name: 'booking.test', appKey: 'table-booking', surface: 'widget' });
    try {
      const context = await onDomain.browser.newContext({ viewport: WIDE, locale: 'en-GB' });
      const page = await context.newPage();
      page.setDefaultTimeout(WAIT_MS);
      const problems = recordPageProblems(page);
      const foreign = recordForeignRequests(page, ['booking.test']);
      const code = await bookThroughWidget(page, `${onDomain.origin}/`, {
        locale: 'en-GB',
        party: 2,
        time: '20:00',
        name: 'Annie Easley',
        email: 'annie@example.com',
        problems,
        foreign,
      });
      expect(bookingsOf('annie@example.com')).toMatchObject([{ party: 2, email: 'annie@example.com', code }]);
      // The manage page is a file of the same surface, on the same name.
      await page.getByRole('link', { name: 'Change or cancel this booking' }).click();
      await page.getByRole('heading', { level: 1, name: 'Your booking' }).waitFor();
      expect(new URL(page.url()).host).toBe(new URL(onDomain.origin).host);
      await context.close();
    } finally {
      await onDomain.browser.close();
    }
  });
  atWidth(PHONE, (viewport) => {
    // Last: it changes the venue's opening hours, which the stories before book in.
    it('the owner sets the opening hours in the week editor of the add-on’s settings, at 390 px', async () => {
      const { page, problems } = await openPage({ viewport, locale: 'en-GB' });
      await signIn(page, inst.url, ROOT);
      await page.goto(`${inst.url}/add-ons/table-booking`);
      await onScreen(page, 'table-booking-addon', exactly('Table booking'));
      const hours = page.getByRole('group', { name: 'Opening hours' });
      await hours.waitFor();
      const day = (name: string) => hours.getByRole('group', { name, exact: true });
      // As stored: 12:00–14:30 and 18:00–22:00 every day.
      expect(await day('Monday').getByLabel('Opens').first().inputValue()).toBe('12:00');
      expect(await day('Monday').getByLabel('Closes').nth(1).inputValue()).toBe('22:00');
      // Monday closed; Tuesday lunch until 15:00; Sunday open late, until midnight.
      await day('Monday').getByLabel('Open (on Monday)').uncheck();
      expect(await day('Monday').getByText('Closed').isVisible()).toBe(true);
      await day('Tuesday').getByLabel('Closes').first().fill('15:00');
      await day('Sunday').getByRole('button', { name: 'Add hours on Sunday' }).click();
      expect(await day('Sunday').getByLabel('Opens').nth(2).inputValue()).toBe('22:00');
      expect(await day('Sunday').getByLabel('Closes').nth(2).inputValue()).toBe('00:00');
      // A range that closes before it opens runs past midnight, and says so on its range; one that
      // closes when it opens is refused at once.
      await day('Wednesday').getByLabel('Closes').first().fill('11:00');
      expect(await day('Wednesday').getByText('the next day').isVisible()).toBe(true);
      await day('Wednesday').getByLabel('Closes').first().fill('12:00');
      expect(
        await day('Wednesday')
          .getByText(/Opens and closes at the same time/)
          .isVisible(),
      ).toBe(true);
      await day('Wednesday').getByLabel('Closes').first().fill('14:30');
      expect(await day('Wednesday').getByText('the next day').count()).toBe(0);
      // Friday's evening runs until 02:00.
      await day('Friday').getByLabel('Closes').nth(1).fill('02:00');
      expect(await day('Friday').getByText('the next day').isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect((await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.getByText('Settings saved.').isVisible(), { timeout: WAIT_MS }).toBe(true);

      const listed = (await admin.get('/api/v1/add-ons')).body.data.addons.find((a: { key: string }) => a.key === 'table-booking');
      expect(JSON.parse(listed.settings.openingHours)).toEqual({
        mon: [],
        tue: [
          ['12:00', '15:00'],
          ['18:00', '22:00'],
        ],
        wed: [
          ['12:00', '14:30'],
          ['18:00', '22:00'],
        ],
        thu: [
          ['12:00', '14:30'],
          ['18:00', '22:00'],
        ],
        fri: [
          ['12:00', '14:30'],
          ['18:00', '02:00'],
        ],
        sat: [
          ['12:00', '14:30'],
          ['18:00', '22:00'],
        ],
        sun: [
          ['12:00', '14:30'],
          ['18:00', '22:00'],
          ['22:00', '24:00'],
        ],
      });
      // The booking rules follow at once: no times on the next Monday.
      const monday = new Date(Date.now() + 86_400_000);
      while (monday.getUTCDay() !== 1) monday.setUTCDate(monday.getUTCDate() + 1);
      const slots = await fetch(`${inst.url}/api/v1/public/availability/table-booking-bookings?date=${monday.toISOString().slice(0, 10)}&party=2`, {
        headers: { authorization: `Bearer ${appKey}`, origin: host.origin },
      });
      expect((await slots.json()).data).toEqual([]);
      expectNoProblems(problems);
    });
  });
});
