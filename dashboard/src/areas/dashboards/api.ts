import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useRef } from 'react';
import { api, ok, type Schemas } from '../../api/client';
import { pageQuery, patchPageAnswer, type PageAnswer } from '../pages/api';

export type Widget = Schemas['DashboardWidget'];
export type WidgetQuery = Schemas['WidgetQuery'];
export type WidgetResult = Schemas['WidgetResult'];
export type VizType = Widget['viz']['type'];
export const VIZ_TYPES: readonly VizType[] = ['number', 'bar', 'line', 'pie', 'table', 'text'];
export const METRIC_OPS: readonly WidgetQuery['metric']['op'][] = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'];
export const BUCKET_UNITS: readonly NonNullable<WidgetQuery['timeBucket']>['unit'][] = ['hour', 'day', 'week', 'month'];

/** A dashboard's shared layout as the page stores it (PG6): version 0 before the first save. */
export interface Layout {
  version: number;
  widgets: Widget[];
}

/** `page.layout` read defensively: anything but `{version, widgets: [...]}` is an empty layout. */
export function layoutOf(raw: unknown): Layout {
  if (!raw || typeof raw !== 'object') return { version: 0, widgets: [] };
  const r = raw as { version?: unknown; widgets?: unknown };
  return { version: typeof r.version === 'number' ? r.version : 0, widgets: Array.isArray(r.widgets) ? (r.widgets as Widget[]) : [] };
}

/** The dashboard config's refresh period (PATCH /pages/{id}/config: `refreshSeconds ≥ 30`), or null. */
export function refreshSecondsOf(config: Record<string, unknown>): number | null {
  const s = config.refreshSeconds;
  return typeof s === 'number' && s >= 30 ? s : null;
}

/** The page with its layout (GET /pages/{pageId}); the pages area's key, so `pages.changed` refreshes it. */
export function useDashboard(pageId: string, enabled = true) {
  return useQuery({ ...pageQuery(pageId), enabled, select: (d) => d.page });
}

/** PATCH /pages/{pageId}/layout with the version read (compare-and-set): 409 `stale` when another save came first. */
export function useSaveLayout(pageId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (layout: Layout) =>
      (await ok(api.PATCH('/pages/{pageId}/layout', { params: { path: { pageId } }, body: { widgets: layout.widgets, version: layout.version } }))).data.page,
    onSuccess: (page) => patchPageAnswer(qc, pageId, { page }),
  });
}

export type WidgetAnswer =
  { id: string; ok: true; result: WidgetResult } | { id: string; ok: false; error: { code: string; message: string; params?: Record<string, unknown> } };

/** The batch's limit (POST /widget-data/batch takes 1–20 queries). */
const BATCH_MAX = 20;

/**
 * Every widget's data of the page in one POST /widget-data/batch (a page past 20 widgets takes
 * one batch per 20), each query with the page's id so the page's rules apply. One widget's
 * failure is its own answer; the others still show.
 */
export function useWidgetData(pageId: string, widgets: readonly Widget[], refreshSeconds: number | null) {
  // The Refresh button asks the database itself; the timer and a new widget may get a result of moments ago (WD6).
  const fresh = useRef(false);
  const queries = widgets.filter((w) => w.viz.type !== 'text').map((w) => ({ id: w.id, query: { ...w.query, pageId } }));
  const query = useQuery({
    queryKey: ['dashboards', 'data', pageId, queries] as const,
    enabled: queries.length > 0,
    refetchInterval: refreshSeconds ? refreshSeconds * 1000 : false,
    // A widget added or edited asks again for all; the others keep their numbers meanwhile.
    placeholderData: keepPreviousData,
    queryFn: async () => {
      const answers = new Map<string, WidgetAnswer>();
      for (let i = 0; i < queries.length; i += BATCH_MAX) {
        const d = (await ok(api.POST('/widget-data/batch', { body: { queries: queries.slice(i, i + BATCH_MAX), ...(fresh.current ? { fresh: true } : {}) } })))
          .data;
        for (const r of d.results) answers.set(r.id, r as WidgetAnswer);
      }
      fresh.current = false;
      return answers;
    },
  });
  const refresh = useCallback(() => {
    fresh.current = true;
    return query.refetch();
  }, [query]);
  // Not spread: the query result tracks which of its fields a screen reads, and redraws only for those.
  return { query, refresh };
}

/** A person's own arrangement (PUT /me/views/{pageId}/layout): the widgets, and the shared version it was made from. */
export interface MyLayout {
  widgets: Widget[];
  basedOn: number;
}

/** GET /pages/{pageId}'s `myLayout` (ME7) read defensively, or null: then the shared layout shows. */
function mineOf(answer: PageAnswer): MyLayout | null {
  const raw = answer.myLayout?.layout as { widgets?: unknown; basedOn?: unknown } | undefined;
  if (!raw || !Array.isArray(raw.widgets)) return null;
  return { widgets: raw.widgets as Widget[], basedOn: typeof raw.basedOn === 'number' ? raw.basedOn : 0 };
}

/** The caller's own layout of the page, from the page's one answer (no request of its own). */
export function useMyLayout(pageId: string) {
  return useQuery({ ...pageQuery(pageId), select: mineOf });
}

export function useSaveMyLayout(pageId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (layout: MyLayout) =>
      (await ok(api.PUT('/me/views/{pageId}/layout', { params: { path: { pageId } }, body: { layout: { widgets: layout.widgets, basedOn: layout.basedOn } } })))
        .data,
    onSuccess: (_data, layout) =>
      patchPageAnswer(qc, pageId, { myLayout: { layout: { widgets: layout.widgets, basedOn: layout.basedOn }, updatedAt: Date.now() } }),
  });
}

export function useDropMyLayout(pageId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async () => (await ok(api.DELETE('/me/views/{pageId}/layout', { params: { path: { pageId } } }))).data,
    onSuccess: () => patchPageAnswer(qc, pageId, { myLayout: null }),
  });
}

/** Runs one widget's query (POST /widget-data/query): the editor's check before it applies a widget; refusals are thrown. */
export async function checkWidgetQuery(query: WidgetQuery): Promise<void> {
  await ok(api.POST('/widget-data/query', { body: { query } }));
}
