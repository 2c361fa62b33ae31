import { AppError, errorEnvelopeSchema, type Kernel, noBody, okSchema, requireUser, route, SIGNED_IN } from '../../kernel/api.js';
import { pagesRef } from '../pages/provides.js';
import { meServiceRef } from './service.js';
import {
  LAYOUT_BODY_LIMIT,
  layoutBody,
  layoutData,
  notificationData,
  notificationIdParams,
  notificationPrefsBody,
  notificationPrefsData,
  notificationsData,
  notificationsQuery,
  pageIdParams,
  prefsData,
  prefsPatch,
  profilePatch,
  readAllData,
  userData,
} from './schemas.js';

const me = (kernel: Kernel) => kernel.plugin(meServiceRef);
const SESSION_ONLY = 'Needs a signed-in user: an API key answers 403 SESSION_REQUIRED.';

export const meRoutes = [
  route({
    method: 'GET',
    url: '/me',
    summary: 'The signed-in user',
    description: SESSION_ONLY,
    permission: SIGNED_IN,
    schema: { response: { 200: userData } },
    handler: async ({ kernel, principal }) => ({ data: { user: await me(kernel).profile.get(requireUser(principal).userId) } }),
  }),
  route({
    method: 'PATCH',
    url: '/me',
    summary: 'Change your own name or e-mail',
    description: `Changing the e-mail needs the current password in \`password\` (401 AUTH_INVALID_CREDENTIALS when wrong or missing; 429 RATE_LIMITED after 10 failures in 15 minutes); a password that is sent is always checked. An address another user has answers 409 CONFLICT. The password itself changes through POST /auth/password/change. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: profilePatch, response: { 200: userData, 401: errorEnvelopeSchema, 409: errorEnvelopeSchema, 429: errorEnvelopeSchema } },
    handler: async ({ kernel, principal, body, audit, auditNow, request }) => {
      const userId = requireUser(principal).userId;
      const target = { type: 'user', id: userId };
      try {
        const change = await me(kernel).profile.update(userId, body, request.ip);
        audit({ action: 'me.update', target, diff: { before: change.before, after: change.after } });
        return { data: { user: change.user } };
      } catch (err) {
        // A refused password is worth a trace even though the request fails.
        if (err instanceof AppError && err.code === 'AUTH_INVALID_CREDENTIALS')
          await auditNow({ action: 'me.update.refused', target, diff: { reason: 'password' } });
        throw err;
      }
    },
  }),
  route({
    method: 'GET',
    url: '/me/prefs',
    summary: 'Your preferences and what they resolve to',
    description: `prefs: your own values (null: unset). resolved: each field from you, else the global default (PUT /settings/defaults), else the system default; source names the level (D10). ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { response: { 200: prefsData } },
    handler: async ({ kernel, principal }) => ({ data: await me(kernel).prefs.view(requireUser(principal).userId) }),
  }),
  route({
    method: 'PATCH',
    url: '/me/prefs',
    summary: 'Change your preferences',
    description: `Absent fields stay as they are; null unsets a field. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: prefsPatch, response: { 200: prefsData } },
    handler: async ({ kernel, principal, body, audit }) => {
      const userId = requireUser(principal).userId;
      const { before, view } = await me(kernel).prefs.patch(userId, body);
      audit({ action: 'me.prefs.update', target: { type: 'user', id: userId }, diff: { before, after: view.prefs } });
      return { data: view };
    },
  }),
  route({
    method: 'GET',
    url: '/me/notifications',
    summary: 'Your notifications, newest first',
    description: `D6 list; unread=true keeps the unread ones. unreadCount counts all your unread notifications, whatever the page. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { query: notificationsQuery, response: { 200: notificationsData } },
    handler: async ({ kernel, principal, query }) => ({ data: await me(kernel).notifications.list(requireUser(principal).userId, query) }),
  }),
  route({
    method: 'POST',
    url: '/me/notifications/:id/read',
    summary: 'Mark one of your notifications read',
    description: `Marking it again keeps the first read time. Another user's notification answers 404. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { params: notificationIdParams, body: noBody, response: { 200: notificationData, 404: errorEnvelopeSchema } },
    handler: async ({ kernel, principal, params, audit }) => {
      const notification = await me(kernel).notifications.markRead(requireUser(principal).userId, params.id);
      audit({ action: 'me.notifications.read', target: { type: 'notification', id: params.id } });
      return { data: { notification } };
    },
  }),
  route({
    method: 'POST',
    url: '/me/notifications/read-all',
    summary: 'Mark all your notifications read',
    description: `count: how many were unread. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: noBody, response: { 200: readAllData } },
    handler: async ({ kernel, principal, audit }) => {
      const userId = requireUser(principal).userId;
      const count = await me(kernel).notifications.markAllRead(userId);
      audit({ action: 'me.notifications.read-all', target: { type: 'user', id: userId }, diff: { count } });
      return { data: { ok: true as const, count } };
    },
  }),
  route({
    method: 'GET',
    url: '/me/notification-prefs',
    summary: 'How you receive each kind of notification',
    description: `Your stored choices, plus every kind you have received with the default (inApp and email both true). ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { response: { 200: notificationPrefsData } },
    handler: async ({ kernel, principal }) => ({ data: { prefs: await me(kernel).notifications.prefs(requireUser(principal).userId) } }),
  }),
  route({
    method: 'PUT',
    url: '/me/notification-prefs',
    summary: 'Set how you receive each kind of notification',
    description: `Replaces the whole set; a kind left out returns to the default. inApp false stops that kind reaching you in the app. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { body: notificationPrefsBody, response: { 200: notificationPrefsData } },
    handler: async ({ kernel, principal, body, audit }) => {
      const userId = requireUser(principal).userId;
      const prefs = await me(kernel).notifications.setPrefs(userId, body.prefs);
      audit({ action: 'me.notification-prefs.update', target: { type: 'user', id: userId }, diff: { prefs: body.prefs } });
      return { data: { prefs } };
    },
  }),
  route({
    method: 'PUT',
    url: '/me/views/:pageId/layout',
    summary: 'Save your own layout of a page',
    description: `Replaces your saved layout of the page and answers it; 404 NOT_FOUND for a page you cannot see (as GET /pages/{pageId}). The request body is at most 64 KiB (413 PAYLOAD_TOO_LARGE). ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    bodyLimit: LAYOUT_BODY_LIMIT,
    schema: { params: pageIdParams, body: layoutBody, response: { 200: layoutData, 404: errorEnvelopeSchema, 413: errorEnvelopeSchema } },
    handler: async ({ kernel, principal, params, body, audit }) => {
      const user = requireUser(principal);
      if (!(await kernel.plugin(pagesRef).findVisible(principal!, params.pageId))) throw new AppError('NOT_FOUND', { message: 'No such page.' });
      const saved = await me(kernel).layouts.put(user.userId, params.pageId, body.layout);
      audit({ action: 'me.layout.update', target: { type: 'page', id: params.pageId } });
      return { data: saved };
    },
  }),
  route({
    method: 'DELETE',
    url: '/me/views/:pageId/layout',
    summary: "Drop your own layout of a page (back to the page's shared layout)",
    description: `Answers ok also when none was saved. ${SESSION_ONLY}`,
    permission: SIGNED_IN,
    schema: { params: pageIdParams, response: { 200: okSchema } },
    handler: async ({ kernel, principal, params, audit }) => {
      const removed = await me(kernel).layouts.remove(requireUser(principal).userId, params.pageId);
      audit({ action: 'me.layout.delete', target: { type: 'page', id: params.pageId }, diff: { removed } });
      return { data: { ok: true as const } };
    },
  }),
];
