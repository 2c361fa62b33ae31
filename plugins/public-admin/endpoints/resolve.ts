import type { StoredDefinition } from './definition.js';
import { isComputed, keyFill, offeredMethods, type TableContext } from './generate.js';
import type { EndpointDefinition } from '../provides.js';

export interface EndpointProblem {
  reason: 'table-missing' | 'column-missing' | 'column-secret' | 'column-personal';
  column?: string;
}

export interface Resolved {
  def: EndpointDefinition;
  problems: EndpointProblem[];
  /** What an edit starts from: the stored definition without what the schema no longer allows (sensitive columns kept). */
  editable: StoredDefinition;
}

export interface StoredRow {
  id: string;
  ref: string;
  connectionId: string;
  table: string;
  generated: boolean;
  edited: boolean;
  addonKey: string | null;
  definition: StoredDefinition;
}

/** Columns a rule depends on: when one is gone the endpoint would reach more rows than meant. */
function guardColumns(d: StoredDefinition): string[] {
  const b = d.booking;
  return [
    ...d.filters.map((f) => f.column),
    ...d.identity,
    ...(b ? [b.timeColumn, b.partyColumn, b.emailColumn, b.codeColumn, b.localeColumn].filter((c): c is string => c !== null) : []),
    ...(d.window ? [d.window.column] : []),
  ];
}

/**
 * A stored endpoint as the data plane must enforce it today. The stored column list is kept
 * (a column added later stays out), but the schema still has the last word: a column dropped or
 * since marked secret is no longer exposed, nor one marked personal unless an admin listed it in
 * an edit; methods the table no longer offers (a new cascade, a lost key) are withdrawn. When a
 * column a filter, claim or booking rule needs is gone, the endpoint offers nothing: silently
 * dropping a default filter would widen what it reaches.
 */
export function resolveStored(row: StoredRow, ctx: TableContext | null): Resolved {
  const d = row.definition;
  const base = {
    ...d,
    id: row.id,
    ref: row.ref,
    connectionId: row.connectionId,
    table: row.table,
    virtual: false,
    generated: row.generated,
    addonKey: row.addonKey,
  };
  if (!ctx) {
    const empty = { methods: [], columns: [], writable: [], filterable: [], searchable: [], orderable: [], pk: [], keyFill: null };
    return { def: { ...base, ...empty }, problems: [{ reason: 'table-missing' }], editable: d };
  }
  const t = ctx.table;
  const byName = new Map(t.columns.map((c) => [c.name, c]));
  const problems: EndpointProblem[] = [];
  const sensitive = new Set(d.sensitive);
  const listed = d.columns.filter((name) => {
    const c = byName.get(name);
    if (!c) return (problems.push({ reason: 'column-missing', column: name }), false);
    if (c.display.secret) return (problems.push({ reason: 'column-secret', column: name }), false);
    if (c.display.personal && !row.edited) return (problems.push({ reason: 'column-personal', column: name }), false);
    return true;
  });
  // A sensitive column may still be written (a guest's phone number), never read, filtered or sorted on.
  const columns = listed.filter((c) => !sensitive.has(c));
  const exposed = new Set(columns);
  const broken = guardColumns(d).filter((name) => !byName.has(name) || byName.get(name)!.display.secret);
  for (const name of broken)
    if (!problems.some((p) => p.column === name)) problems.push({ reason: byName.has(name) ? 'column-secret' : 'column-missing', column: name });
  const writable = d.writable.filter((c) => listed.includes(c) && !isComputed(t, c));
  const offered = d.methods.filter((m) => offeredMethods(ctx, { allowCascade: d.allowCascade, filtered: d.filters.length > 0, writable }).includes(m));
  const methods = broken.length ? [] : offered;
  const kept = new Set(listed);
  return {
    editable: {
      ...d,
      methods: offered,
      columns: listed,
      writable,
      filterable: d.filterable.filter((c) => kept.has(c)),
      searchable: d.searchable.filter((c) => kept.has(c)),
      orderable: d.orderable.filter((c) => kept.has(c)),
    },
    def: {
      ...base,
      methods,
      columns,
      writable,
      filterable: d.filterable.filter((c) => exposed.has(c)),
      searchable: d.searchable.filter((c) => exposed.has(c)),
      orderable: d.orderable.filter((c) => exposed.has(c)),
      identity: d.identity.filter((c) => byName.has(c)),
      sensitive: d.sensitive.filter((c) => byName.has(c)),
      pk: t.kind === 'table' ? [...(t.primaryKey?.columns ?? [])] : [],
      keyFill: keyFill(t),
    },
    problems,
  };
}
