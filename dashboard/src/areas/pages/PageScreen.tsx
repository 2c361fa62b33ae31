import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { NotFound } from '../../shell/Placeholder';
import { DashboardPage } from '../dashboards/area';
import { TableMissing, useCreateRow, useTableInfo, type Row } from '../data/api';
import { GridScreen } from '../data/Grid';
import { RowDetailScreen } from '../data/RowDetail';
import { RowForm } from '../data/RowForm';
import { columnErrors } from '../data/shared';
import { paths } from '../data/view';
import { ViewsPicker } from './Views';
import {
  decodeSlug,
  findRef,
  listConfigSearch,
  pagePaths,
  usePageDetail,
  usePageGridLayout,
  usePagesNav,
  useTablePages,
  viewSearch,
  type Page,
  type PageView,
  type RecordConfig,
} from './api';
import './pages.css';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { PagesIcon } from '../../ui/icons';

/** A page at `/p/:slug` (and a row of it at `/p/:slug/:recordId`), drawn by its kind. */
export function PageScreen() {
  const params = useParams<{ slug: string; recordId?: string }>();
  const slug = decodeSlug(params.slug);
  const pages = usePagesNav();
  if (pages.isPending) return <Loading />;
  if (pages.isError) return <ErrorPanel error={pages.error} onRetry={() => void pages.refetch()} />;
  const entry = pages.data.find((p) => p.slug === slug);
  if (!entry) return <NotFound />;
  return <PageById key={entry.id} id={entry.id} recordId={params.recordId ? decodeSlug(params.recordId) : undefined} />;
}

/** The whole page (GET /pages/{pageId}: config and default view), then its kind's screen. */
function PageById({ id, recordId }: { id: string; recordId?: string }) {
  const detail = usePageDetail(id);
  if (detail.isPending) return <Loading />;
  if (detail.isError) return <ErrorPanel error={detail.error} onRetry={() => void detail.refetch()} />;
  return <PageOfKind page={detail.data.page} defaultView={detail.data.defaultView} recordId={recordId} />;
}

function PageOfKind({ page, defaultView, recordId }: { page: Page; defaultView: PageView | null; recordId?: string }) {
  const base = pagePaths.open(page.slug);
  if (page.kind === 'dashboard') return <DashboardPage />;
  if (page.kind === 'custom' || !page.connectionId || !page.table) return <DashboardPlaceholder page={page} />;
  const table = { conn: page.connectionId, table: page.table };
  if (recordId) {
    const fields = page.kind === 'list' ? undefined : (page.config as RecordConfig).fields;
    return (
      <RowDetailScreen
        key={recordId}
        at={{ ...table, recordId, ...(fields ? { fields } : {}), back: { href: base, label: t('pages.row.back', { title: page.title }) } }}
      />
    );
  }
  if (page.kind === 'form') return <FormPage page={page} base={base} />;
  return <ListPage page={page} base={base} defaultView={defaultView} />;
}

/**
 * The grid over the page's table. With no query in the URL, the page's default view applies,
 * else its config (columns, sort, filters), put in the URL once with replace (DB23, DB29).
 * A detail page draws the same grid to choose a row; its rows open at `/p/{slug}/{recordId}`.
 */
function ListPage({ page, base, defaultView }: { page: Page; base: string; defaultView: PageView | null }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const configSearch = page.kind === 'list' ? listConfigSearch(page.config) : '';
  const initial = defaultView ? viewSearch(defaultView.query) : configSearch;
  const applied = useRef(false);
  const pending = !applied.current && !search && initial !== '';
  useEffect(() => {
    if (pending) navigate(`${base}?${initial}`, { replace: true });
    applied.current = true;
  }, [pending, base, initial, navigate]);
  const tablePages = useTablePages(page.kind === 'list' && page.config.detailPage ? page.connectionId : null, page.table);
  const detail = findRef(tablePages.data, page.config.detailPage);
  const rowBase = detail?.kind === 'detail' ? pagePaths.open(detail.slug) : base;
  const layout = usePageGridLayout(page.id);
  if (pending) return <Loading />;
  return (
    <GridScreen
      at={{
        conn: page.connectionId!,
        table: page.table!,
        base,
        title: page.title,
        rowHref: (id) => `${rowBase}/${encodeURIComponent(id)}`,
        layout,
        header: (
          <>
            {page.kind === 'detail' && <p className="hint">{t('pages.detail.choose')}</p>}
            <ViewsPicker pageId={page.id} base={base} configSearch={configSearch} />
          </>
        ),
      }}
    />
  );
}

/** A form page: a new row of the table with the config's fields and defaults; `afterSave` says where it goes (DB29). */
function FormPage({ page, base }: { page: Page; base: string }) {
  useTitle('pages.screen.title');
  const conn = page.connectionId!;
  const config = page.config as RecordConfig;
  const info = useTableInfo(conn, page.table!);
  const create = useCreateRow(conn, page.table!);
  const tablePages = useTablePages(config.afterSave === 'list' ? conn : null, page.table);
  const [, navigate] = useLocation();
  const [formKey, setFormKey] = useState(0);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<string | null>(null);
  if (info.isPending) return <Loading />;
  if (info.isError)
    return (
      <>
        <h1>{page.title}</h1>
        {info.error instanceof TableMissing ? <p>{t('pages.form.missing', { table: page.table! })}</p> : <ErrorPanel error={info.error} />}
      </>
    );
  const { table, tables } = info.data;
  const fillable = table.columns.filter((c) => c.generated === null && !c.autoIncrement && !c.display.hidden);
  const defaults = (config.defaults ?? {}) as Row;
  const columns = config.fields
    ? config.fields.flatMap((f) =>
        fillable
          .filter((c) => c.name === f.column && (!c.display.secret || f.secret))
          .map((c) => (f.label ? { ...c, display: { ...c.display, label: f.label } } : c)),
      )
    : fillable.filter((c) => !c.display.secret);
  const readOnly = new Set((config.fields ?? []).filter((f) => f.readOnly).map((f) => f.column));
  const submit = async (values: Row) => {
    setError(null);
    setCreated(null);
    try {
      const out = await create.mutateAsync(values);
      setErrors({});
      const after = config.afterSave ?? 'detail';
      const list = findRef(tablePages.data, config.listPage);
      if (after === 'detail') return navigate(`${base}/${encodeURIComponent(out.recordId)}`);
      if (after === 'list') return navigate(list ? pagePaths.open(list.slug) : paths.grid(conn, table.ref));
      setCreated(out.recordId);
      setFormKey((k) => k + 1);
    } catch (err) {
      setError(err);
      setErrors(columnErrors(err));
    }
  };
  return (
    <div className="pages-form-page">
      <PageHeader title={page.title} />
      <p role="status">
        {created !== null && (
          <>
            {t('pages.form.created')} <Link href={`${base}/${encodeURIComponent(created)}`}>{t('pages.form.openCreated', { id: created })}</Link>
          </>
        )}
      </p>
      {error !== null && (
        <div className="form-error" role="alert">
          <p>{errorText(error)}</p>
        </div>
      )}
      {info.data.canWrite ? (
        <RowForm
          key={formKey}
          conn={conn}
          table={table}
          tables={tables}
          columns={columns}
          initial={{}}
          creating
          defaults={defaults}
          readOnlyColumns={readOnly}
          errors={errors}
          pending={create.isPending}
          submitLabel={t('pages.form.submit')}
          onLocalErrors={setErrors}
          onSubmit={(v) => void submit(v)}
        />
      ) : (
        <p>{t('pages.form.readOnly')}</p>
      )}
    </div>
  );
}

function DashboardPlaceholder({ page }: { page: Page }) {
  useTitle('pages.screen.title');
  return (
    <>
      <PageHeader title={page.title} />
      <section aria-label={t('pages.dashboard.label')}>
        <EmptyState icon={PagesIcon}>{t('pages.dashboard.empty')}</EmptyState>
      </section>
    </>
  );
}
