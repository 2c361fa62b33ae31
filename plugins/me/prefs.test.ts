import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../test/helpers/client.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import { startInstance, type TestInstance } from '../../test/helpers/instance.js';
import { meDb } from './tables.js';
import { addUser, setupAdmin } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');
const UNSET = { theme: null, accent: null, density: null, locale: null, dir: null };
const SYSTEM = { theme: 'system', accent: 'indigo', density: 'comfortable', locale: 'en', dir: 'ltr' };
const allFrom = (source: string) => ({ theme: source, accent: source, density: source, locale: source, dir: source });

for (const meta of ['sqlite', 'postgres'] as const) {
  describe.runIf(meta === 'sqlite' || pg)(`GET and PATCH /me/prefs (${meta} meta store)`, () => {
    let inst: TestInstance;
    let admin: HttpClient;
    let user: HttpClient;
    let userId: string;
    const patch = (body: unknown, who = user) => call(inst, who, 'PATCH', '/api/v1/me/prefs', body);
    const setDefaults = (defaults: Record<string, unknown>) => call(inst, admin, 'PUT', '/api/v1/settings/defaults', { ...UNSET, ...defaults });

    beforeAll(async () => {
      inst = await startInstance({ meta });
      ({ client: admin } = await setupAdmin(inst));
      ({ client: user, userId } = await addUser(inst, { role: 'viewer', email: 'prefs@example.com' }));
    });
    afterAll(async () => {
      await inst?.close();
    });

    it('start unset, resolved to the system defaults', async () => {
      const res = await call(inst, user, 'GET', '/api/v1/me/prefs');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ prefs: UNSET, resolved: { ...SYSTEM, source: allFrom('system') } });
    });

    it('accept every allowed value of the enums and refuse others, naming the field', async () => {
      const allowed: Record<string, string[]> = {
        theme: ['light', 'dark', 'system'],
        accent: ['indigo', 'blue', 'teal', 'violet', 'rose', 'red', 'orange', 'black'],
        density: ['comfortable', 'compact'],
        dir: ['ltr', 'rtl'],
      };
      for (const [field, values] of Object.entries(allowed)) {
        for (const v of values) {
          const res = await patch({ [field]: v });
          expect(res.status, `${field}=${v}`).toBe(200);
          expect(res.body.data.prefs[field]).toBe(v);
          expect(res.body.data.resolved[field]).toBe(v);
          expect(res.body.data.resolved.source[field]).toBe('user');
        }
        for (const bad of ['', 'nope', 'Dark', 1, true]) {
          const res = await patch({ [field]: bad });
          expect(res.status, `${field}=${String(bad)}`).toBe(400);
          expect(res.body.error.issues.map((i: { path: string }) => i.path)).toContain(`body.${field}`);
        }
      }
      await patch(UNSET);
    });

    it('hold the locale to its pattern and to 2..35 characters', async () => {
      for (const locale of ['en', 'pt_BR', 'zh_Hant_TW', 'ast', 'sr_Latn_RS', 'de_12345678']) {
        const res = await patch({ locale });
        expect(res.status, locale).toBe(200);
        expect(res.body.data.prefs.locale).toBe(locale);
      }
      for (const locale of ['EN', 'e', 'en_', 'en-US', 'en_US_POSIX_x', 'abcd', 'en_123456789', 'e'.repeat(36), `en${'_abcdefgh'.repeat(4)}`]) {
        const res = await patch({ locale });
        expect(res.status, locale).toBe(400);
        expect(res.body.error.issues[0].path).toBe('body.locale');
      }
      await patch({ locale: null });
    });

    it('leave absent fields alone, unset on null, and refuse unknown keys', async () => {
      await patch({ theme: 'dark', density: 'compact' });
      const res = await patch({ density: null });
      expect(res.body.data.prefs).toEqual({ ...UNSET, theme: 'dark' });
      expect(res.body.data.resolved.source).toEqual({ ...allFrom('system'), theme: 'user' });
      expect((await patch({})).body.data.prefs).toEqual({ ...UNSET, theme: 'dark' });
      const unknown = await patch({ theme: 'light', colour: 'red' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.issues[0].path).toBe('body');
      // The seed's five fields and no other: a time zone is the browser's to keep (ME8).
      const zone = await patch({ timeZone: 'Europe/Paris' });
      expect(zone.status).toBe(400);
      expect(zone.body.error.issues[0].path).toBe('body');
      expect((await call(inst, user, 'PATCH', '/api/v1/me/prefs', undefined)).status).toBe(400);
      const row = await meDb(inst.app.kernel.db).selectFrom('user_prefs').selectAll().where('user_id', '=', userId).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ ...UNSET, theme: 'dark' });
      await patch(UNSET);
    });

    it('resolve user over global over system, naming the source', async () => {
      await setDefaults({ theme: 'dark', accent: 'teal', locale: 'pt_BR' });
      let res = await call(inst, user, 'GET', '/api/v1/me/prefs');
      expect(res.body.data.resolved).toEqual({
        theme: 'dark',
        accent: 'teal',
        density: 'comfortable',
        locale: 'pt_BR',
        dir: 'ltr',
        source: { theme: 'global', accent: 'global', density: 'system', locale: 'global', dir: 'system' },
      });
      res = await patch({ theme: 'light', density: 'compact' });
      expect(res.body.data.resolved).toMatchObject({ theme: 'light', accent: 'teal', density: 'compact' });
      expect(res.body.data.resolved.source).toMatchObject({ theme: 'user', accent: 'global', density: 'user' });
      // The admin's own prefs are separate from the user's.
      expect((await call(inst, admin, 'GET', '/api/v1/me/prefs')).body.data.resolved.source.theme).toBe('global');
      await setDefaults({});
      res = await call(inst, user, 'GET', '/api/v1/me/prefs');
      expect(res.body.data.resolved.source).toMatchObject({ theme: 'user', accent: 'system', locale: 'system' });
      await patch(UNSET);
    });

    it('derive dir from the resolved locale when dir is unset anywhere', async () => {
      for (const [locale, dir] of [
        ['ar', 'rtl'],
        ['he', 'rtl'],
        ['fa', 'rtl'],
        ['ur', 'rtl'],
        ['ar_EG', 'rtl'],
        ['en', 'ltr'],
        ['fr_CA', 'ltr'],
        ['arn', 'ltr'],
      ] as const) {
        const res = await patch({ locale });
        expect(res.body.data.resolved, locale).toMatchObject({ locale, dir, source: { locale: 'user', dir: 'system' } });
      }
      // A global default locale drives dir as well; a set dir wins over the derived one.
      await patch({ locale: null });
      await setDefaults({ locale: 'he' });
      expect((await call(inst, user, 'GET', '/api/v1/me/prefs')).body.data.resolved).toMatchObject({
        locale: 'he',
        dir: 'rtl',
        source: { locale: 'global', dir: 'system' },
      });
      await setDefaults({ locale: 'he', dir: 'ltr' });
      expect((await call(inst, user, 'GET', '/api/v1/me/prefs')).body.data.resolved).toMatchObject({ dir: 'ltr', source: { dir: 'global' } });
      expect((await patch({ dir: 'rtl' })).body.data.resolved).toMatchObject({ dir: 'rtl', source: { dir: 'user' } });
      await setDefaults({});
      await patch(UNSET);
    });

    it('record each change in the audit trail', async () => {
      await patch({ accent: 'rose' });
      const entry = await inst.app.kernel.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'me.prefs.update')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(entry).toMatchObject({ actor_id: userId, target_type: 'user', target_id: userId });
      expect(JSON.parse(entry.diff!).after.accent).toBe('rose');
    });
  });
}
