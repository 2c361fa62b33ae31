import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../../api/errors';
import { FILTER_OPS, type FilterOp } from '../../api/filter-ops';
import { t } from '../../i18n/t';
import { ErrorPanel, Field, FormError, Loading, SelectField } from '../../ui';
import { PreviewIcon } from '../../ui/icons';
import { Section } from '../../ui/Section';
import { TIME_RANGES } from '../dashboards/range';
import { useTableInfo, type Column } from '../data/api';
import type { Page } from './api';
import { useTablePages, useUpdateConfig, type DashboardConfig, type ListConfig, type RecordConfig, type RecordField } from './api';

/** The server's messages at `path` and under it (`body.filters.0` takes `body.filters.0.value`). */
function issuesAt(error: unknown, path: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  const found = error.issues.filter((i) => i.path === path || i.path.startsWith(`${path}.`)).map((i) => i.message);
  return found.length ? found.join(' ') : undefined;
}

function ErrorText({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p className="field-error" id={id}>
      {text}
    </p>
  ) : null;
}

/** The kind's config (decision DB29), saved whole through PATCH /pages/{pageId}/config; the server's issues show at their fields. */
export function ConfigForm(props: Saving & { page: Page }) {
  const { page } = props;
  if (page.kind === 'dashboard') return <DashboardConfigForm {...props} />;
  if (page.kind === 'custom' || !page.connectionId || !page.table) return null;
  return <TableConfig {...props} conn={page.connectionId} table={page.table} />;
}

/**
 * The save's outcome: mutate()'s own onSuccess would not run, as the page the save answers redraws
 * the editor (its key is updatedAt) before it; a refusal shows through the mutation's error.
 */
function saveWith(save: Promise<unknown>, setSaved: (saved: boolean) => void): void {
  save.then(
    () => setSaved(true),
    () => undefined,
  );
}

/** "Saved" is kept by the editor: a save redraws the forms from the page it answers. */
interface Saving {
  saved: boolean;
  onSaved: (saved: boolean) => void;
}

function Frame({ onSubmit, pending, error, saved, children }: { onSubmit: () => void; pending: boolean; error: unknown; saved: boolean; children: ReactNode }) {
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <Section className="pages-config" id="pages-config-title" title={t('pages.config.title')} icon={PreviewIcon}>
      <form onSubmit={submit} noValidate className="pages-form">
        {children}
        <FormError error={error} />
        <p role="status">{saved ? t('pages.config.saved') : ''}</p>
        <p className="actions">
          <button type="submit" disabled={pending}>
            {t('pages.config.save')}
          </button>
        </p>
      </form>
    </Section>
  );
}

function DashboardConfigForm({ page, saved, onSaved: setSaved }: Saving & { page: Page }) {
  const c = page.config as DashboardConfig;
  const [refresh, setRefresh] = useState(c.refreshSeconds != null ? String(c.refreshSeconds) : '');
  const [range, setRange] = useState<string>(c.defaultRange ?? '');
  const update = useUpdateConfig(page.id);
  return (
    <Frame
      pending={update.isPending}
      error={update.error}
      saved={saved}
      onSubmit={() => {
        setSaved(false);
        saveWith(update.mutateAsync({ ...page.config, refreshSeconds: refresh.trim() === '' ? null : Number(refresh), defaultRange: range || null }), setSaved);
      }}
    >
      <Field
        label="pages.config.refresh"
        hint="pages.config.refreshHint"
        name="refreshSeconds"
        type="number"
        min={30}
        value={refresh}
        onChange={(e) => setRefresh(e.target.value)}
        error={issuesAt(update.error, 'body.refreshSeconds')}
      />
      <SelectField
        label="pages.config.range"
        name="defaultRange"
        value={range}
        onChange={(e) => setRange(e.target.value)}
        options={[{ value: '', label: t('pages.config.none') }, ...TIME_RANGES.map((r) => ({ value: r, label: t(`pages.config.range.${r}`) }))]}
      />
    </Frame>
  );
}

function TableConfig({ conn, table, ...props }: Saving & { page: Page; conn: string; table: string }) {
  const { page } = props;
  const info = useTableInfo(conn, table);
  if (info.isPending) return <Loading />;
  if (info.isError) return <ErrorPanel error={info.error} onRetry={() => void info.refetch()} />;
  const columns = info.data.table.columns.filter((c) => !c.display.hidden);
  return page.kind === 'list' ? <ListConfigForm {...props} columns={columns} /> : <RecordConfigForm {...props} columns={columns} />;
}

const labelOf = (c: Column) => c.display.label || c.name;

interface FilterRow {
  key: number;
  column: string;
  op: FilterOp;
  value: string;
}

function ListConfigForm({ page, columns, saved, onSaved: setSaved }: Saving & { page: Page; columns: Column[] }) {
  const id = useId();
  const c = page.config as ListConfig;
  const readable = columns.filter((x) => !x.display.secret);
  const [shown, setShown] = useState<string[]>(() => (c.columns?.length ? c.columns.map((x) => x.column) : readable.map((x) => x.name)));
  const [sort, setSort] = useState(() => c.sort?.map((s, i) => ({ key: i, ...s })) ?? []);
  const [filters, setFilters] = useState<FilterRow[]>(() => c.filters?.map((f, i) => ({ key: i, ...f })) ?? []);
  const [display, setDisplay] = useState(c.displayColumn ?? '');
  const [detail, setDetail] = useState(c.detailPage ?? '');
  const [searchable, setSearchable] = useState(c.searchable ?? false);
  const [next, setNext] = useState(100);
  const update = useUpdateConfig(page.id);
  const pages = useTablePages(page.connectionId, page.table);
  const details = (pages.data ?? []).filter((p) => p.kind === 'detail');
  const err = (path: string) => issuesAt(update.error, path);
  const save = () => {
    setSaved(false);
    const kept = new Map((c.columns ?? []).map((x) => [x.column, x]));
    const body: Record<string, unknown> = {
      ...page.config,
      columns: readable.filter((x) => shown.includes(x.name)).map((x) => kept.get(x.name) ?? { column: x.name }),
      sort: sort.map(({ column, direction }) => ({ column, direction })),
      filters: filters.map(({ column, op, value }) => ({ column, op, value })),
      displayColumn: display || null,
      detailPage: detail || null,
      searchable,
    };
    saveWith(update.mutateAsync(body), setSaved);
  };
  const columnsError = err('body.columns');
  return (
    <Frame pending={update.isPending} error={update.error} saved={saved} onSubmit={save}>
      <fieldset className="pages-fieldset" aria-describedby={columnsError ? `${id}-columns-error` : undefined}>
        <legend>{t('pages.config.columns')}</legend>
        <p className="hint">{t('pages.config.columnsHint')}</p>
        <div className="pages-checks">
          {readable.map((x) => (
            <label key={x.name}>
              <input
                type="checkbox"
                checked={shown.includes(x.name)}
                onChange={(e) => setShown(e.target.checked ? [...shown, x.name] : shown.filter((n) => n !== x.name))}
              />{' '}
              {labelOf(x)}
            </label>
          ))}
        </div>
        <ErrorText id={`${id}-columns-error`} text={columnsError} />
      </fieldset>

      <fieldset className="pages-fieldset">
        <legend>{t('pages.config.sort')}</legend>
        {sort.length === 0 && <p className="hint">{t('pages.config.sortNone')}</p>}
        {sort.map((s, i) => {
          const e = err(`body.sort.${i}`) ?? (i === 0 ? err('body.sort') : undefined);
          return (
            <div className="pages-row" key={s.key} role="group" aria-label={t('pages.config.sortKey', { n: String(i + 1) })}>
              <label>
                <span>{t('pages.config.column')}</span>
                <select
                  value={s.column}
                  aria-invalid={e ? true : undefined}
                  aria-describedby={e ? `${id}-sort-${i}-error` : undefined}
                  onChange={(ev) => setSort(sort.map((x, j) => (j === i ? { ...x, column: ev.target.value } : x)))}
                >
                  {readable.map((x) => (
                    <option key={x.name} value={x.name}>
                      {labelOf(x)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                <span>{t('pages.config.direction')}</span>
                <select
                  value={s.direction}
                  onChange={(ev) => setSort(sort.map((x, j) => (j === i ? { ...x, direction: ev.target.value as 'asc' | 'desc' } : x)))}
                >
                  <option value="asc">{t('pages.config.asc')}</option>
                  <option value="desc">{t('pages.config.desc')}</option>
                </select>
              </label>
              <button type="button" className="secondary" onClick={() => setSort(sort.filter((_, j) => j !== i))}>
                {t('pages.config.remove')}
              </button>
              <ErrorText id={`${id}-sort-${i}-error`} text={e} />
            </div>
          );
        })}
        <button
          type="button"
          className="secondary"
          disabled={!readable.length}
          onClick={() => {
            setSort([...sort, { key: next, column: readable[0]!.name, direction: 'asc' }]);
            setNext(next + 1);
          }}
        >
          {t('pages.config.addSort')}
        </button>
      </fieldset>

      <fieldset className="pages-fieldset">
        <legend>{t('pages.config.filters')}</legend>
        <p className="hint">{t('pages.config.filtersHint')}</p>
        {filters.map((f, i) => {
          const e = err(`body.filters.${i}`);
          const errId = `${id}-filter-${i}-error`;
          const set = (patch: Partial<FilterRow>) => setFilters(filters.map((x, j) => (j === i ? { ...x, ...patch } : x)));
          return (
            <div className="pages-row" key={f.key} role="group" aria-label={t('pages.config.filterN', { n: String(i + 1) })}>
              <label>
                <span>{t('pages.config.column')}</span>
                <select value={f.column} onChange={(ev) => set({ column: ev.target.value })}>
                  {readable.map((x) => (
                    <option key={x.name} value={x.name}>
                      {labelOf(x)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                <span>{t('pages.config.op')}</span>
                <select value={f.op} onChange={(ev) => set({ op: ev.target.value as FilterOp })}>
                  {FILTER_OPS.map((op) => (
                    <option key={op} value={op}>
                      {t(`pages.config.op.${op}`)}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                <span>{t('pages.config.value')}</span>
                <input
                  value={f.value}
                  onChange={(ev) => set({ value: ev.target.value })}
                  aria-invalid={e ? true : undefined}
                  aria-describedby={e ? errId : undefined}
                />
              </label>
              <button type="button" className="secondary" onClick={() => setFilters(filters.filter((_, j) => j !== i))}>
                {t('pages.config.remove')}
              </button>
              <ErrorText id={errId} text={e} />
            </div>
          );
        })}
        <button
          type="button"
          className="secondary"
          disabled={!readable.length}
          onClick={() => {
            setFilters([...filters, { key: next, column: readable[0]!.name, op: 'eq', value: '' }]);
            setNext(next + 1);
          }}
        >
          {t('pages.config.addFilter')}
        </button>
      </fieldset>

      <SelectField
        label="pages.config.displayColumn"
        hint="pages.config.displayColumnHint"
        name="displayColumn"
        value={display}
        onChange={(e) => setDisplay(e.target.value)}
        options={[{ value: '', label: t('pages.config.none') }, ...readable.map((x) => ({ value: x.name, label: labelOf(x) }))]}
        error={err('body.displayColumn')}
      />
      <SelectField
        label="pages.config.detailPage"
        name="detailPage"
        value={details.some((p) => p.id === detail || p.generatedKey === detail) ? detail : ''}
        onChange={(e) => setDetail(e.target.value)}
        options={[
          { value: '', label: t('pages.config.detailNone') },
          ...details.map((p) => ({ value: p.generatedKey === detail ? detail : p.id, label: p.title })),
        ]}
        error={err('body.detailPage')}
      />
      <label className="pages-check">
        <input type="checkbox" checked={searchable} onChange={(e) => setSearchable(e.target.checked)} /> {t('pages.config.searchable')}
      </label>
    </Frame>
  );
}

function RecordConfigForm({ page, columns, saved, onSaved: setSaved }: Saving & { page: Page; columns: Column[] }) {
  const id = useId();
  const c = page.config as RecordConfig;
  const isForm = page.kind === 'form';
  const initial = c.fields ?? columns.filter((x) => !x.display.secret).map((x) => ({ column: x.name }));
  const [fields, setFields] = useState<Map<string, RecordField>>(() => new Map(initial.map((f) => [f.column, f])));
  const [defaults, setDefaults] = useState<Record<string, string>>(() =>
    Object.fromEntries(Object.entries(c.defaults ?? {}).map(([k, v]) => [k, v === null ? '' : String(v)])),
  );
  const [afterSave, setAfterSave] = useState<string>(c.afterSave === 'stay' ? 'new' : (c.afterSave ?? 'detail'));
  const [listPage, setListPage] = useState(c.listPage ?? '');
  const update = useUpdateConfig(page.id);
  const pages = useTablePages(page.connectionId, page.table);
  const lists = (pages.data ?? []).filter((p) => p.kind === 'list');
  const err = (path: string) => issuesAt(update.error, path);
  const shownColumns = columns.filter((x) => fields.has(x.name));
  const save = () => {
    setSaved(false);
    // Fields in the table's order; a default of an empty box is no default.
    const out = columns.filter((x) => fields.has(x.name)).map((x) => fields.get(x.name)!);
    const defs = Object.fromEntries(Object.entries(defaults).filter(([k, v]) => v !== '' && fields.has(k)));
    saveWith(update.mutateAsync({ ...page.config, fields: out, defaults: defs, listPage: listPage || null, ...(isForm ? { afterSave } : {}) }), setSaved);
  };
  const fieldIndex = (name: string) => columns.filter((x) => fields.has(x.name)).findIndex((x) => x.name === name);
  return (
    <Frame pending={update.isPending} error={update.error} saved={saved} onSubmit={save}>
      <table className="pages-fields">
        <caption>{t('pages.config.fields')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('pages.config.column')}</th>
            <th scope="col">{t('pages.config.shown')}</th>
            <th scope="col">{t('pages.config.readOnly')}</th>
            {isForm && <th scope="col">{t('pages.config.default')}</th>}
          </tr>
        </thead>
        <tbody>
          {columns.map((x) => {
            const f = fields.get(x.name);
            const i = fieldIndex(x.name);
            const e = (i >= 0 ? err(`body.fields.${i}`) : undefined) ?? err(`body.defaults.${x.name}`);
            const errId = `${id}-field-${x.name}-error`;
            const set = (next: RecordField | null) =>
              setFields((all) => {
                const m = new Map(all);
                if (next) m.set(x.name, next);
                else m.delete(x.name);
                return m;
              });
            return (
              <tr key={x.name}>
                <th scope="row">
                  {labelOf(x)}
                  <ErrorText id={errId} text={e} />
                </th>
                <td>
                  <input
                    type="checkbox"
                    aria-label={t('pages.config.showField', { column: labelOf(x) })}
                    checked={!!f}
                    onChange={(ev) => set(ev.target.checked ? { column: x.name, ...(x.display.secret ? { secret: true } : {}) } : null)}
                  />
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={t('pages.config.readOnlyField', { column: labelOf(x) })}
                    disabled={!f}
                    checked={f?.readOnly ?? false}
                    onChange={(ev) => f && set({ ...f, readOnly: ev.target.checked })}
                  />
                </td>
                {isForm && (
                  <td>
                    <input
                      aria-label={t('pages.config.defaultOf', { column: labelOf(x) })}
                      disabled={!f}
                      value={defaults[x.name] ?? ''}
                      onChange={(ev) => setDefaults({ ...defaults, [x.name]: ev.target.value })}
                      aria-invalid={e ? true : undefined}
                      aria-describedby={e ? errId : undefined}
                    />
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {shownColumns.length === 0 && <p className="hint">{t('pages.config.noFields')}</p>}
      {isForm && (
        <SelectField
          label="pages.config.afterSave"
          name="afterSave"
          value={afterSave}
          onChange={(e) => setAfterSave(e.target.value)}
          options={(['detail', 'new', 'list'] as const).map((v) => ({ value: v, label: t(`pages.config.afterSave.${v}`) }))}
        />
      )}
      <SelectField
        label="pages.config.listPage"
        name="listPage"
        value={lists.some((p) => p.id === listPage || p.generatedKey === listPage) ? listPage : ''}
        onChange={(e) => setListPage(e.target.value)}
        options={[
          { value: '', label: t('pages.config.none') },
          ...lists.map((p) => ({ value: p.generatedKey === listPage ? listPage : p.id, label: p.title })),
        ]}
        error={err('body.listPage')}
      />
    </Frame>
  );
}
