import type { PluginDefinition } from '../plugin/manifest.js';
import type { DeclaredJobKind, JobDeclaration } from './types.js';

export interface LoadedJobKind extends DeclaredJobKind {
  declaration: JobDeclaration;
}

export const DEFAULT_MAX_ATTEMPTS = 3;

/** The manifests' `jobs`, by kind (route-tree already refused duplicates and unknown permissions). */
export function loadJobKinds(plugins: readonly PluginDefinition[]): Map<string, LoadedJobKind> {
  const kinds = new Map<string, LoadedJobKind>();
  for (const p of plugins) {
    for (const [kind, decl] of Object.entries(p.jobs ?? {})) {
      kinds.set(kind, {
        plugin: p.name,
        permission: decl.permission,
        description: decl.description ?? null,
        maxAttempts: decl.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        declaration: decl,
      });
    }
  }
  return kinds;
}
