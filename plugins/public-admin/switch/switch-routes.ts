import { z } from 'zod';
import { dataOf, type Kernel, route } from '../../../kernel/api.js';
import { PUBLIC_API_READ, PUBLIC_API_WRITE, tags } from '../access.js';
import { publicAdminServiceRef } from '../service.js';

const service = (kernel: Kernel) => kernel.plugin(publicAdminServiceRef);

export const publicApiStateSchema = z
  .strictObject({
    enabled: z.boolean().describe('the switch (off by default)'),
    served: z.boolean().describe('false when SVC_PUBLIC_API_ORIGINS is unset: the public routes are not served at all'),
    origins: z.array(z.string()).describe('SVC_PUBLIC_API_ORIGINS'),
  })
  .meta({ id: 'PublicApiState' });

export const switchRoutes = [
  route({
    method: 'GET',
    url: '/public-api',
    tags,
    summary: 'The public API switch, whether its routes are served, and the origins browser keys work from',
    permission: PUBLIC_API_READ,
    schema: { response: { 200: dataOf(publicApiStateSchema) } },
    handler: async ({ kernel }) => ({ data: await service(kernel).switch.state() }),
  }),
  route({
    method: 'PUT',
    url: '/public-api',
    tags,
    summary: 'Switch the public API on or off',
    description:
      'Takes effect with the next public request (other replicas within seconds). Off: every key stops working and public requests answer ' +
      '503 PUBLIC_API_DISABLED; nothing is deleted. On needs SVC_PUBLIC_API_ORIGINS, else 409 PUBLIC_API_NOT_CONFIGURED.',
    permission: PUBLIC_API_WRITE,
    schema: { body: z.strictObject({ enabled: z.boolean() }), response: { 200: dataOf(publicApiStateSchema) } },
    handler: async ({ kernel, body, audit }) => {
      const s = service(kernel);
      const { before, after } = await s.switch.set(body.enabled);
      await s.switchChanged(after);
      audit({ action: 'public-api.switch', target: null, diff: { before: { enabled: before.enabled }, after: { enabled: after.enabled } } });
      return { data: after };
    },
  }),
];
