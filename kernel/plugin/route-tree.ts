import type { RouteAudience } from '../contract/audience.js';
import { checkRoute, type AudienceCatalog } from '../contract/check.js';
import { SIGNED_IN } from '../contract/route.js';
import { registerErrorCodes } from '../errors.js';
import { PermissionCatalog } from '../identity/permissions.js';
import type { LoadedRoute } from '../kernel-services.js';
import { validateManifest, type PluginDefinition } from './manifest.js';
import { orderPlugins } from './order.js';

export interface RouteTree {
  /** In load order: each after everything it requires. */
  plugins: PluginDefinition[];
  catalog: PermissionCatalog;
  routes: LoadedRoute[];
}

/**
 * Everything that can be checked without opening anything: manifests, load order, the
 * permission catalog, the route contract and the permissions events and job kinds need. Throws one line on the first problem, so the
 * server refuses to start, and `npm run openapi` sees exactly the tree the server would serve.
 */
export function buildRouteTree(input: readonly PluginDefinition[]): RouteTree {
  for (const p of input) validateManifest(p);
  const plugins = orderPlugins(input);
  const catalog = new PermissionCatalog();
  for (const p of plugins) {
    for (const perm of p.permissions ?? []) catalog.add(p.name, perm);
    if (p.errors) registerErrorCodes(p.errors);
  }
  for (const p of plugins) {
    for (const [kind, decl] of Object.entries(p.events ?? {})) {
      if (!catalog.has(decl.permission))
        throw new Error(`event ${kind} of plugin ${p.name} needs permission ${decl.permission}, which no loaded plugin declares`);
    }
  }
  const jobKinds = new Map<string, string>();
  for (const p of plugins) {
    for (const [kind, decl] of Object.entries(p.jobs ?? {})) {
      const prior = jobKinds.get(kind);
      if (prior) throw new Error(`job kind ${kind} is declared by both ${prior} and ${p.name}`);
      jobKinds.set(kind, p.name);
      // `self` would let every signed-in caller see and cancel every job of the kind.
      if (decl.permission === SIGNED_IN || !catalog.has(decl.permission)) {
        throw new Error(`job kind ${kind} of plugin ${p.name} needs permission ${decl.permission}, which no loaded plugin declares`);
      }
    }
  }
  const audiences = audienceCatalog(plugins);
  const seen = new Set<string>();
  const routes: LoadedRoute[] = [];
  for (const p of plugins) {
    for (const r of p.routes ?? []) {
      checkRoute(p.name, r, (name) => catalog.has(name), audiences);
      const key = `${r.method} ${r.url.replace(/:[^/]+/g, ':')}`;
      if (seen.has(key)) throw new Error(`route ${r.method} ${r.url} of plugin ${p.name} is declared twice`);
      seen.add(key);
      routes.push({ plugin: p.name, definition: r });
    }
  }
  return { plugins, catalog, routes };
}

/** The audiences the plugins provide: each once, by the plugin its reference names. */
function audienceCatalog(plugins: readonly PluginDefinition[]): AudienceCatalog {
  const provided = new Map<string, RouteAudience>();
  for (const p of plugins) {
    for (const { audience } of p.audiences ?? []) {
      if (audience.provider !== p.name)
        throw new Error(`plugin ${p.name} provides audience ${audience.name}, whose reference names plugin ${audience.provider}`);
      if (provided.has(audience.name)) throw new Error(`audience ${audience.name} is provided twice`);
      provided.set(audience.name, audience);
    }
  }
  const requires = new Map(plugins.map((p) => [p.name, p.requires ?? []]));
  return { provided, requires: (name) => requires.get(name) ?? [] };
}
