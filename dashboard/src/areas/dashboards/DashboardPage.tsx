import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode, type PointerEvent as ReactPointerEvent } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, FormError, Loading, useTitle } from '../../ui';
import { NotFound } from '../../shell/Placeholder';
import { usePermissions } from '../account/api';
import { decodeSlug, usePagesNav, type Page } from '../pages/api';
import {
  layoutOf,
  refreshSecondsOf,
  useDashboard,
  useDropMyLayout,
  useMyLayout,
  useSaveLayout,
  useSaveMyLayout,
  useWidgetData,
  type Layout,
  type MyLayout,
  type VizType,
  type Widget,
  type WidgetAnswer,
} from './api';
import { Viz } from './Charts';
import { byPosition, freeSpot, newId, place, type Box } from './layout';
import { TIME_RANGES, timeRangeOf, withTimeRange, type TimeRange } from './range';
import { WidgetEditor } from './WidgetEditor';
import './dashboards.css';
import { AddIcon, EditIcon, RefreshIcon, SaveIcon, WidgetIcon } from '../../ui/icons';
import { EmptyState } from '../../ui/EmptyState';

/** A new widget's size by its viz: a number is small, a chart wider and taller. */
const SIZES: Record<VizType, { w: number; h: number }> = {
  number: { w: 3, h: 2 },
  text: { w: 4, h: 2 },
  bar: { w: 6, h: 3 },
  line: { w: 6, h: 3 },
  pie: { w: 4, h: 3 },
  table: { w: 4, h: 3 },
};

/** A dashboard page at `/p/:slug` (kind `dashboard`): its widgets on a 12-column grid. */
export function DashboardPage() {
  const params = useParams<{ slug: string }>();
  const slug = decodeSlug(params.slug);
  const pages = usePagesNav();
  const found = pages.data?.find((p) => p.slug === slug);
  const page = useDashboard(found?.id ?? '', !!found);
  useTitle('dashboards.title');
  if (pages.isPending || (found && page.isPending)) return <Loading />;
  if (pages.isError) return <ErrorPanel error={pages.error} onRetry={() => void pages.refetch()} />;
  if (!found) return <NotFound />;
  if (page.isError) return <ErrorPanel error={page.error} onRetry={() => void page.refetch()} />;
  if (!page.data) return <Loading />;
  return <WithMine page={page.data} onReload={() => void page.refetch()} />;
}

/** The person's own arrangement is read before the first paint of the widgets (no flash of the shared one). */
function WithMine({ page, onReload }: { page: Page; onReload: () => void }) {
  const mine = useMyLayout(page.id);
  if (mine.isPending) return <Loading />;
  return <Dashboard page={page} mine={mine.data ?? null} onReload={onReload} />;
}

interface Editing {
  /** `shared`: the page's layout (editors); `mine`: the person's own arrangement (anyone who sees the page). */
  scope: 'shared' | 'mine';
  layout: Layout;
  /** The widget in the editor: an id, `new`, or none. */
  editor: string | null;
}

function Dashboard({ page, mine, onReload }: { page: Page; mine: MyLayout | null; onReload: () => void }) {
  const saved = layoutOf(page.layout);
  const saveMine = useSaveMyLayout(page.id);
  const dropMine = useDropMyLayout(page.id);
  const permissions = usePermissions();
  const canEdit = permissions?.has('pages.write') ?? false;
  const [editing, setEditing] = useState<Editing | null>(null);
  const [announce, setAnnounce] = useState('');
  const save = useSaveLayout(page.id);
  const widgets = [...(editing ? editing.layout.widgets : (mine?.widgets ?? saved.widgets))].sort(byPosition);
  const [range, setRange] = useState<TimeRange | null>(() => timeRangeOf(page.config));
  const { query: data, refresh } = useWidgetData(page.id, withTimeRange(widgets, range, new Date()), refreshSecondsOf(page.config));
  const stale = save.error instanceof ApiError && save.error.status === 409;
  const gridRef = useRef<HTMLOListElement>(null);

  const setWidgets = (next: Widget[]) => setEditing((e) => (e ? { ...e, layout: { ...e.layout, widgets: next } } : e));
  const startEditing = (editor: string | null = null) => {
    save.reset();
    setEditing({ scope: 'shared', layout: { version: saved.version, widgets: saved.widgets }, editor });
  };
  const arrangeMine = () => {
    saveMine.reset();
    setEditing({ scope: 'mine', layout: { version: mine?.basedOn ?? saved.version, widgets: mine?.widgets ?? saved.widgets }, editor: null });
  };
  const onSave = () => {
    if (!editing) return;
    if (editing.scope === 'mine') {
      saveMine.mutate(
        { widgets: editing.layout.widgets, basedOn: saved.version },
        {
          onSuccess: () => {
            setEditing(null);
            setAnnounce(t('dashboards.mine.saved'));
          },
        },
      );
      return;
    }
    save.mutate(editing.layout, {
      onSuccess: () => {
        setEditing(null);
        setAnnounce(t('dashboards.saved'));
      },
    });
  };
  const reload = () => {
    save.reset();
    setEditing(null);
    onReload();
  };

  /** Moves or resizes a widget when it fits there; says where it went, or that it cannot. */
  const moveTo = (w: Widget, box: Box, resized: boolean): boolean => {
    if (!editing) return false;
    const next = place(editing.layout.widgets, w.id, box);
    if (!next) {
      setAnnounce(t('dashboards.move.blocked', { title: w.title }));
      return false;
    }
    setWidgets(next);
    setAnnounce(
      resized
        ? t('dashboards.move.resized', { title: w.title, w: box.w, h: box.h })
        : t('dashboards.move.moved', { title: w.title, x: box.x + 1, y: box.y + 1 }),
    );
    return true;
  };

  const editorWidget = editing?.editor && editing.editor !== 'new' ? (editing.layout.widgets.find((w) => w.id === editing.editor) ?? null) : null;

  return (
    <>
      <div className="dash-head">
        <h1>{page.title}</h1>
        <div className="dash-tools">
          {!editing && (
            <>
              <label className="dash-range">
                {t('dashboards.range')}
                <select value={range ?? ''} onChange={(e) => setRange(e.target.value === '' ? null : (e.target.value as TimeRange))}>
                  <option value="">{t('dashboards.range.saved')}</option>
                  {TIME_RANGES.map((r) => (
                    <option key={r} value={r}>
                      {t(`dashboards.range.${r}`)}
                    </option>
                  ))}
                </select>
              </label>
              <button type="button" className="secondary" onClick={() => void refresh()} disabled={data.isFetching}>
                <RefreshIcon className="icon" aria-hidden="true" />
                {data.isFetching ? t('dashboards.refreshing') : t('dashboards.refresh')}
              </button>
              {widgets.length > 0 && (
                <button type="button" className="secondary" onClick={arrangeMine}>
                  <WidgetIcon className="icon" aria-hidden="true" />
                  {t('dashboards.mine.arrange')}
                </button>
              )}
              {canEdit && (
                <button type="button" onClick={() => startEditing()}>
                  <EditIcon className="icon" aria-hidden="true" />
                  {t('dashboards.edit')}
                </button>
              )}
            </>
          )}
          {editing && (
            <>
              {editing.scope === 'shared' && (
                <button type="button" className="secondary" onClick={() => setEditing({ ...editing, editor: 'new' })}>
                  <AddIcon className="icon" aria-hidden="true" />
                  {t('dashboards.add')}
                </button>
              )}
              <button type="button" onClick={onSave} disabled={save.isPending || saveMine.isPending}>
                <SaveIcon className="icon" aria-hidden="true" />
                {save.isPending || saveMine.isPending ? t('dashboards.saving') : editing.scope === 'mine' ? t('dashboards.mine.save') : t('dashboards.save')}
              </button>
              <button
                type="button"
                className="secondary"
                onClick={() => {
                  save.reset();
                  setEditing(null);
                }}
              >
                {t('dashboards.cancel')}
              </button>
            </>
          )}
        </div>
      </div>
      <p className="visually-hidden" aria-live="polite" data-testid="dash-announce">
        {announce}
      </p>
      {data.dataUpdatedAt > 0 && !editing && (
        <p className="dash-muted dash-updated">
          {t('dashboards.updated', { time: new Date(data.dataUpdatedAt).toLocaleTimeString() })}
          {refreshSecondsOf(page.config) !== null && ` · ${t('dashboards.autoRefresh', { seconds: refreshSecondsOf(page.config) ?? 0 })}`}
        </p>
      )}
      {mine && !editing && (
        <div className="dash-mine" role="note">
          <p>{mine.basedOn < saved.version ? `${t('dashboards.mine.shown')} ${t('dashboards.mine.behind')}` : t('dashboards.mine.shown')}</p>
          <button
            type="button"
            className="secondary"
            disabled={dropMine.isPending}
            onClick={() => dropMine.mutate(undefined, { onSuccess: () => setAnnounce(t('dashboards.mine.dropped')) })}
          >
            {t('dashboards.mine.drop')}
          </button>
        </div>
      )}
      {(saveMine.error || dropMine.error) && <FormError error={saveMine.error ?? dropMine.error} />}
      {editing?.scope === 'mine' && <p className="dash-muted">{t('dashboards.mine.editing')}</p>}
      {editing && (
        <p className="dash-muted" id="dash-keys">
          {t('dashboards.keys')}
        </p>
      )}
      {stale ? (
        <div className="form-error dash-stale" role="alert">
          <p>{t('dashboards.stale')}</p>
          <button type="button" onClick={reload}>
            {t('dashboards.reload')}
          </button>
        </div>
      ) : (
        save.error && <FormError error={save.error} />
      )}
      {data.isError && <ErrorPanel error={data.error} onRetry={() => void data.refetch()} />}
      {widgets.length === 0 ? (
        <section aria-label={t('dashboards.title')}>
          <EmptyState
            icon={WidgetIcon}
            action={
              canEdit &&
              !editing && (
                <button type="button" onClick={() => startEditing('new')}>
                  <AddIcon className="icon" aria-hidden="true" />
                  {t('dashboards.addFirst')}
                </button>
              )
            }
          >
            {t('dashboards.empty')}
          </EmptyState>
        </section>
      ) : (
        <ol className={`dash-grid${editing ? ' dash-editing' : ''}`} ref={gridRef} aria-label={t('dashboards.widgets')}>
          {widgets.map((w) => (
            <WidgetCard
              key={w.id}
              widget={w}
              answer={data.data?.get(w.id)}
              loading={(data.isPending || data.isFetching) && w.viz.type !== 'text'}
              editing={!!editing}
              shared={editing?.scope === 'shared'}
              gridRef={gridRef}
              onMove={moveTo}
              onEdit={() => editing && setEditing({ ...editing, editor: w.id })}
              onRemove={() => {
                if (!editing) return;
                setWidgets(editing.layout.widgets.filter((x) => x.id !== w.id));
                setAnnounce(t('dashboards.removed', { title: w.title }));
              }}
            />
          ))}
        </ol>
      )}
      {editing?.editor && (
        <WidgetEditor
          widget={editorWidget}
          onCancel={() => setEditing({ ...editing, editor: null })}
          onApply={(values) => {
            const list = editing.layout.widgets;
            const next = editorWidget
              ? list.map((x) => (x.id === editorWidget.id ? { ...x, ...values } : x))
              : [...list, { id: newId(list), ...freeSpot(list, SIZES[values.viz.type].w, SIZES[values.viz.type].h), ...values }];
            setEditing({ ...editing, layout: { ...editing.layout, widgets: next }, editor: null });
            setAnnounce(t(editorWidget ? 'dashboards.changed' : 'dashboards.added', { title: values.title }));
          }}
        />
      )}
    </>
  );
}

function WidgetCard({
  widget: w,
  answer,
  loading,
  editing,
  shared,
  gridRef,
  onMove,
  onEdit,
  onRemove,
}: {
  widget: Widget;
  answer: WidgetAnswer | undefined;
  loading: boolean;
  editing: boolean;
  shared: boolean;
  gridRef: React.RefObject<HTMLOListElement | null>;
  onMove: (w: Widget, box: Box, resized: boolean) => boolean;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const box: Box = { x: w.x, y: w.y, w: w.w, h: w.h };
  const drag = useRef<{ x: number; y: number; box: Box; resize: boolean; last: Box } | null>(null);
  const handle = useRef<HTMLButtonElement>(null);

  const onKeyDown = (e: KeyboardEvent) => {
    const d = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[e.key];
    if (!d) return;
    e.preventDefault();
    const [dx, dy] = d as [number, number];
    if (e.shiftKey) onMove(w, { ...box, w: box.w + dx, h: box.h + dy }, true);
    else onMove(w, { ...box, x: box.x + dx, y: box.y + dy }, false);
    // The widgets are in reading order: a move can reorder them, and the focus stays on this handle.
    requestAnimationFrame(() => handle.current?.focus());
  };

  /** Drag with the mouse (or a finger): the handle moves the widget, the corner resizes it, one cell at a time. */
  const onPointerDown = (resize: boolean) => (e: ReactPointerEvent<HTMLElement>) => {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, y: e.clientY, box, resize, last: box };
  };
  const onPointerMove = (e: ReactPointerEvent<HTMLElement>) => {
    const d = drag.current;
    const grid = gridRef.current;
    if (!d || !grid) return;
    const style = getComputedStyle(grid);
    const gap = parseFloat(style.columnGap) || 0;
    const colWidth = (grid.clientWidth + gap) / 12;
    const rowHeight = (parseFloat(style.gridAutoRows) || 80) + (parseFloat(style.rowGap) || 0);
    const dx = Math.round((e.clientX - d.x) / colWidth);
    const dy = Math.round((e.clientY - d.y) / rowHeight);
    const next = d.resize ? { ...d.box, w: d.box.w + dx, h: d.box.h + dy } : { ...d.box, x: d.box.x + dx, y: d.box.y + dy };
    if (next.x === d.last.x && next.y === d.last.y && next.w === d.last.w && next.h === d.last.h) return;
    if (onMove(w, next, d.resize)) d.last = next;
  };
  const onPointerUp = () => {
    drag.current = null;
  };

  const style = { '--x': w.x + 1, '--y': w.y + 1, '--w': w.w, '--h': w.h } as React.CSSProperties;
  return (
    <li className="dash-widget" style={style} data-widget={w.id} aria-labelledby={`dash-w-${w.id}`}>
      <div className="dash-widget-head">
        <h2 id={`dash-w-${w.id}`}>{w.title}</h2>
        {editing && (
          <div className="dash-widget-tools">
            <button
              ref={handle}
              type="button"
              className="secondary dash-handle"
              aria-label={t('dashboards.handle', { title: w.title })}
              aria-describedby="dash-keys"
              onKeyDown={onKeyDown}
              onPointerDown={onPointerDown(false)}
              onPointerMove={onPointerMove}
              onPointerUp={onPointerUp}
              onPointerCancel={onPointerUp}
            >
              <span aria-hidden="true">✥</span>
            </button>
            {shared && (
              <button type="button" className="secondary" onClick={onEdit} aria-label={t('dashboards.editOne', { title: w.title })}>
                {t('dashboards.editWidget')}
              </button>
            )}
            <button type="button" className="secondary" onClick={onRemove} aria-label={t('dashboards.removeOne', { title: w.title })}>
              {t('dashboards.remove')}
            </button>
          </div>
        )}
      </div>
      <ScrollBody labelledBy={`dash-w-${w.id}`}>
        <WidgetBody widget={w} answer={answer} loading={loading} />
      </ScrollBody>
      {editing && (
        <span
          className="dash-resize"
          aria-hidden="true"
          onPointerDown={onPointerDown(true)}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={onPointerUp}
        />
      )}
    </li>
  );
}

/** The widget's body: it scrolls when its content is taller than the widget, and then takes the focus (to scroll with the keyboard). */
function ScrollBody({ labelledBy, children }: { labelledBy: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = () => setScrolls(el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  });
  return (
    <div ref={ref} className="dash-widget-body" {...(scrolls ? { tabIndex: 0, role: 'group', 'aria-labelledby': labelledBy } : {})}>
      {children}
    </div>
  );
}

function WidgetBody({ widget: w, answer, loading }: { widget: Widget; answer: WidgetAnswer | undefined; loading: boolean }) {
  if (w.viz.type === 'text') return <p className="dash-text">{typeof w.viz.options?.text === 'string' ? w.viz.options.text : ''}</p>;
  if (!answer) return loading ? <p className="dash-muted">{t('app.loading')}</p> : null;
  if (!answer.ok)
    return (
      <div className="dash-error" data-testid="widget-error">
        <p>{answer.error.message || errorText(new ApiError(400, answer.error.code, answer.error.code))}</p>
        {typeof answer.error.params?.reason === 'string' && <p className="dash-reason">{answer.error.params.reason}</p>}
      </div>
    );
  const bucket = (w.query as { timeBucket?: { unit?: string; timeZone?: string } }).timeBucket;
  return <Viz type={w.viz.type} result={answer.result} title={w.title} bucket={bucket} />;
}
