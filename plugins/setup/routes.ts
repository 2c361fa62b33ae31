import { z } from 'zod';
import {
  assertOwnHost,
  dataOf,
  emailField,
  nameField,
  newPasswordField,
  reply,
  route,
  SESSION_ABSOLUTE_MS,
  setSessionCookie,
  userSchema,
} from '../../kernel/api.js';
import { createSuperAdmin, isSetupOpen } from './service.js';

export const setupRoutes = [
  route({
    method: 'GET',
    url: '/setup/state',
    summary: 'Whether first-boot setup is still open',
    public: true,
    schema: { response: { 200: dataOf(z.strictObject({ open: z.boolean() })) } },
    handler: async ({ kernel }) => ({ data: { open: await isSetupOpen(kernel.db) } }),
  }),
  route({
    method: 'POST',
    url: '/setup/super-admin',
    summary: 'Create the first user with the admin role and sign them in',
    description:
      'Answers 409 SETUP_CLOSED once setup is complete, also to the loser of two simultaneous calls. ' +
      "421 HOST_NOT_ALLOWED when the Host header is not the instance's own (SVC_BASE_URL's host, a loopback name or the listen address, on the listening port), so a page on another site cannot claim the instance through DNS rebinding.",
    public: true,
    schema: {
      body: z.strictObject({ email: emailField, password: newPasswordField, name: nameField }),
      response: { 201: dataOf(z.strictObject({ user: userSchema })) },
    },
    handler: async ({ kernel, body, request, reply: res, audit }) => {
      assertOwnHost(request, kernel.config);
      const user = await createSuperAdmin(kernel.db, body, kernel.now());
      audit({
        action: 'setup.super-admin',
        actor: { type: 'user', id: user.id },
        target: { type: 'user', id: user.id },
        diff: { email: user.email, name: user.name },
      });
      const session = await kernel.identity.createSession(user.id, { ip: request.ip ?? null, userAgent: request.headers['user-agent'] ?? null });
      setSessionCookie(res, request, session.token, SESSION_ABSOLUTE_MS);
      return reply(201, { data: { user } });
    },
  }),
];
