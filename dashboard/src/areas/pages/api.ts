import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, ok, type RequestBody, type Schemas } from '../../api/client';
import { bootstrapKey, useBootstrapPart, type Nav } from '../../api/bootstrap';
import { parseView, viewQuery, type View } from '../data/view';
import { layoutOf, type ColumnLayout, type LayoutStore } from '../data/grid-columns';

export type Page = Schemas['Page'];
export type PageKind = Page['kind'];
/** The kinds a person may create (`custom` is reserved by the server). */
export const KINDS: readonly Exclude<PageKind, 'custom'>[] = ['list', 'detail', 'form', 'dashboard'];
export const TABLE_KINDS: readonly PageKind[] = ['list', 'detail', 'form'];

/** Every key of the area starts with 'pages': the live channel refreshes them all. */
export const pagesKeys = {
  all: ['pages'] as const,
  nav: ['pages', 'nav'] as const,
  one: (id: string) => ['pages', 'one', id] as const,
};

export const pagePaths = {
  open: (slug: string) => `/p/${encodeURIComponent(slug)}`,
  list: '/pages',
  create: '/pages/new',
  edit: (id: string) => `/pages/${encodeURIComponent(id)}/edit`,
};

/** A route's `:slug` (or `:recordId`) as written in the page: a malformed escape is taken as it stands. */
export function decodeSlug(s: string | undefined): string {
  try {
    return decodeURIComponent(s ?? '');
  } catch {
    return s ?? '';
  }
}

/** A page as the navigation lists it; the rest of it (connection, table, config) is GET /pages/{id}'s (usePage). */
export interface NavPage {
  id: string;
  slug: string;
  title: string;
  kind: PageKind;
  icon: string | null;
}

/** The pages of a bootstrap's navigation, in its order (every page the caller may see is in some section). */
export function navPages(nav: Nav | undefined): NavPage[] {
  return (nav?.sections ?? []).flatMap((section) =>
    section.entries.flatMap((e) => (e.type === 'page' ? [{ id: e.pageId, slug: e.slug, title: e.title, kind: e.kind, icon: e.icon }] : [])),
  );
}

/**
 * The caller's pages, in navigation order: read from GET /bootstrap's `session.nav` (decisions
 * DB30), so the navigation, the page list and /p/{slug} agree and cost no request of their own.
 */
export function usePagesNav(enabled = true) {
  return useBootstrapPart((b) => navPages(b.session?.nav), enabled);
}

async function fetchPage(id: string) {
  return (await ok(api.GET('/pages/{pageId}', { params: { path: { pageId: id } } }))).data;
}

/** GET /pages/{pageId}'s answer: the page, its default view and the caller's own layout of it (ME7). */
export type PageAnswer = Awaited<ReturnType<typeof fetchPage>>;

/**
 * GET /pages/{pageId} under one key: the page screen, the dashboard and the caller's own layout
 * each `select` their part of the one answer, so opening a page asks once.
 */
export const pageQuery = (id: string) => ({ queryKey: pagesKeys.one(id), queryFn: () => fetchPage(id) });

/** Replaces a part of the cached answer after a write that returned it (no request). */
export function patchPageAnswer(qc: QueryClient, id: string, patch: Partial<PageAnswer>): void {
  qc.setQueryData<PageAnswer>(pagesKeys.one(id), (old) => (old ? { ...old, ...patch } : old));
}

export function usePage(id: string) {
  return useQuery({ ...pageQuery(id), select: (d) => d.page });
}

/** After a write: the area's queries, and the bootstrap that holds the navigation. */
function useInvalidate() {
  const qc = useQueryClient();
  return () => Promise.all([qc.invalidateQueries({ queryKey: pagesKeys.all }), qc.invalidateQueries({ queryKey: bootstrapKey })]);
}

export function useCreatePage() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: RequestBody<'/pages', 'post'>) => (await ok(api.POST('/pages', { body }))).data.page,
    onSuccess: invalidate,
  });
}

export function useUpdatePage(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: RequestBody<'/pages/{pageId}', 'patch'>) =>
      (await ok(api.PATCH('/pages/{pageId}', { params: { path: { pageId: id } }, body }))).data.page,
    onSuccess: invalidate,
  });
}

export function useDuplicatePage(id: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async () => (await ok(api.POST('/pages/{pageId}/duplicate', { params: { path: { pageId: id } }, body: {} }))).data.page,
    onSuccess: invalidate,
  });
}

export function useDeletePage(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.DELETE('/pages/{pageId}', { params: { path: { pageId: id } } }))).data,
    onSuccess: () => {
      qc.removeQueries({ queryKey: pagesKeys.one(id) });
      return qc.invalidateQueries({ queryKey: bootstrapKey });
    },
  });
}

/** The page's config as the grid's initial query (data API grammar): `sort`, `filters`. */
export function configQuery(config: Record<string, unknown>): string {
  const pairs: string[] = [];
  const sort = config.sort;
  if (typeof sort === 'string' && sort) pairs.push(`sort=${encodeURIComponent(sort)}`);
  else if (Array.isArray(sort) && sort.length) pairs.push(`sort=${encodeURIComponent(sort.join(','))}`);
  const filters = config.filters;
  if (filters && typeof filters === 'object' && !Array.isArray(filters)) {
    for (const [column, ops] of Object.entries(filters as Record<string, unknown>)) {
      if (ops && typeof ops === 'object')
        for (const [op, value] of Object.entries(ops as Record<string, unknown>))
          pairs.push(`filter[${encodeURIComponent(column)}][${op}]=${encodeURIComponent(String(value))}`);
      else pairs.push(`filter[${encodeURIComponent(column)}][eq]=${encodeURIComponent(String(ops))}`);
    }
  }
  return pairs.join('&');
}

// ---- Shared views and the kinds' configs (decisions PG5, PG7; DB29) ----
export type PageView = Schemas['PageView'];
export type ViewQuery = Schemas['PageViewQuery'];
type PageFilter = Schemas['PageFilter'];
/** The kinds' configs, version 1 (decision PG5; the body of PATCH /pages/{pageId}/config is untyped in the OpenAPI). */
export interface ListConfig {
  columns?: Array<{ column: string; label?: string | null; format?: string | null; width?: number }>;
  sort?: Array<{ column: string; direction: 'asc' | 'desc' }>;
  filters?: PageFilter[];
  displayColumn?: string | null;
  detailPage?: string | null;
  searchable?: boolean;
}
export interface RecordField {
  column: string;
  label?: string | null;
  format?: string | null;
  readOnly?: boolean;
  secret?: boolean;
  personal?: boolean;
}
export interface RecordConfig {
  fields?: RecordField[];
  defaults?: Record<string, string | number | boolean | null>;
  afterSave?: 'stay' | 'detail' | 'list' | 'new';
  displayColumn?: string | null;
  primaryKey?: string[];
  listPage?: string | null;
}
export interface DashboardConfig {
  refreshSeconds?: number | null;
  defaultRange?: '24h' | '7d' | '30d' | '90d' | '12m' | 'all' | null;
}

/** Keys under `pages` (pages.changed refreshes them all). */
export const viewsKeys = {
  views: (id: string) => ['pages', 'views', id] as const,
  ofTable: (conn: string, table: string) => ['pages', 'table', conn, table] as const,
};

/** GET /pages/{pageId}: the page with its default view (decision DB29). */
export function usePageDetail(id: string) {
  return useQuery(pageQuery(id));
}

/** The page's shared views, by name. */
export function useViews(pageId: string) {
  return useQuery({
    queryKey: viewsKeys.views(pageId),
    queryFn: async () => (await ok(api.GET('/pages/{pageId}/views', { params: { path: { pageId } } }))).data.views,
  });
}

export function useCreateView(pageId: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: RequestBody<'/pages/{pageId}/views', 'post'>) =>
      (await ok(api.POST('/pages/{pageId}/views', { params: { path: { pageId } }, body }))).data.view,
    onSuccess: invalidate,
  });
}

export function useUpdateView(pageId: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async ({ viewId, ...body }: { viewId: string } & RequestBody<'/pages/{pageId}/views/{viewId}', 'patch'>) =>
      (await ok(api.PATCH('/pages/{pageId}/views/{viewId}', { params: { path: { pageId, viewId } }, body }))).data.view,
    onSuccess: invalidate,
  });
}

export function useDeleteView(pageId: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (viewId: string) => (await ok(api.DELETE('/pages/{pageId}/views/{viewId}', { params: { path: { pageId, viewId } } }))).data,
    onSuccess: invalidate,
  });
}

/** PATCH /pages/{pageId}/config: the kind's whole config. */
export function useUpdateConfig(pageId: string) {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: async (body: Record<string, unknown>) =>
      (await ok(api.PATCH('/pages/{pageId}/config', { params: { path: { pageId } }, body: body as never }))).data.page,
    onSuccess: invalidate,
  });
}

/**
 * The pages of one table (a list's detail page, a form's list page): GET /pages by connection,
 * then by table. Config names a page by id or, for generated pages, by its generated key.
 */
export function useTablePages(conn: string | null, table: string | null) {
  return useQuery({
    enabled: !!conn && !!table,
    queryKey: viewsKeys.ofTable(conn ?? '', table ?? ''),
    queryFn: async () => {
      const out: Page[] = [];
      let cursor: string | undefined;
      for (;;) {
        const d = (await ok(api.GET('/pages', { params: { query: { connectionId: conn!, limit: 500, ...(cursor ? { cursor } : {}) } } }))).data;
        out.push(...d.pages.filter((p) => p.table === table));
        if (!d.nextCursor) return out;
        cursor = d.nextCursor;
      }
    },
    staleTime: 30_000,
  });
}

/** A config's page reference (id or generated key) among `pages`. */
export function findRef(pages: readonly Page[] | undefined, ref: unknown): Page | undefined {
  if (typeof ref !== 'string' || !ref) return undefined;
  return pages?.find((p) => p.id === ref || p.generatedKey === ref);
}

/** A saved view's query as the grid's URL query (the data API's, DB23). */
export function viewSearch(q: ViewQuery): string {
  const view: View = {
    sort: (q.sort ?? '')
      .split(',')
      .filter(Boolean)
      .map((s) => (s.startsWith('-') ? { column: s.slice(1), desc: true } : { column: s.replace(/^\+/, ''), desc: false })),
    search: q.search ?? '',
    filters: (q.filters ?? []).map((f) => ({ column: f.column, op: f.op, value: f.value })),
    ...(q.columns?.length ? { columns: q.columns } : {}),
  };
  return viewQuery(view);
}

/** The grid's URL query as a view's query (what POST /pages/{pageId}/views takes). */
export function searchViewQuery(search: string): ViewQuery {
  const v = parseView(search);
  return {
    ...(v.sort.length ? { sort: v.sort.map((s) => (s.desc ? '-' : '') + s.column).join(',') } : {}),
    ...(v.search.trim() ? { search: v.search } : {}),
    ...(v.filters.length ? { filters: v.filters } : {}),
    ...(v.columns?.length ? { columns: v.columns } : {}),
  };
}

/** The same query string for two equal views, whatever order they were written in. */
export const canonical = (search: string) => viewQuery(parseView(search));

/** A list page's config as the grid's first query: columns (`fields`), sort and filters. */
export function listConfigSearch(config: Record<string, unknown>): string {
  const c = config as ListConfig;
  return viewQuery({
    sort: (c.sort ?? []).map((s) => ({ column: s.column, desc: s.direction === 'desc' })),
    search: '',
    filters: (c.filters ?? []).map((f) => ({ column: f.column, op: f.op, value: f.value })),
    ...(c.columns?.length ? { columns: c.columns.map((x) => x.column) } : {}),
  });
}

/** PUT /pages/nav-order: the whole navigation (pages.admin); answers it as GET /bootstrap will show it. */
export async function saveNavOrder(body: RequestBody<'/pages/nav-order', 'put'>) {
  return (await ok(api.PUT('/pages/nav-order', { body }))).data.nav;
}

/**
 * The caller's column layout of a list page's grid: the `grid` part of their own layout of the
 * page (read from GET /pages/{pageId}'s `myLayout`, ME7; written with PUT /me/views/{pageId}/layout,
 * the other parts kept; decision ME9). Shown at once; the writes go one after the other.
 */
export function usePageGridLayout(pageId: string): LayoutStore {
  const qc = useQueryClient();
  const answer = useQuery(pageQuery(pageId));
  const mine = (answer.data?.myLayout?.layout ?? null) as Record<string, unknown> | null;
  const write = useMutation({
    scope: { id: `my-layout-${pageId}` },
    mutationFn: async (layout: Record<string, unknown> | null) => {
      if (layout) await ok(api.PUT('/me/views/{pageId}/layout', { params: { path: { pageId } }, body: { layout } }));
      else await ok(api.DELETE('/me/views/{pageId}/layout', { params: { path: { pageId } } }));
    },
  });
  // The same object while the answer is the same: the grid's rows are memoised on the columns it makes.
  const stored = useMemo(() => layoutOf(mine?.grid), [mine]);
  // Once the person changes it here, this screen shows their latest change: an answer read again
  // meanwhile (the page's refresh) may predate the writes still on their way.
  const [local, setLocal] = useState<{ grid: ColumnLayout | null } | null>(null);
  return {
    value: local ? local.grid : stored,
    save: (grid: ColumnLayout | null) => {
      setLocal({ grid });
      const rest = Object.fromEntries(Object.entries(mine ?? {}).filter(([k]) => k !== 'grid'));
      const next = grid ? { ...rest, grid } : rest;
      const empty = Object.keys(next).length === 0;
      patchPageAnswer(qc, pageId, { myLayout: empty ? null : { layout: next, updatedAt: Date.now() } });
      write.mutate(empty ? null : next);
    },
  };
}
