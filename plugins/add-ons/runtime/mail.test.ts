import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddonManifestInput } from '../../../addons-sdk/src/manifest/index.js';
import type { HttpClient } from '../../../test/helpers/client.js';
import { bootWithAdmin, ROOT } from '../../../test/helpers/identity.js';
import { startInstance, type TestInstance } from '../../../test/helpers/instance.js';
import { TestSmtpServer } from '../../../test/helpers/smtp.js';
import { packFixture, uploadPackage } from '../testing.js';

const manifest = (key: string, extra: Partial<AddonManifestInput> = {}): AddonManifestInput => ({
  key,
  name: key,
  version: '1.0.0',
  engine: '>=0.1.0',
  capabilities: ['mail.send'],
  actions: ['send', 'burst'],
  mail: {
    templates: [
      {
        name: 'welcome',
        subject: 'Welcome {{name}}',
        text: 'Hello {{name}}, your table is ready.',
        locales: { de: { subject: 'Willkommen {{name}}', text: 'Hallo {{name}}, Ihr Tisch ist bereit.' } },
      },
    ],
  },
  ...extra,
});

const SERVER = `
import { defineAddon } from '@svc/addons-sdk';
export default defineAddon({
  actions: {
    send: async (ctx, input) => { try { await ctx.mail.send(input.template, input.to, input.vars ?? {}); return 'ok'; } catch (e) { return e.code; } },
    burst: async (ctx, input) => {
      const out = [];
      for (let i = 0; i < input.count; i++) {
        try { await ctx.mail.send('welcome', 'burst@example.test', { name: 'B' + i }); out.push('ok'); } catch (e) { out.push(e.code); }
      }
      return out;
    },
  },
});
`;

describe('ctx.mail.send: only the add-on’s own templates, one address, the recipient’s language, an hourly quota (AO24)', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  const smtp = new TestSmtpServer();

  const install = async (key: string, extra: Partial<AddonManifestInput> = {}) => {
    const pkg = await packFixture(manifest(key, extra), SERVER);
    expect((await uploadPackage(inst.url, admin, pkg.bytes)).status).toBe(201);
    const plan = await admin.get(`/api/v1/add-ons/${key}/plan?version=1.0.0`);
    if (plan.status !== 200) return { plan };
    const res = await admin.post('/api/v1/add-ons', { key, version: '1.0.0', planHash: plan.body.data.plan.hash });
    expect(res.status, res.text).toBe(201);
    return { plan };
  };
  const send = async (input: unknown) => {
    const res = await admin.post('/api/v1/public/apps/notify/actions/send', { input });
    expect(res.status, res.text).toBe(200);
    return res.body.data.result as string;
  };

  beforeAll(async () => {
    await smtp.start();
    ({ inst, admin } = await bootWithAdmin({ env: { SVC_ADDON_MAIL_PER_HOUR: '5' } }));
    expect((await admin.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await smtp.stop();
  });

  it('shows the templates in the plan and lists them, editable, under e-mail templates', async () => {
    const { plan } = await install('notify');
    expect(plan.body.data.plan.mailTemplates).toEqual([{ key: 'notify.welcome', subject: 'Welcome {{name}}', locales: ['en', 'de'] }]);
    const list = await admin.get('/api/v1/email-templates');
    // Offered in every enabled locale (issue 31), so it can be written in each; the add-on ships en and de.
    const enabled = (await admin.get('/api/v1/i18n/manifest')).body.data.locales.map((l: { locale: string }) => l.locale).sort();
    expect(enabled).toEqual(expect.arrayContaining(['de', 'en']));
    expect(list.body.data.templates.filter((t: { key: string }) => t.key === 'notify.welcome').map((t: { locale: string }) => t.locale)).toEqual(enabled);
    const put = await admin.put('/api/v1/email-templates/notify.welcome/en', { subject: 'Hi {{name}}', text: 'Hello {{name}}, edited.' });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.template).toMatchObject({ key: 'notify.welcome', source: 'edited' });
  });

  it('sends in the recipient’s language: a user’s own, else the instance default, with the operator’s edit', async () => {
    expect((await admin.patch('/api/v1/me/prefs', { locale: 'de' })).status).toBe(200);
    expect(await send({ template: 'welcome', to: ROOT.email, vars: { name: 'Root' } })).toBe('ok');
    const [toUser] = await smtp.waitFor(1, 15_000);
    expect(toUser!.to).toEqual([ROOT.email]);
    expect(toUser!.subject).toBe('Willkommen Root');

    expect(await send({ template: 'welcome', to: 'guest@example.test', vars: { name: 'Guest' } })).toBe('ok');
    const guest = (await smtp.waitFor(2, 15_000))[1]!;
    expect(guest.subject).toBe('Hi Guest');
    expect(guest.text).toContain('edited');

    const defaults = { theme: null, accent: null, density: null, locale: 'de', dir: null };
    expect((await admin.put('/api/v1/settings/defaults', defaults)).status).toBe(200);
    expect(await send({ template: 'welcome', to: 'guest@example.test', vars: { name: 'Gast' } })).toBe('ok');
    expect((await smtp.waitFor(3, 15_000))[2]!.subject).toBe('Willkommen Gast');
    expect((await admin.put('/api/v1/settings/defaults', { ...defaults, locale: null })).status).toBe(200);
  });

  it('refuses the instance’s own templates and more than one address, and sends nothing', async () => {
    const before = smtp.received.length;
    expect(await send({ template: 'auth.password-reset', to: 'victim@example.test', vars: { link: 'https://evil.test' } })).toBe('ADDON_MAIL_TEMPLATE_UNKNOWN');
    expect(await send({ template: 'users.invitation', to: 'victim@example.test' })).toBe('ADDON_MAIL_TEMPLATE_UNKNOWN');
    expect(await send({ template: 'notify.welcome', to: 'victim@example.test' })).toBe('ADDON_MAIL_TEMPLATE_UNKNOWN');
    for (const to of ['a@example.test, b@example.test', 'a@example.test;b@example.test', 'Eve <a@example.test>', ['a@example.test', 'b@example.test']])
      expect(await send({ template: 'welcome', to })).toBe('VALIDATION_FAILED');
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.length).toBe(before);
  });

  it('answers ADDON_MAIL_QUOTA once the hourly quota is spent', async () => {
    // Three mails were sent above; the quota of five leaves two.
    const res = await admin.post('/api/v1/public/apps/notify/actions/burst', { input: { count: 4 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.result).toEqual(['ok', 'ok', 'ADDON_MAIL_QUOTA', 'ADDON_MAIL_QUOTA']);
    expect((await smtp.waitFor(5, 15_000)).length).toBe(5);
  });

  it('refuses a package whose template key another sender holds (409 ADDON_CONFLICT)', async () => {
    const { plan } = await install('auth', { mail: { templates: [{ name: 'password-reset', subject: 'Reset', text: 'Click {{link}}' }] } });
    expect(plan.status, plan.text).toBe(409);
    expect(plan.body.error).toMatchObject({ code: 'ADDON_CONFLICT', params: { what: 'mail-template', name: 'auth.password-reset' } });
  });
});

describe('the hourly quota is the add-on’s on every replica together (AO24)', () => {
  let a: TestInstance;
  let b: TestInstance;
  let adminA: HttpClient;
  const smtp = new TestSmtpServer();
  const env = { SVC_ADDON_MAIL_PER_HOUR: '3', SVC_SECRET: randomBytes(32).toString('hex') };
  let adminB: HttpClient;

  beforeAll(async () => {
    await smtp.start();
    ({ inst: a, admin: adminA } = await bootWithAdmin({ meta: 'postgres', env }));
    b = await startInstance({ metaUrl: a.metaUrl!, env });
    adminB = b.client();
    adminB.setCookie('svc_session', adminA.cookie('svc_session')!);
    expect((await adminA.put('/api/v1/settings/email', smtp.settings())).status).toBe(200);
    const pkg = await packFixture(manifest('notify'), SERVER);
    expect((await uploadPackage(a.url, adminA, pkg.bytes)).status).toBe(201);
    const plan = await adminA.get('/api/v1/add-ons/notify/plan?version=1.0.0');
    expect(plan.status, plan.text).toBe(200);
    expect((await adminA.post('/api/v1/add-ons', { key: 'notify', version: '1.0.0', planHash: plan.body.data.plan.hash })).status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await smtp.stop();
  });

  it('counts the mails sent on one replica against the other', async () => {
    const burst = (on: HttpClient, count: number) => on.post('/api/v1/public/apps/notify/actions/burst', { input: { count } });
    const onA = await burst(adminA, 2);
    expect(onA.status, onA.text).toBe(200);
    expect(onA.body.data.result).toEqual(['ok', 'ok']);
    // B loads the add-on when it hears of the install.
    await expect.poll(async () => (await burst(adminB, 0)).status, { timeout: 20_000 }).toBe(200);
    const onB = await burst(adminB, 3);
    expect(onB.status, onB.text).toBe(200);
    expect(onB.body.data.result).toEqual(['ok', 'ADDON_MAIL_QUOTA', 'ADDON_MAIL_QUOTA']);
    expect((await smtp.waitFor(3, 15_000)).length).toBe(3);
  });
});
