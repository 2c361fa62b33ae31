import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { t } from '../../i18n/t';
import { useLiveEvents } from '../../live/events';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import {
  dataKeys,
  findTable,
  TableMissing,
  useDeleteRow,
  usePatchRow,
  useReferences,
  useRow,
  useTableInfo,
  visibleColumns,
  type Row,
  type Table,
  type TableInfo,
} from './api';
import { DataValue } from './cell-value';
import { useRowLabel } from '../../api/row-labels';
import { recordIdText } from '../../values/row-name';
import { referenceTarget } from '../../values/references';
import { RowForm } from './RowForm';
import { columnErrors, useDataParams, useToasts } from './shared';
import { paths, viewQuery } from './view';
import './data.css';

/** Where a row is shown when it is not at its own address: a detail or form page (`/p/:slug/:recordId`, the pages area). */
export interface RowAt {
  conn: string;
  table: string;
  recordId: string;
  /** The columns shown, in this order (a page's `fields`); `readOnly` ones are shown, not edited. */
  fields?: ReadonlyArray<{ column: string; label?: string | null; readOnly?: boolean }>;
  /** The link above the heading (back to the table's grid when absent). */
  back?: { href: string; label: string };
}

/** One row: `/connections/:conn/tables/:table/rows/:recordId`: its values (edited with the grid's editors) and the rows of other tables that point at it. */
export function RowDetailScreen({ at }: { at?: RowAt } = {}) {
  const params = useDataParams();
  const { conn, table, recordId } = at ?? params;
  useTitle('data.row.title');
  const info = useTableInfo(conn, table);
  if (info.isPending) return <Loading />;
  if (info.isError)
    return (
      <>
        <h1>{t(info.error instanceof TableMissing ? 'data.grid.missing' : 'data.row.title')}</h1>
        <ErrorPanel error={info.error} onRetry={() => void info.refetch()} />
      </>
    );
  return <RowDetail conn={conn} info={info.data} recordId={recordId} at={at} />;
}

function RowDetail({ conn, info, recordId, at }: { conn: string; info: TableInfo; recordId: string; at?: RowAt }) {
  const { table, tables, canWrite } = info;
  const queryClient = useQueryClient();
  const [, navigate] = useLocation();
  const key = dataKeys.row(conn, table.ref, recordId);
  const row = useRow(conn, table.ref, recordId);
  const refs = useReferences(conn, table.ref, recordId);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const patch = usePatchRow(conn, table.ref);
  const deletion = useDeleteRow(conn, table.ref);
  const pending = patch.isPending || deletion.isPending;
  const [deleted, setDeleted] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const refetch = () => {
    void queryClient.invalidateQueries({ queryKey: dataKeys.rows(conn, table.ref) });
    void queryClient.invalidateQueries({ queryKey: dataKeys.tableRefs(conn, table.ref) });
    setFormKey((k) => k + 1);
  };
  const toasts = useToasts(() => {
    setDeleted(false);
    refetch();
  });
  useLiveEvents(['data.changed'], (event) => {
    const d = event.data as { connectionId?: string; table?: string; recordIds?: string[] };
    if (d.connectionId === conn && d.table === table.ref && d.recordIds?.includes(recordId) && !pending) refetch();
  });
  const label = table.display.label || table.name;
  const pk = table.primaryKey?.columns ?? [];
  const keyTypes = (of: Table) => (of.primaryKey?.columns ?? []).map((name) => of.columns.find((c) => c.name === name)?.type ?? 'string');

  // A composite key's record id is base64 in the address: the heading names the row by its key's values.
  const heading = <h1>{t('data.row.heading', { table: label, id: recordIdText(recordId, keyTypes(table)) })}</h1>;
  const back = (
    <p className="data-crumbs">
      <Link href={at?.back?.href ?? paths.grid(conn, table.ref)}>{at?.back?.label ?? t('data.row.back', { table: label })}</Link>
    </p>
  );
  if (row.isPending)
    return (
      <>
        {back}
        {heading}
        <Loading />
      </>
    );
  if (row.isError)
    return (
      <>
        {back}
        {heading}
        {toasts.view}
        <ErrorPanel error={row.error} onRetry={() => void row.refetch()} />
      </>
    );
  const values = row.data.row;
  const fields = at?.fields;
  const shown = visibleColumns(table, values);
  // A field's own label (a page's config) names the column in the form.
  const columns = fields
    ? fields.flatMap((f) => shown.filter((c) => c.name === f.column).map((c) => (f.label ? { ...c, display: { ...c.display, label: f.label } } : c)))
    : shown;
  const editableColumns = columns.filter((c) => c.generated === null && !pk.includes(c.name));
  // A page's fields: every field shown in its order, its read-only ones (and keys, generated columns) not edited.
  const fixedColumns = fields
    ? new Set([...fields.filter((f) => f.readOnly).map((f) => f.column), ...columns.filter((c) => !editableColumns.includes(c)).map((c) => c.name)])
    : undefined;
  // The rows this one points at: single-column keys onto another table's primary key.
  const outbound = table.foreignKeys.flatMap((fk) => {
    const target = findTable(tables, fk.referencedTable, fk.referencedSchema);
    const value = values[fk.columns[0]!];
    if (fk.columns.length !== 1 || !target || target.primaryKey?.columns.join() !== fk.referencedColumns.join() || value === null || value === undefined)
      return [];
    return [{ column: fk.columns[0]!, table: target, id: String(value) }];
  });

  const save = async (changed: Row) => {
    if (Object.keys(changed).length === 0) return;
    setError(null);
    try {
      const out = await patch.mutateAsync({ recordId, values: changed });
      queryClient.setQueryData(key, { row: out.row, recordId: out.recordId });
      setErrors({});
      toasts.show(t('data.toast.saved'), out.undoToken);
      if (out.recordId !== recordId) navigate(paths.row(conn, table.ref, out.recordId), { replace: true });
    } catch (err) {
      setError(err);
      setErrors(columnErrors(err));
    }
  };
  const remove = async () => {
    setError(null);
    try {
      const out = await deletion.mutateAsync(recordId);
      setDeleted(true);
      toasts.show(t('data.toast.deleted', { count: 1 }), out.undoToken);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div className="data-row-screen">
      {back}
      {heading}
      {toasts.view}
      {error !== null && (
        <div className="form-error" role="alert">
          <p>{errorText(error)}</p>
        </div>
      )}
      {deleted ? (
        <p>{t('data.row.deleted')}</p>
      ) : (
        <>
          <section aria-labelledby="data-values-title">
            <h2 id="data-values-title">{t('data.row.values')}</h2>
            {pk.map((name) => {
              const column = table.columns.find((c) => c.name === name);
              return (
                <p key={name} className="data-key">
                  {t('data.row.key', { column: column?.display.label || name })}{' '}
                  {column ? <DataValue conn={conn} table={table} tables={tables} column={column} value={values[name]} /> : String(values[name] ?? '')}
                </p>
              );
            })}
            <RowForm
              key={formKey}
              conn={conn}
              table={table}
              tables={tables}
              columns={canWrite && !fields ? editableColumns : columns}
              initial={values}
              readOnly={!canWrite}
              readOnlyColumns={fixedColumns}
              errors={errors}
              pending={pending}
              submitLabel={t('data.row.save')}
              onLocalErrors={setErrors}
              onSubmit={(v) => void save(v)}
            />
            {canWrite && (
              <div className="actions">
                <button type="button" className="danger" disabled={pending} onClick={() => void remove()}>
                  {t('data.row.delete')}
                </button>
              </div>
            )}
          </section>
        </>
      )}
      {!deleted && outbound.length > 0 && (
        <section aria-labelledby="data-out-title" className="data-refs">
          <h2 id="data-out-title">{t('data.refs.outTitle')}</h2>
          <ul>
            {outbound.map((o) => (
              <li key={o.column}>
                <OutboundLink conn={conn} table={table} tables={tables} column={o.column} target={o.table} id={o.id} />
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="data-refs-title" className="data-refs">
        <h2 id="data-refs-title">{t('data.refs.title')}</h2>
        {refs.isPending && <Loading />}
        {refs.isError && <ErrorPanel error={refs.error} onRetry={() => void refs.refetch()} />}
        {refs.isSuccess && refs.data.length === 0 && <p>{t('data.refs.none')}</p>}
        {refs.isSuccess && refs.data.length > 0 && (
          <ul>
            {refs.data.map((r) => {
              const from = tables.find((x) => x.ref === r.table);
              const fromLabel = from?.display.label || r.table;
              const filters = r.columns.map((c, i) => ({ column: c, op: 'eq' as const, value: String(values[r.referencedColumns[i]!] ?? '') }));
              const q = viewQuery({ sort: [], search: '', filters });
              return (
                <li key={`${r.table}:${r.columns.join(',')}`} data-testid="reference">
                  <Link href={`${paths.grid(conn, r.table)}?${q}`}>
                    {t('data.refs.rows', { count: r.count, table: fromLabel, columns: r.columns.join(', ') })}
                  </Link>
                  {r.recordIds.length > 0 && (
                    <ul className="data-ref-ids">
                      {r.recordIds.map((id) => (
                        <li key={id}>
                          <Link href={paths.row(conn, r.table, id)}>
                            {t('data.refs.row', { table: fromLabel, id: from ? recordIdText(id, keyTypes(from)) : id })}
                          </Link>
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </section>
    </div>
  );
}

/** A row this one points at, named by its display column once the name has arrived. */
function OutboundLink(props: { conn: string; table: Table; tables: readonly Table[]; column: string; target: Table; id: string }) {
  const { conn, table, tables, column, target, id } = props;
  const name = useRowLabel(referenceTarget(conn, table, tables, column), id);
  const columnLabel = table.columns.find((c) => c.name === column)?.display.label || column;
  const targetLabel = target.display.label || target.name;
  return (
    <Link href={paths.row(conn, target.ref, id)}>
      {name
        ? t('data.refs.outNamed', { column: columnLabel, table: targetLabel, name, id })
        : t('data.refs.out', { column: columnLabel, table: targetLabel, id })}
    </Link>
  );
}
