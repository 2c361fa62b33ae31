import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { EMAIL_TEMPLATES_READ, EMAIL_TEMPLATES_WRITE, PUBLIC_API_READ, PUBLIC_API_WRITE } from './access.js';
import { registerBookingTemplate } from './templates/booking-template.js';
import { PUBLIC_ADMIN_ERRORS } from './errors.js';
import { keyRoutes } from './keys/key-routes.js';
import type { PublicAdminProvides } from './provides.js';
import { scopeRoutes } from './scopes/scope-routes.js';
import { PUBLIC_CHANGED, PUBLIC_KEY_REVOKED, PublicAdminService } from './service.js';
import { switchRoutes } from './switch/switch-routes.js';
import { publicAdminMigrations } from './tables.js';
import { templateRoutes } from './templates/template-routes.js';

export type * from './provides.js';

/**
 * close() gets no kernel, so it flushes the usage counts of every service this module set up
 * (one per process in production; tests start several apps in one process, and an early flush
 * only writes their counts sooner). Weak, so a closed app can be collected.
 */
const live = new Set<WeakRef<PublicAdminService>>();

export default definePlugin<PublicAdminProvides>({
  name: 'public-admin',
  version: '1.0.0',
  description: 'The public API control plane: the switch, public keys, endpoints (scopes) and e-mail templates.',
  requires: ['connections', 'schema', 'i18n'],
  permissions: [
    { name: PUBLIC_API_READ, label: 'See the public API', description: 'See the public API switch, its keys (never their secrets) and its endpoints.' },
    {
      name: PUBLIC_API_WRITE,
      label: 'Manage the public API',
      description: 'Switch the public API, create, reveal, rotate and revoke its keys, and define its endpoints.',
    },
    { name: EMAIL_TEMPLATES_READ, label: 'See e-mail templates', description: 'Read the e-mail templates and their edits.' },
    { name: EMAIL_TEMPLATES_WRITE, label: 'Edit e-mail templates', description: 'Edit e-mail templates and send test e-mails.' },
  ],
  migrations: publicAdminMigrations,
  events: {
    [PUBLIC_CHANGED]: {
      schema: z.object({ what: z.enum(['switch', 'scopes', 'keys']), id: z.string().nullable() }),
      permission: PUBLIC_API_READ,
      description: 'The public API switch, an endpoint or a key changed.',
    },
    [PUBLIC_KEY_REVOKED]: {
      schema: z.object({ id: z.string() }),
      permission: PUBLIC_API_READ,
      description: 'A public key was revoked or rotated: its old secret no longer works.',
    },
  },
  errors: PUBLIC_ADMIN_ERRORS,
  routes: [...switchRoutes, ...keyRoutes, ...scopeRoutes, ...templateRoutes],
  setup: (kernel) => {
    const service = new PublicAdminService(kernel);
    registerBookingTemplate(kernel.mailer.templates);
    kernel.mailer.templates.useOverrides((key, locale) => service.templates.override(key, locale));
    live.add(new WeakRef(service));
    return service;
  },
  close: async () => {
    for (const ref of live) {
      const s = ref.deref();
      if (!s) live.delete(ref);
      else await s.usage.flush().catch(() => undefined);
    }
  },
});
