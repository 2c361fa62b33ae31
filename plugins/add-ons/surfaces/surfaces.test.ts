import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { packFixture, panelPackage, sqliteTablesLike, uploadPackage } from '../testing.js';

function run(file: string, sql: string): void {
  const db = new Database(file);
  try {
    db.prepare(sql).run();
  } finally {
    db.close();
  }
}

describe('surfaces: list, placement and the connection an app is on', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let first: string;
  let second: string;
  const secondFile = () => source.otherUrl.slice('sqlite:'.length);

  const install = async (key: string, version: string, connectionId?: string) => {
    const planned = await admin.get(`/api/v1/add-ons/${key}/plan?version=${version}${connectionId ? `&connectionId=${connectionId}` : ''}`);
    expect(planned.status, planned.text).toBe(200);
    const res = await admin.post('/api/v1/add-ons', { key, version, planHash: planned.body.data.plan.hash, ...(connectionId ? { connectionId } : {}) });
    expect(res.status, res.text).toBe(201);
  };
  const surfaces = async () => {
    const res = await admin.get('/api/v1/surfaces');
    expect(res.status, res.text).toBe(200);
    return res.body.data.surfaces as Array<Record<string, unknown>>;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://venue.example' } }));
    source = await sourceFixture('sqlite');
    const a = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    const b = await admin.post('/api/v1/connections', { name: 'Other', dialect: 'sqlite', url: source.otherUrl });
    expect([a.status, b.status]).toEqual([201, 201]);
    first = a.body.data.connection.id;
    second = b.body.data.connection.id;
    expect((await admin.post('/api/v1/add-ons/download', { key: 'table-booking', version: '1.0.0' })).status).toBe(201);
    await install('table-booking', '1.0.0', first);
    expect((await uploadPackage(inst.url, admin, await panelPackage())).status).toBe(201);
    await install('panel', '1.0.0');
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it("lists every installed app's surfaces with their entry URL and connection", async () => {
    expect(await surfaces()).toEqual([
      {
        appKey: 'panel',
        name: 'page',
        kind: 'dashboard-page',
        title: 'Panel',
        enabled: true,
        url: '/api/v1/add-ons/panel/bundle/page/index.html',
        placement: null,
        connectionId: null,
        instances: [],
        domains: [],
        usableAt: { dashboard: true, domains: [], origins: [] },
      },
      expect.objectContaining({
        appKey: 'panel',
        name: 'badge',
        kind: 'embed',
        url: '/api/v1/add-ons/panel/bundle/badge/badge.html',
        placement: null,
        usableAt: { dashboard: false, domains: [], origins: ['https://venue.example'] },
      }),
      expect.objectContaining({
        appKey: 'table-booking',
        name: 'widget',
        kind: 'public-page',
        title: 'Book a table',
        url: '/api/v1/add-ons/table-booking/bundle/widget/index.html',
        connectionId: first,
        // Not mapped yet: usable nowhere (AO30).
        usableAt: { dashboard: false, domains: [], origins: [] },
      }),
      expect.objectContaining({
        appKey: 'table-booking',
        name: 'bookings',
        kind: 'dashboard-page',
        title: 'Bookings',
        url: '/api/v1/add-ons/table-booking/bundle/bookings/index.html',
        connectionId: first,
        usableAt: { dashboard: true, domains: [], origins: [] },
      }),
    ]);
    // Every listed URL is served.
    for (const s of await surfaces()) expect((await fetch(`${inst.url}${s['url']}`)).status, String(s['url'])).toBe(200);
  });

  it('says a public page is usable on its mapped names, and explains at its bundle URL how to publish it (AO30)', async () => {
    const put = await admin.put('/api/v1/surfaces/domains', { domains: [{ host: 'book.example', appKey: 'table-booking', surface: 'widget' }] });
    expect(put.status, put.text).toBe(200);
    const widget = (await surfaces()).find((s) => s['name'] === 'widget')!;
    expect(widget['usableAt']).toEqual({ dashboard: false, domains: ['book.example'], origins: [] });
    expect((await admin.put('/api/v1/surfaces/domains', { domains: [] })).status).toBe(200);

    // A browser tab opening the bundle URL gets the explanation, not a page that would load and fail.
    const opened = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/index.html`, { headers: { 'sec-fetch-dest': 'document' } });
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(opened.headers.get('vary')).toContain('Sec-Fetch-Dest');
    expect(opened.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await opened.text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h1>Book a table is published on its own address</h1>');
    expect(html).not.toContain('svc-app');
    expect(html).not.toContain('adm_pub_');
    // Its files, and a dashboard page, are served as before.
    expect((await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/widget.js`, { headers: { 'sec-fetch-dest': 'script' } })).status).toBe(200);
    const page = await fetch(`${inst.url}/api/v1/add-ons/panel/bundle/page/index.html`, { headers: { 'sec-fetch-dest': 'document' } });
    expect(await page.text()).toContain('svc-app');
  });

  it('places a dashboard page in the navigation and takes it out again; other kinds cannot be placed', async () => {
    const placed = await admin.put('/api/v1/surfaces/panel/placement', { surface: 'page', nav: { section: 'apps', order: 2 } });
    expect(placed.status, placed.text).toBe(200);
    expect(placed.body.data.surfaces.find((s: { name: string }) => s.name === 'page').placement).toEqual({ section: 'apps', order: 2 });
    expect((await surfaces()).find((s) => s['name'] === 'page')!['placement']).toEqual({ section: 'apps', order: 2 });
    const moved = await admin.put('/api/v1/surfaces/panel/placement', { surface: 'page', nav: { section: 'tools', order: 0 } });
    expect(moved.body.data.surfaces.find((s: { name: string }) => s.name === 'page').placement).toEqual({ section: 'tools', order: 0 });

    const embed = await admin.put('/api/v1/surfaces/panel/placement', { surface: 'badge', nav: { section: 'apps', order: 1 } });
    expect(embed.status).toBe(400);
    expect(embed.body.error.issues[0]).toMatchObject({ path: 'body.surface', code: 'not-placeable' });
    const unknown = await admin.put('/api/v1/surfaces/panel/placement', { surface: 'nope', nav: null });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.issues[0]).toMatchObject({ path: 'body.surface', code: 'unknown-surface' });
    const noApp = await admin.put('/api/v1/surfaces/absent/placement', { surface: 'page', nav: null });
    expect(noApp.status).toBe(404);
    expect(noApp.body.error.code).toBe('ADDON_NOT_FOUND');
    expect((await admin.put('/api/v1/surfaces/panel/placement', { surface: 'page', nav: { section: 'Apps!', order: 1 } })).status).toBe(400);

    const cleared = await admin.put('/api/v1/surfaces/panel/placement', { surface: 'page', nav: null });
    expect(cleared.status).toBe(200);
    expect((await surfaces()).find((s) => s['name'] === 'page')!['placement']).toBeNull();

    // A placement goes with its app.
    expect((await admin.put('/api/v1/surfaces/panel/placement', { surface: 'page', nav: { section: 'apps', order: 1 } })).status).toBe(200);
    expect((await admin.delete('/api/v1/add-ons/panel')).status).toBe(200);
    await install('panel', '1.0.0');
    expect((await surfaces()).find((s) => s['name'] === 'page')!['placement']).toBeNull();
  });

  it("moves an app's tables to another connection while they are empty, its endpoints with them", async () => {
    expect(sqliteTablesLike(secondFile(), 'table_booking')).toEqual([]);
    const res = await admin.put('/api/v1/surfaces/table-booking/connection', { connectionId: second });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.addon).toMatchObject({ key: 'table-booking', connectionId: second });
    expect(sqliteTablesLike(secondFile(), 'table_booking')).toEqual(['table_booking__bookings', 'table_booking__venue_settings']);
    // The old, empty tables stay where they were.
    expect(sqliteTablesLike(source.database, 'table_booking')).toEqual(['table_booking__bookings', 'table_booking__venue_settings']);
    expect((await surfaces()).find((s) => s['appKey'] === 'table-booking')!['connectionId']).toBe(second);
    const scopes = await admin.get(`/api/v1/public-scopes?connectionId=${second}`);
    expect(scopes.status, scopes.text).toBe(200);
    expect(
      scopes.body.data.scopes
        .filter((s: { ref: string; virtual: boolean }) => s.ref.startsWith('table-booking-') && !s.virtual)
        .map((s: { ref: string }) => s.ref)
        .sort(),
    ).toEqual(['table-booking-bookings', 'table-booking-my-booking']);

    // While a table holds a row the app stays where it is.
    run(
      secondFile(),
      "insert into table_booking__bookings (booked_at, party, name, email, code, created_at) values ('2030-01-01 19:00:00', 2, 'Ada', 'ada@example.com', 'ABC123', '2030-01-01 10:00:00')",
    );
    const refused = await admin.put('/api/v1/surfaces/table-booking/connection', { connectionId: first });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'ADDON_TABLES_NOT_EMPTY', params: { tables: ['table_booking__bookings'] } });
    expect((await admin.get('/api/v1/add-ons')).body.data.addons.find((a: { key: string }) => a.key === 'table-booking').connectionId).toBe(second);

    // Emptied, it moves back onto the connection that still holds its (empty) tables in the declared shape.
    run(secondFile(), 'delete from table_booking__bookings');
    const back = await admin.put('/api/v1/surfaces/table-booking/connection', { connectionId: first });
    expect(back.status, back.text).toBe(200);
    expect(back.body.data.addon.connectionId).toBe(first);
    // The same connection again: nothing to do.
    expect((await admin.put('/api/v1/surfaces/table-booking/connection', { connectionId: first })).status).toBe(200);
    expect((await admin.put('/api/v1/surfaces/table-booking/connection', { connectionId: 'c_nope' })).status).toBe(404);
  });
});
