import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin, issuePaths } from '../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { svgUnsafe } from './logo.js';
import { png } from '../../test/helpers/images.js';

const pgUp = await databaseAvailable('postgres');

const SAFE_SVG =
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><defs><linearGradient id="g"/></defs><rect width="120" height="40" fill="url(#g)" style="fill: #123"/></svg>';

async function upload(inst: TestInstance, client: HttpClient, name: string, bytes: Buffer, type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${inst.url}/api/v1/branding/logo`, {
    method: 'POST',
    body: form,
    headers: { cookie: `svc_session=${client.cookie('svc_session')}`, origin: inst.url },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pgUp)(`branding (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let editor: HttpClient;

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ meta }));
      editor = (await addUser(inst, { role: 'editor', email: `brand-editor-${meta}@example.com` })).client;
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('answers the branding to anyone, and changes it for an admin only', async () => {
      const anon = await call(inst, inst.client(), 'GET', '/api/v1/branding');
      expect(anon.status).toBe(200);
      expect(anon.body.data).toEqual({ productName: 'Admin', colors: { primary: null }, logo: null, signInMessage: null });

      const refused = await call(inst, editor, 'PUT', '/api/v1/settings/branding', { productName: 'Mine' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.params.permission).toBe('branding.write');

      const put = await call(inst, admin, 'PUT', '/api/v1/settings/branding', {
        productName: 'Bakery admin',
        colors: { primary: '#1D4ED8' },
        signInMessage: 'Staff only.',
      });
      expect(put.status, put.text).toBe(200);
      expect(put.body.data.branding).toEqual({ productName: 'Bakery admin', colors: { primary: '#1d4ed8' }, logo: null, signInMessage: 'Staff only.' });
      // Left out stays; null clears.
      const again = await call(inst, admin, 'PUT', '/api/v1/settings/branding', { signInMessage: null });
      expect(again.body.data.branding).toMatchObject({ productName: 'Bakery admin', colors: { primary: '#1d4ed8' }, signInMessage: null });
      expect((await call(inst, inst.client(), 'GET', '/api/v1/branding')).body.data.productName).toBe('Bakery admin');
      // The first paint has it too.
      expect((await call(inst, inst.client(), 'GET', '/api/v1/bootstrap')).body.data.branding.productName).toBe('Bakery admin');
    });

    it('refuses a colour that is no #rrggbb or that white text cannot be read on, a name too long, an unknown field', async () => {
      for (const [body, path, code] of [
        [{ colors: { primary: 'red' } }, 'body.colors.primary', 'color-invalid'],
        [{ colors: { primary: '#ffff00' } }, 'body.colors.primary', 'color-contrast'],
        [{ colors: { primary: '#777777' } }, 'body.colors.primary', 'color-contrast'],
      ] as const) {
        const res = await call(inst, admin, 'PUT', '/api/v1/settings/branding', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.issues).toEqual([expect.objectContaining({ path, code })]);
      }
      expect(issuePaths(await call(inst, admin, 'PUT', '/api/v1/settings/branding', { productName: 'x'.repeat(61) }))).toEqual(['body.productName']);
      expect(issuePaths(await call(inst, admin, 'PUT', '/api/v1/settings/branding', { productName: '   ' }))).toEqual(['body.productName']);
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/branding', { logo: 'x' })).status).toBe(400);
      // #767676 is the lightest grey with 4.5:1 under white text.
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/branding', { colors: { primary: '#767676' } })).status).toBe(200);
    });

    it('takes a logo by its bytes, serves it with its ETag and headers, and removes it', async () => {
      const image = png(64, 32);
      // Named .svg and sent as SVG: its bytes say PNG.
      const up = await upload(inst, admin, 'logo.svg', image, 'image/svg+xml');
      expect(up.status, JSON.stringify(up.body)).toBe(201);
      const logo = up.body.data.branding.logo;
      expect(logo).toEqual({ url: '/api/v1/branding/logo', type: 'image/png', width: 64, height: 32, etag: expect.stringMatching(/^"[\w-]{43}"$/) });

      const got = await fetch(`${inst.url}${logo.url}`);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('etag')).toBe(logo.etag);
      expect(got.headers.get('cache-control')).toBe('public, no-cache');
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-security-policy')).toBeNull();
      expect(Buffer.from(await got.arrayBuffer()).equals(image)).toBe(true);
      const cached = await fetch(`${inst.url}${logo.url}`, { headers: { 'if-none-match': logo.etag } });
      expect(cached.status).toBe(304);
      expect((await cached.arrayBuffer()).byteLength).toBe(0);

      // An SVG replaces it, and is served so that it can run and load nothing.
      const svg = await upload(inst, admin, 'logo.svg', Buffer.from(SAFE_SVG));
      expect(svg.status, JSON.stringify(svg.body)).toBe(201);
      expect(svg.body.data.branding.logo).toMatchObject({ type: 'image/svg+xml', width: 120, height: 40 });
      expect(svg.body.data.branding.logo.etag).not.toBe(logo.etag);
      const svgGot = await fetch(`${inst.url}/api/v1/branding/logo`);
      expect(svgGot.headers.get('content-type')).toBe('image/svg+xml');
      expect(svgGot.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
      expect(await svgGot.text()).toBe(SAFE_SVG);
      // The PNG it replaced is gone from the file store.
      expect((await inst.app.kernel.files.list('branding/')).length).toBe(1);

      expect((await upload(inst, editor, 'x.png', image)).status).toBe(403);
      const removed = await call(inst, admin, 'DELETE', '/api/v1/branding/logo');
      expect(removed.status).toBe(200);
      expect(removed.body.data.branding.logo).toBeNull();
      expect((await fetch(`${inst.url}/api/v1/branding/logo`)).status).toBe(404);
      expect((await call(inst, admin, 'DELETE', '/api/v1/branding/logo')).status).toBe(404);
      expect(await inst.app.kernel.files.list('branding/')).toEqual([]);
    });

    it('refuses a file that is no image, too wide, unsafe or too large, saying why', async () => {
      const cases: Array<[string, Buffer, string]> = [
        ['notes.png', Buffer.from('just some text'), 'format'],
        ['wide.png', png(4000, 1), 'dimensions'],
        ['script.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'), 'svg-unsafe'],
        ['onload.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)"/>'), 'svg-unsafe'],
        ['foreign.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><foreignObject/></svg>'), 'svg-unsafe'],
        [
          'href.svg',
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="https://evil.example/x.png"/></svg>'),
          'svg-unsafe',
        ],
      ];
      for (const [name, bytes, reason] of cases) {
        const res = await upload(inst, admin, name, bytes);
        expect(res.status, name).toBe(400);
        expect(res.body.error.code, name).toBe('BRANDING_LOGO_INVALID');
        expect(res.body.error.params.reason, name).toBe(reason);
      }
      const big = await upload(inst, admin, 'big.png', Buffer.concat([png(8, 8), Buffer.alloc(513 * 1024)]));
      expect(big.status).toBe(413);
      expect((await call(inst, inst.client(), 'GET', '/api/v1/branding')).body.data.logo).toBeNull();
    });
  });
}

describe('an SVG logo’s checks', () => {
  it('refuses what could run or load, and keeps what only draws', () => {
    expect(svgUnsafe(SAFE_SVG)).toBe(false);
    for (const bad of [
      '<svg><SCRIPT src="x.js"/></svg>',
      '<svg><a xlink:href="javascript:alert(1)">x</a></svg>',
      '<svg><use href="other.svg#a"/></svg>',
      '<svg><rect style="fill:url(https://x.example/p)"/></svg>',
      '<svg><style>@import "x.css";</style></svg>',
      '<!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>',
      '<svg><rect onclick = "x()"/></svg>',
    ])
      expect(svgUnsafe(bad), bad).toBe(true);
  });
});

describe.runIf(pgUp)('branding on two replicas of one PostgreSQL meta store', () => {
  let a: TestInstance;
  let b: TestInstance;
  let admin: HttpClient;
  const env = { SVC_SECRET: 'branding-replicas-'.padEnd(40, 'x') };
  beforeAll(async () => {
    ({ inst: a, admin } = await bootWithAdmin({ meta: 'postgres', env }));
    b = await startInstance({ metaUrl: a.metaUrl!, env });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('shows a change made on one replica on the other, logo included', async () => {
    expect((await call(b, b.client(), 'GET', '/api/v1/branding')).body.data.productName).toBe('Admin');
    expect((await call(a, admin, 'PUT', '/api/v1/settings/branding', { productName: 'Two replicas' })).status).toBe(200);
    const image = png(10, 10);
    expect((await upload(a, admin, 'logo.png', image)).status).toBe(201);
    await expect.poll(async () => (await call(b, b.client(), 'GET', '/api/v1/branding')).body.data.productName, { timeout: 10_000 }).toBe('Two replicas');
    await expect.poll(async () => (await fetch(`${b.url}/api/v1/branding/logo`)).status, { timeout: 10_000 }).toBe(200);
    expect(Buffer.from(await (await fetch(`${b.url}/api/v1/branding/logo`)).arrayBuffer()).equals(image)).toBe(true);
  });
});
