import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { t } from '../../i18n/t';
import { useLiveEvents } from '../../live/events';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import {
  bulk,
  createRow,
  getRow,
  listRows,
  patchRow,
  TableMissing,
  useTableInfo,
  visibleColumns,
  type Column,
  type OpResult,
  type Page,
  type Row,
  type Table,
  type TableInfo,
} from './api';
import { cellText, draftOf, DraftError, isNumeric, valueOf, ValueEditor, type Draft } from './editors';
import { FilterBar } from './FilterBar';
import { RowForm } from './RowForm';
import { RowWindow, seekable, PAGE } from './row-window';
import { useVirtualRows } from './rows-virtual';
import { columnError, columnErrors, useDataParams, useToasts } from './shared';
import { parseView, paths, toggleSort, viewQuery, type View } from './view';
import './data.css';

const ROW_H = 34;
const SELECT_W = 88;

function widthOf(c: Column): number {
  if (c.type === 'boolean') return 110;
  if (isNumeric(c)) return 130;
  if (c.type === 'date' || c.type === 'time') return 140;
  if (c.type === 'datetime') return 220;
  if (c.type === 'json' || c.type === 'text') return 260;
  return 180;
}

interface Editing {
  index: number;
  recordId: string;
  column: string;
  draft: Draft;
  error: string | null;
  saving: boolean;
}

/** The grid of a table: `/connections/:conn/tables/:table`, its view (sort, search, filters) in the URL. */
export function GridScreen() {
  const { conn, table } = useDataParams();
  const info = useTableInfo(conn, table);
  useTitle('data.grid.title');
  // The first page is asked for with the schema, not after it: one round trip less before rows show.
  const search = useSearch();
  const firstPage = useMemo(() => {
    const p = listRows(conn, table, RowWindow.firstQuery(viewQuery(parseView(search))));
    p.catch(() => undefined);
    return { key: `${conn}\u0000${table}\u0000${search}`, page: p };
  }, [conn, table, search]);
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
  return <GridView conn={conn} info={info.data} firstPage={firstPage.page} />;
}

function GridView({ conn, info, firstPage }: { conn: string; info: TableInfo; firstPage: Promise<Page> }) {
  const { table, tables, canWrite: mayWrite } = info;
  const [forbidden, setForbidden] = useState(false);
  const canWrite = mayWrite && !forbidden;
  const search = useSearch();
  const [, navigate] = useLocation();
  const view = useMemo(() => parseView(search), [search]);
  const query = viewQuery(view);
  const setView = useCallback(
    (next: View) => {
      const q = viewQuery(next);
      navigate(paths.grid(conn, table.ref) + (q ? `?${q}` : ''));
    },
    [conn, table.ref, navigate],
  );
  const label = table.display.label || table.name;
  const pk = table.primaryKey?.columns ?? [];

  // The rows of this view: a new window whenever the view changes.
  const seekColumn = view.sort[0] ? table.columns.find((c) => c.name === view.sort[0]!.column) : table.columns.find((c) => c.name === pk[0]);
  const seek = pk.length > 0 && seekable(seekColumn) ? { column: seekColumn!, desc: view.sort[0]?.desc ?? false } : null;
  const store = useMemo(() => {
    const reversedSort = view.sort.length ? view.sort.map((s) => ({ ...s, desc: !s.desc })) : pk.map((column) => ({ column, desc: true }));
    const reversed = seek ? viewQuery({ ...view, sort: reversedSort }) : null;
    return new RowWindow((q, signal) => listRows(conn, table.ref, q, signal), query, reversed, seek);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [conn, table.ref, query]);
  const prefetched = useRef<Promise<Page> | null>(firstPage);
  useEffect(() => {
    // The prefetched page serves the first window only; a later view reads its own.
    void store.load(prefetched.current ?? undefined);
    prefetched.current = null;
    return () => store.dispose();
  }, [store]);
  useSyncExternalStore(store.subscribe, store.getVersion);

  const sample = store.rowAt(0)?.row;
  const columns = useMemo(() => visibleColumns(table, sample), [table, sample !== undefined]); // eslint-disable-line react-hooks/exhaustive-deps
  const template = `${SELECT_W}px ${columns.map((c) => `${widthOf(c)}px`).join(' ')}`;
  const width = SELECT_W + columns.reduce((n, c) => n + widthOf(c), 0);

  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualRows(scroller, store.ready, store.total, ROW_H);
  const items = virtual.rows;
  const { first, last } = virtual;
  useEffect(() => {
    store.ensure(Math.max(0, first - PAGE / 4), last + PAGE / 4);
  }, [store, first, last, store.version]);

  // Selection (record ids) and the cell with the keyboard focus.
  const [selected, setSelected] = useState<Map<string, Row>>(new Map());
  useEffect(() => setSelected(new Map()), [query]);
  const [active, setActive] = useState({ row: 0, col: 0 });
  const [editing, setEditing] = useState<Editing | null>(null);
  const focusCell = useRef(false);

  const reload = useCallback(() => void store.load(), [store]);
  const applyResults = useCallback(
    (results: OpResult[]) => {
      if (results.some((r) => r.op === 'create')) return reload();
      for (const r of results) {
        if (r.op === 'update' && r.row) store.replace(r.recordId, r.row);
        if (r.op === 'delete') store.remove([r.recordId]);
      }
    },
    [store, reload],
  );
  const toasts = useToasts(applyResults);

  // Rows written elsewhere: the ones on screen are read again; new rows reload the view.
  const refresh = useCallback(
    async (ids: readonly string[], op: string) => {
      const loaded = ids.filter((id) => store.has(id));
      if (op === 'delete') return store.remove(loaded);
      // A bulk write or an undo may have created, changed or deleted its rows: reading them one by
      // one would ask for rows that are gone. Only a plain update is read row by row.
      if (op !== 'update') return reload();
      for (const id of loaded.slice(0, 50)) {
        try {
          const { row, recordId } = await getRow(conn, table.ref, id);
          store.replace(id, row, recordId);
        } catch {
          store.remove([id]);
        }
      }
    },
    [store, conn, table.ref, reload],
  );
  useLiveEvents(['data.changed'], (event) => {
    const d = event.data as { connectionId?: string; table?: string; recordIds?: string[]; op?: string };
    if (d.connectionId === conn && d.table === table.ref) void refresh(d.recordIds ?? [], d.op ?? 'update');
  });
  // Coming back to the tab reads the rows on screen again (and covers a live channel that was down).
  useEffect(() => {
    const onFocus = () => {
      if (document.visibilityState !== 'visible') return;
      const ids: string[] = [];
      for (let i = first; i <= last; i++) {
        const id = store.rowAt(i)?.id;
        if (id) ids.push(id);
      }
      void refresh(ids, 'update');
    };
    window.addEventListener('focus', onFocus);
    document.addEventListener('visibilitychange', onFocus);
    return () => {
      window.removeEventListener('focus', onFocus);
      document.removeEventListener('visibilitychange', onFocus);
    };
  }, [store, first, last, refresh]);

  const writeFailed = useCallback(
    (err: unknown) => {
      if (err && typeof err === 'object' && 'status' in err && (err as { status: number }).status === 403) setForbidden(true);
      toasts.show(errorText(err), null, { error: true });
    },
    [toasts],
  );

  // ---- editing a cell ----
  const editable = (c: Column) => canWrite && c.generated === null && !pk.includes(c.name);
  const startEdit = (index: number, colIndex: number) => {
    const c = columns[colIndex - 1];
    const entry = store.rowAt(index);
    if (!c || !entry?.id || !editable(c)) return;
    setEditing({ index, recordId: entry.id, column: c.name, draft: draftOf(c, entry.row[c.name]), error: null, saving: false });
  };
  const cancelEdit = () => {
    setEditing(null);
    focusCell.current = true;
  };
  const saveEdit = async () => {
    if (!editing || editing.saving) return;
    const c = columns.find((x) => x.name === editing.column)!;
    let value: unknown;
    try {
      value = valueOf(c, editing.draft);
    } catch (err) {
      if (err instanceof DraftError) return setEditing({ ...editing, error: err.message });
      throw err;
    }
    setEditing({ ...editing, saving: true, error: null });
    try {
      const out = await patchRow(conn, table.ref, editing.recordId, { [c.name]: value });
      store.replace(editing.recordId, out.row, out.recordId);
      setEditing(null);
      focusCell.current = true;
      toasts.show(t('data.toast.updated', { column: c.display.label || c.name }), out.undoToken);
    } catch (err) {
      // The typed value stays: the person fixes it and saves again.
      if (err && typeof err === 'object' && 'status' in err && (err as { status: number }).status === 403) setForbidden(true);
      setEditing((e) => e && { ...e, saving: false, error: columnError(err, c.name) });
    }
  };

  // ---- keyboard ----
  const colCount = columns.length + 1;
  const move = (row: number, col: number) => {
    const r = Math.max(0, Math.min(store.total - 1, row));
    const c = Math.max(0, Math.min(colCount - 1, col));
    setActive({ row: r, col: c });
    virtual.scrollToIndex(r);
    focusCell.current = true;
  };
  const onGridKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (editing || (e.target as HTMLElement).closest('.data-cell-editor')) return;
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / ROW_H) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active.row + 1, active.col),
      ArrowUp: () => move(active.row - 1, active.col),
      ArrowRight: () => move(active.row, active.col + 1),
      ArrowLeft: () => move(active.row, active.col - 1),
      PageDown: () => move(active.row + page, active.col),
      PageUp: () => move(active.row - page, active.col),
      Home: () => (e.ctrlKey ? move(0, 0) : move(active.row, 0)),
      End: () => (e.ctrlKey ? move(store.total - 1, colCount - 1) : move(active.row, colCount - 1)),
      Enter: () => startEdit(active.row, active.col),
      F2: () => startEdit(active.row, active.col),
    };
    const entry = store.rowAt(active.row);
    if (active.col === 0 && entry?.id && (e.key === ' ' || e.key === 'Enter')) {
      e.preventDefault();
      if (e.key === 'Enter') navigate(paths.row(conn, table.ref, entry.id));
      else if (canWrite) toggle(entry.id, entry.row);
      return;
    }
    const action = keys[e.key];
    if (action) {
      e.preventDefault();
      action();
    }
  };
  useEffect(() => {
    if (!focusCell.current) return;
    // A far row is drawn only once the scroll reaches it: keep trying on the next renders.
    const cell = scroller.current?.querySelector<HTMLElement>(`[data-cell="${active.row}:${active.col}"]`);
    if (!cell) return;
    focusCell.current = false;
    cell.focus({ preventScroll: false });
  });

  // ---- selection and bulk actions ----
  const toggle = (id: string, row: Row) =>
    setSelected((s) => {
      const next = new Map(s);
      if (next.has(id)) next.delete(id);
      else next.set(id, row);
      return next;
    });
  const loadedIds = [...store.loaded()].filter((r) => r.id !== null);
  const allSelected = loadedIds.length > 0 && loadedIds.every((r) => selected.has(r.id!));
  const selectAll = () => setSelected(allSelected ? new Map() : new Map(loadedIds.map((r) => [r.id!, r.row])));

  const [panel, setPanel] = useState<'none' | 'create' | 'bulkEdit'>('none');
  const [busy, setBusy] = useState(false);
  const deleteSelected = async () => {
    const ids = [...selected.keys()];
    setBusy(true);
    try {
      const out = await bulk(
        conn,
        table.ref,
        ids.map((recordId) => ({ op: 'delete' as const, recordId })),
      );
      store.remove(ids);
      setSelected(new Map());
      toasts.show(t('data.toast.deleted', { count: ids.length }), out.undoToken);
    } catch (err) {
      writeFailed(err);
    } finally {
      setBusy(false);
    }
  };
  const duplicateSelected = async () => {
    const copyable = table.columns.filter((c) => c.generated === null && !c.autoIncrement && !(pk.includes(c.name) && c.default !== null));
    setBusy(true);
    try {
      const out = await bulk(
        conn,
        table.ref,
        [...selected.values()].map((row) => ({
          op: 'create' as const,
          values: Object.fromEntries(copyable.filter((c) => c.name in row).map((c) => [c.name, row[c.name]])),
        })),
      );
      setSelected(new Map());
      reload();
      toasts.show(t('data.toast.duplicated', { count: out.results.length }), out.undoToken);
    } catch (err) {
      writeFailed(err);
    } finally {
      setBusy(false);
    }
  };

  const headerId = (c: Column) => `data-col-${c.name}`;
  const ariaSort = (c: Column) => {
    const s = view.sort.find((k) => k.column === c.name);
    return s ? (s.desc ? 'descending' : 'ascending') : 'none';
  };
  const count = store.ready ? (store.totalExact ? t('data.grid.count', { count: store.total }) : t('data.grid.countAbout', { count: store.total })) : '';

  return (
    <div className="data-grid-screen">
      <p className="data-crumbs">
        <Link href={`/connections/${encodeURIComponent(conn)}`}>{info.connectionName}</Link>
      </p>
      <h1>{label}</h1>
      <p className="data-count" aria-live="polite">
        {count}
      </p>
      <div className="data-toolbar">
        <SearchBox value={view.search} onSearch={(s) => setView({ ...view, search: s })} />
        <Link href={paths.import(conn, table.ref)}>{t('data.grid.import')}</Link>
        <Link href={paths.export(conn, table.ref, query)}>{t('data.grid.export')}</Link>
        {canWrite && (
          <button type="button" onClick={() => setPanel(panel === 'create' ? 'none' : 'create')} aria-expanded={panel === 'create'}>
            {t('data.grid.newRow')}
          </button>
        )}
      </div>
      <FilterBar columns={visibleColumns(table)} view={view} onApply={(filters) => setView({ ...view, filters })} />
      {canWrite && selected.size > 0 && (
        <div className="data-selection" role="region" aria-label={t('data.selection.label')}>
          <span>{t('data.selection.count', { count: selected.size })}</span>
          <button type="button" disabled={busy} onClick={() => setPanel(panel === 'bulkEdit' ? 'none' : 'bulkEdit')} aria-expanded={panel === 'bulkEdit'}>
            {t('data.selection.edit')}
          </button>
          <button type="button" disabled={busy} onClick={() => void duplicateSelected()}>
            {t('data.selection.duplicate')}
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => void deleteSelected()}>
            {t('data.selection.delete')}
          </button>
          <button type="button" className="link" onClick={() => setSelected(new Map())}>
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
            setPanel('none');
            reload();
            toasts.show(t('data.toast.created'), token);
          }}
          onForbidden={() => setForbidden(true)}
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
            setPanel('none');
            applyResults(results);
            toasts.show(t('data.toast.bulkUpdated', { count: results.length }), token);
          }}
        />
      )}
      {toasts.view}
      {store.error !== null && <ErrorPanel error={store.error} onRetry={reload} />}
      {!store.ready && store.error === null && <Loading />}
      {store.ready && (
        <div
          ref={scroller}
          className="data-grid"
          role="grid"
          aria-label={label}
          aria-rowcount={store.totalExact ? store.total + 1 : -1}
          aria-colcount={colCount}
          aria-readonly={!canWrite || undefined}
          onKeyDown={onGridKey}
        >
          <div role="rowgroup" className="data-head" style={{ width }}>
            <div role="row" aria-rowindex={1} className="data-row" style={{ gridTemplateColumns: template }}>
              <div role="columnheader" aria-colindex={1} className="data-cell data-select">
                {canWrite && <input type="checkbox" aria-label={t('data.grid.selectAll')} checked={allSelected} onChange={selectAll} />}
              </div>
              {columns.map((c, i) => (
                <div
                  role="columnheader"
                  key={c.name}
                  id={headerId(c)}
                  aria-colindex={i + 2}
                  aria-sort={ariaSort(c)}
                  className={`data-cell${isNumeric(c) ? ' data-num' : ''}`}
                >
                  <button
                    type="button"
                    className="data-sort"
                    onClick={() => setView(toggleSort(view, c.name))}
                    title={t('data.grid.sortBy', { column: c.display.label || c.name })}
                  >
                    {c.display.label || c.name}
                    <span aria-hidden="true">{ariaSort(c) === 'ascending' ? ' ▲' : ariaSort(c) === 'descending' ? ' ▼' : ''}</span>
                  </button>
                  <span className="data-type">{c.type}</span>
                </div>
              ))}
            </div>
          </div>
          {store.total === 0 && <p className="data-empty">{t('data.grid.empty')}</p>}
          <div role="rowgroup" className="data-body" style={{ height: virtual.bodyHeight, width }}>
            {items.map((item) => {
              const entry = store.rowAt(item.index);
              const id = entry?.id ?? null;
              return (
                <div
                  role="row"
                  key={item.index}
                  aria-rowindex={item.index + 2}
                  aria-selected={id !== null ? selected.has(id) : undefined}
                  aria-busy={entry ? undefined : true}
                  className="data-row"
                  data-record={id ?? undefined}
                  style={{
                    transform: `translateY(${item.start}px)`,
                    gridTemplateColumns: template,
                    height: ROW_H,
                    zIndex: editing?.index === item.index ? 5 : undefined,
                  }}
                >
                  <div
                    role="gridcell"
                    aria-colindex={1}
                    className="data-cell data-select"
                    data-cell={`${item.index}:0`}
                    tabIndex={active.row === item.index && active.col === 0 ? 0 : -1}
                    onFocus={() => setActive({ row: item.index, col: 0 })}
                  >
                    {entry && id !== null && (
                      <>
                        {canWrite && (
                          <input
                            type="checkbox"
                            tabIndex={-1}
                            aria-label={t('data.grid.selectRow', { id })}
                            checked={selected.has(id)}
                            onChange={() => toggle(id, entry.row)}
                          />
                        )}
                        <Link href={paths.row(conn, table.ref, id)} tabIndex={-1} aria-label={t('data.grid.openRow', { id })}>
                          {t('data.grid.open')}
                        </Link>
                      </>
                    )}
                  </div>
                  {columns.map((c, ci) => {
                    const isEditing = editing && editing.index === item.index && editing.column === c.name && editing.recordId === id;
                    const value = entry?.row[c.name];
                    return (
                      <div
                        role="gridcell"
                        key={c.name}
                        aria-colindex={ci + 2}
                        data-cell={`${item.index}:${ci + 1}`}
                        data-column={c.name}
                        tabIndex={active.row === item.index && active.col === ci + 1 ? 0 : -1}
                        aria-invalid={isEditing && editing.error ? true : undefined}
                        aria-readonly={!editable(c) || undefined}
                        className={`data-cell${isNumeric(c) ? ' data-num' : ''}${value === null ? ' data-null-value' : ''}${isEditing ? ' data-editing' : ''}`}
                        onFocus={(e) => {
                          if (e.target === e.currentTarget) setActive({ row: item.index, col: ci + 1 });
                        }}
                        onDoubleClick={() => startEdit(item.index, ci + 1)}
                      >
                        {entry ? (value === null ? t('data.value.nullShort') : cellText(c, value)) : ''}
                        {isEditing && (
                          <CellEditor
                            conn={conn}
                            table={table}
                            tables={tables}
                            column={c}
                            editing={editing}
                            onChange={(draft) => setEditing({ ...editing, draft })}
                            onSave={() => void saveEdit()}
                            onCancel={cancelEdit}
                            alignEnd={ci >= columns.length - 2 && ci > 0}
                          />
                        )}
                      </div>
                    );
                  })}
                </div>
              );
            })}
          </div>
        </div>
      )}
      <p className="data-help">{t(canWrite ? 'data.grid.keysHelp' : 'data.grid.keysHelpRead')}</p>
    </div>
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
  const errorId = `data-edit-error-${column.name}`;
  const label = t('data.edit.label', { column: column.display.label || column.name });
  return (
    <div
      className={props.alignEnd ? 'data-cell-editor data-cell-editor-end' : 'data-cell-editor'}
      role="group"
      aria-label={label}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onCancel();
        } else if (
          e.key === 'Enter' &&
          ((e.target as HTMLElement).tagName !== 'TEXTAREA' || e.ctrlKey || e.metaKey) &&
          (e.target as HTMLElement).tagName !== 'BUTTON'
        ) {
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
  const [pending, setPending] = useState(false);
  const columns = table.columns.filter((c) => c.generated === null && !c.autoIncrement && !c.display.secret);
  return (
    <section className="data-panel" aria-labelledby="data-create-title">
      <h2 id="data-create-title">{t('data.create.title')}</h2>
      {error !== null && (
        <p className="form-error" role="alert">
          {errorText(error)}
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
        pending={pending}
        submitLabel={t('data.create.submit')}
        onLocalErrors={setErrors}
        onSubmit={async (values) => {
          setPending(true);
          setError(null);
          try {
            const out = await createRow(conn, table.ref, values);
            onDone(out.undoToken);
          } catch (err) {
            if (err && typeof err === 'object' && 'status' in err && (err as { status: number }).status === 403) onForbidden();
            setError(err);
            setErrors(columnErrors(err));
          } finally {
            setPending(false);
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
  const [pending, setPending] = useState(false);
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
    setPending(true);
    try {
      const out = await bulk(
        conn,
        table.ref,
        ids.map((recordId) => ({ op: 'update' as const, recordId, values: { [column.name]: value } })),
      );
      onDone(out.results, out.undoToken);
    } catch (err) {
      setError(columnError(err, column.name));
    } finally {
      setPending(false);
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
          <button type="submit" disabled={pending}>
            {t('data.bulk.submit', { count: ids.length })}
          </button>
        </div>
      </form>
    </section>
  );
}
