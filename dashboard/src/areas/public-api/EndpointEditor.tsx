import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { FILTER_OPS } from '../../api/filter-ops';
import type { RequestBody, Schemas } from '../../api/types';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { endpointPath, scopeState } from './Endpoints';
import { BookingFields, bookingBody, bookingDraft, bookingSpot } from './BookingFields';
import { jsonSpans, lineOf, spanOf } from './json-paths';
import { useAppNames, useConnectionNames, useRemoveScope, useSaveScope, useScopes, useTableModel, type Scope } from './api';
import { PublicApiHeader } from './shared';
import { DataTable } from '../../ui/DataTable';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { fieldsNeedingAttention } from '../../ui/field-messages';
import { Badge } from '../../ui/Badge';
import { DeleteIcon, SaveIcon } from '../../ui/icons';

type Column = Schemas['EffectiveSchemaColumn'];
type Method = Scope['methods'][number];
type Filter = Scope['filters'][number];
type Op = Filter['op'];

const METHODS: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'BATCH'];
const OPS: readonly Op[] = FILTER_OPS;
const SHAPES: Array<Scope['shape']> = ['wrapped', 'array', 'single'];
const NUMERIC = new Set(['integer', 'bigint', 'decimal', 'float']);

/** The keys of the JSON definition (seed: the form's keys and the others), in the order shown. */
const DEFINITION_KEYS = [
  'ref',
  'methods',
  'columns',
  'writable',
  'defaults',
  'filters',
  'filterable',
  'searchable',
  'orderable',
  'identity',
  'sensitive',
  'allow_cascade',
  'shape',
  'rateLimit',
  'timeZone',
  'serviceRole',
  'booking',
  'window',
  'needsSession',
] as const satisfies ReadonlyArray<keyof Scope>;
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
// Every key the API's PATCH takes is in the JSON (allowCascade only in its wire spelling allow_cascade).
const definitionKeysMatchTheApi: SameKeys<(typeof DEFINITION_KEYS)[number], Exclude<keyof RequestBody<'/public-scopes/{id}', 'patch'>, 'allowCascade'>> = true;
void definitionKeysMatchTheApi;

const fieldPath = (path: string) => (path.startsWith('body.') ? path.slice('body.'.length) : path);

function decodeRef(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    return raw ?? '';
  }
}

/** One endpoint: what it is, the form for its common keys, its whole JSON definition, and returning or deleting it. */
export function EndpointEditor() {
  const params = useParams<{ ref: string }>();
  const ref = decodeRef(params.ref);
  useTitle('publicApi.editor.documentTitle');
  const scopes = useScopes();
  // A save brings a new version of the endpoint and both editors start again from it; the notice outlives them.
  const [saved, setSaved] = useState<'form' | 'json' | 'reset' | null>(null);
  // The pressed button goes away with the stored endpoint: the focus goes to the outcome.
  const resetOutcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (saved === 'reset') resetOutcome.current?.focus();
  }, [saved]);
  const connections = useConnectionNames();
  const apps = useAppNames();
  const scope = scopes.data?.find((s) => s.ref === ref) ?? scopes.data?.find((s) => s.ref.toLowerCase() === ref.toLowerCase());
  const schema = useTableModel(scope?.connectionId);

  if (scopes.isPending) return <Loading />;
  if (scopes.isError) return <ErrorPanel error={scopes.error} onRetry={() => void scopes.refetch()} />;
  if (!scope) {
    return (
      <>
        <PublicApiHeader title={t('publicApi.editor.notFound')} back={{ href: '/public-api/endpoints', label: t('publicApi.editor.back') }} />
      </>
    );
  }
  const appName = (key: string) => apps.data?.get(key) ?? key;
  const table = schema.data?.tables.find((tb) => tb.ref === scope.table);
  const readOnly = scope.addonKey !== null;
  const version = `${scope.ref}:${scope.updatedAt ?? 'virtual'}`;
  const onSaving = () => setSaved(null);

  return (
    <>
      <PublicApiHeader title={t('publicApi.editor.title', { ref: scope.ref })} back={{ href: '/public-api/endpoints', label: t('publicApi.editor.back') }} />
      {readOnly && (
        <div className="pa-banner" data-testid="app-owned">
          <p>
            <strong>{t('publicApi.editor.appOwned', { app: appName(scope.addonKey!) })}</strong>
          </p>
          <p>{t('publicApi.editor.appOwnedWhy')}</p>
        </div>
      )}
      <dl className="pa-facts details-list card">
        <dt>{t('publicApi.endpoints.col.connection')}</dt>
        <dd>{connections.data?.get(scope.connectionId) ?? scope.connectionId}</dd>
        <dt>{t('publicApi.endpoints.col.table')}</dt>
        <dd>{scope.table}</dd>
        <dt>{t('publicApi.endpoints.col.state')}</dt>
        <dd>{scopeState(scope, appName)}</dd>
        <dt>{t('publicApi.editor.offered')}</dt>
        <dd>{scope.offered.length ? scope.offered.join(', ') : t('publicApi.endpoints.noMethods')}</dd>
        <dt>{t('publicApi.editor.path')}</dt>
        <dd>
          <code>{`/api/v1/public/records/${scope.ref}`}</code>
        </dd>
      </dl>
      {scope.problems.length > 0 && (
        <div className="pa-banner pa-banner-warn">
          <p>{t('publicApi.editor.problemsIntro')}</p>
          <ul>
            {scope.problems.map((p, i) => (
              <li key={i}>{t('publicApi.editor.problem', { reason: p.reason.replace(/-/g, '_'), column: p.column ?? '' })}</li>
            ))}
          </ul>
        </div>
      )}
      {schema.isError && <ErrorPanel error={schema.error} onRetry={() => void schema.refetch()} />}
      <DefinitionForm
        key={`form-${version}`}
        scope={scope}
        columns={table?.columns ?? null}
        readOnly={readOnly}
        saved={saved === 'form'}
        onSaving={onSaving}
        onSaved={() => setSaved('form')}
      />
      <JsonEditor key={`json-${version}`} scope={scope} readOnly={readOnly} saved={saved === 'json'} onSaving={onSaving} onSaved={() => setSaved('json')} />
      {!readOnly && !scope.virtual && <RemoveEndpoint scope={scope} onReset={() => setSaved('reset')} />}
      <div ref={resetOutcome} tabIndex={-1} className="outcome">
        {saved === 'reset' && (
          <p className="notice" role="status">
            {t('publicApi.remove.done')}
          </p>
        )}
      </div>
    </>
  );
}

/** PATCH with the edits; once the list is read again the editor follows a renamed ref. */
function useSave(scope: Scope, onSaving: () => void, onSaved: () => void) {
  return useSaveScope(scope, {
    onMutate: onSaving,
    onSuccess: (saved) => {
      onSaved();
      if (saved.ref !== scope.ref) navigate(endpointPath(saved.ref), { replace: true });
    },
  });
}

interface FilterRow {
  column: string;
  op: Op;
  value: string;
}

const filterText = (f: Filter): string => (Array.isArray(f.value) ? f.value.map((v) => String(v)).join(', ') : f.value === null ? '' : String(f.value));

/** A typed value for the column: numbers for numeric columns, booleans for boolean ones, text otherwise. */
function typed(raw: string, column: Column | undefined): string | number | boolean {
  const v = raw.trim();
  if (column && NUMERIC.has(column.type) && v !== '' && Number.isFinite(Number(v))) return Number(v);
  if (column?.type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
  return raw;
}

function filterValue(row: FilterRow, column: Column | undefined): Filter['value'] {
  if (row.op === 'null') return row.value !== 'false';
  if (row.op === 'in')
    return row.value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '')
      .map((v) => typed(v, column));
  return typed(row.value, column);
}

/** The common keys as a form: columns (readable, writable), methods, default filters, response shape, rate limit. */
interface EditorProps {
  scope: Scope;
  readOnly: boolean;
  /** This editor's save was the last one (the notice to show after it starts again). */
  saved: boolean;
  onSaving: () => void;
  onSaved: () => void;
}

function DefinitionForm({ scope, columns, readOnly, saved, onSaving, onSaved }: EditorProps & { columns: Column[] | null }) {
  const id = useId();
  const save = useSave(scope, onSaving, onSaved);
  const all: Array<{ name: string; column?: Column }> = columns ? columns.map((c) => ({ name: c.name, column: c })) : scope.columns.map((name) => ({ name }));
  const [readable, setReadable] = useState(() => new Set(scope.columns));
  const [writable, setWritable] = useState(() => new Set(scope.writable));
  const [methods, setMethods] = useState(() => new Set(scope.methods));
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [filters, setFilters] = useState<FilterRow[]>(() =>
    scope.filters.map((f) => ({ column: f.column, op: f.op, value: f.op === 'null' ? String(f.value) : filterText(f) })),
  );
  const [defaults, setDefaults] = useState<Array<{ column: string; value: string }>>(() =>
    Object.entries(scope.defaults).map(([column, value]) => ({ column, value: value === null || value === undefined ? '' : String(value) })),
  );
  const [booking, setBooking] = useState(() => bookingDraft(scope, all[0]?.name ?? ''));
  const [shape, setShape] = useState(scope.shape);
  const [rateLimit, setRateLimit] = useState(String(scope.rateLimit));
  const [sent, setSent] = useState<{ columns: string[]; writable: string[]; methods: Method[] } | null>(null);
  const outcome = useRef<HTMLDivElement>(null);
  const settled = save.isError ? save.submittedAt : 0;
  useEffect(() => {
    if (settled || saved) outcome.current?.focus();
  }, [settled, saved]);

  const error = save.error instanceof ApiError ? save.error : null;
  // Every issue goes to the field it names; the ones no field of this form shows are listed at the top.
  const placed = new Map<string, string>();
  const unplaced: Array<{ path: string; message: string }> = [];
  for (const issue of error?.issues ?? []) {
    const path = fieldPath(issue.path);
    const [head, index, sub] = path.split('.');
    let at: string | null = null;
    if ((head === 'columns' || head === 'writable') && sent && index !== undefined) {
      const name = sent[head][Number(index)];
      if (name !== undefined) at = `${head}:${name}`;
    } else if (head === 'methods') at = 'methods';
    else if (head === 'filters' && index !== undefined) at = `filters:${index}:${sub ?? 'row'}`;
    else if (head === 'defaults') at = index === undefined ? 'defaults' : `defaults:${index}`;
    else if (head === 'shape' || head === 'rateLimit' || head === 'timeZone') at = head;
    else if (head === 'booking') at = bookingSpot(path);
    if (at && !placed.has(at)) placed.set(at, issue.message);
    else if (!at) unplaced.push({ path, message: issue.message });
  }
  const err = (at: string) => placed.get(at);
  const described = (at: string) => (placed.has(at) ? `${id}-${at.replace(/[^a-zA-Z0-9]/g, '-')}-error` : undefined);
  const errorLine = (at: string) =>
    placed.has(at) ? (
      <p className="field-error" id={described(at)}>
        {placed.get(at)}
      </p>
    ) : null;

  const toggle = <T,>(set: Set<T>, value: T, on: boolean) => {
    const next = new Set(set);
    if (on) next.add(value);
    else next.delete(value);
    return next;
  };
  const byName = new Map(all.map((c) => [c.name, c.column]));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const order = all.map((c) => c.name);
    const body = {
      columns: order.filter((c) => readable.has(c)),
      writable: order.filter((c) => writable.has(c)),
      methods: METHODS.filter((m) => methods.has(m)),
      filters: filters.map((f) => ({ column: f.column, op: f.op, value: filterValue(f, byName.get(f.column)) })),
      defaults: Object.fromEntries(defaults.map((d) => [d.column, d.value === '' ? null : typed(d.value, byName.get(d.column))])),
      booking: bookingBody(booking),
      ...(booking.timeZone !== scope.timeZone ? { timeZone: booking.timeZone } : {}),
      shape,
      rateLimit: /^\s*-?\d+(\.\d+)?\s*$/.test(rateLimit) ? Number(rateLimit) : rateLimit,
    };
    setSent(body);
    save.mutate(body);
  };

  return (
    <section className="pa-card card section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('publicApi.editor.formTitle')}</h2>
      <form noValidate onSubmit={onSubmit}>
        <div ref={outcome} tabIndex={-1} className="outcome">
          {error && (
            <div className="form-error" role="alert">
              <p>{errorText(error)}</p>
              {error.issues.length > 0 && <p>{t('error.formSummary', { count: fieldsNeedingAttention(error) })}</p>}
              {unplaced.length > 0 && (
                <ul>
                  {unplaced.map((u, i) => (
                    <li key={i}>{t('publicApi.editor.issueAt', { path: u.path, message: u.message })}</li>
                  ))}
                </ul>
              )}
            </div>
          )}
          {saved && !save.isError && !save.isPending && (
            <p className="notice" role="status">
              {t('publicApi.editor.saved')}
            </p>
          )}
        </div>
        <fieldset disabled={readOnly || save.isPending} className="pa-plain">
          <legend className="pa-sr-only">{t('publicApi.editor.formTitle')}</legend>
          <h3>{t('publicApi.editor.columns')}</h3>
          <p className="hint">{t('publicApi.editor.columnsHint')}</p>
          <DataTable
            className="pa-table"
            caption={t('publicApi.editor.columns')}
            captionHidden
            columns={[
              {
                id: 'column',
                header: t('publicApi.editor.column'),
                rowHeader: true,
                cell: ({ name, column }: (typeof all)[number]) => {
                  const rowError = err(`columns:${name}`) ?? err(`writable:${name}`);
                  const at = err(`columns:${name}`) ? `columns:${name}` : `writable:${name}`;
                  return (
                    <>
                      {name}
                      {column && <span className="pa-muted"> {column.type}</span>}
                      {column?.display.secret === true && (
                        <>
                          {' '}
                          <Badge tone="danger" dot={false}>
                            {t('publicApi.editor.secret')}
                          </Badge>
                        </>
                      )}
                      {column?.display.personal && (
                        <>
                          {' '}
                          <Badge tone="warning" dot={false}>
                            {t('publicApi.editor.personal')}
                          </Badge>
                        </>
                      )}
                      {rowError && errorLine(at)}
                    </>
                  );
                },
              },
              {
                id: 'readable',
                header: t('publicApi.editor.readable'),
                cell: ({ name }: (typeof all)[number]) => (
                  <input
                    type="checkbox"
                    checked={readable.has(name)}
                    aria-label={t('publicApi.editor.readableLabel', { column: name })}
                    aria-invalid={err(`columns:${name}`) ? true : undefined}
                    aria-describedby={described(`columns:${name}`)}
                    onChange={(e) => {
                      setReadable(toggle(readable, name, e.target.checked));
                      if (!e.target.checked) setWritable(toggle(writable, name, false));
                    }}
                  />
                ),
              },
              {
                id: 'writable',
                header: t('publicApi.editor.writable'),
                cell: ({ name }: (typeof all)[number]) => (
                  <input
                    type="checkbox"
                    checked={writable.has(name)}
                    aria-label={t('publicApi.editor.writableLabel', { column: name })}
                    aria-invalid={err(`writable:${name}`) ? true : undefined}
                    aria-describedby={described(`writable:${name}`)}
                    onChange={(e) => setWritable(toggle(writable, name, e.target.checked))}
                  />
                ),
              },
            ]}
            rows={all}
            rowKey={({ name }) => name}
            rowAttributes={() => ({ 'data-testid': 'column-row' })}
          />

          <fieldset className="pa-group" aria-describedby={described('methods')}>
            <legend>{t('publicApi.editor.methods')}</legend>
            <p className="hint">{t('publicApi.editor.methodsHint')}</p>
            <div className="pa-checks">
              {METHODS.map((m) => (
                <label key={m} className="pa-check">
                  <input
                    type="checkbox"
                    checked={methods.has(m)}
                    onChange={(e) => {
                      // DELETE removes rows for good: ticking it asks first (the other write methods are opt-in as they are).
                      if (m === 'DELETE' && e.target.checked) setConfirmDelete(true);
                      else setMethods(toggle(methods, m, e.target.checked));
                    }}
                  />
                  {m}
                  {!scope.offered.includes(m) && <span className="pa-muted"> {t('publicApi.editor.notOffered')}</span>}
                </label>
              ))}
            </div>
            {errorLine('methods')}
            {confirmDelete && (
              <ConfirmDialog
                title={t('publicApi.editor.deleteConfirmTitle', { ref: scope.ref })}
                confirm={t('publicApi.editor.deleteConfirm')}
                cancel={t('publicApi.editor.deleteCancel')}
                pending={false}
                onConfirm={() => {
                  setMethods(toggle(methods, 'DELETE', true));
                  setConfirmDelete(false);
                }}
                onCancel={() => setConfirmDelete(false)}
              >
                <p>{t('publicApi.editor.deleteConfirmText', { table: scope.table })}</p>
              </ConfirmDialog>
            )}
          </fieldset>

          <fieldset className="pa-group">
            <legend>{t('publicApi.editor.filters')}</legend>
            <p className="hint">{t('publicApi.editor.filtersHint')}</p>
            {filters.length === 0 && <p>{t('publicApi.editor.noFilters')}</p>}
            {filters.map((f, n) => (
              <FilterEditor
                key={n}
                index={n}
                row={f}
                names={all.map((c) => c.name)}
                errors={{ column: err(`filters:${n}:column`), op: err(`filters:${n}:op`), value: err(`filters:${n}:value`) ?? err(`filters:${n}:row`) }}
                onChange={(row) => setFilters(filters.map((x, k) => (k === n ? row : x)))}
                onRemove={() => setFilters(filters.filter((_, k) => k !== n))}
              />
            ))}
            <button type="button" className="secondary" onClick={() => setFilters([...filters, { column: all[0]?.name ?? '', op: 'eq', value: '' }])}>
              {t('publicApi.editor.addFilter')}
            </button>
          </fieldset>

          <fieldset className="pa-group" aria-describedby={described('defaults')}>
            <legend>{t('publicApi.editor.defaults')}</legend>
            <p className="hint">{t('publicApi.editor.defaultsHint')}</p>
            {defaults.map((d, n) => {
              const at = `defaults:${d.column}`;
              return (
                <div key={n} className="pa-filter" data-testid="default-row">
                  <div className="field">
                    <label htmlFor={`${id}-default-${n}-column`}>{t('publicApi.editor.defaultColumn', { n: n + 1 })}</label>
                    <select
                      id={`${id}-default-${n}-column`}
                      value={d.column}
                      onChange={(e) => setDefaults(defaults.map((x, k) => (k === n ? { ...x, column: e.target.value } : x)))}
                    >
                      {(all.some((c) => c.name === d.column) ? all.map((c) => c.name) : [d.column, ...all.map((c) => c.name)]).map((c) => (
                        <option key={c} value={c}>
                          {c}
                        </option>
                      ))}
                    </select>
                  </div>
                  <div className="field">
                    <label htmlFor={`${id}-default-${n}-value`}>{t('publicApi.editor.defaultValue', { n: n + 1 })}</label>
                    <input
                      id={`${id}-default-${n}-value`}
                      value={d.value}
                      onChange={(e) => setDefaults(defaults.map((x, k) => (k === n ? { ...x, value: e.target.value } : x)))}
                      aria-invalid={err(at) ? true : undefined}
                      aria-describedby={described(at)}
                    />
                    {errorLine(at)}
                  </div>
                  <button type="button" className="secondary" onClick={() => setDefaults(defaults.filter((_, k) => k !== n))}>
                    {t('publicApi.editor.removeDefault', { n: n + 1 })}
                  </button>
                </div>
              );
            })}
            {errorLine('defaults')}
            <button
              type="button"
              className="secondary"
              onClick={() =>
                setDefaults([...defaults, { column: all.find((c) => !defaults.some((d) => d.column === c.name))?.name ?? all[0]?.name ?? '', value: '' }])
              }
            >
              {t('publicApi.editor.addDefault')}
            </button>
          </fieldset>

          <BookingFields draft={booking} onChange={setBooking} columns={all.map((c) => c.name)} error={err} describedBy={described} errorLine={errorLine} />

          <div className="pa-row">
            <div className="field">
              <label htmlFor={`${id}-shape`}>{t('publicApi.editor.shape')}</label>
              <select
                id={`${id}-shape`}
                value={shape}
                onChange={(e) => setShape(e.target.value as Scope['shape'])}
                aria-invalid={err('shape') ? true : undefined}
                aria-describedby={described('shape')}
              >
                {SHAPES.map((s) => (
                  <option key={s} value={s}>
                    {t('publicApi.editor.shapeOption', { shape: s })}
                  </option>
                ))}
              </select>
              {errorLine('shape')}
            </div>
            <div className="field">
              <label htmlFor={`${id}-rate`}>{t('publicApi.editor.rateLimit')}</label>
              <input
                id={`${id}-rate`}
                inputMode="numeric"
                value={rateLimit}
                onChange={(e) => setRateLimit(e.target.value)}
                aria-invalid={err('rateLimit') ? true : undefined}
                aria-describedby={described('rateLimit')}
              />
              {errorLine('rateLimit')}
            </div>
          </div>
          {!readOnly && (
            <button type="submit" disabled={save.isPending}>
              <SaveIcon className="icon" aria-hidden="true" />
              {save.isPending ? t('publicApi.editor.saving') : t('publicApi.editor.save')}
            </button>
          )}
        </fieldset>
      </form>
    </section>
  );
}

function FilterEditor({
  index,
  row,
  names,
  errors,
  onChange,
  onRemove,
}: {
  index: number;
  row: FilterRow;
  names: string[];
  errors: { column?: string; op?: string; value?: string };
  onChange: (row: FilterRow) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const n = index + 1;
  const errorOf = (part: 'column' | 'op' | 'value') =>
    errors[part] ? (
      <p className="field-error" id={`${id}-${part}-error`}>
        {errors[part]}
      </p>
    ) : null;
  const aria = (part: 'column' | 'op' | 'value') => ({
    'aria-invalid': errors[part] ? true : undefined,
    'aria-describedby': errors[part] ? `${id}-${part}-error` : undefined,
  });
  return (
    <div className="pa-filter" data-testid="filter-row">
      <div className="field">
        <label htmlFor={`${id}-column`}>{t('publicApi.editor.filterColumn', { n })}</label>
        <select id={`${id}-column`} value={row.column} onChange={(e) => onChange({ ...row, column: e.target.value })} {...aria('column')}>
          {(names.includes(row.column) ? names : [row.column, ...names]).map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        {errorOf('column')}
      </div>
      <div className="field">
        <label htmlFor={`${id}-op`}>{t('publicApi.editor.filterOp', { n })}</label>
        <select
          id={`${id}-op`}
          value={row.op}
          onChange={(e) => onChange({ ...row, op: e.target.value as Op, value: e.target.value === 'null' ? 'true' : row.value })}
          {...aria('op')}
        >
          {OPS.map((op) => (
            <option key={op} value={op}>
              {t('publicApi.editor.op', { op })}
            </option>
          ))}
        </select>
        {errorOf('op')}
      </div>
      <div className="field">
        <label htmlFor={`${id}-value`}>{t('publicApi.editor.filterValue', { n })}</label>
        {row.op === 'null' ? (
          <select id={`${id}-value`} value={row.value} onChange={(e) => onChange({ ...row, value: e.target.value })} {...aria('value')}>
            <option value={String(true)}>{t('publicApi.editor.isNull')}</option>
            <option value={String(false)}>{t('publicApi.editor.isNotNull')}</option>
          </select>
        ) : (
          <input id={`${id}-value`} value={row.value} onChange={(e) => onChange({ ...row, value: e.target.value })} {...aria('value')} />
        )}
        {row.op === 'in' && <p className="hint">{t('publicApi.editor.inHint')}</p>}
        {errorOf('value')}
      </div>
      <button type="button" className="secondary" onClick={onRemove}>
        {t('publicApi.editor.removeFilter', { n })}
      </button>
    </div>
  );
}

const definitionOf = (scope: Scope) => Object.fromEntries(DEFINITION_KEYS.map((k) => [k, scope[k]]));

/** The whole definition as JSON; the server's messages are listed by path, each one selecting its place in the text. */
function JsonEditor({ scope, readOnly, saved, onSaving, onSaved }: EditorProps) {
  const id = useId();
  const save = useSave(scope, onSaving, onSaved);
  const [text, setText] = useState(() => JSON.stringify(definitionOf(scope), null, 2));
  const [parseError, setParseError] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const outcome = useRef<HTMLDivElement>(null);
  const settled = save.isError ? save.submittedAt : 0;
  useEffect(() => {
    if (settled || parseError || saved) outcome.current?.focus();
  }, [settled, parseError, saved]);

  const error = save.error instanceof ApiError ? save.error : null;
  const issues = (error?.issues ?? []).map((i) => ({ path: fieldPath(i.path), message: i.message }));
  const spans = jsonSpans(text);
  const select = (path: string) => {
    const span = spanOf(spans, path);
    const el = area.current;
    if (!el) return;
    el.focus();
    if (span) el.setSelectionRange(span.start, span.end);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      save.reset();
      setParseError(t('publicApi.json.invalid', { detail: err instanceof Error ? err.message : String(err) }));
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      save.reset();
      setParseError(t('publicApi.json.notObject'));
      return;
    }
    setParseError(null);
    save.mutate(parsed as Record<string, unknown>);
  };
  const invalid = parseError !== null || issues.length > 0;

  return (
    <section className="pa-card card section" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('publicApi.json.title')}</h2>
      <p className="hint" id={`${id}-hint`}>
        {t('publicApi.json.hint')}
      </p>
      <form noValidate onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor={`${id}-text`}>{t('publicApi.json.label')}</label>
          <textarea
            ref={area}
            id={`${id}-text`}
            className="pa-code"
            rows={Math.min(30, Math.max(10, text.split('\n').length))}
            spellCheck={false}
            readOnly={readOnly}
            value={text}
            onChange={(e) => setText(e.target.value)}
            aria-invalid={invalid ? true : undefined}
            aria-describedby={`${id}-hint${invalid ? ` ${id}-errors` : ''}`}
          />
        </div>
        <div ref={outcome} tabIndex={-1} className="outcome">
          {parseError && (
            <div className="form-error" role="alert" id={`${id}-errors`}>
              <p>{parseError}</p>
            </div>
          )}
          {error && (
            <div className="form-error" role="alert" id={`${id}-errors`} data-testid="json-errors">
              <p>{errorText(error)}</p>
              {issues.length > 0 && (
                <ul>
                  {issues.map((issue, i) => {
                    const span = spanOf(spans, issue.path);
                    return (
                      <li key={i}>
                        <button type="button" className="link" onClick={() => select(issue.path)}>
                          {span ? t('publicApi.json.at', { path: issue.path || '/', line: lineOf(text, span.start) }) : issue.path}
                        </button>{' '}
                        {issue.message}
                      </li>
                    );
                  })}
                </ul>
              )}
            </div>
          )}
          {saved && !save.isError && !save.isPending && (
            <p className="notice" role="status">
              {t('publicApi.editor.saved')}
            </p>
          )}
        </div>
        {!readOnly && (
          <button type="submit" disabled={save.isPending}>
            <SaveIcon className="icon" aria-hidden="true" />
            {save.isPending ? t('publicApi.editor.saving') : t('publicApi.json.save')}
          </button>
        )}
      </form>
    </section>
  );
}

/** DELETE: a generated endpoint returns to its generated form; an extra one is removed (409 while a key grants it). */
function RemoveEndpoint({ scope, onReset }: { scope: Scope; onReset: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveScope(scope, {
    onSuccess: (left) => {
      if (left) onReset();
      else navigate('/public-api/endpoints', { replace: true });
    },
  });
  const label = scope.generated ? t('publicApi.remove.reset') : t('publicApi.remove.delete');
  return (
    <section className="pa-card card section danger-zone" aria-labelledby="pa-remove">
      <h2 id="pa-remove">{label}</h2>
      <p className="hint">{scope.generated ? t('publicApi.remove.resetHint') : t('publicApi.remove.deleteHint')}</p>
      {remove.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(remove.error)}</p>
        </div>
      )}
      <button type="button" className="secondary" onClick={() => setConfirming(true)}>
        <DeleteIcon className="icon" aria-hidden="true" />
        {label}
      </button>
      {confirming && (
        <ConfirmDialog
          title={label}
          confirm={t('publicApi.remove.confirm', { ref: scope.ref })}
          cancel={t('publicApi.cancel')}
          pending={remove.isPending}
          onConfirm={() => remove.mutate(undefined, { onSettled: () => setConfirming(false) })}
          onCancel={() => setConfirming(false)}
        >
          <p>{scope.generated ? t('publicApi.remove.resetHint') : t('publicApi.remove.deleteHint')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
