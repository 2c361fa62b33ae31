import type { GrantScope, PermissionSet } from '../../kernel/api.js';

/** Whether holding `held` (null = unscoped) includes everything `wanted` reaches. */
export function scopeCovers(held: Array<GrantScope | null>, wanted: GrantScope | null): boolean {
  return held.some((h) => {
    if (h === null) return true;
    if (wanted === null || h.connectionId !== wanted.connectionId) return false;
    if (h.table === undefined) return true;
    if (h.table !== wanted.table) return false;
    if (h.columns === undefined) return true;
    return wanted.columns !== undefined && wanted.columns.every((c) => h.columns!.includes(c));
  });
}

/**
 * The first permission in `target` that `caller` does not hold as widely, or null when the
 * caller holds all of it. `everything` lists the catalog, for a target that holds it all (admin).
 */
export function firstUncovered(caller: PermissionSet, target: PermissionSet, everything: readonly string[]): string | null {
  if (caller.all) return null;
  if (target.all) return everything.find((name) => !scopeCovers(caller.scopesOf(name), null)) ?? null;
  for (const name of target.names()) {
    for (const scope of target.scopesOf(name)) {
      if (!scopeCovers(caller.scopesOf(name), scope)) return name;
    }
  }
  return null;
}
