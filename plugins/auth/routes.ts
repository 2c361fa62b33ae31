import type { FastifyRequest } from 'fastify';
import {
  AppError,
  checkOrigin,
  clearSessionCookie,
  type Config,
  effectivePermissions,
  type Kernel,
  linkBase,
  noBody,
  okSchema,
  reply,
  route,
  SIGNED_IN,
  toUser,
  verifyPassword,
} from '../../kernel/api.js';
import { consumeChallenge, findChallenge, issueChallenge } from './challenges.js';
import { resetPassword, setPassword } from './passwords.js';
import {
  activateBody,
  challengeResponse,
  changePasswordBody,
  disableBody,
  enrolResponse,
  forgotBody,
  loginBody,
  recoveryCodesResponse,
  resetBody,
  sessionListResponse,
  sessionParams,
  sessionStateResponse,
  signedInResponse,
  verifyBody,
} from './schemas.js';
import { authServiceRef } from './service.js';
import { endOwnSession, listSessions } from './sessions.js';
import { checkCredentials, completeSignIn, normaliseEmail, twoFactorSetupRequired } from './sign-in.js';

const auth = (kernel: Kernel) => kernel.plugin(authServiceRef);
const asUser = (id: string) => ({ type: 'user' as const, id });
const OK = { data: { ok: true as const } };
const USER_ONLY = 'Needs a signed-in user: an API key answers 403 SESSION_REQUIRED.';

/**
 * The sign-in routes take no cookie, so the kernel's CSRF check does not run on them. A browser
 * always sends Origin on a POST: a foreign one is refused, so another site cannot sign a
 * visitor into an account of its choosing. Callers without Origin (scripts) pass.
 */
function refuseForeignOrigin(request: FastifyRequest, config: Config): void {
  if (request.headers.origin !== undefined) checkOrigin(request, config);
}

export const authRoutes = [
  route({
    method: 'POST',
    url: '/auth/login',
    summary: 'Sign in with e-mail and password',
    description:
      '200 sets the svc_session cookie; 202 when the user has 2FA (finish with POST /auth/2fa/verify). ' +
      'Unknown e-mail and wrong password answer the same 401 AUTH_INVALID_CREDENTIALS. ' +
      '10 failures per account and 30 per address in 15 minutes answer 429 RATE_LIMITED with Retry-After.',
    public: true,
    schema: { body: loginBody, response: { 200: signedInResponse, 202: challengeResponse } },
    handler: async ({ kernel, body, request, reply: res, audit, auditNow }) => {
      refuseForeignOrigin(request, kernel.config);
      const { throttle, db } = auth(kernel);
      const email = normaliseEmail(body.email);
      const attempt = throttle.reserve(email, request.ip);
      let check: Awaited<ReturnType<typeof checkCredentials>>;
      try {
        check = await checkCredentials(db, email, body.password);
        if (!check.ok) attempt.failed();
      } finally {
        attempt.end();
      }
      if (!check.ok) {
        await auditNow({ action: 'auth.login-failed', target: check.user ? asUser(check.user.id) : null, diff: { email, reason: check.reason } });
        throw new AppError('AUTH_INVALID_CREDENTIALS');
      }
      const { user } = check;
      if (user.totp_enabled) {
        const challengeToken = await issueChallenge(db, user.id, kernel.now());
        audit({ action: 'auth.login-challenge', actor: asUser(user.id), target: asUser(user.id) });
        return reply(202, { data: { twoFactorRequired: true as const, challengeToken } });
      }
      const signedIn = await completeSignIn(kernel, user, request, res);
      audit({ action: 'auth.login', actor: asUser(user.id), target: asUser(user.id) });
      return { data: signedIn };
    },
  }),
  route({
    method: 'POST',
    url: '/auth/2fa/verify',
    summary: 'Finish a sign-in with a TOTP code or a recovery code',
    description:
      'A TOTP code is accepted once; a recovery code once. 401 AUTH_CHALLENGE_EXPIRED when the challenge is unknown, used or older than 5 minutes; 401 AUTH_INVALID_CODE for a wrong code.',
    public: true,
    schema: { body: verifyBody, response: { 200: signedInResponse } },
    handler: async ({ kernel, body, request, reply: res, audit, auditNow }) => {
      refuseForeignOrigin(request, kernel.config);
      const { throttle, db, twoFactor } = auth(kernel);
      const challenge = await findChallenge(db, body.challengeToken, kernel.now());
      const user = challenge ? await db.selectFrom('users').selectAll().where('id', '=', challenge.userId).executeTakeFirst() : undefined;
      if (!user || user.status !== 'active') throw new AppError('AUTH_CHALLENGE_EXPIRED');
      const account = normaliseEmail(user.email);
      const attempt = throttle.reserve(account, request.ip);
      let right: boolean;
      try {
        right = await twoFactor.check(user.id, body.code);
        if (!right) attempt.failed();
      } finally {
        attempt.end();
      }
      if (!right) {
        await auditNow({ action: 'auth.login-failed', target: asUser(user.id), diff: { reason: 'invalid-code' } });
        throw new AppError('AUTH_INVALID_CODE');
      }
      if (!(await consumeChallenge(db, body.challengeToken, kernel.now()))) throw new AppError('AUTH_CHALLENGE_EXPIRED');
      const signedIn = await completeSignIn(kernel, user, request, res);
      audit({ action: 'auth.login', actor: asUser(user.id), target: asUser(user.id), diff: { secondFactor: true } });
      return { data: signedIn };
    },
  }),
  route({
    method: 'POST',
    url: '/auth/logout',
    summary: 'End the current session and clear the cookie',
    description: USER_ONLY,
    permission: SIGNED_IN,
    schema: { body: noBody, response: { 200: okSchema } },
    handler: async ({ kernel, principal, request, reply: res, audit }) => {
      const { user, sessionId } = await auth(kernel).userOf(principal);
      if (sessionId) await kernel.identity.endSession(sessionId);
      clearSessionCookie(res, request);
      audit({ action: 'auth.logout', target: asUser(user.id) });
      return OK;
    },
  }),
  route({
    method: 'GET',
    url: '/auth/session',
    summary: 'The signed-in user, their role ids and permissions, and whether they must enrol in 2FA',
    description: `permissions: every permission held (admin: all); grants: the scopes of those held only with scopes (decisions BO1). ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { response: { 200: sessionStateResponse } },
    handler: async ({ kernel, principal }) => {
      const { user } = await auth(kernel).userOf(principal);
      const roles = principal!.roleIds;
      const held = effectivePermissions(principal!.permissions, kernel.permissions);
      return { data: { user: toUser(user), roles, ...held, twoFactorSetupRequired: await twoFactorSetupRequired(kernel, user, roles) } };
    },
  }),
  route({
    method: 'GET',
    url: '/auth/sessions',
    summary: "The caller's own live sessions",
    description: USER_ONLY,
    permission: SIGNED_IN,
    schema: { response: { 200: sessionListResponse } },
    handler: async ({ kernel, principal }) => {
      const { user, sessionId } = await auth(kernel).userOf(principal);
      await kernel.principals.flush(); // lastSeenAt as of this request
      return { data: { sessions: await listSessions(kernel.db, user.id, sessionId, kernel.now()) } };
    },
  }),
  route({
    method: 'DELETE',
    url: '/auth/sessions/:id',
    summary: 'End one of your own sessions',
    description: `404 NOT_FOUND for an unknown id and for another user's session alike. ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { params: sessionParams, response: { 200: okSchema } },
    handler: async ({ kernel, principal, params, request, reply: res, audit }) => {
      const { user, sessionId } = await auth(kernel).userOf(principal);
      if (!(await endOwnSession(kernel.db, user.id, params.id))) throw new AppError('NOT_FOUND');
      if (params.id === sessionId) clearSessionCookie(res, request);
      audit({ action: 'auth.session-end', target: { type: 'session', id: params.id } });
      return OK;
    },
  }),
  route({
    method: 'POST',
    url: '/auth/password/change',
    summary: 'Change your password; every other session of yours ends',
    description: `A wrong current password answers 401 AUTH_INVALID_CREDENTIALS and counts toward the sign-in throttle. ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: changePasswordBody, response: { 200: okSchema } },
    handler: async ({ kernel, principal, body, request, audit, auditNow }) => {
      const service = auth(kernel);
      const { user, sessionId } = await service.userOf(principal);
      const account = normaliseEmail(user.email);
      const attempt = service.throttle.reserve(account, request.ip);
      let right: boolean;
      try {
        right = await verifyPassword(user.password_hash, body.currentPassword);
        if (!right) attempt.failed();
      } finally {
        attempt.end();
      }
      if (!right) {
        await auditNow({ action: 'auth.password-change-failed', target: asUser(user.id) });
        throw new AppError('AUTH_INVALID_CREDENTIALS');
      }
      await setPassword(kernel, user.id, body.newPassword, false);
      await kernel.identity.endSessionsOf(user.id, sessionId ?? undefined);
      audit({ action: 'auth.password-change', target: asUser(user.id) });
      return OK;
    },
  }),
  route({
    method: 'POST',
    url: '/auth/password/forgot',
    summary: 'Mail a password reset link',
    description:
      'Always answers ok, whether or not the e-mail belongs to a user. The link is valid 30 minutes and works once. ' +
      "The link points at SVC_BASE_URL; without it, at a listed SVC_CORS_ORIGINS Origin or the instance's own loopback/listen address, else 409 BASE_URL_REQUIRED (the request's Host is never trusted).",
    public: true,
    schema: { body: forgotBody, response: { 200: okSchema } },
    handler: ({ kernel, body, request, audit }) => {
      refuseForeignOrigin(request, kernel.config);
      // Refused before the e-mail is looked at, so the answer says nothing about the account.
      const base = linkBase(request, kernel.config);
      const email = normaliseEmail(body.email);
      auth(kernel).requestResetMail(email, base);
      audit({ action: 'auth.password-forgot', target: null, diff: { email } });
      return OK;
    },
  }),
  route({
    method: 'POST',
    url: '/auth/password/reset',
    summary: 'Set a new password with a reset or invitation token',
    description:
      'The token works once; an invitation token also activates the invited user. Every session of the user ends. 400 AUTH_RESET_TOKEN_INVALID for an unknown, used or expired token.',
    public: true,
    schema: { body: resetBody, response: { 200: okSchema } },
    handler: async ({ kernel, body, request, audit }) => {
      refuseForeignOrigin(request, kernel.config);
      const { userId, purpose } = await resetPassword(kernel, body.token, body.newPassword);
      audit({ action: purpose === 'invite' ? 'auth.invite-accept' : 'auth.password-reset', actor: asUser(userId), target: asUser(userId) });
      return OK;
    },
  }),
  route({
    method: 'POST',
    url: '/auth/2fa/enroll',
    summary: 'Start 2FA enrolment: a new TOTP secret to scan',
    description: `409 CONFLICT while 2FA is on. The secret is not used until POST /auth/2fa/activate proves it. ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: noBody, response: { 200: enrolResponse } },
    handler: async ({ kernel, principal, audit }) => {
      const { user } = await auth(kernel).userOf(principal);
      const enrolment = await auth(kernel).twoFactor.startEnrolment(user);
      audit({ action: 'auth.2fa-enroll', target: asUser(user.id) });
      return { data: enrolment };
    },
  }),
  route({
    method: 'POST',
    url: '/auth/2fa/activate',
    summary: 'Turn 2FA on with a code from the enrolled authenticator',
    description: `Answers 10 single-use recovery codes, shown this once. 401 AUTH_INVALID_CODE for a wrong code; 409 CONFLICT without an enrolment. ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: activateBody, response: { 200: recoveryCodesResponse } },
    handler: async ({ kernel, principal, body, audit }) => {
      const { user } = await auth(kernel).userOf(principal);
      const recoveryCodes = await auth(kernel).twoFactor.activate(user, body.code);
      audit({ action: 'auth.2fa-activate', target: asUser(user.id) });
      return { data: { recoveryCodes } };
    },
  }),
  route({
    method: 'POST',
    url: '/auth/2fa/disable',
    summary: 'Turn 2FA off',
    description: `Needs the password (401 AUTH_INVALID_CREDENTIALS). The code is optional: when one is sent while 2FA is on, it must be a valid TOTP or recovery code (401 AUTH_INVALID_CODE). ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: disableBody, response: { 200: okSchema } },
    handler: async ({ kernel, principal, body, request, audit, auditNow }) => {
      const service = auth(kernel);
      const { user } = await service.userOf(principal);
      const account = normaliseEmail(user.email);
      const attempt = service.throttle.reserve(account, request.ip);
      let wrong: 'wrong-password' | 'invalid-code' | null = null;
      try {
        if (!(await verifyPassword(user.password_hash, body.password))) wrong = 'wrong-password';
        // Seed: the password suffices; a code, when given, must still be right (it is not a free guess).
        else if (user.totp_enabled && body.code !== undefined && !(await service.twoFactor.check(user.id, body.code))) wrong = 'invalid-code';
        if (wrong) attempt.failed();
      } finally {
        attempt.end();
      }
      if (wrong) {
        await auditNow({ action: 'auth.2fa-disable-failed', target: asUser(user.id), diff: { reason: wrong } });
        throw new AppError(wrong === 'wrong-password' ? 'AUTH_INVALID_CREDENTIALS' : 'AUTH_INVALID_CODE');
      }
      await service.twoFactor.clear(user.id);
      audit({ action: 'auth.2fa-disable', target: asUser(user.id) });
      return OK;
    },
  }),
];
