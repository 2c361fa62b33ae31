import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { hostRequest } from '../../../test/helpers/host-request.js';
import { bootWithAdmin } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { sourceFixture, type SourceFixture } from '../../connections/testing.js';
import { matchesIfNoneMatch } from '../../../kernel/api.js';
import { bundlePath, injectAppMeta, isHashedName } from './bundle.js';
import { packFixture, uploadPackage } from '../testing.js';

const ORIGIN = 'https://venue.example';

/** A GET with the path sent exactly as written (fetch would normalise `..` and backslashes away). */
function rawGet(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('bundle paths, names and headers (unit)', () => {
  it('takes <surface>/<file> of safe segments and refuses everything else', () => {
    expect(bundlePath('widget/index.html')).toEqual({ surface: 'widget', file: 'index.html' });
    expect(bundlePath('page/assets/logo.svg')).toEqual({ surface: 'page', file: 'assets/logo.svg' });
    for (const bad of [
      '',
      'widget',
      'widget/',
      '/etc/passwd',
      'widget/../addon.json',
      'widget/./index.html',
      'widget/%2e%2e/x',
      'a\\..\\b',
      'w/a\0b',
      'w//x',
      'w/.env',
      'w/a b',
    ])
      expect(bundlePath(bad), bad).toBeNull();
  });
  it('knows hashed names, compares If-None-Match weakly and escapes the injected meta', () => {
    expect(isHashedName('app.3f9a1c2b.js')).toBe(true);
    expect(isHashedName('assets/chunk-0123456789abcdef.css')).toBe(true);
    expect(isHashedName('widget.js')).toBe(false);
    expect(isHashedName('app.js')).toBe(false);
    expect(matchesIfNoneMatch('W/"abc", "def"', '"abc"')).toBe(true);
    expect(matchesIfNoneMatch('"x"', '"abc"')).toBe(false);
    expect(matchesIfNoneMatch('*', '"abc"')).toBe(true);
    const out = injectAppMeta('<html><head><meta charset="utf-8" /><title>t</title></head></html>', { appKey: `k"<'&>`, apiBase: 'https://a/api/v1/public' });
    expect(out).toContain('<meta charset="utf-8" />\n    <meta name="svc-app" content="{&quot;appKey&quot;:&quot;k\\&quot;&lt;&#39;&amp;&gt;&quot;');
    expect(out.indexOf('svc-app')).toBeLessThan(out.indexOf('<title>'));
  });
});

describe('GET /add-ons/{key}/bundle/{*} on a started instance', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let source: SourceFixture;
  let appKey: string;

  const install = async (key: string, version: string, connectionId?: string) => {
    const planned = await admin.get(`/api/v1/add-ons/${key}/plan?version=${version}${connectionId ? `&connectionId=${connectionId}` : ''}`);
    expect(planned.status, planned.text).toBe(200);
    const res = await admin.post('/api/v1/add-ons', { key, version, planHash: planned.body.data.plan.hash, ...(connectionId ? { connectionId } : {}) });
    expect(res.status, res.text).toBe(201);
    return res.body.data.addon;
  };

  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_PUBLIC_API_ORIGINS: ORIGIN } }));
    source = await sourceFixture('sqlite');
    const created = await admin.post('/api/v1/connections', { name: 'Venue', dialect: 'sqlite', url: source.url });
    expect(created.status, created.text).toBe(201);
    expect((await admin.post('/api/v1/add-ons/download', { key: 'table-booking', version: '1.0.0' })).status).toBe(201);
    const booking = await install('table-booking', '1.0.0', created.body.data.connection.id);
    appKey = (await admin.get(`/api/v1/public-keys/${booking.appKeyId}/reveal`)).body.data.secret;

    // A dashboard page with a hashed asset, a nested folder and files outside its surface.
    const panel = await packFixture(
      {
        key: 'panel',
        name: 'Panel',
        version: '1.0.0',
        engine: '>=0.1.0',
        surfaces: [{ name: 'page', kind: 'dashboard-page', title: 'Panel' }],
      },
      null,
      {
        'surfaces/page/index.html': '<!doctype html><html><head><title>Panel</title></head><body><script src="app.3f9a1c2b.js"></script></body></html>',
        'surfaces/page/app.3f9a1c2b.js': 'console.log("panel");\n',
        'surfaces/page/assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
        'README.md': '# Panel\n',
      },
    );
    expect((await uploadPackage(inst.url, admin, panel.bytes)).status).toBe(201);
    await install('panel', '1.0.0');
  });
  afterAll(async () => {
    await inst?.close();
    await source?.cleanup();
  });

  it('builds the CSP and the API base from the instance’s own names, never from a forged Host (issue 26 point 28)', async () => {
    const path = '/api/v1/add-ons/table-booking/bundle/widget/index.html';
    const port = new URL(inst.url).port;
    for (const host of [
      `127.0.0.1:${port}; sandbox allow-same-origin; script-src *`,
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1:${port} https://evil.example`,
    ]) {
      const res = await hostRequest(inst.url, { host, path });
      expect(res.status, host).toBe(421);
      expect(res.body?.error?.code, host).toBe('HOST_NOT_ALLOWED');
      expect(String(res.headers['content-security-policy'] ?? ''), host).not.toMatch(/evil|allow-same-origin|script-src \*/);
      expect(res.text, host).not.toContain('evil');
    }
    // The instance's own names still work: its loopback address, and `localhost` on its port.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await hostRequest(inst.url, { host, path });
      expect(res.status, host).toBe(200);
      expect(String(res.headers['content-security-policy'])).toContain(`script-src http://${host}/api/v1/add-ons/table-booking/bundle/;`);
    }
  });

  it("serves a surface's index.html with the app key and the public API base injected, and safe headers", async () => {
    const res = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/index.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain(`connect-src ${inst.url}/api/v1/public/;`);
    expect(csp).toContain(`script-src ${inst.url}/api/v1/add-ons/table-booking/bundle/;`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`frame-ancestors ${inst.url} ${ORIGIN}`);
    expect(csp).toContain('sandbox allow-scripts allow-forms');
    expect(csp).not.toMatch(/allow-same-origin|unsafe-inline|unsafe-eval|\*/);
    const html = await res.text();
    const meta = /<meta name="svc-app" content="([^"]*)" \/>/.exec(html);
    expect(meta).not.toBeNull();
    const config = JSON.parse(meta![1]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
    expect(config).toEqual({ appKey, apiBase: `${inst.url}/api/v1/public` });
    expect(html.indexOf('svc-app')).toBeLessThan(html.indexOf('widget.js'));

    const again = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/index.html`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const head = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/index.html`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('gives assets the MIME type of their extension and caches hashed names for a year', async () => {
    const js = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/widget.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^(application|text)\/javascript; charset=utf-8$/);
    expect(js.headers.get('cache-control')).toBe('no-cache');
    expect(js.headers.get('cross-origin-opener-policy')).toBeNull();
    expect(await js.text()).toContain("from './booking.js'");
    // The SDK's surface helper, copied into the surface at build (AO40), is served beside it.
    const helper = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/svc-app.js`);
    expect(helper.status).toBe(200);
    expect(await helper.text()).toContain('export function connect');
    const css = await fetch(`${inst.url}/api/v1/add-ons/table-booking/bundle/widget/widget.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');

    const hashed = await fetch(`${inst.url}/api/v1/add-ons/panel/bundle/page/app.3f9a1c2b.js`);
    expect(hashed.status).toBe(200);
    expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const etag = hashed.headers.get('etag')!;
    expect((await fetch(`${inst.url}/api/v1/add-ons/panel/bundle/page/app.3f9a1c2b.js`, { headers: { 'if-none-match': `W/${etag}` } })).status).toBe(304);
    const svg = await fetch(`${inst.url}/api/v1/add-ons/panel/bundle/page/assets/logo.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(svg.headers.get('content-security-policy')).toContain('sandbox');

    // A dashboard page may be framed by the dashboard only; an app without endpoints has no key.
    const page = await fetch(`${inst.url}/api/v1/add-ons/panel/bundle/page/index.html`);
    expect(page.headers.get('content-security-policy')).toContain(`frame-ancestors ${inst.url};`);
    expect(await page.text()).toContain('<meta name="svc-app" content="{&quot;appKey&quot;:null,');
  });

  it('refuses traversal and malformed paths with 400 and never serves a file outside a declared surface', async () => {
    const base = '/api/v1/add-ons/table-booking/bundle';
    for (const path of [
      `${base}/widget/../../../../package.json`,
      `${base}/widget/%2e%2e/%2e%2e/addon.json`,
      `${base}/widget/%252e%252e/addon.json`,
      `${base}/widget/..%5c..%5caddon.json`,
      `${base}/widget\\..\\addon.json`,
      `${base}/widget/index.html%00.js`,
      `${base}//etc/passwd`,
      `${base}/%2fetc%2fpasswd`,
      `${base}/widget/%2e`,
      `${base}/addon.json`,
      `/api/v1/add-ons/panel/bundle/README.md`,
    ]) {
      const res = await rawGet(inst.url, path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.text).error.code, path).toMatch(/^(BAD_REQUEST|VALIDATION_FAILED)$/);
    }
    // Files of the package that are not in a surface, and names no surface has: 404.
    for (const path of [
      `${base}/widget/addon.json`,
      `${base}/widget/server.js`,
      `${base}/widget/missing.js`,
      `${base}/other/index.html`,
      `${base}/addon.json/x`,
    ]) {
      const res = await rawGet(inst.url, path);
      expect(res.status, path).toBe(404);
    }
    expect((await rawGet(inst.url, '/api/v1/add-ons/nope/bundle/widget/index.html')).status).toBe(404);
  });

  it('serves nothing of a disabled add-on (404 ADDON_NOT_FOUND) and serves again once enabled', async () => {
    expect((await admin.patch('/api/v1/add-ons/panel', { enabled: false })).status).toBe(200);
    const off = await rawGet(inst.url, '/api/v1/add-ons/panel/bundle/page/index.html');
    expect(off.status).toBe(404);
    expect(JSON.parse(off.text).error.code).toBe('ADDON_NOT_FOUND');
    expect((await admin.patch('/api/v1/add-ons/panel', { enabled: true })).status).toBe(200);
    expect((await rawGet(inst.url, '/api/v1/add-ons/panel/bundle/page/index.html')).status).toBe(200);
  });
});
