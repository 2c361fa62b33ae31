import { z } from 'zod';
import { AppError, dataOf, type Kernel, prefsSchema, route, SIGNED_IN } from '../../kernel/api.js';
import { settingsServiceRef, securitySettingsSchema, smtpInputSchema, smtpViewSchema } from './service.js';

const selfService = (kernel: Pick<Kernel, 'plugin'>) => kernel.plugin(settingsServiceRef);
const emailView = dataOf(z.strictObject({ configured: z.boolean(), smtp: smtpViewSchema.nullable() }));

export const settingsRoutes = [
  route({
    method: 'GET',
    url: '/settings/security',
    summary: 'The security policy',
    permission: 'settings.read',
    schema: { response: { 200: dataOf(z.strictObject({ security: securitySettingsSchema })) } },
    handler: async ({ kernel }) => ({ data: { security: await selfService(kernel).security() } }),
  }),
  route({
    method: 'PUT',
    url: '/settings/security',
    summary: 'Change the security policy',
    description: 'Every role in requireTwoFactorForRoles must exist.',
    permission: 'settings.write',
    schema: { body: securitySettingsSchema, response: { 200: dataOf(z.strictObject({ security: securitySettingsSchema })) } },
    handler: async ({ kernel, body, audit }) => {
      const roles = [...new Set(body.requireTwoFactorForRoles)];
      if (roles.length) {
        const found = await kernel.db.selectFrom('roles').select('id').where('id', 'in', roles).execute();
        const missing = roles.filter((r) => !found.some((f) => f.id === r));
        if (missing.length) {
          throw new AppError('VALIDATION_FAILED', {
            issues: missing.map((id) => ({ path: 'body.requireTwoFactorForRoles', code: 'unknown_role', message: `No role ${id}` })),
          });
        }
      }
      const before = await selfService(kernel).security();
      const security = await selfService(kernel).setSecurity({ requireTwoFactorForRoles: roles });
      audit({ action: 'settings.security.update', target: { type: 'settings', id: 'security' }, diff: { before, after: security } });
      return { data: { security } };
    },
  }),
  route({
    method: 'GET',
    url: '/settings/email',
    summary: 'The outgoing e-mail (SMTP) settings; the password is never returned',
    permission: 'settings.read',
    schema: { response: { 200: emailView } },
    handler: async ({ kernel }) => {
      const smtp = await selfService(kernel).smtp();
      return { data: { configured: smtp !== null, smtp } };
    },
  }),
  route({
    method: 'PUT',
    url: '/settings/email',
    summary: 'Set or clear the outgoing e-mail (SMTP) settings',
    description: 'smtp.password absent keeps the stored one, null clears it; smtp null turns e-mail off.',
    permission: 'settings.write',
    schema: { body: z.strictObject({ smtp: smtpInputSchema.nullable() }), response: { 200: emailView } },
    handler: async ({ kernel, body, audit }) => {
      const smtp = await selfService(kernel).setSmtp(body.smtp);
      audit({ action: 'settings.email.update', target: { type: 'settings', id: 'email' }, diff: { smtp: body.smtp } });
      return { data: { configured: smtp !== null, smtp } };
    },
  }),
  route({
    method: 'GET',
    url: '/settings/defaults',
    summary: 'Global preference defaults (null: the system default applies)',
    permission: SIGNED_IN,
    schema: { response: { 200: dataOf(z.strictObject({ defaults: prefsSchema })) } },
    handler: async ({ kernel }) => ({ data: { defaults: await selfService(kernel).defaults() } }),
  }),
  route({
    method: 'PUT',
    url: '/settings/defaults',
    summary: 'Set the global preference defaults',
    permission: 'settings.write',
    schema: { body: prefsSchema, response: { 200: dataOf(z.strictObject({ defaults: prefsSchema })) } },
    handler: async ({ kernel, body, audit }) => {
      const defaults = await selfService(kernel).setDefaults(body);
      audit({ action: 'settings.defaults.update', target: { type: 'settings', id: 'defaults' }, diff: { after: defaults } });
      return { data: { defaults } };
    },
  }),
];
