import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { addUser, bootWithAdmin } from '../../test/helpers/identity.js';
import type { TestInstance } from '../../test/helpers/instance.js';
import { createI18nPlugin } from './manifest.js';
import { fixtureCatalogue } from './testing.js';

const pgUp = await databaseAvailable('postgres');

async function upload(inst: TestInstance, client: HttpClient, path: string, name: string, content: string | Buffer) {
  const form = new FormData();
  form.append('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  const res = await fetch(`${inst.url}${path}`, {
    method: 'POST',
    body: form,
    headers: { cookie: `svc_session=${client.cookie('svc_session')}`, origin: inst.url },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const issue = (res: { body: { error: { issues?: Array<{ path: string; code: string }> } } }) => res.body.error.issues?.map((i) => `${i.path}:${i.code}`);

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pgUp)(`i18n writes (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let editor: HttpClient;

    beforeAll(async () => {
      ({ inst, admin } = await bootWithAdmin({ meta, replacePlugins: [createI18nPlugin({ catalogueDir: fixtureCatalogue() })] }));
      editor = (await addUser(inst, { role: 'editor', email: `i18n-editor-${meta}@example.com` })).client;
    });
    afterAll(async () => {
      await inst?.close();
    });

    const bundle = async (locale: string, ns: string) => (await call(inst, admin, 'GET', `/api/v1/i18n/bundle/${locale}/${ns}`)).body.data.messages;

    it('stores a checked text, which the bundle shows at once under a new ETag', async () => {
      const before = await call(inst, admin, 'GET', '/api/v1/i18n/bundle/xa_BB/core');
      const put = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.bold', locale: 'xa', value: 'Xead <b>xis</b>' });
      expect(put.status).toBe(200);
      expect(put.body.data).toEqual({ key: 'core.bold' });
      const after = await call(inst, admin, 'GET', '/api/v1/i18n/bundle/xa_BB/core');
      expect(after.body.data.messages['core.bold']).toBe('Xead <b>xis</b>'); // through xa_BB's fallback
      expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
      const audit = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'target_id']).where('action', '=', 'i18n.key.put').execute();
      expect(audit).toEqual([{ action: 'i18n.key.put', target_id: 'xa/core/core.bold' }]);
    });

    it('tells every locale that shows the text that its bundle changed (i18n.changed)', async () => {
      const heard: unknown[] = [];
      const stop = inst.app.kernel.events.listen(['i18n.changed'], (e) => heard.push(e.data));
      try {
        await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'shell', key: 'nav.settings', locale: 'xa', value: 'Xettings' });
        await expect.poll(() => heard.length).toBeGreaterThanOrEqual(2);
        expect(heard).toEqual(
          expect.arrayContaining([
            { locale: 'xa', namespace: 'shell' },
            { locale: 'xa_BB', namespace: 'shell' },
          ]),
        );
        expect(heard).not.toContainEqual({ locale: 'xb', namespace: 'shell' });
      } finally {
        stop();
        await call(inst, admin, 'DELETE', '/api/v1/i18n/keys?namespace=shell&key=nav.settings&locale=xa');
      }
    });

    it('refuses an unclosed brace, a renamed placeholder, a plural without other, with what is wrong', async () => {
      const put = (value: string) => call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.hello', locale: 'xa', value });
      const brace = await put('Xallo {name');
      expect([brace.status, issue(brace)]).toEqual([400, ['body.value:icu-syntax']]);
      expect(brace.body.error.params.problems[0]).toMatchObject({ offset: 6 });
      const renamed = await put('Xallo {nom}');
      expect(issue(renamed)).toEqual(['body.value:placeholders']);
      expect(renamed.body.error.params.problems[0]).toMatchObject({ expected: ['{name}'], found: ['{nom}'] });
      const plural = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', {
        namespace: 'core',
        key: 'core.rows',
        locale: 'xa',
        value: '{count, plural, one {# x}}',
      });
      expect(issue(plural)).toEqual(['body.value:plural-other']);
      expect((await bundle('xa', 'core'))['core.hello']).toBe('Xallo {name}');
    });

    it('refuses an unknown key, an unknown locale, a writer without i18n.write', async () => {
      const key = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.nope', locale: 'xa', value: 'x' });
      expect([key.status, key.body.error.code]).toEqual([404, 'NOT_FOUND']);
      const loc = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'zz', value: 'x' });
      expect([loc.status, loc.body.error.code]).toEqual([404, 'I18N_LOCALE_NOT_FOUND']);
      const hyphen = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'pt-BR', value: 'x' });
      expect(issue(hyphen)).toEqual(['body.locale:invalid_format']);
      const long = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'xa', value: 'x'.repeat(10_001) });
      expect(issue(long)).toEqual(['body.value:too_big']);
      const ed = await call(inst, editor, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'xa', value: 'x' });
      expect(ed.status).toBe(403);
      expect((await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=xa')).status).toBe(200);
    });

    it('lists keys with their state, filtered and paged', async () => {
      await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'xa', value: 'Xave!' });
      const res = await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=xa_BB&namespace=core');
      const byKey = Object.fromEntries(res.body.data.keys.map((k: { key: string; state: string }) => [k.key, k]));
      expect(byKey['core.save']).toMatchObject({ state: 'translated', value: 'Bave', source: 'Save', updatedAt: null });
      expect(byKey['core.hello']).toMatchObject({ state: 'fallback', value: null });
      const xa = await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=xa&namespace=core');
      const xaSave = xa.body.data.keys.find((k: { key: string }) => k.key === 'core.save');
      expect(xaSave).toMatchObject({ state: 'override', value: 'Xave!' });
      expect(typeof xaSave.updatedAt).toBe('number');
      const missing = await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=xb&missing=true');
      expect(missing.body.data.keys.map((k: { key: string }) => k.key)).toEqual(['core.bold', 'core.rows', 'core.save', 'nav.home', 'nav.settings']);
      const q = await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=xa&q=HOME');
      expect(q.body.data.keys.map((k: { key: string }) => k.key)).toEqual(['nav.home']);
      const page1 = await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=xa&limit=4');
      expect(page1.body.data.keys).toHaveLength(4);
      const page2 = await call(inst, editor, 'GET', `/api/v1/i18n/keys?locale=xa&limit=4&cursor=${page1.body.data.nextCursor}`);
      expect(page2.body.data.keys.map((k: { key: string }) => k.key)).toEqual(['nav.home', 'nav.settings']);
      expect(page2.body.data.nextCursor).toBeNull();
      expect(issue(await call(inst, editor, 'GET', '/api/v1/i18n/keys?locale=zz'))).toEqual(['query.locale:unknown-locale']);
    });

    it('removes a stored text so the shipped one shows again; deletes a custom key everywhere', async () => {
      await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'shell', key: 'nav.home', locale: 'xa', value: 'Xome!' });
      expect((await bundle('xa', 'shell'))['nav.home']).toBe('Xome!');
      const del = await call(inst, admin, 'DELETE', '/api/v1/i18n/keys?namespace=shell&key=nav.home&locale=xa');
      expect(del.body).toEqual({ data: { ok: true } });
      expect((await bundle('xa', 'shell'))['nav.home']).toBe('Xome');
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/keys?namespace=shell&key=nav.home&locale=xa')).status).toBe(404);
      expect(issue(await call(inst, admin, 'DELETE', '/api/v1/i18n/keys?namespace=shell&key=nav.home'))).toEqual(['query.locale:required']);

      // custom: a new key is created; its en text is its source.
      expect(
        (await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'custom', key: 'custom.page.orders', locale: 'en', value: 'Orders' })).status,
      ).toBe(200);
      expect(
        (await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'custom', key: 'custom.page.orders', locale: 'xa', value: 'Xorders' })).status,
      ).toBe(200);
      expect(await bundle('xa_BB', 'custom')).toEqual({ 'custom.page.orders': 'Xorders' });
      expect(await bundle('xb', 'custom')).toEqual({ 'custom.page.orders': 'Orders' });
      const bad = await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'custom', key: 'custom.page.orders', locale: 'xa', value: 'X {n}' });
      expect(issue(bad)).toEqual(['body.value:placeholders']);
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/keys?namespace=custom&key=custom.page.orders')).status).toBe(200);
      expect(await bundle('xa', 'custom')).toEqual({});
    });

    it('writes a bulk all or nothing', async () => {
      const bad = await call(inst, admin, 'POST', '/api/v1/i18n/keys/bulk', {
        items: [
          { namespace: 'shell', key: 'nav.settings', locale: 'xb', value: 'Bettings' },
          { namespace: 'core', key: 'core.hello', locale: 'xb', value: 'Bello {' },
          { namespace: 'core', key: 'core.gone', locale: 'xb', value: 'x' },
        ],
      });
      expect([bad.status, issue(bad)]).toEqual([400, ['body.items.1.value:icu-syntax', 'body.items.2:not-found']]);
      expect((await bundle('xb', 'shell'))['nav.settings']).toBe('Settings');
      const ok = await call(inst, admin, 'POST', '/api/v1/i18n/keys/bulk', {
        items: [
          { namespace: 'shell', key: 'nav.settings', locale: 'xb', value: 'Bettings' },
          { namespace: 'core', key: 'core.hello', locale: 'xb', value: 'Bello {name}' },
          { namespace: 'core', key: 'core.save', locale: 'xa', value: null },
        ],
      });
      expect(ok.body.data).toEqual({ updated: 2, deleted: 1 });
      expect((await bundle('xb', 'shell'))['nav.settings']).toBe('Bettings');
      expect((await bundle('xa', 'core'))['core.save']).toBe('Xave');
    });

    it('lists format errors of shipped and stored texts', async () => {
      const res = await call(inst, editor, 'GET', '/api/v1/i18n/format-errors?locale=xb');
      expect(res.status).toBe(200);
      // xb's file has "Bello {nom}", hidden by the stored "Bello {name}" of the bulk above: clean now.
      expect(res.body.data.errors).toEqual([]);
      await call(inst, admin, 'DELETE', '/api/v1/i18n/keys?namespace=core&key=core.hello&locale=xb');
      const again = await call(inst, editor, 'GET', '/api/v1/i18n/format-errors?locale=xb&namespace=core');
      expect(again.body.data).toEqual({
        errors: [expect.objectContaining({ locale: 'xb', namespace: 'core', key: 'core.hello', kind: 'placeholders', expected: ['{name}'], found: ['{nom}'] })],
        checked: 1,
      });
      expect(issue(await call(inst, editor, 'GET', '/api/v1/i18n/format-errors?locale=zz'))).toEqual(['query.locale:unknown-locale']);
      expect(issue(await call(inst, editor, 'GET', '/api/v1/i18n/format-errors?namespace=nope'))).toEqual(['query.namespace:unknown-namespace']);
    });

    it('adds, changes and deletes locales, refusing what the issue says', async () => {
      for (const bad of ['pt-BR', 'x', 'a'.repeat(36)])
        expect(issue(await call(inst, admin, 'POST', '/api/v1/i18n/locales', { locale: bad, name: 'Bad' }))?.[0], bad).toMatch(/^body\.locale:/);
      const he = await call(inst, admin, 'POST', '/api/v1/i18n/locales', { locale: 'he', name: 'עברית' });
      expect([he.status, he.body.data]).toEqual([201, { locale: 'he' }]);
      const sub = await call(inst, admin, 'POST', '/api/v1/i18n/locales', { locale: 'xa_CC', name: 'Xa (CC)' });
      expect(sub.status).toBe(201);
      const locales = (await call(inst, admin, 'GET', '/api/v1/i18n/locales')).body.data.locales;
      expect(locales.find((l: { locale: string }) => l.locale === 'he')).toMatchObject({ dir: 'rtl', fallback: 'en', shipped: false, enabled: true });
      expect(locales.find((l: { locale: string }) => l.locale === 'xa_CC')).toMatchObject({ dir: 'ltr', fallback: 'xa' });
      expect((await call(inst, admin, 'POST', '/api/v1/i18n/locales', { locale: 'xa', name: 'Again' })).body.error.code).toBe('I18N_LOCALE_EXISTS');
      expect(issue(await call(inst, admin, 'POST', '/api/v1/i18n/locales', { locale: 'yy', name: 'Y', fallback: 'zz' }))).toEqual([
        'body.fallback:fallback-unknown',
      ]);
      // A cycle: xa → xa_CC → xa.
      expect(issue(await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/xa', { fallback: 'xa_CC' }))).toEqual(['body.fallback:fallback-cycle']);
      expect(issue(await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/xa', { fallback: 'xa' }))).toEqual(['body.fallback:fallback-cycle']);
      const en = await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/en', { enabled: false });
      expect([en.status, en.body.error.code, en.body.error.params.reason]).toEqual([409, 'CONFLICT', 'source-locale']);
      expect((await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/en', { fallback: 'xa' })).body.error.params.reason).toBe('source-locale');

      // Disabling: gone from the manifest, its bundle 404; the instance default cannot be.
      expect((await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/xb', { enabled: false, name: 'Xb' })).status).toBe(200);
      expect((await call(inst, admin, 'GET', '/api/v1/i18n/bundle/xb/core')).body.error.code).toBe('I18N_LOCALE_NOT_FOUND');
      const manifest = (await call(inst, admin, 'GET', '/api/v1/i18n/manifest')).body.data;
      expect(manifest.locales.map((l: { locale: string }) => l.locale)).toEqual(['en', 'he', 'xa', 'xa_BB', 'xa_CC']);
      expect((await call(inst, admin, 'GET', '/api/v1/i18n/locales')).body.data.locales.find((l: { locale: string }) => l.locale === 'xb')).toMatchObject({
        enabled: false,
        name: 'Xb',
        shipped: true,
      });
      const defaults = { theme: null, accent: null, density: null, locale: 'xa', dir: null };
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/defaults', defaults)).status).toBe(200);
      expect((await call(inst, admin, 'GET', '/api/v1/i18n/manifest')).body.data.defaultLocale).toBe('xa');
      const dflt = await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/xa', { enabled: false });
      expect([dflt.status, dflt.body.error.params.reason]).toEqual([409, 'instance-default']);

      // Deleting: shipped and en refused; one added here goes with its texts.
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/locales/xa')).body.error.params.reason).toBe('shipped-locale');
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/locales/en')).body.error.params.reason).toBe('source-locale');
      await call(inst, admin, 'PUT', '/api/v1/settings/defaults', { ...defaults, locale: 'he' });
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/locales/he')).body.error.params.reason).toBe('instance-default');
      await call(inst, admin, 'PUT', '/api/v1/settings/defaults', { ...defaults, locale: null });
      await call(inst, admin, 'PUT', '/api/v1/i18n/keys', { namespace: 'core', key: 'core.save', locale: 'he', value: 'שמור' });
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/locales/he')).body).toEqual({ data: { ok: true } });
      expect((await call(inst, admin, 'GET', '/api/v1/i18n/bundle/he/core')).status).toBe(404);
      const left = await inst.app.kernel.db
        .withTables<{ i18n_messages: { locale: string } }>()
        .selectFrom('i18n_messages')
        .select('locale')
        .where('locale', '=', 'he')
        .execute();
      expect(left).toEqual([]);
      expect((await call(inst, admin, 'DELETE', '/api/v1/i18n/locales/he')).body.error.code).toBe('I18N_LOCALE_NOT_FOUND');
    });

    it('exports JSON, PO and XLIFF, and imports them back, a bad message rejected alone', async () => {
      const json = await admin.request('GET', '/api/v1/i18n/export/xa?format=json&namespace=core');
      expect(json.status).toBe(200);
      expect(json.headers.get('content-disposition')).toBe('attachment; filename="xa-core.json"');
      expect(JSON.parse(json.text)).toEqual({
        core: { 'core.bold': 'Xead <b>xis</b>', 'core.hello': 'Xallo {name}', 'core.rows': '{count, plural, one {# xow} other {# xows}}', 'core.save': 'Xave' },
      });
      const po = await admin.request('GET', '/api/v1/i18n/export/xa?format=po');
      expect(po.headers.get('content-type')).toContain('text/x-gettext-translation');
      expect(po.text).toContain('msgctxt "core.core.save"\nmsgid "Save"\nmsgstr "Xave"');
      expect(po.text).toContain('msgctxt "shell.nav.settings"\nmsgid "Settings"\nmsgstr ""');
      const xliff = await admin.request('GET', '/api/v1/i18n/export/xa?format=xliff&namespace=shell');
      expect(xliff.text).toContain('version="1.2"');
      expect(xliff.text).toContain('<trans-unit id="nav.home">');
      expect((await admin.request('GET', '/api/v1/i18n/export/zz?format=po')).status).toBe(404);

      // PO into xa_BB: one good, one renamed placeholder, one unknown key.
      const file = po.text
        .replace('msgctxt "shell.nav.settings"\nmsgid "Settings"\nmsgstr ""', 'msgctxt "shell.nav.settings"\nmsgid "Settings"\nmsgstr "Bettings"')
        .replace('msgstr "Xallo {name}"', 'msgstr "Ballo {nom}"')
        .concat('\nmsgctxt "core.core.nope"\nmsgid "Nope"\nmsgstr "Bope"\n');
      const dry = await upload(inst, admin, '/api/v1/i18n/import/xa_BB?dryRun=true', 'xa.po', file);
      expect(dry.status).toBe(200);
      expect(dry.body.data.rejected).toEqual([
        { namespace: 'core', key: 'core.hello', reason: 'placeholders' },
        { namespace: 'core', key: 'core.nope', reason: 'unknown-key' },
      ]);
      expect(dry.body.data.created).toBeGreaterThan(0);
      expect((await bundle('xa_BB', 'shell'))['nav.settings']).toBe('Settings');
      const real = await upload(inst, admin, '/api/v1/i18n/import/xa_BB', 'xa.po', file);
      expect(real.body.data).toEqual(dry.body.data);
      expect((await bundle('xa_BB', 'shell'))['nav.settings']).toBe('Bettings');
      // core.save: xa_BB ships "Bave"; without overwrite it stays, with overwrite it becomes xa's.
      expect((await bundle('xa_BB', 'core'))['core.save']).toBe('Bave');
      await upload(inst, admin, '/api/v1/i18n/import/xa_BB?overwrite=true', 'xa.po', file);
      expect((await bundle('xa_BB', 'core'))['core.save']).toBe('Xave');

      // XLIFF round trip.
      const x = await upload(inst, admin, '/api/v1/i18n/import/xa_CC', 'shell.xlf', xliff.text);
      expect(x.body.data).toMatchObject({ created: 1, rejected: [] });
      expect((await bundle('xa_CC', 'shell'))['nav.home']).toBe('Xome');

      // A file in the wrong format, or of an unknown one; too large.
      const wrong = await upload(inst, admin, '/api/v1/i18n/import/xa_BB?format=xliff', 'xa.po', file);
      expect([wrong.status, wrong.body.error.code, wrong.body.error.params.reason]).toEqual([400, 'I18N_FILE_INVALID', 'format']);
      const notJson = await upload(inst, admin, '/api/v1/i18n/import/xa_BB', 'xa.json', file);
      expect(notJson.body.error.params.reason).toBe('format');
      expect((await upload(inst, admin, '/api/v1/i18n/import/xa_BB', 'xa.txt', file)).body.error.params.reason).toBe('format-unknown');
      const big = await upload(inst, admin, '/api/v1/i18n/import/xa_BB', 'big.json', Buffer.alloc(5 * 1024 * 1024 + 1, 0x20));
      expect([big.status, big.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      const json2 = await upload(
        inst,
        admin,
        '/api/v1/i18n/import/xa_BB?format=json',
        'x',
        JSON.stringify({ core: { 'core.rows': '{count, plural, one {#}}', 'core.bold': 3 } }),
      );
      expect(json2.body.data.rejected).toEqual([
        { namespace: 'core', key: 'core.rows', reason: 'plural-other' },
        { namespace: 'core', key: 'core.bold', reason: 'not-text' },
      ]);
    });
  });
}
