import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin } from '../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { createI18nPlugin } from './manifest.js';
import { fixtureCatalogue } from './testing.js';
import { readSourceCatalogue } from '../../scripts/gen-messages.mjs';

const pgUp = await databaseAvailable('postgres');

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pgUp)(`i18n read side (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let viewer: HttpClient;

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ meta, replacePlugins: [createI18nPlugin({ catalogueDir: fixtureCatalogue() })] }));
      viewer = (await addUser(inst, { role: 'viewer', email: `i18n-viewer-${meta}@example.com` })).client;
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('answers the manifest to anyone, with a strong ETag and 304', async () => {
      const anon = inst.client();
      const res = await call(inst, anon, 'GET', '/api/v1/i18n/manifest');
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(data.source).toBe('en');
      expect(data.defaultLocale).toBe('en');
      expect(data.namespaces).toEqual(['core', 'custom', 'shell']);
      expect(data.locales.map((l: { locale: string }) => l.locale)).toEqual(['en', 'xa', 'xa_BB', 'xb']);
      expect(data.locales.find((l: { locale: string }) => l.locale === 'xa_BB')).toMatchObject({ fallback: 'xa', dir: 'ltr' });
      expect(data.locales.find((l: { locale: string }) => l.locale === 'en')).toMatchObject({ fallback: null });
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      const again = await anon.request('GET', '/api/v1/i18n/manifest', { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
    });

    it('answers a bundle merged along the fallback chain, its ETag the manifest’s hash', async () => {
      const anon = inst.client();
      const manifest = (await call(inst, anon, 'GET', '/api/v1/i18n/manifest')).body.data;
      const res = await call(inst, anon, 'GET', '/api/v1/i18n/bundle/xa_BB/core');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        locale: 'xa_BB',
        namespace: 'core',
        messages: {
          'core.hello': 'Xallo {name}', // from xa, its fallback
          'core.rows': '{count, plural, one {# xow} other {# xows}}',
          'core.save': 'Bave', // its own
          'core.bold': 'Read <b>this</b>', // en, last
        },
      });
      expect(res.headers.get('etag')).toBe(`"${manifest.hashes.xa_BB.core}"`);
      expect(res.headers.get('cache-control')).toBe('public, no-cache');
      const again = await anon.request('GET', '/api/v1/i18n/bundle/xa_BB/core', { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
      const en = await call(inst, anon, 'GET', '/api/v1/i18n/bundle/en/shell');
      expect(en.body.data.messages).toEqual({ 'nav.home': 'Home', 'nav.settings': 'Settings' });
    });

    it('refuses an unknown locale, an unknown namespace, a malformed locale, and custom signed out', async () => {
      const anon = inst.client();
      expect((await call(inst, anon, 'GET', '/api/v1/i18n/bundle/zz/core')).body.error.code).toBe('I18N_LOCALE_NOT_FOUND');
      const ns = await call(inst, anon, 'GET', '/api/v1/i18n/bundle/xa/nothing');
      expect([ns.status, ns.body.error.code]).toEqual([404, 'NOT_FOUND']);
      const hyphen = await call(inst, anon, 'GET', '/api/v1/i18n/bundle/pt-BR/core');
      expect([hyphen.status, hyphen.body.error.issues[0].path]).toEqual([400, 'params.locale']);
      const custom = await call(inst, anon, 'GET', '/api/v1/i18n/bundle/en/custom');
      expect([custom.status, custom.body.error.code]).toEqual([401, 'AUTH_REQUIRED']);
      const signed = await call(inst, viewer, 'GET', '/api/v1/i18n/bundle/en/custom');
      expect([signed.status, signed.body.data.messages]).toEqual([200, {}]);
    });

    it('lists every locale with its completeness to anyone signed in', async () => {
      expect((await call(inst, inst.client(), 'GET', '/api/v1/i18n/locales')).status).toBe(401);
      const res = await call(inst, viewer, 'GET', '/api/v1/i18n/locales');
      expect(res.status).toBe(200);
      const xa = res.body.data.locales.find((l: { locale: string }) => l.locale === 'xa');
      expect(xa).toMatchObject({ enabled: true, shipped: true, fallback: 'en', completeness: { core: 0.75, shell: 0.5, custom: 1 } });
      expect(res.body.data.locales[0]).toMatchObject({ locale: 'en', name: 'English', completeness: { core: 1, shell: 1 } });
      void admin;
    });
  });
}

describe('i18n on the real catalogue (i18n/ at the repository root)', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    ({ inst } = await bootWithAdmin({ meta: 'sqlite' }));
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('serves the English files as they are, every namespace in the manifest', async () => {
    const source = readSourceCatalogue() as Record<string, Record<string, string>>;
    const manifest = (await call(inst, inst.client(), 'GET', '/api/v1/i18n/manifest')).body.data;
    expect(manifest.namespaces).toEqual([...new Set([...Object.keys(source), 'custom'])].sort());
    for (const ns of Object.keys(source).filter((n) => n !== 'custom')) {
      const res = await call(inst, inst.client(), 'GET', `/api/v1/i18n/bundle/en/${ns}`);
      expect(res.body.data.messages, ns).toEqual(source[ns]);
    }
  });

  it('sends a bundle compressed once as the client asks, the same ETag for every encoding', async () => {
    const get = (encoding: string) =>
      new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        httpGet(`${inst.url}/api/v1/i18n/bundle/en/shell`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        }).on('error', reject);
      });
    const plain = await get('identity');
    const br = await get('gzip, br');
    const gz = await get('br;q=0, gzip');
    expect([plain.headers['content-encoding'], br.headers['content-encoding'], gz.headers['content-encoding']]).toEqual([undefined, 'br', 'gzip']);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]).size).toBe(1);
    expect(br.headers.vary).toContain('accept-encoding');
    expect(JSON.parse(plain.body.toString('utf8')).data.namespace).toBe('shell');
  });
});

describe.runIf(pgUp)('i18n on two replicas of one PostgreSQL meta store', () => {
  let a: TestInstance;
  let b: TestInstance;
  let admin: HttpClient;
  const env = { SVC_SECRET: 'i18n-replicas-'.padEnd(40, 'x') };
  beforeAll(async () => {
    const catalogueDir = fixtureCatalogue();
    ({ inst: a, admin } = await bootWithAdmin({ meta: 'postgres', env, replacePlugins: [createI18nPlugin({ catalogueDir })] }));
    b = await startInstance({ metaUrl: a.metaUrl!, env, replacePlugins: [createI18nPlugin({ catalogueDir })] });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('drops the kept bundle on the other replica when a text changes', async () => {
    expect((await call(b, b.client(), 'GET', '/api/v1/i18n/bundle/xa/core')).body.data.messages['core.save']).toBe('Xave');
    expect((await call(a, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'xa', value: 'Xave 2' })).status).toBe(200);
    await expect
      .poll(async () => (await call(b, b.client(), 'GET', '/api/v1/i18n/bundle/xa/core')).body.data.messages['core.save'], { timeout: 10_000 })
      .toBe('Xave 2');
  });
});
