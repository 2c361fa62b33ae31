import { z } from 'zod';
import { dataOf, LICENSE, PRODUCT_NAME, reply, route, SIGNED_IN } from '../../kernel/api.js';
import { checkForUpdate } from './update-check.js';

const liveness = z.strictObject({ ok: z.literal(true), version: z.string(), uptime: z.number().min(0) }).meta({ id: 'Liveness' });
const readiness = z
  .strictObject({
    ok: z.boolean(),
    version: z.string(),
    checks: z.strictObject({
      meta: z.enum(['ok', 'unreachable', 'not-configured']),
      // Present only when not fine, so the seed's shape is what a healthy instance answers (decisions K43, K44).
      storage: z
        .literal('full')
        .optional()
        .describe('Present while storage was seen full (a write answered 503 STORAGE_FULL), until a write succeeds or 30 s pass.'),
      server: z.literal('draining').optional().describe('Present while the process drains before it exits (SIGTERM/SIGINT).'),
    }),
  })
  .meta({ id: 'Readiness' });
const instanceInfo = z
  .strictObject({
    version: z.string(),
    node: z.string(),
    dialect: z.enum(['postgres', 'mysql', 'sqlite']).nullable(),
    runtime: z.enum(['self-host', 'desktop']),
    smtpConfigured: z.boolean(),
    networkFeaturesAllowed: z.boolean(),
    lanShare: z.boolean(),
    desktopDemo: z.boolean(),
  })
  .meta({ id: 'InstanceInfo' });

export const healthRoutes = [
  route({
    method: 'GET',
    url: '/healthz',
    summary: 'Liveness: the process answers',
    public: true,
    schema: { response: { 200: liveness } },
    handler: ({ kernel }) => ({ ok: true as const, version: kernel.version, uptime: Math.max(0, (kernel.now() - kernel.startedAt) / 1000) }),
  }),
  route({
    method: 'GET',
    url: '/readyz',
    summary: 'Readiness: the meta store is reachable',
    description:
      'Answers 503 with the same body while the meta store is unreachable, while storage was recently seen full (`checks.storage`), and while the process drains before it exits (`checks.server`).',
    public: true,
    schema: { response: { 200: readiness, 503: readiness } },
    handler: async ({ kernel }) => {
      const reachable = await kernel.meta.ping();
      const { draining, storageFull } = kernel.serving;
      const ok = reachable && !draining && !storageFull;
      const checks = {
        meta: reachable ? ('ok' as const) : ('unreachable' as const),
        ...(storageFull ? { storage: 'full' as const } : {}),
        ...(draining ? { server: 'draining' as const } : {}),
      };
      const body = { ok, version: kernel.version, checks };
      return ok ? body : reply(503, body);
    },
  }),
  route({
    method: 'GET',
    url: '/system/info',
    summary: 'Instance information',
    description: 'Public: the sign-in page needs the runtime and whether e-mail works before anyone is signed in.',
    public: true,
    schema: { response: { 200: instanceInfo } },
    handler: async ({ kernel }) => ({
      version: kernel.version,
      node: process.versions.node,
      dialect: kernel.meta.dialect,
      runtime: kernel.config.runtime,
      smtpConfigured: Boolean((await kernel.settings.get<{ host?: string }>('email'))?.host),
      networkFeaturesAllowed: kernel.config.networkFeatures,
      lanShare: kernel.config.lanShare,
      desktopDemo: kernel.config.desktopDemo,
    }),
  }),
  route({
    method: 'GET',
    url: '/about',
    summary: 'Product name, version and licence',
    permission: SIGNED_IN,
    schema: {
      response: {
        200: dataOf(
          z.strictObject({ name: z.string(), version: z.string(), node: z.string(), license: z.string(), runtime: z.enum(['self-host', 'desktop']) }),
        ),
      },
    },
    handler: ({ kernel }) => ({
      data: { name: PRODUCT_NAME, version: kernel.version, node: process.versions.node, license: LICENSE, runtime: kernel.config.runtime },
    }),
  }),
  route({
    method: 'GET',
    url: '/about/update-check',
    summary: 'Whether a newer release exists',
    description: 'Makes no network call when network features are not allowed; it then answers checked=false.',
    permission: 'system.update-check',
    schema: {
      response: {
        200: dataOf(
          z.strictObject({
            checked: z.boolean(),
            reason: z.enum(['network-features-disabled', 'unreachable', 'bad-answer']).nullable(),
            current: z.string(),
            latest: z.string().nullable(),
            updateAvailable: z.boolean(),
          }),
        ),
      },
    },
    handler: async ({ kernel }) => ({ data: await checkForUpdate(kernel) }),
  }),
];
