import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { hostRequest } from '../../../test/helpers/host-request.js';
import { databaseAvailable } from '../../../test/helpers/databases.js';
import { bearer, bootWithAdmin } from '../../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { panelPackage, uploadPackage } from '../testing.js';

/** D28 `PUT /surfaces/domains`: a public-page surface on its own host name, and nothing else of the instance there. */
describe('surfaces on their own host names', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let appKey = '';
  let otherKey = '';
  let booking = '';
  const date = new Date(Date.now() + 4 * 86_400_000).toISOString().slice(0, 10);
  const availability = `/api/v1/public/availability/table-booking-bookings?date=${date}&party=2`;
  const on = (host: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: unknown) =>
    hostRequest(inst.url, { host, path, headers, method, body });
  const put = (domains: unknown[]) => admin.put('/api/v1/surfaces/domains', { domains });
  const widgetDomains = async () =>
    (await admin.get('/api/v1/surfaces')).body.data.surfaces.find((s: { appKey: string; name: string }) => s.appKey === 'table-booking' && s.name === 'widget')
      .domains;

  const install = async (key: string, connectionId?: string) => {
    const planned = await admin.get(`/api/v1/add-ons/${key}/plan?version=1.0.0${connectionId ? `&connectionId=${connectionId}` : ''}`);
    expect(planned.status, planned.text).toBe(200);
    const res = await admin.post('/api/v1/add-ons', {
      key,
      version: '1.0.0',
      planHash: planned.body.data.plan.hash,
      ...(connectionId ? { connectionId } : {}),
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.addon;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: 'https://venue.example', SVC_BASE_URL: 'http://admin.test' } }));
    booking = `booking.test:${new URL(inst.url).port}`;
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    expect((await admin.post('/api/v1/add-ons/download', { key: 'table-booking', version: '1.0.0' })).status).toBe(201);
    const installed = await install('table-booking', conn.body.data.connection.id);
    expect((await uploadPackage(inst.url, admin, await panelPackage())).status).toBe(201);
    await install('panel');
    expect((await admin.put('/api/v1/public-api', { enabled: true })).status).toBe(200);
    appKey = (await admin.get(`/api/v1/public-keys/${installed.appKeyId}/reveal`)).body.data.secret;
    const other = await admin.post('/api/v1/public-keys', {
      name: 'Another page',
      kind: 'browser',
      expires: 'never',
      grants: [{ ref: 'table-booking-bookings', methods: ['POST'] }],
    });
    expect(other.status, other.text).toBe(201);
    otherKey = other.body.data.secret;
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('refuses names that are not DNS names, are taken twice or are its own, and surfaces that are not public pages', async () => {
    const widget = { appKey: 'table-booking', surface: 'widget' };
    const res = await put([
      { host: 'https://shop.test', ...widget },
      { host: 'shop.test/book', ...widget },
      { host: '*.shop.test', ...widget },
      { host: 'Shop.Test', ...widget },
      { host: '10.0.0.7', ...widget },
      { host: 'localhost', ...widget },
      { host: 'shop.test:99999', ...widget },
      { host: 'admin.test:8080', ...widget },
      { host: 'twice.test', ...widget },
      { host: 'twice.test:8080', ...widget },
      { host: 'nothing.test', appKey: 'absent', surface: 'widget' },
      { host: 'nosuch.test', appKey: 'table-booking', surface: 'nope' },
      { host: 'badge.test', appKey: 'panel', surface: 'badge' },
      { host: 'page.test', appKey: 'panel', surface: 'page' },
    ]);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.issues.map((i: { path: string; code: string }) => `${i.path} ${i.code}`)).toEqual([
      'body.domains.0.host host-invalid',
      'body.domains.1.host host-invalid',
      'body.domains.2.host host-invalid',
      'body.domains.3.host host-invalid',
      'body.domains.4.host host-invalid',
      'body.domains.5.host host-invalid',
      'body.domains.6.host host-invalid',
      'body.domains.7.host host-own',
      'body.domains.9.host host-duplicate',
      'body.domains.10.appKey unknown-app',
      'body.domains.11.surface unknown-surface',
      'body.domains.12.surface not-public-page',
      'body.domains.13.surface not-public-page',
    ]);
    expect(await widgetDomains()).toEqual([]);
    // Only the add-ons manage permission changes it.
    const anonymous = await fetch(`${inst.url}/api/v1/surfaces/domains`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', origin: inst.url },
      body: JSON.stringify({ domains: [] }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('replaces the whole mapping and lists it with the surfaces', async () => {
    const first = await put([
      { host: booking, appKey: 'table-booking', surface: 'widget' },
      { host: 'book.example', appKey: 'table-booking', surface: 'widget', instance: null },
    ]);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.domains).toEqual([
      { host: 'book.example', appKey: 'table-booking', surface: 'widget', instance: null },
      { host: booking, appKey: 'table-booking', surface: 'widget', instance: null },
    ]);
    expect(await widgetDomains()).toEqual([
      { host: 'book.example', surface: 'widget', instance: null },
      { host: booking, surface: 'widget', instance: null },
    ]);
    // Mapped without a port, a name answers on any port.
    expect((await on('book.example:4321', '/')).text).toContain('<meta name="svc-app"');

    const second = await put([{ host: booking, appKey: 'table-booking', surface: 'widget' }]);
    expect(second.status, second.text).toBe(200);
    expect(await widgetDomains()).toEqual([{ host: booking, surface: 'widget', instance: null }]);
    // Unmapped, the name is just another Host (the dashboard's fallback), not the widget.
    expect((await on('book.example:4321', '/')).text).not.toContain('svc-app');
  });

  it('serves the surface at the root of the mapped host, unsandboxed, with a same-origin API base', async () => {
    const page = await on(booking, '/');
    expect(page.status, page.text).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const meta = /<meta name="svc-app" content="([^"]+)"/.exec(page.text)?.[1]?.replace(/&quot;/g, '"');
    expect(JSON.parse(meta!)).toEqual({ appKey, apiBase: `http://${booking}/api/v1/public` });
    const csp = String(page.headers['content-security-policy']);
    expect(csp).not.toContain('sandbox');
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect(page.headers['x-frame-options']).toBeUndefined();
    // Ignored (and complained about) by browsers on a plain-http origin.
    expect(page.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(page.headers['referrer-policy']).toBe('same-origin');

    const js = await on(booking, '/widget.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect((await on(booking, '/widget.css')).status).toBe(200);
    expect((await on(booking, '/index.html?v=1')).status).toBe(200);
    expect((await on(booking, '/nope.js')).status).toBe(404);
  });

  it('answers 404 for everything else of the instance on the mapped host', async () => {
    for (const path of [
      '/api/v1/users',
      '/api/v1/auth/me',
      '/api/v1/healthz',
      '/healthz',
      '/docs',
      '/assets/index.js',
      '/ws',
      '/api/v1/add-ons/table-booking/bundle/widget/index.html',
      '/api/v1/public/../users',
    ]) {
      const res = await on(booking, path);
      expect(res.status, path).toBe(404);
      expect(res.body?.error?.code, path).toMatch(/NOT_FOUND/);
      expect(res.text, path).not.toContain('<div id="root"');
    }
    const login = await on(booking, '/api/v1/auth/login', { origin: `http://${booking}` }, 'POST', { email: 'root@example.com', password: 'root-password' });
    expect(login.status).toBe(404);
    expect(login.headers['set-cookie']).toBeUndefined();
  });

  it('treats the name with a trailing dot, or in capitals, as the mapped name (issue 26 point 27)', async () => {
    const port = new URL(inst.url).port;
    for (const host of [`booking.test.:${port}`, `BOOKING.Test.:${port}`]) {
      const page = await on(host, '/');
      expect(page.status, host).toBe(200);
      expect(page.text, host).toContain('svc-app');
      expect(page.text, host).not.toContain('<div id="root"');
      for (const path of ['/api/v1/users', '/api/v1/auth/me', '/assets/index.js', '/docs']) {
        const res = await on(host, path);
        expect(res.status, `${host}${path}`).toBe(404);
        expect(res.text, `${host}${path}`).not.toContain('<div id="root"');
      }
      const login = await on(host, '/api/v1/auth/login', { origin: `http://${host}` }, 'POST', { email: 'root@example.com', password: 'root-password' });
      expect(login.status, host).toBe(404);
      expect(login.headers['set-cookie']).toBeUndefined();
    }
  });

  it("admits the app's own key from its mapped origin only", async () => {
    const origin = `http://${booking}`;
    const fromPage = await on(booking, availability, { ...bearer(appKey), origin });
    expect(fromPage.status, fromPage.text).toBe(200);
    // A same-origin GET carries no Origin, only Sec-Fetch-Site.
    expect((await on(booking, availability, { ...bearer(appKey), 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    // Over plain http a browser sends no fetch metadata: the page's Referer names it.
    expect((await on(booking, availability, { ...bearer(appKey), referer: `${origin}/` })).status).toBe(200);
    expect((await on(booking, availability, { ...bearer(appKey), referer: 'https://evil.example/' })).body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    expect((await on(booking, availability, { ...bearer(appKey) })).body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    expect((await on(booking, availability, { ...bearer(appKey), 'sec-fetch-site': 'cross-site', referer: `${origin}/` })).body.error.code).toBe(
      'PUBLIC_ORIGIN_REFUSED',
    );
    expect((await on(booking, availability, { ...bearer(appKey), origin: 'https://evil.example' })).body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    // Another browser key is not at home there.
    const other = await on(booking, availability, { ...bearer(otherKey), origin });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    // The mapped origin is the app's own name only on its host: not through the instance's own one.
    const main = new URL(inst.url).host;
    expect((await on(main, availability, { ...bearer(appKey), origin })).body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    // A listed origin still works on the mapped host, as anywhere.
    expect((await on(booking, availability, { ...bearer(otherKey), origin: 'https://venue.example' })).status).toBe(200);
  });

  it('leaves unmapped hosts as they were', async () => {
    const main = new URL(inst.url).host;
    expect((await on(main, '/api/v1/users')).status).toBe(401);
    expect((await on(main, '/api/v1/healthz')).status).toBe(200);
    const bundle = await on(main, '/api/v1/add-ons/table-booking/bundle/widget/index.html');
    expect(bundle.status).toBe(200);
    expect(String(bundle.headers['content-security-policy'])).toContain('sandbox allow-scripts allow-forms');
    expect((await on('elsewhere.test', '/api/v1/users')).status).toBe(401);
  });

  it("serves one instance's page on a name mapped to it, and admits only that instance's key there", async () => {
    const unknown = await put([{ host: 'north.test', appKey: 'table-booking', surface: 'widget', instance: 'north' }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.issues[0]).toMatchObject({ path: 'body.domains.0.instance', code: 'unknown-instance' });
    const made = await admin.put('/api/v1/surfaces/instances', { appKey: 'table-booking', instances: [{ id: 'north', name: 'North' }] });
    expect(made.status, made.text).toBe(200);
    const northKey: string = made.body.data.created.find((k: { instance: string }) => k.instance === 'north').secret;
    const north = `north.test:${new URL(inst.url).port}`;
    const mapped = await put([
      { host: booking, appKey: 'table-booking', surface: 'widget' },
      { host: north, appKey: 'table-booking', surface: 'widget', instance: 'north' },
    ]);
    expect(mapped.status, mapped.text).toBe(200);
    const page = await on(north, '/');
    const meta = /<meta name="svc-app" content="([^"]+)"/.exec(page.text)?.[1]?.replace(/&quot;/g, '"');
    expect(JSON.parse(meta!)).toEqual({ appKey: northKey, apiBase: `http://${north}/api/v1/public` });
    expect((await on(north, availability, { ...bearer(northKey), origin: `http://${north}` })).status).toBe(200);
    // The app's own key is the default venue's: it is at home on booking.test, not on the north venue's name; and the other way round.
    expect((await on(north, availability, { ...bearer(appKey), origin: `http://${north}` })).body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    expect((await on(booking, availability, { ...bearer(northKey), origin: `http://${booking}` })).body.error.code).toBe('PUBLIC_ORIGIN_REFUSED');
    // Removing the instance unmaps its name at once.
    expect((await admin.put('/api/v1/surfaces/instances', { appKey: 'table-booking', instances: [] })).status).toBe(200);
    expect((await widgetDomains()).map((d: { host: string }) => d.host)).toEqual([booking]);
    expect((await on(north, '/api/v1/users')).status).toBe(401);
  });

  it('serves nothing on the mapped host while the app is disabled', async () => {
    expect((await admin.patch('/api/v1/add-ons/table-booking', { enabled: false })).status).toBe(200);
    try {
      const page = await on(booking, '/');
      expect(page.status).toBe(404);
      expect(page.body.error.code).toBe('ADDON_NOT_FOUND');
      expect((await on(booking, availability, { ...bearer(appKey), origin: `http://${booking}` })).status).toBe(401);
    } finally {
      expect((await admin.patch('/api/v1/add-ons/table-booking', { enabled: true })).status).toBe(200);
    }
    expect((await on(booking, '/')).status).toBe(200);
  });

  it("unmaps an app's names when the app is removed", async () => {
    expect((await admin.delete('/api/v1/add-ons/table-booking')).status).toBe(200);
    // The name is no longer mapped: it is just another Host of the instance again.
    expect((await on(booking, '/api/v1/users')).status).toBe(401);
    expect((await put([])).body.data.domains).toEqual([]);
    const again = await put([{ host: booking, appKey: 'table-booking', surface: 'widget' }]);
    expect(again.status).toBe(400);
    expect(again.body.error.issues[0]).toMatchObject({ path: 'body.domains.0.appKey', code: 'unknown-app' });
  });
});

describe.runIf(await databaseAvailable('postgres'))('mapped names across replicas sharing a PostgreSQL meta store', () => {
  const env = { SVC_SECRET: 'domains-replica-secret-'.padEnd(40, 'x'), SVC_PUBLIC_API_ORIGINS: 'https://venue.example' };
  let a: TestInstance;
  let b: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  /** What replica b serves on the shared name, polled until `done` holds (the replicas reload every 5 s). */
  const onB = async (done: (text: string) => boolean): Promise<string> => {
    let text = '';
    for (let i = 0; i < 40; i++) {
      text = (await hostRequest(b.url, { host: `shared.test:${new URL(b.url).port}`, path: '/' })).text;
      if (done(text)) return text;
      await new Promise((r) => setTimeout(r, 250));
    }
    return text;
  };

  beforeAll(async () => {
    ({ inst: a, admin } = await bootWithAdmin({ meta: 'postgres', env }));
    b = await startInstance({ metaUrl: a.metaUrl!, env });
    source = await sourceFixture('sqlite');
    const conn = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(conn.status, conn.text).toBe(201);
    expect((await admin.post('/api/v1/add-ons/download', { key: 'table-booking', version: '1.0.0' })).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/table-booking/plan?version=1.0.0&connectionId=${conn.body.data.connection.id}`);
    const installed = await admin.post('/api/v1/add-ons', {
      key: 'table-booking',
      version: '1.0.0',
      connectionId: conn.body.data.connection.id,
      planHash: plan.body.data.plan.hash,
    });
    expect(installed.status, installed.text).toBe(201);
  });
  afterAll(async () => {
    // b first: a drops the temp database.
    await b?.close();
    await a?.close();
    await source?.cleanup();
  });

  it('serves a name mapped on one replica on the other within seconds, and stops when it is unmapped', async () => {
    expect((await admin.put('/api/v1/surfaces/domains', { domains: [{ host: 'shared.test', appKey: 'table-booking', surface: 'widget' }] })).status).toBe(200);
    expect(await onB((t) => t.includes('svc-app'))).toContain('<meta name="svc-app"');
    expect((await admin.put('/api/v1/surfaces/domains', { domains: [] })).status).toBe(200);
    expect(await onB((t) => !t.includes('svc-app'))).not.toContain('svc-app');
  }, 30_000);
});
