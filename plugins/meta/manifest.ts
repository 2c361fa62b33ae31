import { z } from 'zod';
import { dataOf, definePlugin, route } from '../../kernel/api.js';

export default definePlugin({
  name: 'meta',
  version: '1.0.0',
  description: 'Where the instance keeps its own data.',
  permissions: [
    { name: 'meta.read', label: 'See the meta store placement', description: 'See which database holds the instance data (credentials are never shown).' },
  ],
  routes: [
    route({
      method: 'GET',
      url: '/meta/placement',
      summary: 'Which dialect holds the meta store, and where (credentials redacted)',
      permission: 'meta.read',
      schema: {
        response: {
          200: dataOf(z.strictObject({ dialect: z.enum(['postgres', 'mysql', 'sqlite']), location: z.string(), embedded: z.boolean() })),
        },
      },
      handler: ({ kernel }) => ({ data: { ...kernel.meta.placement, embedded: kernel.meta.dialect === 'sqlite' } }),
    }),
  ],
});
