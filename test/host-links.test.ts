import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../plugins/auth/testing.js';
import { call } from './helpers/contract.js';
import type { HttpClient } from './helpers/client.js';
import { bootWithAdmin } from './helpers/identity.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { TestSmtpServer } from './helpers/smtp.js';

/**
 * Issue 11 item 2: with SVC_BASE_URL unset, reset and invitation links followed the request's
 * Host, so `forgot` with a foreign Host mailed the victim a live token on the attacker's host;
 * and first-boot setup could be claimed through DNS rebinding. Real HTTP, real Host headers.
 */
interface Raw {
  status: number;
  body: any;
}

function raw(inst: TestInstance, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Raw> {
  const url = new URL(inst.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...headers }, setHost: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const smtp = new TestSmtpServer();
beforeAll(async () => void (await smtp.start()));
afterAll(async () => smtp.stop());
const settle = () => new Promise((r) => setTimeout(r, 750));
async function mailTo(to: string) {
  for (let i = 0; i < 100; i++) {
    const mail = smtp.received.find((m) => m.to.includes(to));
    if (mail) return mail;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

describe('reset and invitation links without SVC_BASE_URL', () => {
  let inst: TestInstance;
  let admin: HttpClient;
  let port: string;
  beforeAll(async () => {
    ({ inst, admin } = await bootWithAdmin());
    port = new URL(inst.url).port;
    expect((await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings())).status).toBe(200);
    await createUser(inst, { email: 'victim@example.com' });
  });
  afterAll(async () => inst?.close());
  afterEach(() => void (smtp.received.length = 0));

  it('forgot with a foreign Host answers 409 BASE_URL_REQUIRED and mails nothing (also for an unknown e-mail: no enumeration)', async () => {
    for (const email of ['victim@example.com', 'nobody@example.com']) {
      const res = await raw(inst, 'POST', '/api/v1/auth/password/forgot', { host: `evil.example:${port}` }, { email });
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error.code).toBe('BASE_URL_REQUIRED');
    }
    await settle();
    expect(smtp.received).toEqual([]);
    const tokens = await inst.app.kernel.db.selectFrom('password_tokens').select('user_id').where('purpose', '=', 'reset').execute();
    expect(tokens).toEqual([]);
  });

  it('forgot on the instance’s own address still mails a link to that address', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const res = await raw(inst, 'POST', '/api/v1/auth/password/forgot', { host }, { email: 'victim@example.com' });
      expect(res.status).toBe(200);
      const mail = await mailTo('victim@example.com');
      expect(mail.text).toContain(`http://${host}/reset-password?token=`);
      smtp.received.length = 0;
    }
    // A loopback name on another port is not this instance.
    expect((await raw(inst, 'POST', '/api/v1/auth/password/forgot', { host: 'localhost:1' }, { email: 'victim@example.com' })).status).toBe(409);
  });

  it('inviting (create, resend) through a foreign Host answers 409 BASE_URL_REQUIRED and creates no one', async () => {
    const foreign = `evil.example:${port}`;
    const headers = { host: foreign, origin: `http://${foreign}`, cookie: `svc_session=${admin.cookie('svc_session')}` };
    const res = await raw(inst, 'POST', '/api/v1/users', headers, { email: 'invitee@example.com', name: 'Ivy', roleIds: ['viewer'] });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.code).toBe('BASE_URL_REQUIRED');
    expect(await inst.app.kernel.db.selectFrom('users').select('id').where('email', '=', 'invitee@example.com').execute()).toEqual([]);
    // A user with a password needs no link: the same request with one is fine.
    const withPassword = await raw(inst, 'POST', '/api/v1/users', headers, {
      email: 'direct@example.com',
      name: 'D',
      password: 'long-enough-pw',
      roleIds: ['viewer'],
    });
    expect(withPassword.status).toBe(201);

    const invited = await call(inst, admin, 'POST', '/api/v1/users', { email: 'later@example.com', name: 'Lou', roleIds: ['viewer'] });
    expect(invited.status).toBe(201);
    await mailTo('later@example.com');
    smtp.received.length = 0;
    const resend = await raw(inst, 'POST', `/api/v1/users/${invited.body.data.user.id}/invite/resend`, headers);
    expect(resend.status).toBe(409);
    expect(resend.body.error.code).toBe('BASE_URL_REQUIRED');
    const moved = await raw(inst, 'PATCH', `/api/v1/users/${invited.body.data.user.id}`, headers, { email: 'moved@example.com' });
    expect(moved.status).toBe(409);
    expect(moved.body.error.code).toBe('BASE_URL_REQUIRED');
    await settle();
    expect(smtp.received).toEqual([]);
  });
});

describe('links with SVC_BASE_URL', () => {
  it('go to SVC_BASE_URL whatever the Host', async () => {
    const { inst, admin } = await bootWithAdmin({ env: { SVC_BASE_URL: 'https://admin.example.test' } });
    try {
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings())).status).toBe(200);
      await createUser(inst, { email: 'based@example.com' });
      const res = await raw(inst, 'POST', '/api/v1/auth/password/forgot', { host: 'evil.example' }, { email: 'based@example.com' });
      expect(res.status).toBe(200);
      const mail = await mailTo('based@example.com');
      expect(mail.text).toContain('https://admin.example.test/reset-password?token=');
      expect(mail.text).not.toContain('evil.example');
    } finally {
      smtp.received.length = 0;
      await inst.close();
    }
  });
});

describe('links for a split deployment (SVC_CORS_ORIGINS, no SVC_BASE_URL)', () => {
  it('go to the listed dashboard origin the request came from; an unlisted one is refused', async () => {
    const { inst, admin } = await bootWithAdmin({ env: { SVC_CORS_ORIGINS: 'https://dash.example.test' } });
    try {
      expect((await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings())).status).toBe(200);
      await createUser(inst, { email: 'split@example.com' });
      const ok = await raw(
        inst,
        'POST',
        '/api/v1/auth/password/forgot',
        { host: 'api.example.test', origin: 'https://dash.example.test' },
        { email: 'split@example.com' },
      );
      expect(ok.status).toBe(200);
      expect((await mailTo('split@example.com')).text).toContain('https://dash.example.test/reset-password?token=');
      const refused = await raw(inst, 'POST', '/api/v1/auth/password/forgot', { host: 'api.example.test' }, { email: 'split@example.com' });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('BASE_URL_REQUIRED');
    } finally {
      smtp.received.length = 0;
      await inst.close();
    }
  });
});

describe('POST /setup/super-admin and DNS rebinding', () => {
  const body = { email: 'root@example.com', password: 'root-password', name: 'Root' };

  it('refuses a foreign Host with 421 HOST_NOT_ALLOWED and stays open; the loopback address claims it', async () => {
    const inst = await startInstance();
    try {
      const port = new URL(inst.url).port;
      for (const host of [`rebind.evil.example:${port}`, 'rebind.evil.example', `localhost.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
        const res = await raw(inst, 'POST', '/api/v1/setup/super-admin', { host, origin: `http://${host}` }, body);
        expect(res.status, host).toBe(421);
        expect(res.body.error.code).toBe('HOST_NOT_ALLOWED');
      }
      expect((await raw(inst, 'GET', '/api/v1/setup/state', { host: `127.0.0.1:${port}` })).body.data.open).toBe(true);
      const ok = await raw(inst, 'POST', '/api/v1/setup/super-admin', { host: `localhost:${port}` }, body);
      expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    } finally {
      await inst.close();
    }
  });

  it('accepts [::1] and SVC_BASE_URL’s host', async () => {
    const a = await startInstance();
    const b = await startInstance({ env: { SVC_BASE_URL: 'https://admin.example.test' } });
    try {
      expect((await raw(a, 'POST', '/api/v1/setup/super-admin', { host: `[::1]:${new URL(a.url).port}` }, body)).status).toBe(201);
      expect((await raw(b, 'POST', '/api/v1/setup/super-admin', { host: 'evil.example' }, body)).status).toBe(421);
      expect((await raw(b, 'POST', '/api/v1/setup/super-admin', { host: 'admin.example.test' }, body)).status).toBe(201);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
