import type { EffectiveColumn, EffectiveModel, EffectiveTable } from './effective.js';
import { slugify } from '../pages/provides.js';

export type GeneratedKind = 'list' | 'detail';

export interface PlannedPage {
  /** One page per connection, table and kind: what makes generation idempotent. */
  generatedKey: string;
  connectionId: string;
  kind: GeneratedKind;
  table: string;
  title: string;
  /** The slug to use when it is free; a taken one gets `-2`, `-3`, … */
  slugBase: string;
  /**
   * The kind's config, version 1 of the pages plugin's configs (decisions PG5): what
   * `PATCH /pages/{pageId}/config` takes back unchanged. A page made once is never rewritten (PG9).
   */
  config: Record<string, unknown>;
}

export interface SkippedPage {
  table: string;
  kind: GeneratedKind;
  reason: 'no-primary-key';
}

/** Columns a list shows at most; the rest are a click away on the detail page. */
export const LIST_COLUMNS_MAX = 12;

export const generatedKey = (connectionId: string, table: string, kind: GeneratedKind) => `schema:${connectionId}:${kind}:${table}`;

const field = (c: EffectiveColumn) => ({ column: c.name, label: c.display.label, format: c.display.format });

function listColumns(t: EffectiveTable): EffectiveColumn[] {
  // Secret columns stay off lists: a list shows many rows at a glance, masked or not.
  const shown = t.columns.filter((c) => !c.display.hidden && !c.display.secret);
  const first = new Set([...(t.primaryKey?.columns ?? []), ...(t.display.displayColumn ? [t.display.displayColumn] : [])]);
  const ordered = [...shown.filter((c) => first.has(c.name)), ...shown.filter((c) => !first.has(c.name))];
  return ordered.slice(0, LIST_COLUMNS_MAX);
}

function listPage(connectionId: string, connectionName: string, t: EffectiveTable, withDetail: boolean): PlannedPage {
  return {
    generatedKey: generatedKey(connectionId, t.ref, 'list'),
    connectionId,
    kind: 'list',
    table: t.ref,
    title: t.display.label,
    slugBase: slugify(`${connectionName}-${t.ref}`),
    config: {
      version: 1,
      connectionId,
      table: t.ref,
      displayColumn: t.display.displayColumn,
      columns: listColumns(t).map(field),
      sort: (t.primaryKey?.columns ?? []).map((column) => ({ column, direction: 'asc' })),
      detailPage: withDetail ? generatedKey(connectionId, t.ref, 'detail') : null,
    },
  };
}

function detailPage(connectionId: string, connectionName: string, t: EffectiveTable): PlannedPage {
  return {
    generatedKey: generatedKey(connectionId, t.ref, 'detail'),
    connectionId,
    kind: 'detail',
    table: t.ref,
    title: `${t.display.label} detail`,
    slugBase: slugify(`${connectionName}-${t.ref}-detail`),
    config: {
      version: 1,
      connectionId,
      table: t.ref,
      displayColumn: t.display.displayColumn,
      primaryKey: t.primaryKey?.columns ?? [],
      // Secret and personal columns are listed with their flags: the data routes decide what a reader sees.
      fields: t.columns
        .filter((c) => !c.display.hidden)
        .map((c) => ({
          ...field(c),
          secret: c.display.secret,
          personal: c.display.personal,
          readOnly: c.autoIncrement || c.generated !== null || t.kind === 'view',
        })),
      listPage: generatedKey(connectionId, t.ref, 'list'),
    },
  };
}

/**
 * The default pages of a connection: a list and a detail page per table, honouring labels,
 * hidden tables and columns, and the display column. `tables` (refs) narrows the set and may
 * name hidden tables on purpose; without it, hidden tables are left out. A table without a
 * primary key gets no detail page: there is no way to address one of its rows.
 */
export function planPages(input: { connectionId: string; connectionName: string; model: EffectiveModel; tables?: readonly string[] }): {
  pages: PlannedPage[];
  skipped: SkippedPage[];
} {
  const wanted = input.tables ? new Set(input.tables) : null;
  const tables = input.model.tables.filter((t) => (wanted ? wanted.has(t.ref) : !t.display.hidden));
  const pages: PlannedPage[] = [];
  const skipped: SkippedPage[] = [];
  for (const t of tables) {
    const addressable = (t.primaryKey?.columns.length ?? 0) > 0;
    pages.push(listPage(input.connectionId, input.connectionName, t, addressable));
    if (addressable) pages.push(detailPage(input.connectionId, input.connectionName, t));
    else skipped.push({ table: t.ref, kind: 'detail', reason: 'no-primary-key' });
  }
  return { pages, skipped };
}
