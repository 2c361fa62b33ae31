import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ok, type RequestBody, type Schemas } from '../../api/client';
import { bootstrapKey, useBootstrapPart, type Nav } from '../../bootstrap';

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

export function usePage(id: string) {
  return useQuery({
    queryKey: pagesKeys.one(id),
    queryFn: async () => (await ok(api.GET('/pages/{pageId}', { params: { path: { pageId: id } } }))).data.page,
  });
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
