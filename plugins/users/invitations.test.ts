import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../kernel/identity/tokens.js';
import { call } from '../../test/helpers/contract.js';
import { databaseAvailable } from '../../test/helpers/databases.js';
import type { MetaChoice, TestInstance } from '../../test/helpers/instance.js';
import { TestSmtpServer } from '../../test/helpers/smtp.js';
import { bootWithAdmin } from '../../test/helpers/identity.js';

const pg = await databaseAvailable('postgres');
const smtp = new TestSmtpServer();
beforeAll(async () => void (await smtp.start()));
afterAll(async () => smtp.stop());

const LINK = /(\S+)\/accept-invite\?token=([A-Za-z0-9_-]+)/;

async function inviteRows(inst: TestInstance, userId: string) {
  return inst.app.kernel.db.selectFrom('password_tokens').selectAll().where('user_id', '=', userId).execute();
}

function invitationFlows(meta: MetaChoice) {
  let inst: TestInstance | null = null;
  afterEach(async () => {
    await inst?.close();
    inst = null;
    smtp.received.length = 0;
  });

  it('mails a set-password link to an invited user, and resends it with a new token', async () => {
    const booted = await bootWithAdmin({ meta });
    inst = booted.inst;
    const { admin } = booted;
    await call(inst, admin, 'PUT', '/api/v1/settings/email', smtp.settings());

    const created = await call(inst, admin, 'POST', '/api/v1/users', { email: 'Invitee@Example.com', name: 'Ivy', roleIds: ['viewer'] });
    expect(created.status).toBe(201);
    const user = created.body.data.user;
    expect(user.status).toBe('invited');

    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toEqual(['invitee@example.com']);
    expect(mail!.subject).toContain('Root invited you');
    expect(mail!.text).toContain('Hello Ivy');
    const [, base, token] = LINK.exec(mail!.text)!;
    expect(base).toBe(inst.url); // no SVC_BASE_URL: the origin the admin's request came to
    expect(token!.length).toBeGreaterThanOrEqual(40);

    const rows = await inviteRows(inst, user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ purpose: 'invite', used_at: null, token_hash: hashToken(token!) });
    const ttl = Number(rows[0]!.expires_at) - Number(rows[0]!.created_at);
    expect(ttl).toBe(7 * 24 * 3600_000);
    // Only its hash is stored, and the audit trail never holds the token.
    const audit = await inst.app.kernel.db.selectFrom('audit_log').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain(token);

    const resent = await call(inst, admin, 'POST', `/api/v1/users/${user.id}/invite/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.data.user.id).toBe(user.id);
    // With e-mail set up the link goes only by mail.
    expect(Object.keys(resent.body.data)).toEqual(['user']);
    const second = (await smtp.waitFor(2))[1]!;
    const token2 = LINK.exec(second.text)![2]!;
    expect(token2).not.toBe(token);
    // The earlier link is withdrawn: only the new token's row is left.
    expect((await inviteRows(inst, user.id)).map((r) => r.token_hash)).toEqual([hashToken(token2)]);
    const actions = await inst.app.kernel.db.selectFrom('audit_log').select('action').where('target_id', '=', user.id).orderBy('id').execute();
    expect(actions.map((a) => a.action)).toEqual(['users.create', 'users.invite.resend']);
  });

  it('withdraws the link mailed to an old address and invites the new one when the e-mail changes', async () => {
    const booted = await bootWithAdmin({ meta });
    inst = booted.inst;
    await call(inst, booted.admin, 'PUT', '/api/v1/settings/email', smtp.settings());
    const user = (await call(inst, booted.admin, 'POST', '/api/v1/users', { email: 'typo@exmaple.com', name: 'Typo' })).body.data.user;
    const first = LINK.exec((await smtp.waitFor(1))[0]!.text)![2]!;
    const fixed = await call(inst, booted.admin, 'PATCH', `/api/v1/users/${user.id}`, { email: 'fixed@example.com' });
    expect(fixed.body.data.user).toMatchObject({ email: 'fixed@example.com', status: 'invited' });
    const second = (await smtp.waitFor(2))[1]!;
    expect(second.to).toEqual(['fixed@example.com']);
    const token = LINK.exec(second.text)![2]!;
    expect((await inviteRows(inst, user.id)).map((r) => r.token_hash)).toEqual([hashToken(token)]);
    expect(token).not.toBe(first);
    // A name change sends nothing and keeps the link.
    await call(inst, booted.admin, 'PATCH', `/api/v1/users/${user.id}`, { name: 'Fixed' });
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received).toHaveLength(2);
    expect((await inviteRows(inst, user.id)).map((r) => r.token_hash)).toEqual([hashToken(token)]);
  });
}

describe('invitations on SQLite', () => invitationFlows('sqlite'));
describe.runIf(pg)('invitations on PostgreSQL', () => invitationFlows('postgres'));

describe('invitations', () => {
  let inst: TestInstance | null = null;
  afterEach(async () => {
    await inst?.close();
    inst = null;
    smtp.received.length = 0;
  });

  it('still create the user without SMTP, answering the unmailed link (its token the stored one) for the inviter to pass on', async () => {
    const booted = await bootWithAdmin();
    inst = booted.inst;
    const res = await call(inst, booted.admin, 'POST', '/api/v1/users', { email: 'nomail@example.com', name: 'No Mail' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body.data).sort()).toEqual(['inviteLink', 'user']);
    expect(res.body.data.user.status).toBe('invited');
    const [, base, token] = LINK.exec(res.body.data.inviteLink)!;
    expect(base).toBe(inst.url);
    const rows = await inviteRows(inst, res.body.data.user.id);
    expect(rows.map((r) => [r.purpose, r.token_hash])).toEqual([['invite', hashToken(token!)]]);
    // A resend without SMTP answers a new link; the first one is withdrawn.
    const resent = await call(inst, booted.admin, 'POST', `/api/v1/users/${res.body.data.user.id}/invite/resend`);
    expect(resent.status).toBe(200);
    const token2 = LINK.exec(resent.body.data.inviteLink)![2]!;
    expect(token2).not.toBe(token);
    expect((await inviteRows(inst, res.body.data.user.id)).map((r) => r.token_hash)).toEqual([hashToken(token2)]);
    expect(smtp.received).toEqual([]);
  });

  it('send nothing for a user created with a password, and refuse a resend to a user who is not invited', async () => {
    const booted = await bootWithAdmin();
    inst = booted.inst;
    await call(inst, booted.admin, 'PUT', '/api/v1/settings/email', smtp.settings());
    const res = await call(inst, booted.admin, 'POST', '/api/v1/users', { email: 'direct@example.com', name: 'Direct', password: 'direct-password' });
    expect(res.body.data.user.status).toBe('active');
    expect(await inviteRows(inst, res.body.data.user.id)).toEqual([]);
    const resend = await call(inst, booted.admin, 'POST', `/api/v1/users/${res.body.data.user.id}/invite/resend`);
    expect(resend.status).toBe(409);
    expect(resend.body.error).toMatchObject({ code: 'CONFLICT', params: { reason: 'not-invited', status: 'active' } });
    // Give a stray mail the chance to arrive before asserting there was none.
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received).toEqual([]);
  });

  it('build the link on SVC_BASE_URL when it is set', async () => {
    const booted = await bootWithAdmin({ env: { SVC_BASE_URL: 'https://admin.example.test/' } });
    inst = booted.inst;
    await call(inst, booted.admin, 'PUT', '/api/v1/settings/email', smtp.settings());
    await call(inst, booted.admin, 'POST', '/api/v1/users', { email: 'based@example.com', name: 'Based' });
    const [mail] = await smtp.waitFor(1);
    expect(LINK.exec(mail!.text)![1]).toBe('https://admin.example.test');
  });
});
