import { AppError } from '../../../kernel/api.js';
import type { ConnectionInfo, ConnectionsProvides } from '../../connections/provides.js';
import type { EffectiveModel, SchemaProvides } from '../../schema/provides.js';
import { connectionPrefix, generatedDefinition, type TableContext } from './generate.js';
import type { EndpointDefinition } from '../provides.js';
import { resolveStored, type EndpointProblem } from './resolve.js';
import { storedPart, type StoredDefinition } from './definition.js';
import { refKey, type ScopeStore } from './scopes-store.js';

export interface CatalogEntry {
  def: EndpointDefinition;
  /** For stored endpoints: whether an admin changed it (false: stored only because a key granted it). */
  edited: boolean;
  createdAt: number | null;
  updatedAt: number | null;
  problems: EndpointProblem[];
  /** The definition an edit starts from (see resolveStored). */
  editable: StoredDefinition;
}

export interface Catalog {
  entries: CatalogEntry[];
  byRef: Map<string, CatalogEntry>;
  /** The table behind an entry, for validation; null when the table or its connection is gone. */
  context(connectionId: string, table: string): TableContext | null;
  builtAt: number;
}

/**
 * Builds every endpoint: the stored ones, then a generated (virtual) one for each table whose
 * generated endpoint is not stored. A generated ref is the table ref, prefixed with
 * `<connection name>_` only when two connections have a table of that name (or a stored endpoint
 * already holds the bare name); a further clash takes `_2`, `_3`… Connections go in name order,
 * so the names do not depend on the order rows come back in.
 */
export async function buildCatalog(connections: ConnectionsProvides, schema: SchemaProvides, store: ScopeStore, now: number): Promise<Catalog> {
  const infos = (await connections.list()).slice().sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const models = new Map<string, { info: ConnectionInfo; model: EffectiveModel }>();
  for (const info of infos) {
    try {
      models.set(info.id, { info, model: (await schema.effective(info.id)).model });
    } catch (err) {
      // Not introspected yet, or deleted meanwhile: the connection has no tables to offer.
      if (!(err instanceof AppError) || (err.code !== 'SCHEMA_NOT_INTROSPECTED' && err.code !== 'NOT_FOUND')) throw err;
    }
  }
  const context = (connectionId: string, table: string): TableContext | null => {
    const m = models.get(connectionId);
    const t = m?.model.tables.find((x) => x.ref === table);
    return m && t ? { connection: m.info, model: m.model, table: t } : null;
  };

  const entries: CatalogEntry[] = [];
  const taken = new Set<string>();
  const storedGenerated = new Set<string>();
  for (const row of await store.all()) {
    // A deleted connection's endpoints serve nothing and list nowhere.
    if (!infos.some((i) => i.id === row.connectionId)) continue;
    const { def, problems, editable } = resolveStored(row, context(row.connectionId, row.table));
    entries.push({ def, edited: row.edited, createdAt: row.createdAt, updatedAt: row.updatedAt, problems, editable });
    taken.add(refKey(row.ref));
    if (row.generated) storedGenerated.add(`${row.connectionId}\u0000${row.table}`);
  }

  const sharing = new Map<string, number>();
  for (const { model } of models.values()) for (const t of model.tables) sharing.set(refKey(t.ref), (sharing.get(refKey(t.ref)) ?? 0) + 1);
  for (const { info, model } of models.values()) {
    for (const t of model.tables.slice().sort((a, b) => a.ref.localeCompare(b.ref))) {
      if (storedGenerated.has(`${info.id}\u0000${t.ref}`)) continue;
      const bare = (sharing.get(refKey(t.ref)) ?? 0) > 1 || taken.has(refKey(t.ref)) ? connectionPrefix(info.name) + t.ref : t.ref;
      let ref = bare;
      for (let n = 2; taken.has(refKey(ref)); n++) ref = `${bare}_${n}`;
      taken.add(refKey(ref));
      const def = generatedDefinition({ connection: info, model, table: t }, ref);
      entries.push({ def, edited: false, createdAt: null, updatedAt: null, problems: [], editable: storedPart(def) });
    }
  }
  entries.sort((a, b) => (a.def.ref < b.def.ref ? -1 : a.def.ref > b.def.ref ? 1 : 0));
  return { entries, byRef: new Map(entries.map((e) => [e.def.ref, e])), context, builtAt: now };
}
