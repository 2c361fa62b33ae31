import { useEffect, useRef } from 'react';
import { useLocation, useParams, useSearch } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { NotFound } from '../../shell/Placeholder';
import { DashboardPage } from '../dashboards/area';
import { GridScreen } from '../data/Grid';
import { RowDetailScreen } from '../data/RowDetail';
import { configQuery, pagePaths, usePage, usePagesNav, type Page } from './api';

const decode = (s: string | undefined) => {
  try {
    return decodeURIComponent(s ?? '');
  } catch {
    return s ?? '';
  }
};

/** A page at `/p/:slug` (and a row of it at `/p/:slug/:recordId`), drawn by its kind. */
export function PageScreen() {
  const params = useParams<{ slug: string; recordId?: string }>();
  const slug = decode(params.slug);
  const pages = usePagesNav();
  if (pages.isPending) return <Loading />;
  if (pages.isError) return <ErrorPanel error={pages.error} onRetry={() => void pages.refetch()} />;
  const item = pages.data.find((p) => p.slug === slug);
  if (!item) return <NotFound />;
  return <PageById key={item.id} id={item.id} recordId={params.recordId ? decode(params.recordId) : undefined} />;
}

/** The navigation names the page; the rest of it (table, config) is GET /pages/{id}'s. */
function PageById({ id, recordId }: { id: string; recordId?: string }) {
  const page = usePage(id);
  if (page.isPending) return <Loading />;
  if (page.isError) return <ErrorPanel error={page.error} onRetry={() => void page.refetch()} />;
  return <PageOfKind page={page.data} recordId={recordId} />;
}

function PageOfKind({ page, recordId }: { page: Page; recordId?: string }) {
  const base = pagePaths.open(page.slug);
  if (page.kind === 'dashboard') return <DashboardPage />;
  if (page.kind === 'custom') return <DashboardPlaceholder page={page} />;
  if (!page.connectionId || !page.table) return <DashboardPlaceholder page={page} />;
  if (recordId) return <RowDetailScreen at={{ conn: page.connectionId, table: page.table, recordId }} />;
  if (page.kind === 'list' || page.kind === 'detail' || page.kind === 'form') return <ListPage page={page} base={base} />;
  return null;
}

/** The grid over the page's table; the page's config (sort, filters) is the first view when the URL has none. */
function ListPage({ page, base }: { page: Page; base: string }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const initial = configQuery(page.config);
  const applied = useRef(false);
  const pending = !applied.current && !search && initial !== '';
  useEffect(() => {
    if (pending) navigate(`${base}?${initial}`, { replace: true });
    applied.current = true;
  }, [pending, base, initial, navigate]);
  if (pending) return <Loading />;
  return <GridScreen at={{ conn: page.connectionId!, table: page.table!, base }} />;
}

function DashboardPlaceholder({ page }: { page: Page }) {
  useTitle('pages.screen.title');
  return (
    <>
      <h1>{page.title}</h1>
      <section className="pages-empty" aria-label={t('pages.dashboard.label')}>
        <p>{t('pages.dashboard.empty')}</p>
      </section>
    </>
  );
}
