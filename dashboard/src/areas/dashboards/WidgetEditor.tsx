import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../../api/errors';
import { FILTER_OPS, type FilterOp } from '../../api/filter-ops';
import { t, type MessageId } from '../../i18n/t';
import { FieldFrame, FormError } from '../../ui';
import { useConnectionList, useSchema } from '../connections/api';
import { BUCKET_UNITS, checkWidgetQuery, METRIC_OPS, VIZ_TYPES, type VizType, type Widget, type WidgetQuery } from './api';

/** The browser's own time zone: a time bucket's default (issue 28). */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

interface FilterRow {
  column: string;
  op: FilterOp;
  value: string;
}

/** The editor's form, flat: what the person chose, turned into a widget on save. */
interface Draft {
  title: string;
  viz: VizType;
  text: string;
  connectionId: string;
  table: string;
  op: WidgetQuery['metric']['op'];
  column: string;
  groupColumn: string;
  groupLimit: string;
  groupOther: boolean;
  bucketColumn: string;
  bucketUnit: NonNullable<WidgetQuery['timeBucket']>['unit'];
  timeZone: string;
  rangeColumn: string;
  rangeFrom: string;
  rangeTo: string;
  filters: FilterRow[];
}

function draftOf(widget: Widget | null): Draft {
  const q = (widget?.query ?? {}) as Partial<WidgetQuery>;
  const filters: FilterRow[] = [];
  for (const [key, value] of Object.entries(q.filters ?? {})) {
    const m = /^filter\[(.+)\]\[(\w+)\]$/.exec(key);
    if (m && (FILTER_OPS as readonly string[]).includes(m[2]!))
      filters.push({ column: m[1]!, op: m[2] as FilterOp, value: Array.isArray(value) ? value.join(',') : value });
  }
  return {
    title: widget?.title ?? '',
    viz: widget?.viz.type ?? 'number',
    text: typeof widget?.viz.options?.text === 'string' ? widget.viz.options.text : '',
    connectionId: q.connectionId ?? '',
    table: q.table ?? '',
    op: q.metric?.op ?? 'count',
    column: q.metric?.column ?? '',
    groupColumn: q.groupBy?.column ?? '',
    groupLimit: String(q.groupBy?.limit ?? 10),
    groupOther: q.groupBy?.other ?? false,
    bucketColumn: q.timeBucket?.column ?? '',
    bucketUnit: q.timeBucket?.unit ?? 'day',
    timeZone: q.timeBucket?.timeZone ?? browserTimeZone(),
    rangeColumn: q.range?.column ?? '',
    rangeFrom: q.range?.from ?? '',
    rangeTo: q.range?.to ?? '',
    filters,
  };
}

function queryOf(d: Draft): WidgetQuery {
  const filters: Record<string, string> = {};
  for (const f of d.filters) if (f.column) filters[`filter[${f.column}][${f.op}]`] = f.value;
  return {
    connectionId: d.connectionId,
    table: d.table,
    metric: { op: d.op, ...(d.column ? { column: d.column } : {}) },
    ...(d.groupColumn ? { groupBy: { column: d.groupColumn, limit: Number(d.groupLimit) || 10, other: d.groupOther } } : {}),
    ...(d.bucketColumn ? { timeBucket: { column: d.bucketColumn, unit: d.bucketUnit, timeZone: d.timeZone || 'UTC' } } : {}),
    ...(d.rangeColumn ? { range: { column: d.rangeColumn, ...(d.rangeFrom ? { from: d.rangeFrom } : {}), ...(d.rangeTo ? { to: d.rangeTo } : {}) } } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
  };
}

/**
 * The widget editor: a modal dialog (the native <dialog>: focus kept inside, Escape cancels).
 * Apply asks POST /widget-data/query once, so a query the server refuses is shown here, at its
 * field, before it reaches the layout; the layout is saved by the page's Save.
 */
export function WidgetEditor({
  widget,
  onApply,
  onCancel,
}: {
  widget: Widget | null;
  onApply: (values: Pick<Widget, 'title' | 'query' | 'viz'>) => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [d, setD] = useState<Draft>(() => draftOf(widget));
  const [error, setError] = useState<ApiError | null>(null);
  const [pending, setPending] = useState(false);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setD((prev) => ({ ...prev, [key]: value }));
  const connections = useConnectionList();
  const conns = connections.data?.pages.flatMap((p) => p.connections) ?? [];
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement;
    if (!dialog.open) dialog.showModal();
    return () => {
      dialog.close();
      if (before instanceof HTMLElement && before.isConnected) before.focus();
    };
  }, []);

  const issue = (path: string) => {
    if (!error) return undefined;
    const found = error.issues.find((i) => i.path === `body.query.${path}` || i.path.startsWith(`body.query.${path}.`));
    return found?.message;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const query = queryOf(d);
    const viz = { type: d.viz, options: d.viz === 'text' ? { text: d.text } : {} };
    const title = d.title.trim() || t('dashboards.widget.untitled');
    setError(null);
    if (!d.connectionId || !d.table) {
      setError(new ApiError(400, 'VALIDATION_FAILED', t('dashboards.editor.needTable')));
      return;
    }
    setPending(true);
    try {
      if (d.viz !== 'text') await checkWidgetQuery(query);
      onApply({ title, query, viz });
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'NETWORK_ERROR', String(err)));
    } finally {
      setPending(false);
    }
  };

  return (
    <dialog
      ref={ref}
      className="dash-editor"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <WithTables conn={d.connectionId}>
        {(tables) => {
          const columns = tables.find((x) => x.ref === d.table)?.columns.filter((c) => !c.display.hidden && !c.display.secret) ?? [];
          const columnOptions = (none: MessageId) => [
            { value: '', label: t(none) },
            ...columns.map((c) => ({ value: c.name, label: c.display.label || c.name })),
          ];
          return (
            <form onSubmit={(e) => void submit(e)} noValidate>
              <h2 id={`${id}-title`}>{widget ? t('dashboards.editor.editTitle') : t('dashboards.editor.addTitle')}</h2>
              <FormError error={error} />
              <div className="dash-editor-grid">
                <Text label="dashboards.field.title" value={d.title} onChange={(v) => set('title', v)} />
                <Select
                  label="dashboards.field.viz"
                  value={d.viz}
                  onChange={(v) => set('viz', v as VizType)}
                  options={VIZ_TYPES.map((v) => ({ value: v, label: t(`dashboards.viz.${v}`) }))}
                />
                <Select
                  label="dashboards.field.connection"
                  value={d.connectionId}
                  error={issue('connectionId')}
                  onChange={(v) =>
                    setD((prev) => ({ ...prev, connectionId: v, table: '', column: '', groupColumn: '', bucketColumn: '', rangeColumn: '', filters: [] }))
                  }
                  options={[{ value: '', label: t('dashboards.field.choose') }, ...conns.map((c) => ({ value: c.id, label: c.name }))]}
                />
                <Select
                  label="dashboards.field.table"
                  value={d.table}
                  error={issue('table')}
                  onChange={(v) => setD((prev) => ({ ...prev, table: v, column: '', groupColumn: '', bucketColumn: '', rangeColumn: '', filters: [] }))}
                  options={[{ value: '', label: t('dashboards.field.choose') }, ...tables.map((x) => ({ value: x.ref, label: x.display.label || x.name }))]}
                />
              </div>
              {d.viz === 'text' ? (
                <FieldFrame label="dashboards.field.text">
                  {(fid) => <textarea id={fid} rows={4} value={d.text} onChange={(e) => set('text', e.target.value)} />}
                </FieldFrame>
              ) : (
                <>
                  <Group legend="dashboards.group.metric">
                    <Select
                      label="dashboards.field.op"
                      value={d.op}
                      onChange={(v) => set('op', v as Draft['op'])}
                      options={METRIC_OPS.map((o) => ({ value: o, label: t(`dashboards.op.${o}`) }))}
                    />
                    <Select
                      label="dashboards.field.column"
                      value={d.column}
                      error={issue('metric')}
                      onChange={(v) => set('column', v)}
                      options={columnOptions('dashboards.field.rows')}
                    />
                  </Group>
                  <Group legend="dashboards.group.groupBy">
                    <Select
                      label="dashboards.field.groupColumn"
                      value={d.groupColumn}
                      error={issue('groupBy')}
                      onChange={(v) => set('groupColumn', v)}
                      options={columnOptions('dashboards.field.none')}
                    />
                    <Text
                      label="dashboards.field.groupLimit"
                      type="number"
                      min={1}
                      max={50}
                      value={d.groupLimit}
                      onChange={(v) => set('groupLimit', v)}
                      disabled={!d.groupColumn}
                    />
                    <label className="dash-check">
                      <input type="checkbox" checked={d.groupOther} disabled={!d.groupColumn} onChange={(e) => set('groupOther', e.target.checked)} />{' '}
                      {t('dashboards.field.groupOther')}
                    </label>
                  </Group>
                  <Group legend="dashboards.group.bucket">
                    <Select
                      label="dashboards.field.bucketColumn"
                      value={d.bucketColumn}
                      error={issue('timeBucket')}
                      onChange={(v) => set('bucketColumn', v)}
                      options={columnOptions('dashboards.field.none')}
                    />
                    <Select
                      label="dashboards.field.unit"
                      value={d.bucketUnit}
                      disabled={!d.bucketColumn}
                      onChange={(v) => set('bucketUnit', v as Draft['bucketUnit'])}
                      options={BUCKET_UNITS.map((u) => ({ value: u, label: t(`dashboards.unit.${u}`) }))}
                    />
                    <Text label="dashboards.field.timeZone" value={d.timeZone} disabled={!d.bucketColumn} onChange={(v) => set('timeZone', v)} />
                  </Group>
                  <Group legend="dashboards.group.range">
                    <Select
                      label="dashboards.field.rangeColumn"
                      value={d.rangeColumn}
                      error={issue('range')}
                      onChange={(v) => set('rangeColumn', v)}
                      options={columnOptions('dashboards.field.none')}
                    />
                    <Text label="dashboards.field.from" value={d.rangeFrom} disabled={!d.rangeColumn} onChange={(v) => set('rangeFrom', v)} />
                    <Text label="dashboards.field.to" value={d.rangeTo} disabled={!d.rangeColumn} onChange={(v) => set('rangeTo', v)} />
                  </Group>
                  <fieldset className="dash-fieldset">
                    <legend>{t('dashboards.group.filters')}</legend>
                    {issue('filters') && <p className="field-error">{issue('filters')}</p>}
                    {d.filters.map((f, i) => {
                      const change = (patch: Partial<FilterRow>) =>
                        set(
                          'filters',
                          d.filters.map((x, j) => (j === i ? { ...x, ...patch } : x)),
                        );
                      return (
                        <div className="dash-filter" key={i}>
                          <Select
                            label="dashboards.field.filterColumn"
                            value={f.column}
                            onChange={(v) => change({ column: v })}
                            options={columnOptions('dashboards.field.choose')}
                          />
                          <Select
                            label="dashboards.field.filterOp"
                            value={f.op}
                            onChange={(v) => change({ op: v as FilterOp })}
                            options={FILTER_OPS.map((o) => ({ value: o, label: t(`dashboards.filterOp.${o}`) }))}
                          />
                          <Text label="dashboards.field.filterValue" value={f.value} onChange={(v) => change({ value: v })} />
                          <button
                            type="button"
                            className="secondary"
                            onClick={() =>
                              set(
                                'filters',
                                d.filters.filter((_, j) => j !== i),
                              )
                            }
                          >
                            {t('dashboards.filter.remove')}
                          </button>
                        </div>
                      );
                    })}
                    <button
                      type="button"
                      className="secondary"
                      disabled={!d.table}
                      onClick={() => set('filters', [...d.filters, { column: '', op: 'eq', value: '' }])}
                    >
                      {t('dashboards.filter.add')}
                    </button>
                  </fieldset>
                </>
              )}
              <div className="actions">
                <button type="submit" disabled={pending}>
                  {pending ? t('dashboards.editor.checking') : t('dashboards.editor.apply')}
                </button>
                <button type="button" className="secondary" onClick={onCancel}>
                  {t('dashboards.editor.cancel')}
                </button>
              </div>
            </form>
          );
        }}
      </WithTables>
    </dialog>
  );
}

type Tables = NonNullable<ReturnType<typeof useSchema>['data']>['model']['tables'];

/** The chosen connection's tables (its schema is asked for only once one is chosen). */
function WithTables({ conn, children }: { conn: string; children: (tables: Tables) => ReactNode }) {
  return conn ? <SchemaTables conn={conn}>{children}</SchemaTables> : <>{children([])}</>;
}

function SchemaTables({ conn, children }: { conn: string; children: (tables: Tables) => ReactNode }) {
  const schema = useSchema(conn);
  return <>{children(schema.data?.model.tables.filter((x) => !x.display.hidden) ?? [])}</>;
}

function Group({ legend, children }: { legend: MessageId; children: ReactNode }) {
  return (
    <fieldset className="dash-fieldset">
      <legend>{t(legend)}</legend>
      <div className="dash-editor-grid">{children}</div>
    </fieldset>
  );
}

function Select({
  label,
  value,
  onChange,
  options,
  error,
  disabled,
}: {
  label: MessageId;
  value: string;
  onChange: (v: string) => void;
  options: ReadonlyArray<{ value: string; label: string }>;
  error?: string;
  disabled?: boolean;
}) {
  return (
    <FieldFrame label={label} error={error}>
      {(fid, described) => (
        <select
          id={fid}
          value={value}
          disabled={disabled}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onChange={(e) => onChange(e.target.value)}
        >
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}

function Text({
  label,
  value,
  onChange,
  error,
  ...rest
}: { label: MessageId; value: string; onChange: (v: string) => void; error?: string } & Omit<
  React.InputHTMLAttributes<HTMLInputElement>,
  'value' | 'onChange' | 'id'
>) {
  return (
    <FieldFrame label={label} error={error}>
      {(fid, described) => (
        <input
          id={fid}
          value={value}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onChange={(e) => onChange(e.target.value)}
          {...rest}
        />
      )}
    </FieldFrame>
  );
}
