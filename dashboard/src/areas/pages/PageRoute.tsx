import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'wouter';
import { lazyWithMessages } from '../area';
import { DashboardPage } from '../dashboards/area';
import { loadDataMessages } from '../data/area';
import { decodeSlug, pageQuery, usePagesNav } from './api';

// React's lazy(), loading the area's strings with each screen's code.
const lazy = lazyWithMessages(() => import('./messages.en'));

// A page draws the data area's grid and row screens: their strings come along.
const PageScreen = lazy(() => Promise.all([import('./PageScreen'), loadDataMessages()]).then(([m]) => ({ default: m.PageScreen })));

/**
 * `/p/:slug` (and `/p/:slug/:recordId`). The navigation (GET /bootstrap) already says the page's
 * kind: a dashboard loads only the dashboard's code (not the grid's), and GET /pages/{pageId} is
 * asked now, beside the screen's code, rather than after it arrives.
 */
export function PageRoute() {
  const params = useParams<{ slug: string; recordId?: string }>();
  const entry = usePagesNav().data?.find((p) => p.slug === decodeSlug(params.slug));
  const qc = useQueryClient();
  // The screen reads it from the cache; a fresh answer is not asked again (staleTime).
  if (entry) void qc.prefetchQuery(pageQuery(entry.id));
  return entry?.kind === 'dashboard' && !params.recordId ? <DashboardPage /> : <PageScreen />;
}
