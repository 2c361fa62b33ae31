import type { PermissionDeclaration } from '../plugin/manifest.js';
import { SIGNED_IN } from '../contract/route.js';

export const BUILTIN_ROLES = ['admin', 'editor', 'viewer'] as const;
export type BuiltinRole = (typeof BUILTIN_ROLES)[number];

/** A data-permission scope (D9): narrows a grant to a connection, a table, some columns. */
export interface GrantScope {
  connectionId: string;
  table?: string;
  columns?: string[];
}

export interface Grant {
  permission: string;
  scope?: GrantScope | null;
}

/** The union of the loaded plugins' declared permissions. */
export class PermissionCatalog {
  private readonly byName = new Map<string, PermissionDeclaration & { plugin: string }>();

  add(plugin: string, decl: PermissionDeclaration): void {
    const prior = this.byName.get(decl.name);
    if (prior) throw new Error(`permission ${decl.name} is declared by both ${prior.plugin} and ${plugin}`);
    this.byName.set(decl.name, { ...decl, plugin });
  }

  has(name: string): boolean {
    return name === SIGNED_IN || this.byName.has(name);
  }

  list(): Array<PermissionDeclaration & { plugin: string }> {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Grants a built-in role holds by declaration; admin holds everything. */
  builtinGrants(role: BuiltinRole): Grant[] {
    if (role === 'admin') return [...this.byName.keys()].map((permission) => ({ permission }));
    return [...this.byName.values()].filter((d) => d.roles?.includes(role)).map((d) => ({ permission: d.name }));
  }
}

/** What one permission's grants allow on one table: every column, or some. */
export interface ColumnGrant {
  all: boolean;
  columns: ReadonlySet<string>;
}

export const grantAllows = (grant: ColumnGrant | null, column: string): boolean => grant !== null && (grant.all || grant.columns.has(column));

/** What a principal may do: the union of its roles' grants. */
export class PermissionSet {
  private readonly scopes = new Map<string, Array<GrantScope | null>>();
  /** grantOn's answers: a principal is kept between requests (K25), so its set asks the same again. */
  private readonly reach = new Map<string, Readonly<ColumnGrant> | null>();

  constructor(
    readonly all: boolean,
    grants: Grant[],
  ) {
    for (const g of grants) {
      const list = this.scopes.get(g.permission) ?? [];
      list.push(g.scope ?? null);
      this.scopes.set(g.permission, list);
    }
  }

  /** Whether the permission is held at all (with any scope). */
  has(permission: string): boolean {
    return permission === SIGNED_IN || this.all || this.scopes.has(permission);
  }

  /** The scopes it is held with; `null` in the list means unscoped (everything). */
  scopesOf(permission: string): Array<GrantScope | null> {
    if (this.all) return [null];
    return this.scopes.get(permission) ?? [];
  }

  /** Whether some grant of `permission` reaches part of this connection (unscoped, or scoped to it or one of its tables). */
  reachesConnection(permission: string, connectionId: string): boolean {
    return this.scopesOf(permission).some((s) => s === null || s.connectionId === connectionId);
  }

  /**
   * The union of the scopes (D9) of `permission` that reach one table, or null when none does.
   * Unscoped, connection-wide and table-wide grants reach every column; several grants add up.
   */
  grantOn(permission: string, connectionId: string, table: string): Readonly<ColumnGrant> | null {
    const key = `${permission}\u0000${connectionId}\u0000${table}`;
    const known = this.reach.get(key);
    if (known !== undefined) return known;
    const grant = this.computeGrantOn(permission, connectionId, table);
    if (this.reach.size >= 256) this.reach.clear();
    this.reach.set(key, grant);
    return grant;
  }

  private computeGrantOn(permission: string, connectionId: string, table: string): ColumnGrant | null {
    let reached = false;
    let all = false;
    const columns = new Set<string>();
    for (const scope of this.scopesOf(permission)) {
      if (scope === null || (scope.connectionId === connectionId && (scope.table === undefined || scope.table === null))) {
        reached = all = true;
        continue;
      }
      if (scope.connectionId !== connectionId || scope.table !== table) continue;
      reached = true;
      if (!scope.columns) all = true;
      else for (const c of scope.columns) columns.add(c);
    }
    return reached ? { all, columns } : null;
  }

  names(): string[] {
    return [...this.scopes.keys()];
  }

  /**
   * What both sets allow: each permission held by both, with the overlap of their scopes (an
   * API key acts with its role only as far as its creator holds it now, K27).
   */
  intersect(other: PermissionSet): PermissionSet {
    if (this.all) return other;
    if (other.all) return this;
    const grants: Grant[] = [];
    for (const [permission, mine] of this.scopes) {
      const theirs = other.scopes.get(permission);
      if (!theirs) continue;
      for (const a of mine) {
        for (const b of theirs) {
          const scope = overlap(a, b);
          if (scope !== undefined) grants.push({ permission, scope });
        }
      }
    }
    return new PermissionSet(false, grants);
  }
}

/** The part of two scopes both reach: null is everything, undefined is nothing. */
function overlap(a: GrantScope | null, b: GrantScope | null): GrantScope | null | undefined {
  if (a === null) return b;
  if (b === null) return a;
  if (a.connectionId !== b.connectionId) return undefined;
  if (a.table == null) return b;
  if (b.table == null) return a;
  if (a.table !== b.table) return undefined;
  if (!a.columns) return b;
  if (!b.columns) return a;
  const columns = a.columns.filter((c) => b.columns!.includes(c));
  return columns.length > 0 ? { connectionId: a.connectionId, table: a.table, columns } : undefined;
}

/** A grant narrowed to part of the data (D9), as `GET /auth/session` and `GET /bootstrap` show it. */
export interface ScopedGrant {
  permission: string;
  scope: GrantScope;
}

/**
 * What a principal holds, as its client reads it (decisions BO1): every permission name it holds
 * with any scope (sorted; `self` left out, every principal holds it), and under `grants` the
 * scoped grants of the permissions it holds only with scopes. A permission held unscoped as well
 * reaches everything, so its scopes are not listed. Admin holds every declared permission.
 */
export function effectivePermissions(set: PermissionSet, catalog: PermissionCatalog): { permissions: string[]; grants: ScopedGrant[] } {
  const names = set.all ? catalog.list().map((d) => d.name) : set.names().filter((n) => n !== SIGNED_IN);
  names.sort();
  const grants: ScopedGrant[] = [];
  for (const permission of names) {
    const scopes = set.scopesOf(permission);
    if (scopes.includes(null)) continue;
    for (const scope of scopes) {
      if (!scope) continue;
      const clean: GrantScope = { connectionId: scope.connectionId };
      if (scope.table != null) clean.table = scope.table;
      if (scope.table != null && scope.columns) clean.columns = [...scope.columns];
      grants.push({ permission, scope: clean });
    }
  }
  return { permissions: names, grants };
}
