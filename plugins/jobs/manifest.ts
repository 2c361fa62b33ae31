import { definePlugin } from '../../kernel/api.js';
import { JOBS_READ, jobRoutes } from './routes.js';

export default definePlugin({
  name: 'jobs',
  version: '1.0.0',
  description: 'Background jobs (D13): list, enqueue, follow and cancel; the queue itself is the kernel’s.',
  // Every built-in role lists jobs; what each caller sees is narrowed per job (its own, plus the kinds it may run).
  permissions: [
    {
      name: JOBS_READ,
      label: 'See jobs',
      description: 'List and follow the jobs you created and those of kinds you hold the permission of; cancel them.',
      roles: ['editor', 'viewer'],
    },
  ],
  routes: jobRoutes,
});
