import { useQueryClient } from '@tanstack/react-query';
import type { ComponentType } from 'react';
import { useParams } from 'wouter';
import { DashboardPage } from '../dashboards/area';
import { decodeSlug, pageQuery, usePagesNav } from './api';

/**
 * `/p/:slug` (and `/p/:slug/:recordId`): `PageScreen` (the area's lazy screen, given by area.ts,
 * which alone loads the area's strings) for every kind but a dashboard. The navigation (GET
 * /bootstrap) already says the page's kind: a dashboard loads only the dashboard's code (not the
 * grid's), and GET /pages/{pageId} is asked now, beside the screen's code, not after it arrives.
 */
export function pageRoute(PageScreen: ComponentType): ComponentType {
  return function PageRoute() {
    const params = useParams<{ slug: string; recordId?: string }>();
    const entry = usePagesNav().data?.find((p) => p.slug === decodeSlug(params.slug));
    const qc = useQueryClient();
    // The screen reads it from the cache; a fresh answer is not asked again (staleTime).
    if (entry) void qc.prefetchQuery(pageQuery(entry.id));
    return entry?.kind === 'dashboard' && !params.recordId ? <DashboardPage /> : <PageScreen />;
  };
}
