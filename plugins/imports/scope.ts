import type { Principal } from '../../kernel/identity/principal.js';

/**
 * Which columns of one table a grant scope (D9) lets the caller reach: 'all', a set of
 * column names, or null for none. A scope without a table covers the whole connection; one
 * without columns the whole table. Several grants add up.
 */
export function scopedColumns(principal: Principal, permission: string, connectionId: string, tableRef: string): 'all' | Set<string> | null {
  let columns: Set<string> | null = null;
  for (const scope of principal.permissions.scopesOf(permission)) {
    if (scope === null) return 'all';
    if (scope.connectionId !== connectionId) continue;
    if (scope.table === undefined || scope.table === null) return 'all';
    if (scope.table !== tableRef) continue;
    if (!scope.columns) return 'all';
    columns ??= new Set();
    for (const c of scope.columns) columns.add(c);
  }
  return columns;
}

export const allows = (scope: 'all' | Set<string> | null, column: string): boolean => scope === 'all' || (scope !== null && scope.has(column));
