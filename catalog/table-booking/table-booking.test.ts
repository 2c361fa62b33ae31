import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAddon } from '../../addons-sdk/src/cli/pack.js';
import type { AddonContext, Json } from '../../addons-sdk/src/index.js';
import { sourceFixture, type SourceFixture } from '../../plugins/connections/testing.js';
import { sqliteTablesLike, uploadPackage } from '../../plugins/add-ons/testing.js';
import type { HttpClient } from '../../test/helpers/client.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import app, { addDays, startOfDay } from './server.js';

const ORIGIN = 'https://venue.example';
const FIXTURE_110 = fileURLToPath(new URL('../../test/fixtures/addons/table-booking-1.1.0', import.meta.url));
const APP_DIR = fileURLToPath(new URL('.', import.meta.url));
const BOOKINGS = 'table-booking-bookings';
const MINE = 'table-booking-my-booking';
/** The default opening hours of addon.json: 12:00–14:30 and 18:00–22:00, 30-minute slots. */
const DAY_TIMES = ['12:00', '12:30', '13:00', '13:30', '14:00', '18:00', '18:30', '19:00', '19:30', '20:00', '20:30', '21:00', '21:30'];

function sqliteColumns(file: string, table: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('select name from pragma_table_info(?)').all(table) as Array<{ name: string }>).map((r) => r.name);
  } finally {
    db.close();
  }
}

describe('table-booking from the built-in catalog on a fresh instance (SQLite)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let connectionId: string;
  let appKey: string;
  const smtp = new TestSmtpServer();
  // Three days ahead (UTC, the endpoints' default time zone): in the future and inside the window.
  const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

  let harbourKey: string;
  const pub = (method: string, path: string, body?: unknown, session?: string) => pubAs(appKey, method, path, body, session);
  const pubAs = async (key: string, method: string, path: string, body?: unknown, session?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, origin: ORIGIN };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (session) headers['x-svc-public-session'] = session;
    const res = await fetch(`${inst.url}/api/v1/public${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, body: text ? JSON.parse(text) : null };
  };
  const availability = async (party: number, key = appKey): Promise<Record<string, string>> => {
    const res = await pubAs(key, 'GET', `/availability/${BOOKINGS}?date=${date}&party=${party}`);
    expect(res.status, res.text).toBe(200);
    return Object.fromEntries(res.body.data.map((s: { time: string; state: string }) => [s.time, s.state]));
  };
  const book = (values: Record<string, unknown>) => pub('POST', `/records/${BOOKINGS}`, { values });

  beforeAll(async () => {
    await smtp.start();
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    connectionId = created.body.data.connection.id;
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
    await smtp.stop();
  });

  it('lists table-booking in the catalog offline, and installs it from there with settings', async () => {
    const catalog = await admin.get('/api/v1/add-ons/catalog');
    expect(catalog.status, catalog.text).toBe(200);
    const entry = catalog.body.data.addons.find((a: { key: string }) => a.key === 'table-booking');
    expect(entry).toMatchObject({ key: 'table-booking', name: 'Table booking', source: 'built-in', installed: null, staged: [] });
    const index = JSON.parse(readFileSync(fileURLToPath(new URL('../dist/index.json', import.meta.url)), 'utf8'));
    const built = index.addons.find((a: { key: string }) => a.key === 'table-booking').versions[0];
    expect(entry.versions[0]).toMatchObject({ version: '1.0.0', engine: '>=0.1.0 <1', sha256: built.sha256, size: built.size, compatible: true });

    const started = performance.now();
    const download = await admin.post('/api/v1/add-ons/download', { key: 'table-booking', version: '1.0.0' });
    expect(download.status, download.text).toBe(201);
    expect(download.body.data.staged).toMatchObject({ key: 'table-booking', version: '1.0.0', verified: true, sha256: built.sha256, source: 'built-in' });

    const planned = await admin.get(`/api/v1/add-ons/table-booking/plan?version=1.0.0&connectionId=${connectionId}`);
    expect(planned.status, planned.text).toBe(200);
    const plan = planned.body.data.plan;
    expect(plan).toMatchObject({ key: 'table-booking', from: null, to: '1.0.0', connectionId, peak: 3, destructive: false, capabilities: ['db'] });
    expect(plan.tables.map((t: { name: string; action: string }) => [t.name, t.action])).toEqual([
      ['table_booking__bookings', 'create'],
      ['table_booking__venue_settings', 'create'],
    ]);
    expect(plan.tables[0].columns.map((c: { name: string }) => c.name)).toEqual([
      'id',
      'booked_at',
      'party',
      'name',
      'email',
      'code',
      'locale',
      'status',
      'created_at',
      'svc_instance',
    ]);
    expect(plan.endpoints.map((e: { ref: string }) => e.ref)).toEqual([BOOKINGS, MINE]);
    expect(plan.surfaces).toEqual([
      expect.objectContaining({ name: 'widget', kind: 'public-page' }),
      expect.objectContaining({ name: 'bookings', kind: 'dashboard-page' }),
    ]);

    // capacity 24, not the manifest's 20: the endpoint's booking rules take the settings (AO3).
    const settings = { venueName: 'Chez Test', capacity: 24, slotMinutes: 30, windowDays: 60, cancelBeforeMinutes: 120 };
    const installed = await admin.post('/api/v1/add-ons', { key: 'table-booking', version: '1.0.0', connectionId, planHash: plan.hash, settings });
    expect(installed.status, installed.text).toBe(201);
    console.log(`table-booking: download + plan + install from the built-in catalog took ${(performance.now() - started).toFixed(0)} ms`);
    expect(installed.body.data.addon).toMatchObject({
      key: 'table-booking',
      version: '1.0.0',
      enabled: true,
      connectionId,
      tables: ['table_booking__bookings', 'table_booking__venue_settings'],
      endpoints: [BOOKINGS, MINE],
      settings: { ...settings, maxParty: 12, timeZone: 'UTC' },
    });
    expect(sqliteTablesLike(source.database, 'table_booking')).toEqual(['table_booking__bookings', 'table_booking__venue_settings']);

    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    const revealed = await admin.get(`/api/v1/public-keys/${installed.body.data.addon.appKeyId}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    appKey = revealed.body.data.secret;
    expect(appKey).toMatch(/^adm_pub_/);
  });

  it('shows the free times of a day and books a table with the app key', async () => {
    const free = await availability(2);
    expect(Object.keys(free)).toEqual(DAY_TIMES);
    expect(Object.values(free).every((s) => s === 'free')).toBe(true);

    const res = await book({ booked_at: `${date}T19:00`, party: 8, name: 'Ada Lovelace', email: 'ada@example.com', locale: 'en' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ booked_at: `${date}T19:00:00`, party: 8, name: 'Ada Lovelace', locale: 'en' });
    expect(res.body.data.code).toEqual(expect.any(String));
    expect(res.body.data.code.length).toBeGreaterThan(3);
    // The e-mail is written, never read back; the guest gets the booking confirmation with the code.
    expect(res.body.data).not.toHaveProperty('email');
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual(['ada@example.com']);
    expect(mail!.subject).toContain(res.body.data.code);
    expect(mail!.text).toContain(`Booking code: ${res.body.data.code}`);
    expect(mail!.text).toContain('Party: 8');

    // The guest manages the booking with its code and e-mail.
    const claimed = await pub('POST', '/claim', { ref: MINE, values: { code: res.body.data.code, email: 'ada@example.com' } });
    expect(claimed.status, claimed.text).toBe(200);
    const mine = await pub('GET', `/records/${MINE}`, undefined, claimed.body.data.session);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.map((r: { code: string }) => r.code)).toEqual([res.body.data.code]);
    const wrong = await pub('POST', '/claim', { ref: MINE, values: { code: res.body.data.code, email: 'eve@example.com' } });
    expect(wrong.status).not.toBe(200);
  });

  it('answers the venue to the app key, and keeps summary, day and setStatus to staff', async () => {
    const venue = await pub('POST', '/apps/table-booking/actions/venue', {});
    expect(venue.status, venue.text).toBe(200);
    expect(venue.body.data.result).toEqual({ name: 'Chez Test', timeZone: 'UTC', maxParty: 12, windowDays: 60, cancelBeforeMinutes: 120 });
    for (const name of ['summary', 'day', 'setStatus']) {
      const refused = await pub('POST', `/apps/table-booking/actions/${name}`, { input: { date, from: date, id: 1, status: 'arrived' } });
      expect(refused.status, `${name}: ${refused.text}`).toBe(403);
      expect(refused.body.error.code).toBe('ADDON_ACTION_STAFF_ONLY');
    }
    const summary = await admin.post('/api/v1/public/apps/table-booking/actions/summary', { input: { from: date } });
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data.result).toEqual({ from: date, bookings: 1, guests: 8, venue: 'Chez Test' });
  });

  it("gives the owner the day's bookings by time and lets them mark who arrived (staff actions of the day view)", async () => {
    expect((await book({ booked_at: `${date}T12:30`, party: 2, name: 'Early Lunch', email: 'lunch@example.com' })).status).toBe(201);
    const day = await admin.post('/api/v1/public/apps/table-booking/actions/day', { input: { date } });
    expect(day.status, day.text).toBe(200);
    const result = day.body.data.result;
    expect(result).toMatchObject({ date, venue: 'Chez Test', timeZone: 'UTC', guests: 10 });
    expect(result.bookings.map((b: { time: string; party: number; name: string; status: string }) => [b.time, b.party, b.name, b.status])).toEqual([
      ['12:30', 2, 'Early Lunch', 'booked'],
      ['19:00', 8, 'Ada Lovelace', 'booked'],
    ]);
    const lunch = result.bookings[0];
    expect(lunch).toMatchObject({ email: 'lunch@example.com', code: expect.any(String) });
    const marked = await admin.post('/api/v1/public/apps/table-booking/actions/setStatus', { input: { id: lunch.id, status: 'no-show' } });
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.data.result).toEqual({ id: lunch.id, status: 'no-show' });
    const after = (await admin.post('/api/v1/public/apps/table-booking/actions/day', { input: { date } })).body.data.result;
    expect(after.guests).toBe(8);
    expect(after.bookings[0].status).toBe('no-show');
    const next = (await admin.post('/api/v1/public/apps/table-booking/actions/day', { input: { date: addDays(date, 1) } })).body.data.result;
    expect(next.bookings).toEqual([]);
    // Bad input is refused with a 4xx and the app's own code and message (ctx.refuse), not a 502.
    const bad = await admin.post('/api/v1/public/apps/table-booking/actions/setStatus', { input: { id: lunch.id, status: 'gone' } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'BOOKING_STATUS_INVALID',
      message: "A booking's status is one of booked, arrived, no-show.",
      params: { status: 'gone' },
    });
    const gone = await admin.post('/api/v1/public/apps/table-booking/actions/setStatus', { input: { id: 999_999, status: 'arrived' } });
    expect(gone.status, gone.text).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'BOOKING_NOT_FOUND', message: 'There is no booking 999999: it may have been cancelled.' });
    const badDay = await admin.post('/api/v1/public/apps/table-booking/actions/day', { input: { date: '2026-13-45' } });
    expect(badDay.status, badDay.text).toBe(400);
    expect(badDay.body.error).toMatchObject({ code: 'BOOKING_DATE_INVALID', message: 'The day must be a date written YYYY-MM-DD.' });
    // The guest's endpoint neither shows nor takes the status.
    const claimed = await pub('POST', '/claim', { ref: MINE, values: { code: lunch.code, email: 'lunch@example.com' } });
    const mine = await pub('GET', `/records/${MINE}`, undefined, claimed.body.data.session);
    expect(mine.body.data[0]).not.toHaveProperty('status');
    const cancelled = await pub('DELETE', `/records/${MINE}/${lunch.id}`, undefined, claimed.body.data.session);
    expect(cancelled.status, cancelled.text).toBe(200);
  });

  it('fills a slot up as the capacity says', async () => {
    expect((await book({ booked_at: `${date}T19:00`, party: 8, name: 'Grace Hopper', email: 'grace@example.com' })).status).toBe(201);
    // 16 of the 24 seats the settings give are taken at 19:00: a party of 9 does not fit, one of 8 does.
    expect((await availability(9))['19:00']).toBe('full');
    expect((await availability(8))['19:00']).toBe('free');
    const full = await book({ booked_at: `${date}T19:00`, party: 9, name: 'Too Many', email: 'many@example.com' });
    expect(full.status, full.text).toBe(409);
    expect(full.body.error.code).toBe('PUBLIC_SLOT_FULL');
    expect((await book({ booked_at: `${date}T19:00`, party: 8, name: 'Last Eight', email: 'eight@example.com' })).status).toBe(201);
    const after = await availability(1);
    expect(after['19:00']).toBe('full');
    expect(after['19:30']).toBe('free');
    const db = new Database(source.database, { readonly: true });
    try {
      expect(db.prepare('select sum(party) as seats from table_booking__bookings').get()).toEqual({ seats: 24 });
    } finally {
      db.close();
    }
  });

  it('refuses a time zone that is not one at the setting, and keeps the stored one', async () => {
    const typo = await admin.patch('/api/v1/add-ons/table-booking', { settings: { timeZone: 'Europe/Pariss' } });
    expect(typo.status, typo.text).toBe(400);
    expect(typo.body.error.code).toBe('ADDON_SETTINGS_INVALID');
    expect(typo.body.error.issues).toEqual([expect.objectContaining({ path: 'body.settings.timeZone', code: 'invalid_time_zone' })]);
    const listed = (await admin.get('/api/v1/add-ons')).body as { data: { addons: Array<{ key: string; settings: Record<string, unknown> }> } };
    expect(listed.data.addons.find((a) => a.key === 'table-booking')?.settings.timeZone).toBe('UTC');
  });

  it('runs for a second venue (D28): its own opening hours, capacity and bookings', async () => {
    const hours = JSON.stringify(Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['10:00', '11:00']]])));
    const res = await admin.put('/api/v1/surfaces/instances', {
      appKey: 'table-booking',
      instances: [{ id: 'harbour', name: 'Harbour', settings: { venueName: 'Harbour', openingHours: hours, capacity: 4 } }],
    });
    expect(res.status, res.text).toBe(200);
    harbourKey = res.body.data.created[0].secret;
    // The harbour's hours and capacity; the first venue's full 19:00 is not the harbour's.
    expect(await availability(2, harbourKey)).toEqual({ '10:00': 'free', '10:30': 'free' });
    expect(Object.keys(await availability(2))).toEqual(DAY_TIMES);
    const booked = await pubAs(harbourKey, 'POST', `/records/${BOOKINGS}`, {
      values: { booked_at: `${date}T10:00`, party: 4, name: 'Mary', email: 'mary@example.com' },
    });
    expect(booked.status, booked.text).toBe(201);
    expect((await availability(1, harbourKey))['10:00']).toBe('full');
    expect((await availability(1))['19:30']).toBe('free');
    const notHere = await pubAs(harbourKey, 'POST', `/records/${BOOKINGS}`, {
      values: { booked_at: `${date}T19:30`, party: 2, name: 'Nope', email: 'nope@example.com' },
    });
    expect(notHere.status, notHere.text).toBe(400);
    // A booking code of one venue is not claimed with the other venue's key.
    const claim = await pubAs(harbourKey, 'POST', '/claim', { ref: MINE, values: { code: booked.body.data.code, email: 'mary@example.com' } });
    expect(claim.status, claim.text).toBe(200);
    const other = await pub('POST', '/claim', { ref: MINE, values: { code: booked.body.data.code, email: 'mary@example.com' } });
    expect(other.status).not.toBe(200);
  });

  it('upgrades to 1.1.0 (uploaded, packed with the SDK), which adds bookings.notes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tb-fixture-'));
    try {
      // The catalog's folder with the fixture's files laid over it (1.1.0's addon.json).
      const source = join(out, 'table-booking');
      cpSync(APP_DIR, source, { recursive: true, filter: (p) => !p.endsWith('.test.ts') });
      cpSync(FIXTURE_110, source, { recursive: true, filter: (p) => !p.endsWith('README.md') });
      const packed = await packAddon(source, join(out, 'table-booking-1.1.0.tgz'));
      expect(packed.manifest.version).toBe('1.1.0');
      const up = await uploadPackage(inst.url, admin, readFileSync(packed.file));
      expect(up.status, JSON.stringify(up.body)).toBe(201);
      expect(up.body.data.staged).toMatchObject({ key: 'table-booking', version: '1.1.0', verified: false });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    const planned = await admin.get('/api/v1/add-ons/table-booking/plan?version=1.1.0');
    expect(planned.status, planned.text).toBe(200);
    const plan = planned.body.data.plan;
    expect(plan).toMatchObject({ from: '1.0.0', to: '1.1.0', destructive: false, verified: false });
    const bookings = plan.tables.find((t: { name: string }) => t.name === 'table_booking__bookings');
    expect(bookings.action).toBe('alter');
    expect(bookings.columns).toContainEqual({ name: 'notes', type: 'text', action: 'add' });
    const res = await admin.post('/api/v1/add-ons/table-booking/upgrade', { version: '1.1.0', planHash: plan.hash });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.addon.version).toBe('1.1.0');
    expect(sqliteColumns(source.database, 'table_booking__bookings')).toContain('notes');

    // The endpoint takes the new column at once (the public API forgets the table's old shape when
    // an app's endpoints change); the bookings made before are kept.
    const values = { booked_at: `${date}T20:00`, party: 2, name: 'Alan Turing', email: 'alan@example.com', notes: 'window seat' };
    const noted = await book(values);
    expect(noted.status, noted.text).toBe(201);
    expect(noted.body.data.notes).toBe('window seat');
    expect((await availability(1))['19:00']).toBe('full');
    // The second venue's key and rules outlive the upgrade.
    expect(await availability(1, harbourKey)).toEqual({ '10:00': 'full', '10:30': 'free' });
  });

  it('uninstalls with dropData: the tables go', async () => {
    const res = await admin.delete('/api/v1/add-ons/table-booking?dropData=true');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ removed: true, key: 'table-booking' });
    expect([...res.body.data.droppedTables].sort()).toEqual(['table_booking__bookings', 'table_booking__venue_settings']);
    expect(sqliteTablesLike(source.database, 'table_booking')).toEqual([]);
    const gone = await pub('GET', `/availability/${BOOKINGS}?date=${date}&party=2`);
    expect(gone.status).toBe(401);
  });
});

/** The add-on's own server code, called directly with a small context: what the sandbox will run. */
describe('table-booking server code', () => {
  const ctx = (settings: Record<string, Json>, rows: Array<Record<string, Json>> = []) =>
    ({
      addon: { key: 'table-booking', version: '1.0.0' },
      instance: null,
      settings,
      connection: null,
      db: { list: async () => ({ rows, next: null }) },
    }) as unknown as AddonContext;
  const hook = app.hooks['bookings.beforeWrite'];

  it('tidies the name and refuses parties over maxParty', async () => {
    expect(await hook(ctx({ maxParty: 6 }), { table: 'bookings', op: 'insert', values: { name: '  Ada   Lovelace ', party: 2 }, previous: null })).toEqual({
      values: { name: 'Ada Lovelace', party: 2 },
    });
    expect(await hook(ctx({ maxParty: 6 }), { table: 'bookings', op: 'insert', values: { name: 'Ada', party: 7 }, previous: null })).toEqual({
      refuse: expect.stringMatching(/up to 6/),
    });
    expect(await hook(ctx({}), { table: 'bookings', op: 'insert', values: { name: '   ', party: 2 }, previous: null })).toEqual({ refuse: expect.any(String) });
    expect(await hook(ctx({}), { table: 'bookings', op: 'delete', values: {}, previous: { id: 1 } })).toBeUndefined();
  });

  it("finds where a day starts on the venue's clock (the owner's day view), across a DST change", () => {
    expect(new Date(startOfDay('2026-07-01', 'Europe/Paris')).toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(new Date(startOfDay('2026-12-01', 'Europe/Paris')).toISOString()).toBe('2026-11-30T23:00:00.000Z');
    expect(new Date(startOfDay('2026-03-29', 'Europe/Paris')).toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(new Date(startOfDay('2026-03-30', 'Europe/Paris')).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(new Date(startOfDay('2026-05-01', 'UTC')).toISOString()).toBe('2026-05-01T00:00:00.000Z');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });

  it('summarises bookings and guests', async () => {
    const rows = [
      { id: 1, party: 2 },
      { id: 2, party: 5 },
    ];
    expect(await app.actions.summary(ctx({ venueName: 'Chez Test' }, rows), { from: '2026-01-01' })).toEqual({
      from: '2026-01-01',
      bookings: 2,
      guests: 7,
      venue: 'Chez Test',
    });
  });
});

/** The built-in catalog is what packing the folder gives, byte for byte, every time. */
describe('table-booking in the built-in catalog', () => {
  it('is packed deterministically: two packs and catalog/dist agree on the sha256', async () => {
    const out = mkdtempSync(join(tmpdir(), 'tb-pack-'));
    try {
      const dir = fileURLToPath(new URL('.', import.meta.url));
      const a = await packAddon(dir, join(out, 'a.tgz'));
      const b = await packAddon(dir, join(out, 'b.tgz'));
      expect(a.sha256).toBe(b.sha256);
      expect(readFileSync(a.file).equals(readFileSync(b.file))).toBe(true);
      const index = JSON.parse(readFileSync(fileURLToPath(new URL('../dist/index.json', import.meta.url)), 'utf8'));
      const built = index.addons.find((x: { key: string }) => x.key === 'table-booking');
      expect(built.versions).toEqual([{ version: '1.0.0', engine: '>=0.1.0 <1', url: 'table-booking-1.0.0.tgz', sha256: a.sha256, size: a.bytes }]);
      expect(readFileSync(fileURLToPath(new URL('../dist/table-booking-1.0.0.tgz', import.meta.url))).equals(readFileSync(a.file))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
