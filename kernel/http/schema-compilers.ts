import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildValidator = NonNullable<Factories['buildValidator']>;
type BuildSerializer = NonNullable<Factories['buildSerializer']>;

// Resolved from fastify's own place, as fastify itself requires them.
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));

/**
 * fastify's JSON-schema compilers (ajv and fast-json-stringify, about a hundred modules and
 * 1.5 MB of heap), loaded when a route first declares a JSON schema rather than when fastify
 * starts, which is what fastify does by default. The kernel's routes never do: their contracts
 * are zod, checked in kernel/http/routes.ts. A route that does gets the very compilers fastify
 * would have made.
 */
type Build = (...args: unknown[]) => unknown;
const onFirstUse = (module: string): Build => {
  let build: Build | undefined;
  return (...args) => (build ??= (fromFastify(module) as () => Build)())(...args);
};

export const schemaCompilersOnFirstUse: Factories = {
  buildValidator: onFirstUse('@fastify/ajv-compiler') as unknown as BuildValidator,
  buildSerializer: onFirstUse('@fastify/fast-json-stringify-compiler') as unknown as BuildSerializer,
};
