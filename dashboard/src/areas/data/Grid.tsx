import {
  memo,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ClipboardEvent,
  type CSSProperties,
  type FocusEvent,
  type MouseEvent,
  type ReactNode,
} from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, Loading, useTitle } from '../../ui';
import { usePermissions } from '../account/api';
import {
  TableMissing,
  useBulkRows,
  useCreateRow,
  useFirstPage,
  useTableInfo,
  visibleColumns,
  type Column,
  type OpResult,
  type Row,
  type Table,
  type TableInfo,
} from './api';
import { useValueContext } from '../../values/context';
import type { ValueContext } from '../../values/format';
import { dataValue, plainDataValue } from './cell-value';
import { copyExactSelection } from '../../values/Value';
import { DraftError, isNumeric, valueOf, ValueEditor, type Draft } from './editors';
import { FilterBar } from './FilterBar';
import { isForbidden, useGridEditing, useGridWriteAccess, type Editing } from './grid-editing';
import { useActiveCell, useGridKeyboard } from './grid-keyboard';
import {
  ColumnsMenu,
  DEFAULT_LAYOUT,
  orderedColumns,
  ResizeHandle,
  shownColumns,
  useBrowserLayout,
  widthIn,
  type ColumnLayout,
  type LayoutStore,
} from './grid-columns';
import { ROW_H, useGridPaging } from './grid-paging';
import type { RowWindow } from './row-window';
import { useVirtualItems, type VirtualRows } from './rows-virtual';
import { useGridSelection } from './grid-selection';
import { useGridToolbar } from './grid-toolbar';
import { RowForm } from './RowForm';
import { columnError, columnErrors, useDataParams, useToasts, writeErrorText } from './shared';
import { parseView, paths, viewQuery, type View } from './view';
import './data.css';
import { AddIcon, AskIcon, DeleteIcon, EditIcon, ExportIcon, ImportIcon, MoreIcon, ReportsIcon } from '../../ui/icons';
import { Menu, MenuLink } from '../../ui/Menu';

/** The selection column's width, px (data.css places a frozen key column this far from the left). */
const SELECT_W = 88;

/**
 * Where a grid is shown when it is not at its own address: a page (`/p/:slug`, the pages area)
 * gives its connection, table and the path its view's URL lives on.
 */
export interface GridAt {
  conn: string;
  table: string;
  /** The path the view's query is kept on (the grid's own path when absent). */
  base: string;
  /** The heading (the table's label when absent). */
  title?: string;
  /** Drawn under the heading (a page's views picker). */
  header?: ReactNode;
  /** Where a row's Open link goes (the data area's row screen when absent). */
  rowHref?: (recordId: string) => string;
  /** Where the person's column layout is kept (this browser when absent). */
  layout?: LayoutStore;
}

/** The grid of a table: `/connections/:conn/tables/:table`, its view (sort, search, filters) in the URL. */
export function GridScreen({ at }: { at?: GridAt } = {}) {
  const params = useDataParams();
  const { conn, table } = at ?? params;
  const info = useTableInfo(conn, table);
  useTitle('data.grid.title');
  // The first page is asked for with the schema, not after it: one round trip less before rows show.
  useFirstPage(conn, table, viewQuery(parseView(useSearch())));
  if (info.isPending) return <Loading />;
  if (info.isError) {
    if (info.error instanceof TableMissing)
      return (
        <>
          <h1>{t('data.grid.missing')}</h1>
          <p>{t('data.grid.missingText', { table })}</p>
        </>
      );
    return (
      <>
        <h1>{t('data.grid.title')}</h1>
        <ErrorPanel error={info.error} onRetry={() => void info.refetch()} />
      </>
    );
  }
  return <GridView conn={conn} info={info.data} base={at?.base} at={at} />;
}

/** Whether a key typed in `target` is the field's own (its native undo, its text), not the grid's. */
function inTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.closest('textarea, select')) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(target.type);
}

/**
 * The grid itself, composed of its hooks: the view in the URL (toolbar, filters, sort), the rows
 * of the view (paging), the writes' toasts and the permission to write, the selection and its
 * bulk actions, the cell being edited, and the keyboard.
 */
function GridView({ conn, info, base, at }: { conn: string; info: TableInfo; base?: string; at?: GridAt }) {
  const { table, tables } = info;
  const toolbar = useGridToolbar(conn, table, base);
  const { view, query, panel } = toolbar;
  const paging = useGridPaging(conn, table, view, query);
  const { store, scroller, virtual, reload, applyResults } = paging;
  // The person's arrangement of the columns (a drag of a header edge shows as it goes, saved when it ends).
  const inBrowser = useBrowserLayout(`${conn}:${table.ref}`);
  const saved = at?.layout ?? inBrowser;
  const [resizing, setResizing] = useState<ColumnLayout | null>(null);
  const layout = resizing ?? saved.value ?? DEFAULT_LAYOUT;
  const keyColumn = table.primaryKey?.columns.length === 1 ? table.primaryKey.columns[0] : undefined;
  const ordered = useMemo(() => orderedColumns(paging.columns, layout, keyColumn), [paging.columns, layout, keyColumn]);
  const columns = useMemo(() => shownColumns(ordered, layout), [ordered, layout]);
  // Frozen columns cost the browser on every frame of a scroll (sticky cells, each row's): they
  // are made sticky only while the grid is wider than its box, when they have somewhere to stay (DB57).
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !store.ready) return;
    const check = () => el.toggleAttribute('data-sideways', el.scrollWidth > el.clientWidth + 1);
    const observer = new ResizeObserver(check);
    observer.observe(el);
    const head = el.querySelector('.data-head');
    if (head) observer.observe(head);
    check();
    return () => observer.disconnect();
  }, [scroller, store.ready]);
  const resize = (c: Column, width: number, done: boolean) => {
    const next = { ...layout, widths: { ...layout.widths, [c.name]: width } };
    if (done) {
      setResizing(null);
      saved.save(next);
    } else setResizing(next);
  };
  const toasts = useToasts(applyResults);
  const { canWrite, forbid, writeFailed } = useGridWriteAccess(info.canWrite, toasts);
  const permissions = usePermissions();
  const [, navigate] = useLocation();
  const cell = useActiveCell(scroller);
  const { active } = cell;
  /** Puts the focus back on the grid (its active cell, kept within the rows there are) after the control that had it went away. */
  const focusGrid = () => {
    cell.setActive((a) => ({ row: Math.max(0, Math.min(a.row, store.total - 1)), col: a.col }));
    if (store.total > 0) cell.focusActive();
    else scroller.current?.focus();
  };
  const selection = useGridSelection(conn, table, store, query, { reload, toasts, writeFailed, onDeleted: focusGrid });
  const { selected, busy } = selection;
  const { editing, editable, startEdit, cancelEdit, changeDraft, saveEdit } = useGridEditing(conn, table, columns, store, canWrite, {
    forbid,
    toasts,
    onClosed: cell.focusActive,
  });
  const colCount = columns.length + 1;
  const onGridKey = useGridKeyboard({
    conn,
    tableRef: table.ref,
    store,
    scroller,
    scrollToIndex: virtual.scrollToIndex,
    cell,
    colCount,
    canWrite,
    editing: editing !== null,
    startEdit,
    toggle: selection.toggle,
  });

  // Ctrl/⌘+Z anywhere on the screen but in a text field (which keeps its own undo): the last write of this tab.
  const undoLast = useRef(toasts.undoLast);
  undoLast.current = toasts.undoLast;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.key.toLowerCase() !== 'z' || inTextField(e.target)) return;
      if (undoLast.current()) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // A search under way can be cancelled: its request is aborted and the view it replaced comes back.
  const lastShown = useRef<View | null>(null);
  if (store.ready) lastShown.current = view;
  const searching = !store.ready && store.error === null && view.search !== '';
  const cancelSearch = () => {
    store.dispose();
    const back = lastShown.current && lastShown.current.search !== view.search ? lastShown.current : { ...view, search: '' };
    toolbar.setView(back);
    toasts.show(t('data.grid.searchCancelled'), null);
  };

  // The rows' handlers, stable across renders: a row re-renders only when its own props change.
  const handlers = { setActive: cell.setActive, startEdit, toggle: selection.toggle, editable, changeDraft, saveEdit, cancelEdit };
  const latest = useRef(handlers);
  latest.current = handlers;
  // Asked once for every cell (DB57): the rows redraw when the person's locale or zone changes.
  const valueContext = useValueContext();
  const openText = t('data.grid.open');
  const on = useMemo<RowHandlers>(
    () => ({
      setActive: (a) => latest.current.setActive(a),
      startEdit: (index, col) => latest.current.startEdit(index, col),
      toggle: (id, row) => latest.current.toggle(id, row),
      editable: (c) => latest.current.editable(c),
      changeDraft: (d) => latest.current.changeDraft(d),
      saveEdit: () => void latest.current.saveEdit(),
      cancelEdit: () => latest.current.cancelEdit(),
    }),
    [],
  );

  const label = table.display.label || table.name;
  const template = `${SELECT_W}px ${columns.map((c) => `${widthIn(layout, c)}px`).join(' ')}`;
  const width = SELECT_W + columns.reduce((n, c) => n + widthIn(layout, c), 0);
  const headerId = (c: Column) => `data-col-${c.name}`;
  const count = store.ready ? (store.totalExact ? t('data.grid.count', { count: store.total }) : t('data.grid.countAbout', { count: store.total })) : '';
  // The selection column is always frozen at the left; so is the key column when the layout keeps it first (data.css).
  const frozenKey = layout.freezeKey && columns.length > 1 && columns[0]!.name === keyColumn;
  const rowHref = (id: string) => (at?.rowHref ? at.rowHref(id) : paths.row(conn, table.ref, id));
  // The cells' handlers, delegated: a cell takes the tab stop when it (or, on the selection
  // column, its box or link) gets the focus; a double click edits it; Open goes in-app.
  const onGridFocus = (e: FocusEvent<HTMLDivElement>) => {
    const at = cellOf(e.target);
    if (at && (at.col === 0 || e.target === at.cell)) on.setActive({ row: at.row, col: at.col });
    if (at && e.target === at.cell) showExact(at);
  };
  // A cell drawn as its value's own text (plainDataValue) gets the exact value as its title when
  // the pointer or the focus comes to it, not with every drawing of its row (DB57); a copy of text
  // selected inside it takes the exact value too.
  const plainAt = (at: { row: number; col: number }) => {
    const c = columns[at.col - 1];
    const row = at.col > 0 ? store.rowAt(at.row)?.row : undefined;
    return c && row ? plainDataValue(conn, table, tables, c, row[c.name], valueContext) : null;
  };
  const showExact = (at: { row: number; col: number; cell: HTMLElement }) => {
    const exact = plainAt(at)?.exact;
    if (exact && at.cell.title !== exact) at.cell.title = exact;
    else if (!exact && at.cell.hasAttribute('title')) at.cell.removeAttribute('title');
  };
  // Taken off when the pointer and the focus leave: a row's element is drawn again for another
  // row as the grid scrolls (DB57), and React does not know of this title.
  const hideExact = (cell: HTMLElement, next: EventTarget | null, stays: boolean) => {
    if ((next instanceof Node && cell.contains(next)) || stays) return;
    if (cell.hasAttribute('title')) cell.removeAttribute('title');
  };
  const onGridPointerOver = (e: MouseEvent<HTMLDivElement>) => {
    const at = cellOf(e.target);
    if (at && at.col > 0) showExact(at);
  };
  const onGridPointerOut = (e: MouseEvent<HTMLDivElement>) => {
    const at = cellOf(e.target);
    if (at && at.col > 0) hideExact(at.cell, e.relatedTarget, document.activeElement === at.cell);
  };
  const onGridBlur = (e: FocusEvent<HTMLDivElement>) => {
    const at = cellOf(e.target);
    if (at && at.col > 0) hideExact(at.cell, e.relatedTarget, at.cell.matches(':hover'));
  };
  const onGridCopy = (e: ClipboardEvent<HTMLDivElement>) => {
    const anchor = window.getSelection()?.anchorNode ?? null;
    const at = e.defaultPrevented ? null : cellOf(anchor instanceof Element ? anchor : (anchor?.parentElement ?? null));
    const exact = at && plainAt(at)?.exact;
    if (at && exact) copyExactSelection(at.cell, exact, e);
  };
  const onGridDoubleClick = (e: MouseEvent<HTMLDivElement>) => {
    const at = cellOf(e.target);
    if (at && at.col > 0 && !(e.target as Element).closest('.data-cell-editor')) on.startEdit(at.row, at.col);
  };
  const onGridClick = (e: MouseEvent<HTMLDivElement>) => {
    const link = (e.target as Element).closest<HTMLAnchorElement>('a[data-open-row]');
    if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(link.getAttribute('href')!);
  };
  const goToRow = (index: number) => {
    virtual.scrollToIndex(index, 'start');
    cell.setActive((a) => ({ row: index, col: a.col }));
    cell.focusActive();
  };

  // Links to other screens about this table: in the toolbar on a wide screen, in a "More" menu on a narrow one (data.css).
  const secondary = [
    permissions?.has('imports.run') && { href: paths.import(conn, table.ref), Icon: ImportIcon, label: t('data.grid.import') },
    permissions?.has('exports.run') && { href: paths.export(conn, table.ref, query), Icon: ExportIcon, label: t('data.grid.export') },
    permissions?.has('reports.write') && { href: paths.newReport(conn, table.ref, query), Icon: ReportsIcon, label: t('data.grid.scheduleReport') },
    permissions?.has('llm.use') && {
      href: `/ask?connection=${encodeURIComponent(conn)}&table=${encodeURIComponent(table.ref)}`,
      Icon: AskIcon,
      label: t('data.grid.ask'),
    },
  ].filter((link) => link !== false && link !== undefined);

  return (
    <div className="data-grid-screen">
      <p className="data-crumbs">
        <Link href={`/connections/${encodeURIComponent(conn)}`}>{info.connectionName}</Link>
      </p>
      <h1>{at?.title ?? label}</h1>
      {at?.header}
      <p className="data-count" aria-live="polite">
        {count}
      </p>
      <div className="data-toolbar">
        <SearchBox value={view.search} onSearch={toolbar.search} />
        {secondary.length > 0 && (
          <>
            <span className="data-toolbar-links">
              {secondary.map(({ href, Icon, label }) => (
                <Link key={href} href={href} className="button secondary">
                  <Icon className="icon" aria-hidden="true" />
                  {label}
                </Link>
              ))}
            </span>
            <Menu
              className="button secondary data-toolbar-more"
              align="start"
              trigger={
                <>
                  <MoreIcon className="icon" aria-hidden="true" />
                  {t('data.grid.more')}
                </>
              }
            >
              {secondary.map(({ href, Icon, label }) => (
                <MenuLink key={href}>
                  <Link href={href}>
                    <Icon className="icon" aria-hidden="true" />
                    {label}
                  </Link>
                </MenuLink>
              ))}
            </Menu>
          </>
        )}
        <ColumnsMenu columns={ordered} layout={layout} keyColumn={keyColumn} onChange={saved.save} onReset={() => saved.save(null)} />
        {canWrite && (
          <button type="button" onClick={() => toolbar.togglePanel('create')} aria-expanded={panel === 'create'}>
            <AddIcon className="icon" aria-hidden="true" />
            {t('data.grid.newRow')}
          </button>
        )}
      </div>
      <FilterBar columns={visibleColumns(table)} view={view} onApply={toolbar.filter} />
      {canWrite && selected.size > 0 && (
        <div className="data-selection" role="region" aria-label={t('data.selection.label')}>
          <span>{t('data.selection.count', { count: selected.size })}</span>
          <button type="button" disabled={busy} onClick={() => toolbar.togglePanel('bulkEdit')} aria-expanded={panel === 'bulkEdit'}>
            <EditIcon className="icon" aria-hidden="true" />
            {t('data.selection.edit')}
          </button>
          <button type="button" disabled={busy} onClick={() => void selection.duplicateSelected()}>
            {t('data.selection.duplicate')}
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => void selection.deleteSelected()}>
            <DeleteIcon className="icon" aria-hidden="true" />
            {t('data.selection.delete')}
          </button>
          <button type="button" className="link" onClick={selection.clear}>
            {t('data.selection.clear')}
          </button>
        </div>
      )}
      {panel === 'create' && canWrite && (
        <CreatePanel
          conn={conn}
          table={table}
          tables={tables}
          onDone={(token) => {
            toolbar.setPanel('none');
            reload();
            toasts.show(t('data.toast.created'), token);
          }}
          onForbidden={forbid}
        />
      )}
      {panel === 'bulkEdit' && canWrite && selected.size > 0 && (
        <BulkEditPanel
          conn={conn}
          table={table}
          tables={tables}
          columns={columns.filter(editable)}
          ids={[...selected.keys()]}
          onDone={(results, token) => {
            toolbar.setPanel('none');
            applyResults(results);
            toasts.show(t('data.toast.bulkUpdated', { count: results.length }), token);
          }}
        />
      )}
      {toasts.view}
      {store.error !== null && <ErrorPanel error={store.error} onRetry={reload} />}
      {searching && (
        <div className="data-searching" role="status">
          <span>{t('data.grid.searching')}</span>
          <button type="button" className="secondary" onClick={cancelSearch}>
            {t('data.grid.searchCancel')}
          </button>
        </div>
      )}
      {!store.ready && store.error === null && !searching && <Loading />}
      {store.ready && store.total > 0 && (
        <div className="data-position-bar">
          <Position subscribe={virtual.subscribeTop} topRow={virtual.topRow} total={store.total} exact={store.totalExact} />
          <GoToRow total={store.total} onGo={goToRow} />
        </div>
      )}
      {store.ready && (
        <div
          ref={scroller}
          className="data-grid"
          role="grid"
          tabIndex={-1}
          aria-label={label}
          aria-rowcount={store.totalExact ? store.total + 1 : -1}
          aria-colcount={colCount}
          aria-readonly={!canWrite || undefined}
          data-frozen-key={frozenKey || undefined}
          style={{ '--data-cols': template } as CSSProperties}
          onKeyDown={onGridKey}
          onFocus={onGridFocus}
          onDoubleClick={onGridDoubleClick}
          onClick={onGridClick}
          onPointerOver={onGridPointerOver}
          onPointerOut={onGridPointerOut}
          onBlur={onGridBlur}
          onCopy={onGridCopy}
        >
          <div role="rowgroup" className="data-head" style={{ width }}>
            <div role="row" aria-rowindex={1} className="data-row">
              <div role="columnheader" aria-colindex={1} className="data-cell data-select">
                {canWrite && <input type="checkbox" aria-label={t('data.grid.selectAll')} checked={selection.allSelected} onChange={selection.selectAll} />}
              </div>
              {columns.map((c, i) => (
                <div
                  role="columnheader"
                  key={c.name}
                  id={headerId(c)}
                  aria-colindex={i + 2}
                  aria-sort={toolbar.sortOf(c)}
                  className={`data-cell${isNumeric(c) ? ' data-num' : ''}`}
                >
                  <button
                    type="button"
                    className="data-sort"
                    onClick={() => toolbar.sortBy(c)}
                    title={t('data.grid.sortBy', { column: c.display.label || c.name })}
                  >
                    {c.display.label || c.name}
                    <span aria-hidden="true">{toolbar.sortOf(c) === 'ascending' ? ' ▲' : toolbar.sortOf(c) === 'descending' ? ' ▼' : ''}</span>
                  </button>
                  <span className="data-type">{c.type}</span>
                  <ResizeHandle column={c} width={widthIn(layout, c)} onResize={(w, done) => resize(c, w, done)} />
                </div>
              ))}
            </div>
          </div>
          {store.total === 0 && <p className="data-empty">{t('data.grid.empty')}</p>}
          <div role="rowgroup" className="data-body" style={{ height: virtual.bodyHeight, width }}>
            <div className="data-layer" ref={virtual.layerRef} data-editing={editing ? '' : undefined}>
              <GridRows
                virtual={virtual}
                store={store}
                afterDraw={cell.afterDraw}
                columns={columns}
                selected={selected}
                active={active}
                editing={editing}
                canWrite={canWrite}
                conn={conn}
                table={table}
                tables={tables}
                rowHref={at?.rowHref ? rowHref : null}
                on={on}
                ctx={valueContext}
                openText={openText}
              />
            </div>
          </div>
        </div>
      )}
      <p className="data-help">{t(canWrite ? 'data.grid.keysHelp' : 'data.grid.keysHelpRead')}</p>
    </div>
  );
}

/**
 * The drawn rows: the one part of the grid a scroll re-renders (useVirtualItems), once a block of
 * rows; each row is keyed by its slot and memoised, so only the rows that came into the range draw.
 */
function GridRows(
  props: Omit<GridRowProps, 'index' | 'row' | 'id' | 'selected' | 'activeCol' | 'editing'> & {
    virtual: VirtualRows;
    store: RowWindow;
    /** Called after each drawing (a cell asked to take the focus may only now be drawn). */
    afterDraw: () => void;
    selected: ReadonlyMap<string, unknown>;
    active: { row: number; col: number };
    editing: Editing | null;
  },
) {
  const { virtual, store, afterDraw, selected, active, editing, ...shared } = props;
  const items = useVirtualItems(virtual);
  useEffect(afterDraw);
  return items.map((item) => {
    const entry = store.rowAt(item.index);
    const id = entry?.id ?? null;
    return (
      <GridRow
        key={item.slot}
        index={item.index}
        row={entry?.row}
        id={id}
        selected={id !== null && selected.has(id)}
        activeCol={active.row === item.index ? active.col : null}
        editing={editing?.index === item.index ? editing : null}
        {...shared}
      />
    );
  });
}

/** What a row does through the grid (stable functions: they read the grid's latest state). */
interface RowHandlers {
  setActive: (a: { row: number; col: number }) => void;
  startEdit: (index: number, colIndex: number) => void;
  toggle: (id: string, row: Row) => void;
  editable: (c: Column) => boolean;
  changeDraft: (d: Draft) => void;
  saveEdit: () => void;
  cancelEdit: () => void;
}

interface GridRowProps {
  index: number;
  columns: readonly Column[];
  /** Undefined while the row is not loaded (drawn empty, busy). */
  row: Row | undefined;
  id: string | null;
  selected: boolean;
  /** The column of the grid's tab stop when it is on this row, else null. */
  activeCol: number | null;
  /** The cell being edited when it is on this row. */
  editing: Editing | null;
  canWrite: boolean;
  conn: string;
  table: Table;
  tables: readonly Table[];
  /** Where Open goes when the grid is shown on a page (the data area's row screen when null). */
  rowHref: ((id: string) => string) | null;
  on: RowHandlers;
  /** How values read (the person's locale and zone), asked once by the grid for every cell. */
  ctx: ValueContext;
  /** The Open link's text, the same on every row. */
  openText: string;
}

/**
 * One row of the grid; memoised, so scrolling draws only the rows that come into view. Its
 * props do not change as the window moves (its place is the rows' layer's, its columns' widths
 * the grid's CSS variable), and its cells carry no handlers of their own: the grid's delegated
 * ones read `data-cell` (GridView, onGridFocus and onGridDoubleClick).
 */
const GridRow = memo(function GridRow(props: GridRowProps) {
  const { index, row, id, columns, editing, activeCol, on, conn, table } = props;
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      aria-selected={id !== null ? props.selected : undefined}
      aria-busy={row ? undefined : true}
      className="data-row"
      data-record={id ?? undefined}
      data-editing={editing ? '' : undefined}
      style={{ order: index }}
    >
      <div role="gridcell" aria-colindex={1} className="data-cell data-select" data-cell={`${index}:0`} tabIndex={activeCol === 0 ? 0 : -1}>
        {row && id !== null && (
          <>
            {props.canWrite && (
              <input type="checkbox" tabIndex={-1} aria-label={t('data.grid.selectRow', { id })} checked={props.selected} onChange={() => on.toggle(id, row)} />
            )}
            <a
              href={props.rowHref ? props.rowHref(id) : paths.row(conn, table.ref, id)}
              data-open-row=""
              tabIndex={-1}
              aria-label={t('data.grid.openRow', { id })}
            >
              {props.openText}
            </a>
          </>
        )}
      </div>
      {columns.map((c, ci) => {
        const isEditing = editing && editing.column === c.name && editing.recordId === id;
        const value = row?.[c.name];
        // Plain text is the cell's own (one element a cell); its title is set on hover (GridView, showExact).
        const plain = row ? plainDataValue(conn, table, props.tables, c, value, props.ctx) : null;
        return (
          <div
            role="gridcell"
            key={c.name}
            aria-colindex={ci + 2}
            data-cell={`${index}:${ci + 1}`}
            data-column={c.name}
            tabIndex={activeCol === ci + 1 ? 0 : -1}
            aria-invalid={isEditing && editing.error ? true : undefined}
            aria-readonly={!on.editable(c) || undefined}
            className={`data-cell${isNumeric(c) ? ' data-num' : ''}${value === null ? ' data-null-value' : ''}${isEditing ? ' data-editing' : ''}${plain?.className ? ` ${plain.className}` : ''}`}
          >
            {plain ? plain.text : row ? dataValue(conn, table, props.tables, c, value, props.ctx) : ''}
            {isEditing && (
              <CellEditor
                conn={conn}
                table={table}
                tables={props.tables}
                column={c}
                editing={editing}
                onChange={on.changeDraft}
                onSave={on.saveEdit}
                onCancel={on.cancelEdit}
                alignEnd={ci >= columns.length - 2 && ci > 0}
              />
            )}
          </div>
        );
      })}
    </div>
  );
});

/** The grid cell (row index, column index) an event happened in, from its `data-cell`. */
function cellOf(target: EventTarget | null): { row: number; col: number; cell: HTMLElement } | null {
  const cell = target instanceof Element ? target.closest<HTMLElement>('[data-cell]') : null;
  const at = cell?.dataset.cell?.split(':');
  if (!cell || !at || at.length !== 2) return null;
  return { row: Number(at[0]), col: Number(at[1]), cell };
}

/** "Row 500,000 of about 1,000,000": the first row in view; re-renders alone as rows pass. */
function Position({ subscribe, topRow, total, exact }: { subscribe: (l: () => void) => () => void; topRow: () => number; total: number; exact: boolean }) {
  const row = useSyncExternalStore(subscribe, topRow);
  return <p className="data-position">{t(exact ? 'data.grid.position' : 'data.grid.positionAbout', { row: Math.min(row + 1, total), total })}</p>;
}

/** A row number to scroll to (1-based; past the end, the last row). */
function GoToRow({ total, onGo }: { total: number; onGo: (index: number) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      className="data-goto"
      aria-label={t('data.grid.goTo')}
      onSubmit={(e) => {
        e.preventDefault();
        const n = Number.parseInt(text.replace(/[^\d]/g, ''), 10);
        if (Number.isFinite(n) && n >= 1) onGo(Math.min(n, total) - 1);
      }}
    >
      <label htmlFor="data-goto-row">{t('data.grid.goToLabel')}</label>
      <input id="data-goto-row" inputMode="numeric" size={9} value={text} onChange={(e) => setText(e.target.value)} />
      <button type="submit">{t('data.grid.goToSubmit')}</button>
    </form>
  );
}

function CellEditor(props: {
  alignEnd?: boolean;
  conn: string;
  table: Table;
  tables: readonly Table[];
  column: Column;
  editing: Editing;
  onChange: (d: Draft) => void;
  onSave: () => void;
  onCancel: () => void;
}) {
  const { column, editing, onChange, onSave, onCancel } = props;
  const ref = useRef<HTMLInputElement & HTMLTextAreaElement & HTMLSelectElement>(null);
  useEffect(() => {
    ref.current?.focus();
    if (ref.current && 'select' in ref.current && ref.current.tagName === 'INPUT') ref.current.select();
  }, []);
  // Kept inside the grid's visible box: shifted left (or right) when it would pass an edge, and
  // scrolled into view; never wider than the grid.
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    const grid = el?.closest<HTMLElement>('.data-grid');
    if (!el || !grid) return;
    const g = grid.getBoundingClientRect();
    el.style.maxWidth = `${Math.max(160, grid.clientWidth - 8)}px`;
    const r = el.getBoundingClientRect();
    const right = g.left + grid.clientWidth - 4;
    let dx = r.right > right ? right - r.right : 0;
    if (r.left + dx < g.left + 4) dx = g.left + 4 - r.left;
    el.style.translate = `${Math.round(dx)}px 0`;
    el.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }, []);
  const errorId = `data-edit-error-${column.name}`;
  const label = t('data.edit.label', { column: column.display.label || column.name });
  return (
    <div
      ref={box}
      className={props.alignEnd ? 'data-cell-editor data-cell-editor-end' : 'data-cell-editor'}
      role="group"
      aria-label={label}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onCancel();
        } else if (e.key === 'Enter' && !e.shiftKey && (e.target as HTMLElement).tagName !== 'BUTTON') {
          // Enter saves in every editor, a text area's too; Shift+Enter is a new line there.
          e.preventDefault();
          onSave();
        }
      }}
    >
      <ValueEditor
        conn={props.conn}
        table={props.table}
        tables={props.tables}
        column={column}
        label={label}
        draft={editing.draft}
        onChange={onChange}
        inputRef={ref}
        invalid={!!editing.error}
        describedBy={editing.error ? errorId : undefined}
      />
      {column.nullable && (
        <label className="data-null">
          <input type="checkbox" checked={editing.draft.isNull} onChange={(e) => onChange({ ...editing.draft, isNull: e.target.checked })} />
          {t('data.edit.setNullShort')}
        </label>
      )}
      {editing.error && (
        <p className="field-error" id={errorId} role="alert">
          {editing.error}
        </p>
      )}
      <div className="actions">
        <button type="button" onClick={onSave} disabled={editing.saving}>
          {editing.saving ? t('data.edit.saving') : t('data.edit.save')}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('data.edit.cancel')}
        </button>
      </div>
    </div>
  );
}

function SearchBox({ value, onSearch }: { value: string; onSearch: (s: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <form
      role="search"
      className="data-search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(text);
      }}
    >
      <input
        type="search"
        aria-label={t('data.grid.search')}
        placeholder={t('data.grid.searchPlaceholder')}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit">{t('data.grid.searchSubmit')}</button>
    </form>
  );
}

function CreatePanel({
  conn,
  table,
  tables,
  onDone,
  onForbidden,
}: {
  conn: string;
  table: Table;
  tables: readonly Table[];
  onDone: (token: string) => void;
  onForbidden: () => void;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const create = useCreateRow(conn, table.ref);
  const columns = table.columns.filter((c) => c.generated === null && !c.autoIncrement && !c.display.secret);
  return (
    <section className="data-panel" aria-labelledby="data-create-title">
      <h2 id="data-create-title">{t('data.create.title')}</h2>
      {error !== null && (
        <p className="form-error" role="alert">
          {writeErrorText(error)}
        </p>
      )}
      <RowForm
        conn={conn}
        table={table}
        tables={tables}
        columns={columns}
        initial={{}}
        creating
        errors={errors}
        pending={create.isPending}
        submitLabel={t('data.create.submit')}
        onLocalErrors={setErrors}
        onSubmit={async (values) => {
          setError(null);
          try {
            const out = await create.mutateAsync(values);
            onDone(out.undoToken);
          } catch (err) {
            if (isForbidden(err)) onForbidden();
            setError(err);
            setErrors(columnErrors(err));
          }
        }}
      />
    </section>
  );
}

function BulkEditPanel(props: {
  conn: string;
  table: Table;
  tables: readonly Table[];
  columns: Column[];
  ids: string[];
  onDone: (results: OpResult[], token: string) => void;
}) {
  const { conn, table, tables, columns, ids, onDone } = props;
  const [name, setName] = useState(columns[0]?.name ?? '');
  const column = columns.find((c) => c.name === name);
  const [draft, setDraft] = useState<Draft>({ text: '', isNull: false, zone: 'Z' });
  const [error, setError] = useState<string | null>(null);
  const write = useBulkRows(conn, table.ref);
  if (!column) return null;
  const submit = async () => {
    setError(null);
    let value: unknown;
    try {
      value = valueOf(column, draft);
    } catch (err) {
      if (err instanceof DraftError) return setError(err.message);
      throw err;
    }
    try {
      const out = await write.mutateAsync(ids.map((recordId) => ({ op: 'update' as const, recordId, values: { [column.name]: value } })));
      onDone(out.results, out.undoToken);
    } catch (err) {
      setError(columnError(err, column.name));
    }
  };
  return (
    <section className="data-panel" aria-labelledby="data-bulk-title">
      <h2 id="data-bulk-title">{t('data.bulk.title', { count: ids.length })}</h2>
      <form
        className="data-bulk"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="field">
          <label htmlFor="data-bulk-column">{t('data.bulk.column')}</label>
          <select
            id="data-bulk-column"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setDraft({ text: '', isNull: false, zone: 'Z' });
            }}
          >
            {columns.map((c) => (
              <option key={c.name} value={c.name}>
                {c.display.label || c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="data-bulk-value">{t('data.bulk.value')}</label>
          <ValueEditor
            conn={conn}
            table={table}
            tables={tables}
            column={column}
            id="data-bulk-value"
            label={t('data.bulk.value')}
            draft={draft}
            onChange={setDraft}
            invalid={!!error}
            describedBy={error ? 'data-bulk-error' : undefined}
          />
        </div>
        {error && (
          <p className="field-error" id="data-bulk-error" role="alert">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="submit" disabled={write.isPending}>
            {t('data.bulk.submit', { count: ids.length })}
          </button>
        </div>
      </form>
    </section>
  );
}
