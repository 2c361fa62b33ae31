import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { RouteDefinition } from '../contract/route.js';
import type { Kernel } from '../kernel-services.js';
import { mountRoute } from './routes.js';

/**
 * A multipart route in a fastify scope of its own with @fastify/multipart registered there:
 * its parser, and the hooks it adds to every request of its scope, stay with this one route.
 * Everywhere else a multipart body is an unknown content type (415 UNSUPPORTED_MEDIA_TYPE).
 */
export async function mountMultipartRoute(app: FastifyInstance, plugin: string, def: RouteDefinition, kernel: Kernel): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: { ...def.multipart } });
    mountRoute(scope, plugin, def, kernel);
  });
}
