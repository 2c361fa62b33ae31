import { definePlugin } from '../../kernel/api.js';
import { AUDIT_READ, auditRoutes } from './routes.js';

export default definePlugin({
  name: 'audit',
  version: '1.0.0',
  description: 'Reading the append-only audit trail.',
  // No `roles`: only admins (and custom roles granted it) read who did what.
  permissions: [{ name: AUDIT_READ, label: 'Read the audit log', description: 'See every recorded write: who, what, when, from where.' }],
  routes: auditRoutes,
});
