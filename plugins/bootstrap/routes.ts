import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, authenticate, clearSessionCookie, type Kernel, noBody, type Principal, requireUser, route, SIGNED_IN } from '../../kernel/api.js';
import { brandingRef } from '../branding/provides.js';
import { bootstrapResponse, dismissResponse, onboardingResponse } from './schemas.js';
import { bootstrapServiceRef } from './service-ref.js';

const service = (kernel: Kernel) => kernel.plugin(bootstrapServiceRef);
const USER_ONLY = 'Needs a signed-in user: an API key answers 403 SESSION_REQUIRED.';

/**
 * Who the public route's caller is: nobody without credentials; a presented cookie that is bad,
 * ended or whose user is gone answers 401 AUTH_SESSION_INVALID and clears it (K1), as on every
 * route with a permission, so a stale tab never paints a signed-out shell over a live problem.
 */
async function caller(kernel: Kernel, request: FastifyRequest, reply: FastifyReply): Promise<{ principal: Principal } | null> {
  try {
    return await authenticate(request, kernel.principals, kernel.config);
  } catch (err) {
    if (err instanceof AppError && err.code === 'AUTH_SESSION_INVALID') clearSessionCookie(reply, request);
    throw err;
  }
}

export const bootstrapRoutes = [
  route({
    method: 'GET',
    url: '/bootstrap',
    summary: 'Everything the dashboard needs on first paint',
    description:
      'Public. Signed out: setup state and instance facts, session null. With the session cookie: the user, roles, permissions (decisions BO1), preferences, ' +
      'navigation, unread notifications, onboarding and (with public-api.read) the public API switch. A bad or ended session cookie answers 401 ' +
      'AUTH_SESSION_INVALID and clears the cookie. Read from what is kept in memory (decisions BO2).',
    public: true,
    schema: { response: { 200: bootstrapResponse } },
    handler: async ({ kernel, request, reply }) => {
      const who = await caller(kernel, request, reply);
      const s = service(kernel);
      const userId = who?.principal.kind === 'session' ? who.principal.userId : null;
      const [facts, branding, session] = await Promise.all([s.facts(), kernel.plugin(brandingRef).view(), userId ? s.session(who!.principal, userId) : null]);
      return {
        data: {
          setup: { open: facts.setupOpen },
          instance: { version: kernel.version, runtime: kernel.config.runtime, smtpConfigured: facts.smtpConfigured, desktopDemo: kernel.config.desktopDemo },
          branding,
          i18n: null,
          session,
        },
      };
    },
  }),
  route({
    method: 'GET',
    url: '/onboarding',
    summary: "The caller's onboarding checklist",
    description: `Steps the caller may do, each done when the instance already shows it (decisions BO3); dismissed after POST /onboarding/dismiss. ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { response: { 200: onboardingResponse } },
    handler: async ({ kernel, principal }) => ({ data: await service(kernel).onboarding(principal!, requireUser(principal).userId) }),
  }),
  route({
    method: 'POST',
    url: '/onboarding/dismiss',
    summary: 'Put the onboarding checklist away, for you only',
    description: `Idempotent (decisions BO4). ${USER_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: noBody, response: { 200: dismissResponse } },
    handler: async ({ kernel, principal, audit }) => {
      const { userId } = requireUser(principal);
      const first = await service(kernel).dismiss(userId);
      audit({ action: 'onboarding.dismiss', target: { type: 'user', id: userId }, diff: { first } });
      return { data: { dismissed: true as const } };
    },
  }),
];
