import { z } from 'zod';
import { route } from '../../kernel/contract/route.js';
import { dataOf } from '../../kernel/contract/shapes.js';
import { definePlugin } from '../../kernel/plugin/manifest.js';

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
