import type { PermissionSet } from '../../kernel/api.js';
import { readsColumn } from '../../engine/rows/index.js';
import { SCHEMA_READ } from './access.js';
import type { EffectiveModel, EffectiveTable } from './effective.js';

const DATA_READ = 'data.read';

/**
 * How a caller may read a connection's schema (decision SC6): all of it with `connections.read`;
 * without it, the part its `data.read` grants reach, so a role given one table can open that
 * table's grid and list page (the grid needs its types, keys and display settings); else nothing.
 */
export function schemaAccess(permissions: PermissionSet, connectionId: string): 'whole' | 'granted' | 'none' {
  if (permissions.has(SCHEMA_READ)) return 'whole';
  return permissions.reachesConnection(DATA_READ, connectionId) ? 'granted' : 'none';
}

/**
 * The model narrowed to what `data.read` lets the caller read on this connection, by the data
 * API's own column rule (DA2, `readsColumn`): the tables a grant reaches, in each the columns it
 * reads, and only the constraints and indexes made of those columns; a foreign key only when the
 * table it points at is shown too. The database's check expressions are left out (they may name
 * any column).
 */
export function grantedModel(permissions: PermissionSet, connectionId: string, model: EffectiveModel): EffectiveModel {
  const tables: EffectiveTable[] = [];
  for (const table of model.tables) {
    const grant = permissions.grantOn(DATA_READ, connectionId, table.ref);
    if (!grant) continue;
    const pk = new Set(table.primaryKey?.columns ?? []);
    const columns = table.columns.filter((c) => readsColumn(c, pk, grant));
    const shown = new Set(columns.map((c) => c.name));
    const within = (names: string[]) => names.every((n) => shown.has(n));
    tables.push({
      ...table,
      columns,
      foreignKeys: table.foreignKeys.filter((fk) => within(fk.columns)),
      uniques: table.uniques.filter((u) => within(u.columns)),
      indexes: table.indexes.filter((i) => within(i.columns)),
      checks: [],
    });
  }
  const names = new Set(tables.map((t) => `${t.schema ?? ''}\u0000${t.name}`));
  for (const table of tables) {
    table.foreignKeys = table.foreignKeys.filter((fk) => names.has(`${fk.referencedSchema ?? table.schema ?? ''}\u0000${fk.referencedTable}`));
  }
  return { ...model, tables };
}
