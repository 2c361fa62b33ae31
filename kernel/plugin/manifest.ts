import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { AudienceProvision } from '../contract/audience.js';
import type { RouteDefinition } from '../contract/route.js';
import type { JobDeclaration } from '../jobs/types.js';
import type { Kernel } from '../kernel-services.js';
import {
  EVENT_KIND,
  PERMISSION_NAME,
  errorCodeDeclarationSchema,
  errorCodeField,
  eventKindField,
  permissionDeclarationSchema,
  type ErrorCodeDeclaration,
  type PermissionDeclaration,
} from '../../addons-sdk/src/manifest/declarations.js';

/**
 * The one manifest format (DESIGN §2). Everything but handlers, migrations and `setup` is plain
 * data validated by `manifestSchema`, so an add-on's addon.json can declare the same things.
 */
export type { ErrorCodeDeclaration, PermissionDeclaration } from '../../addons-sdk/src/manifest/declarations.js';

export interface EventDeclaration {
  schema: z.ZodType;
  /** A subscriber receives this kind only when it holds this permission. */
  permission: string;
  description?: string;
}

export interface Migration {
  name: string;
  // Migrations see the meta store before its types exist, so they get an untyped handle.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  up(db: Kysely<any>): Promise<void>;
}

export interface PluginDefinition<Provides = unknown> {
  name: string;
  version: string;
  description?: string;
  /** Plugins that must load first; their `provides` value is reachable through `kernel.plugin(ref)` with the provider's reference. */
  requires?: string[];
  permissions?: PermissionDeclaration[];
  migrations?: Migration[];
  routes?: RouteDefinition[];
  /**
   * The audiences whose gate this plugin provides (K47): routes of this plugin and of plugins
   * requiring it declare one, and the kernel runs its gate on those routes alone.
   */
  audiences?: AudienceProvision<Provides>[];
  events?: Record<string, EventDeclaration>;
  errors?: Record<string, ErrorCodeDeclaration>;
  /** Job kinds this plugin runs (D13); each names the permission that sees and cancels its jobs. */
  jobs?: Record<string, JobDeclaration>;
  /** The plugin's one init: runs after migrations, in dependency order. */
  setup?: (kernel: Kernel) => Promise<Provides> | Provides;
  /**
   * Raw HTTP access for what the route contract cannot say (a CORS preflight route, hooks or an
   * error handler on the plugin's own routes through `onRoute`). Runs after `setup` and before
   * the plugin's routes are mounted. The instance is the application's, not encapsulated: a
   * hook added here sees every later route and request, so it must filter by URL; a gate for
   * some routes is an audience instead (`audiences`). (A method, so
   * a plugin typed with its own Provides still fits PluginDefinition<unknown>.)
   */
  http?(app: FastifyInstance, kernel: Kernel, provided: Provides): Promise<void> | void;
  /** Runs at shutdown in reverse load order. */
  close?: () => Promise<void> | void;
}

export function definePlugin<P = unknown>(def: PluginDefinition<P>): PluginDefinition<P> {
  return def;
}

const isZod = (v: unknown): v is z.ZodType => v instanceof z.ZodType;
const zodSchema = z.custom<z.ZodType>(isZod, { message: 'must be a zod schema' });
const responseSchema = z.union([zodSchema, z.object({ raw: z.literal(true), contentType: z.string().min(1), description: z.string() })]);

export const PLUGIN_NAME = /^[a-z][a-z0-9-]{1,39}$/;
export { EVENT_KIND, PERMISSION_NAME };
export const JOB_KIND = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;
const audienceRef = z.object({ name: z.string().min(1), provider: z.string().regex(PLUGIN_NAME), under: z.string().startsWith('/') });

export const manifestSchema = z.object({
  name: z.string().regex(PLUGIN_NAME, 'plugin names are lower-case kebab-case, 2 to 40 characters'),
  version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'version must be semver'),
  description: z.string().optional(),
  requires: z.array(z.string().regex(PLUGIN_NAME)).default([]),
  permissions: z.array(permissionDeclarationSchema).default([]),
  migrations: z.array(z.object({ name: z.string().min(1).max(200), up: z.function() })).default([]),
  routes: z
    .array(
      z.object({
        method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
        url: z.string().startsWith('/'),
        summary: z.string().min(1),
        description: z.string().optional(),
        tags: z.array(z.string()).optional(),
        permission: z.string().optional(),
        public: z.literal(true).optional(),
        audience: audienceRef.extend({ options: z.unknown() }).optional(),
        bodyLimit: z.number().int().positive().optional(),
        schema: z.object({
          params: zodSchema.optional(),
          query: zodSchema.optional(),
          body: zodSchema.optional(),
          response: z.record(z.string().regex(/^[1-5]\d\d$/), responseSchema),
        }),
        handler: z.function(),
      }),
    )
    .default([]),
  audiences: z.array(z.object({ audience: audienceRef, gate: z.function() })).default([]),
  events: z.record(eventKindField, z.object({ schema: zodSchema, permission: z.string(), description: z.string().optional() })).default({}),
  jobs: z
    .record(
      z.string().regex(JOB_KIND, 'job kinds look like namespace.action').max(100),
      z.object({
        permission: z.string(),
        description: z.string().optional(),
        maxAttempts: z.number().int().min(1).max(100).optional(),
        schema: zodSchema.optional(),
        handler: z.function(),
      }),
    )
    .default({}),
  errors: z.record(errorCodeField, errorCodeDeclarationSchema).default({}),
  setup: z.function().optional(),
  http: z.function().optional(),
  close: z.function().optional(),
});

/** Checks a manifest's shape; throws one line naming the plugin and the first problem. */
export function validateManifest(def: PluginDefinition): void {
  const result = manifestSchema.safeParse(def);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`plugin ${def?.name ?? '(unnamed)'}: manifest field ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
}
