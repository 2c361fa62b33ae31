import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from '../../../test/helpers/client.js';
import { call } from '../../../test/helpers/contract.js';
import { activeUser, issuePaths } from '../../../test/helpers/identity.js';
import type { TestInstance } from '../../../test/helpers/instance.js';
import { TestSmtpServer } from '../../../test/helpers/smtp.js';
import { BOOKING_CONFIRMATION_TEMPLATE } from '../provides.js';
import { bootPublic } from '../testing.js';

const BOOKING = BOOKING_CONFIRMATION_TEMPLATE;

describe('e-mail templates', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  const smtp = new TestSmtpServer();
  beforeAll(async () => {
    ({ inst, admin } = await bootPublic());
    await smtp.start();
  });
  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
  });

  it('lists every registered key and locale, none edited yet', async () => {
    const res = await call(inst, admin, 'GET', '/api/v1/email-templates');
    const list = res.body.data.templates as Array<{ key: string; locale: string; edited: boolean }>;
    // Its own three, and every locale the instance has enabled (i18n).
    const enabled = (await call(inst, admin, 'GET', '/api/v1/i18n/locales')).body.data.locales
      .filter((l: { enabled: boolean }) => l.enabled)
      .map((l: { locale: string }) => l.locale);
    expect(list.filter((t) => t.key === BOOKING).map((t) => t.locale)).toEqual([...new Set(['de', 'en', 'fr', ...enabled])].sort());
    expect(list.map((t) => `${t.key}/${t.locale}`)).toEqual(expect.arrayContaining(['users.invitation/en', 'auth.password-reset/en']));
    expect(list.every((t) => !t.edited)).toBe(true);
    expect(res.body.data.nextCursor).toBeNull();
  });

  it('offers every enabled locale, one added in i18n included, with the subject it would be sent with', async () => {
    expect((await call(inst, admin, 'POST', '/api/v1/i18n/locales', { locale: 'nl', name: 'Nederlands' })).status).toBe(201);
    const list = (await call(inst, admin, 'GET', '/api/v1/email-templates')).body.data.templates as Array<Record<string, unknown>>;
    const en = list.find((t) => t.key === 'users.invitation' && t.locale === 'en')!;
    expect(list.find((t) => t.key === 'users.invitation' && t.locale === 'nl')).toEqual({
      key: 'users.invitation',
      locale: 'nl',
      edited: false,
      hasDefault: false,
      subject: en.subject,
      updatedAt: null,
    });
    expect((await call(inst, admin, 'PATCH', '/api/v1/i18n/locales/nl', { enabled: false })).status).toBe(200);
    const after = (await call(inst, admin, 'GET', '/api/v1/email-templates')).body.data.templates as Array<Record<string, unknown>>;
    expect(after.some((t) => t.locale === 'nl')).toBe(false);
  });

  it('ships a booking confirmation carrying code, time, party, cancellation window and manage link', async () => {
    for (const locale of ['en', 'de', 'fr']) {
      const t = (await call(inst, admin, 'GET', `/api/v1/email-templates/${BOOKING}/${locale}`)).body.data.template;
      expect(t).toMatchObject({ key: BOOKING, locale, source: 'default', resolvedLocale: locale, edited: false, updatedAt: null });
      expect(t.variables).toEqual(['cancelWindow', 'code', 'manageLink', 'party', 'time']);
    }
    const rendered = await inst.app.kernel.mailer.templates.render(BOOKING, 'de', {
      code: 'AB12',
      time: 'Fr 19:30',
      party: 4,
      cancelWindow: '2 Stunden',
      manageLink: 'https://x.test/m',
    });
    expect(rendered.text).toContain('AB12');
    expect(rendered.text).toContain('Fr 19:30');
    expect(rendered.text).toContain('Personen: 4');
    expect(rendered.text).toContain('2 Stunden');
    expect(rendered.text).toContain('https://x.test/m');
  });

  it('falls back from de_AT to de and from an unknown locale to en', async () => {
    const at = (await call(inst, admin, 'GET', `/api/v1/email-templates/${BOOKING}/de_AT`)).body.data.template;
    expect(at).toMatchObject({ locale: 'de_AT', source: 'fallback', resolvedLocale: 'de', edited: false });
    const es = (await call(inst, admin, 'GET', `/api/v1/email-templates/${BOOKING}/es`)).body.data.template;
    expect(es).toMatchObject({ locale: 'es', source: 'fallback', resolvedLocale: 'en' });
  });

  it('stores an edit that every sender uses, per locale', async () => {
    const put = await call(inst, admin, 'PUT', `/api/v1/email-templates/${BOOKING}/de`, {
      subject: 'Tisch {{code}} ist reserviert',
      text: 'Bis bald! Code {{code}}, {{time}}, {{party}} Personen. Stornieren bis {{cancelWindow}} vorher: {{manageLink}}',
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.template).toMatchObject({
      locale: 'de',
      source: 'edited',
      edited: true,
      html: null,
      subject: 'Tisch {{code}} ist reserviert',
      updatedAt: expect.any(Number),
    });
    const list = (await call(inst, admin, 'GET', '/api/v1/email-templates')).body.data.templates;
    expect(list.find((t: { key: string; locale: string }) => t.key === BOOKING && t.locale === 'de')).toMatchObject({ edited: true, hasDefault: true });
    // The kernel's renderer (what the data plane's sendTemplate uses) picks the edit, also through a fallback.
    const vars = { code: 'Q9', time: '19:30', party: 2, cancelWindow: '2 Stunden', manageLink: 'https://x.test' };
    expect((await inst.app.kernel.mailer.templates.render(BOOKING, 'de_AT', vars)).subject).toBe('Tisch Q9 ist reserviert');
    expect((await inst.app.kernel.mailer.templates.render(BOOKING, 'fr', vars)).subject).not.toContain('Tisch');

    // A locale without a default may be added.
    const it = await call(inst, admin, 'PUT', `/api/v1/email-templates/${BOOKING}/it`, {
      subject: 'Prenotazione {{code}}',
      text: 'Codice {{code}}',
      html: '<p>Codice {{code}}</p>',
    });
    expect(it.body.data.template).toMatchObject({ source: 'edited', html: '<p>Codice {{code}}</p>' });
    expect((await call(inst, admin, 'GET', '/api/v1/email-templates')).body.data.templates).toContainEqual(
      expect.objectContaining({ key: BOOKING, locale: 'it', edited: true, hasDefault: false }),
    );

    const trail = await inst.app.kernel.db.selectFrom('audit_log').select(['action', 'target_id']).where('action', '=', 'email-templates.update').execute();
    expect(trail.map((r) => r.target_id)).toEqual([`${BOOKING}/de`, `${BOOKING}/it`]);
  });

  it('refuses unknown keys (404) and bad input (400 naming the field)', async () => {
    expect((await call(inst, admin, 'GET', '/api/v1/email-templates/no.such/en')).status).toBe(404);
    expect((await call(inst, admin, 'PUT', '/api/v1/email-templates/no.such/en', { subject: 's', text: 't' })).status).toBe(404);
    expect(issuePaths(await call(inst, admin, 'GET', `/api/v1/email-templates/${BOOKING}/EN-us`))).toEqual(['params.locale']);
    expect(issuePaths(await call(inst, admin, 'PUT', `/api/v1/email-templates/${BOOKING}/en`, { subject: 'a\r\nBcc: x@y.z', text: 't' }))).toEqual([
      'body.subject',
    ]);
    expect(issuePaths(await call(inst, admin, 'PUT', `/api/v1/email-templates/${BOOKING}/en`, { subject: 's' }))).toEqual(['body.text']);
    expect(issuePaths(await call(inst, admin, 'POST', `/api/v1/email-templates/${BOOKING}/test-send`, { to: 'not-an-address' }))).toEqual(['body.to']);
  });

  it('test-send answers 409 EMAIL_NOT_CONFIGURED until SMTP is set up', async () => {
    const res = await call(inst, admin, 'POST', `/api/v1/email-templates/${BOOKING}/test-send`, { to: 'guest@example.com' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('EMAIL_NOT_CONFIGURED');
    expect(smtp.received).toHaveLength(0);
  });

  it('test-send goes through the configured SMTP server, in the locale asked for, with fallback', async () => {
    expect((await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings())).status).toBe(200);
    const de = await call(inst, admin, 'POST', `/api/v1/email-templates/${BOOKING}/test-send`, {
      to: 'gast@example.com',
      locale: 'de_AT',
      vars: { code: 'ZZ77' },
    });
    expect(de.status, de.text).toBe(200);
    expect(de.body.data).toMatchObject({ sent: true, locale: 'de', messageId: expect.any(String) });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual(['gast@example.com']);
    expect(mail!.subject).toBe('Tisch ZZ77 ist reserviert');

    const es = await call(inst, admin, 'POST', `/api/v1/email-templates/${BOOKING}/test-send`, { to: 'guest@example.com', locale: 'es' });
    expect(es.body.data.locale).toBe('en');
    const second = (await smtp.waitFor(2))[1]!;
    // Variables not given are filled with the booking samples.
    expect(second.subject).toBe('Your booking K7Q2-94XD: Friday 14 March, 19:30');
    expect(second.text).toContain('https://example.com/booking?code=K7Q2-94XD');

    const invite = await call(inst, admin, 'POST', '/api/v1/email-templates/users.invitation/test-send', { to: 'new@example.com' });
    expect(invite.status).toBe(200);
    expect((await smtp.waitFor(3))[2]!.text).toContain('[link]');
  });

  it('is for admins only', async () => {
    const editor = await activeUser(inst, admin, 'editor-templates@example.com', ['editor']);
    expect((await call(inst, editor.client, 'GET', '/api/v1/email-templates')).body.error).toMatchObject({
      code: 'FORBIDDEN',
      params: { permission: 'email-templates.read' },
    });
    const res = await call(inst, editor.client, 'PUT', `/api/v1/email-templates/${BOOKING}/en`, { subject: 's', text: 't' });
    expect(res.body.error).toMatchObject({ code: 'FORBIDDEN', params: { permission: 'email-templates.write' } });
  });
});
