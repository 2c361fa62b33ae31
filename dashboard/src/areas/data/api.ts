import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import { RowWindow, type SeekKey } from './row-window';
import { bootstrapQuery, grantsTable } from '../../api/bootstrap';
import { displayColumn } from '../../values/references';

export type Table = Schemas['EffectiveSchemaTable'];
export type Column = Schemas['EffectiveSchemaColumn'];
export type Row = Record<string, unknown>;
export type Reference = Schemas['DataReference'];
export type OpResult = Schemas['DataOpResult'];

/**
 * Query keys: all under `['data']`, which the shell's live channel refreshes on `data.changed`;
 * a row's and its references' keys start with their table's, so a table's can be refreshed at once.
 */
export const dataKeys = {
  all: ['data'] as const,
  table: (conn: string, ref: string) => ['data', 'table', conn, ref] as const,
  rows: (conn: string, ref: string) => ['data', 'row', conn, ref] as const,
  row: (conn: string, ref: string, recordId: string) => ['data', 'row', conn, ref, recordId] as const,
  tableRefs: (conn: string, ref: string) => ['data', 'refs', conn, ref] as const,
  refs: (conn: string, ref: string, recordId: string) => ['data', 'refs', conn, ref, recordId] as const,
  fkOptions: (conn: string, ref: string | undefined, text: string) => ['data', 'fk-options', conn, ref, text] as const,
};

/*
 * The grid's rows are not in the query cache: they are a RowWindow (row-window.ts), which pages
 * by keyset and keeps only the rows near the viewport; useRowWindow below owns it. The writes of
 * the grid and the row screen are the mutation hooks further down; each screen applies their
 * answers to what it shows (the window, the row's cached query) and keeps its own undo toast.
 */

export interface Page {
  rows: Row[];
  recordIds: Array<string | null>;
  nextCursor: string | null;
  total: number | null;
  totalExact: boolean;
}

/** One page of rows; `query` is the view's query string (view.ts) plus limit/cursor/fields. */
export async function listRows(conn: string, table: string, query: string, signal?: AbortSignal): Promise<Page> {
  return (
    await ok(
      api.GET('/data/{connectionId}/{table}', {
        params: { path: { connectionId: conn, table } },
        // Filters are flat `filter[col][op]` keys: the string is already in the API's syntax.
        querySerializer: () => query,
        signal,
      }),
    )
  ).data;
}

export async function getRow(conn: string, table: string, recordId: string): Promise<{ row: Row; recordId: string }> {
  return (await ok(api.GET('/data/{connectionId}/{table}/{recordId}', { params: { path: { connectionId: conn, table, recordId } } }))).data;
}

export async function patchRow(conn: string, table: string, recordId: string, values: Row) {
  return (await ok(api.PATCH('/data/{connectionId}/{table}/{recordId}', { params: { path: { connectionId: conn, table, recordId } }, body: { values } }))).data;
}

export async function createRow(conn: string, table: string, values: Row) {
  return (await ok(api.POST('/data/{connectionId}/{table}', { params: { path: { connectionId: conn, table } }, body: { values } }))).data;
}

export async function deleteRow(conn: string, table: string, recordId: string) {
  return (await ok(api.DELETE('/data/{connectionId}/{table}/{recordId}', { params: { path: { connectionId: conn, table, recordId } } }))).data;
}

export type BulkOp = { op: 'create'; values: Row } | { op: 'update'; recordId: string; values: Row } | { op: 'delete'; recordId: string };

export async function bulk(conn: string, table: string, operations: BulkOp[]) {
  return (await ok(api.POST('/data/{connectionId}/{table}/bulk', { params: { path: { connectionId: conn, table } }, body: { operations } }))).data;
}

export async function undo(token: string) {
  return (await ok(api.POST('/data/undo/{token}', { params: { path: { token } } }))).data;
}

export async function references(conn: string, table: string, recordId: string): Promise<Reference[]> {
  return (await ok(api.GET('/data/{connectionId}/{table}/{recordId}/references', { params: { path: { connectionId: conn, table, recordId } } }))).data
    .references;
}

/*
 * The first page of a view is asked for as soon as the route is known (with the schema, not
 * after it: one round trip less before rows show), and the window of that view takes it instead
 * of asking again. It is kept here, by connection, table and view, not in a component: a screen
 * whose first render is thrown away (a lazy part suspending) renders again without asking twice,
 * and the window made for the view (once per view; twice under StrictMode) finds it. An answer
 * nobody took is dropped after FIRST_PAGE_KEPT_MS: it is never served later as the current rows.
 */
interface FirstPage {
  page: Promise<Page>;
  /** Aborts its request: the window that took it is let go of (a cancelled search, another view). */
  controller: AbortController;
}
const firstPages = new Map<string, FirstPage>();
const FIRST_PAGE_KEPT_MS = 10_000;
const firstPageKey = (conn: string, ref: string, query: string) => JSON.stringify([conn, ref, query]);

/** Asks for the first page of a view (`query`, view.ts's string) unless it is already asked for; a failure is kept in the promise (the window then asks again). */
export function useFirstPage(conn: string, ref: string, query: string): void {
  useMemo(() => {
    const key = firstPageKey(conn, ref, query);
    if (firstPages.has(key)) return;
    const controller = new AbortController();
    const page = listRows(conn, ref, RowWindow.firstQuery(query), controller.signal);
    page.catch(() => undefined);
    const entry = { page, controller };
    firstPages.set(key, entry);
    const forget = () => {
      if (firstPages.get(key) === entry) firstPages.delete(key);
    };
    controller.signal.addEventListener('abort', forget);
    setTimeout(forget, FIRST_PAGE_KEPT_MS);
  }, [conn, ref, query]);
}

/**
 * The rows of one view of a table (`query`), paged through the data API by keyset: a new window
 * whenever the view changes, re-rendering the caller as rows arrive. `reversed` (the view with
 * its sort reversed) and `seek` follow from the view and the table. The window starts from the
 * first page useFirstPage asked for, when there is one.
 */
export function useRowWindow(conn: string, ref: string, query: string, reversed: string | null, seek: SeekKey | null): RowWindow {
  const store = useMemo(
    () => new RowWindow((q, signal) => listRows(conn, ref, q, signal), query, reversed, seek),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [conn, ref, query],
  );
  useEffect(() => {
    const key = firstPageKey(conn, ref, query);
    const prefetched = firstPages.get(key);
    void store.load(prefetched?.page, prefetched?.controller).then(() => {
      // Taken: the next window of this view (a reload, coming back) reads the rows as they are then.
      if (prefetched && firstPages.get(key) === prefetched) firstPages.delete(key);
    });
    return () => store.dispose();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [store]);
  useSyncExternalStore(store.subscribe, store.getVersion);
  return store;
}

/*
 * Writes of a table's rows. None of them touches the query cache itself: the grid applies the
 * answer to its RowWindow, the row screen to its row's query, and the `data.changed` event each
 * write causes refreshes every `['data', …]` query (Area.live).
 */

/** PATCH one row; the answer has the row as stored, its (possibly new) record id and the undo token. */
export function usePatchRow(conn: string, ref: string) {
  return useMutation({ mutationFn: ({ recordId, values }: { recordId: string; values: Row }) => patchRow(conn, ref, recordId, values) });
}

/** POST one new row. */
export function useCreateRow(conn: string, ref: string) {
  return useMutation({ mutationFn: (values: Row) => createRow(conn, ref, values) });
}

/** DELETE one row. */
export function useDeleteRow(conn: string, ref: string) {
  return useMutation({ mutationFn: (recordId: string) => deleteRow(conn, ref, recordId) });
}

/** Several creates, updates and deletes in one transaction (one undo token for all). */
export function useBulkRows(conn: string, ref: string) {
  return useMutation({ mutationFn: (operations: BulkOp[]) => bulk(conn, ref, operations) });
}

/** Undoes a write by its token; the answer carries the undo's own token (a redo). */
export function useUndo() {
  return useMutation({ mutationFn: (token: string) => undo(token) });
}

export interface TableInfo {
  table: Table;
  tables: Table[];
  connectionName: string;
  /** Whether to offer writes at all: a writable connection and table, and a role that may write. */
  canWrite: boolean;
}

/**
 * The table as the schema describes it (types, keys, display), its connection, and whether
 * edit controls are offered: only with data.write on this table, unscoped or by a grant scoped
 * to its connection or to it (GET /bootstrap's permissions and grants, decisions DB30); the
 * server still decides, and a 403 still takes the controls away.
 */
export function useTableInfo(conn: string, ref: string) {
  return useQuery({
    queryKey: dataKeys.table(conn, ref),
    queryFn: async ({ client }): Promise<TableInfo> => {
      const [schema, connection, boot] = await Promise.all([
        ok(api.GET('/connections/{id}/schema', { params: { path: { id: conn } } })),
        ok(api.GET('/connections/{id}', { params: { path: { id: conn } } })),
        client.ensureQueryData(bootstrapQuery),
      ]);
      const tables = schema.data.model.tables;
      const table = tables.find((t) => t.ref === ref);
      if (!table) throw new TableMissing();
      const mayWrite = grantsTable(boot.session ?? undefined, 'data.write', conn, table.ref);
      const canWrite = mayWrite && !connection.data.connection.readOnly && table.kind === 'table' && table.primaryKey !== null;
      return { table, tables, connectionName: connection.data.connection.name, canWrite };
    },
    staleTime: 60_000,
  });
}

export class TableMissing extends Error {}

/** One row, asked again on every visit (staleTime 0): another person may have changed it. */
export function useRow(conn: string, ref: string, recordId: string) {
  return useQuery({ queryKey: dataKeys.row(conn, ref, recordId), queryFn: () => getRow(conn, ref, recordId), staleTime: 0 });
}

/** The rows that point at one row. */
export function useReferences(conn: string, ref: string, recordId: string) {
  return useQuery({ queryKey: dataKeys.refs(conn, ref, recordId), queryFn: () => references(conn, ref, recordId), staleTime: 0 });
}

/**
 * Up to ten rows of `target` matching `text`, for a foreign-key picker: the key column and, if
 * there is one, the column that names a row.
 */
export function useForeignKeyOptions(conn: string, target: Table | undefined, keyColumn: string, text: string, enabled: boolean) {
  const shown = target ? displayColumn(target) : null;
  return useQuery({
    queryKey: dataKeys.fkOptions(conn, target?.ref, text),
    enabled: enabled && !!target,
    queryFn: async () => {
      const q = [
        `limit=10`,
        text.trim() ? `search=${encodeURIComponent(text.trim())}` : '',
        shown ? `fields=${encodeURIComponent([keyColumn, shown].join(','))}` : '',
      ]
        .filter(Boolean)
        .join('&');
      // Not aborted when the text changes: an answer arriving late is kept for that text.
      return (await listRows(conn, target!.ref, q)).rows;
    },
  });
}

/** Columns a person sees in the grid: not secret, not hidden by the schema's display settings. */
export function visibleColumns(table: Table, sample?: Row): Column[] {
  return table.columns.filter((c) => !c.display.secret && !c.display.hidden && (!sample || c.name in sample));
}

// Shared with the display layer, which names referenced rows everywhere values are shown.
export { displayColumn, findTable, foreignKeyOf } from '../../values/references';
