import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useParams, useSearch } from 'wouter';
import { isFinal, useCancelExport, useExport, useStartExport, useTable, type Column, type Table } from './api';
import { t } from '../../i18n/t';
import { ErrorPanel, FormError, Loading, useTitle } from '../../ui';
import { gridQueryToExport, type GridQuery } from './gridQuery';
import { StateLine, columnLabel, exportDownloadUrl, param, Progress, stateText, tableLabel, tablePath } from './shared';
import { BackLink } from '../../ui/BackLink';
import { PageHeader } from '../../ui/PageHeader';
import { ExportIcon } from '../../ui/icons';

const FORMATS = ['csv', 'jsonl', 'xlsx'] as const;
type Format = (typeof FORMATS)[number];

/** Screen 5, export: the format, the columns, the rows the grid showed (its filter and sort), the job, the file. */
export function ExportScreen() {
  useTitle('transfer.export.title');
  const params = useParams<{ conn: string; table: string }>();
  const search = useSearch();
  const conn = param(params.conn);
  const ref = param(params.table);
  const info = useTable(conn, ref);
  if (info.isPending) return <Loading />;
  if (info.isError) return <ErrorPanel error={info.error} onRetry={() => void info.refetch()} />;
  const { table, connection } = info.data;
  if (!table) {
    return (
      <>
        <h1>{t('transfer.export.title')}</h1>
        <p role="alert">{t('transfer.noTable', { table: ref })}</p>
      </>
    );
  }
  return <ExportForm key={`${conn}/${ref}?${search}`} conn={conn} connectionName={connection.name} table={table} search={search} />;
}

function ExportForm({ conn, connectionName, table, search }: { conn: string; connectionName: string; table: Table; search: string }) {
  const id = useId();
  const exportable = useMemo(() => table.columns.filter((c) => !c.display.secret), [table]);
  const query = useMemo(() => gridQueryToExport(search, exportable), [search, exportable]);
  const [format, setFormat] = useState<Format>('csv');
  const [chosen, setChosen] = useState<Set<string>>(
    () =>
      new Set(
        query.fields
          ? exportable.filter((c) => query.fields!.includes(c.name) || (table.primaryKey?.columns ?? []).includes(c.name)).map((c) => c.name)
          : exportable.filter((c) => !c.display.hidden).map((c) => c.name),
      ),
  );
  const [formulaSafe, setFormulaSafe] = useState(true);
  const [exportId, setExportId] = useState<string | null>(null);

  const start = useStartExport((exp) => setExportId(exp.id));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!start.isPending && chosen.size > 0)
      start.mutate({
        connectionId: conn,
        table: table.ref,
        format,
        columns: exportable.filter((c) => chosen.has(c.name)).map((c) => c.name),
        ...(query.filter ? { filter: query.filter } : {}),
        ...(query.search ? { search: query.search } : {}),
        ...(query.sort ? { sort: query.sort } : {}),
        ...(format === 'csv' ? { formulaSafe } : {}),
      });
  };
  const toggle = (name: string, on: boolean) =>
    setChosen((s) => {
      const next = new Set(s);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });
  const locked = exportId !== null || start.isPending;

  return (
    <>
      <BackLink href={`${tablePath(conn, table.ref)}${search ? `?${search}` : ''}`}>{t('transfer.backToTable')}</BackLink>
      <PageHeader title={t('transfer.export.heading', { table: tableLabel(table) })} description={t('transfer.export.intro', { connection: connectionName })} />
      <form onSubmit={onSubmit} noValidate>
        <fieldset disabled={locked} className="transfer-plain">
          <legend className="visually-hidden">{t('transfer.export.title')}</legend>
          <fieldset className="transfer-choice">
            <legend>{t('transfer.export.format')}</legend>
            {FORMATS.map((f) => (
              <label key={f}>
                <input type="radio" name={`${id}-format`} value={f} checked={format === f} onChange={() => setFormat(f)} />
                {t('transfer.export.formatName', { format: f })}
              </label>
            ))}
          </fieldset>
          {format === 'csv' && (
            <div className="transfer-check">
              <label>
                <input type="checkbox" checked={formulaSafe} onChange={(e) => setFormulaSafe(e.currentTarget.checked)} />
                {t('transfer.export.formulaSafe')}
              </label>
            </div>
          )}

          <fieldset className="transfer-choice transfer-columns">
            <legend>{t('transfer.export.columns', { count: chosen.size, total: exportable.length })}</legend>
            <div className="actions">
              <button type="button" className="link" onClick={() => setChosen(new Set(exportable.map((c) => c.name)))}>
                {t('transfer.export.all')}
              </button>
              <button type="button" className="link" onClick={() => setChosen(new Set())}>
                {t('transfer.export.none')}
              </button>
            </div>
            <div className="transfer-column-list">
              {exportable.map((c) => (
                <label key={c.name}>
                  <input type="checkbox" checked={chosen.has(c.name)} onChange={(e) => toggle(c.name, e.currentTarget.checked)} />
                  {columnLabel(c)}
                </label>
              ))}
            </div>
            {chosen.size === 0 && <p className="field-error">{t('transfer.export.noColumns')}</p>}
          </fieldset>
        </fieldset>
        <RowsFromGrid query={query} columns={exportable} />
        <FormError error={start.error} />
        {exportId === null && (
          <button type="submit" disabled={start.isPending || chosen.size === 0}>
            <ExportIcon className="icon" aria-hidden="true" />
            {start.isPending ? t('transfer.export.starting') : t('transfer.export.start')}
          </button>
        )}
      </form>
      {exportId && (
        <ExportProgress
          key={exportId}
          id={exportId}
          onAgain={() => {
            setExportId(null);
            start.reset();
          }}
        />
      )}
    </>
  );
}

/** Which rows: the grid's filter and sort, as conditions a person reads. */
function RowsFromGrid({ query, columns }: { query: GridQuery; columns: readonly Column[] }) {
  const id = useId();
  const label = (name: string) => {
    const column = columns.find((c) => c.name === name);
    return column ? columnLabel(column) : name;
  };
  const keys = (query.sort ?? '')
    .split(',')
    .filter(Boolean)
    .map((k) => t('transfer.export.sortKey', { column: label(k.replace(/^-/, '')), desc: String(k.startsWith('-')) }))
    .join(', ');
  return (
    <section className="transfer-step" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{t('transfer.export.rows')}</h2>
      {query.conditions.length === 0 ? (
        <p>{t('transfer.export.allRows')}</p>
      ) : (
        <>
          <p>{t('transfer.export.filtered')}</p>
          <ul data-testid="export-conditions">
            {query.conditions.map((c, i) => (
              <li key={i}>
                {t('transfer.export.condition', {
                  column: label(c.column),
                  op: c.op,
                  value: c.op === 'null' ? String(c.value.trim().toLowerCase() === 'true') : c.value,
                })}
              </li>
            ))}
          </ul>
        </>
      )}
      {keys && <p>{t('transfer.export.sort', { keys })}</p>}
      {query.search && <p>{t('transfer.export.search', { search: query.search })}</p>}
      {query.dropped.length > 0 && <p className="transfer-warning">{t('transfer.export.dropped', { params: query.dropped.join(', ') })}</p>}
    </section>
  );
}

function ExportProgress({ id, onAgain }: { id: string; onAgain: () => void }) {
  const hid = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const query = useExport(id);
  const cancel = useCancelExport(id);
  const exp = query.data;
  // The cancel button goes away with the run: the focus goes back to the section, not to <body>.
  const final = exp ? isFinal(exp.state) : false;
  useEffect(() => {
    if (final && (document.activeElement === null || document.activeElement === document.body)) heading.current?.focus();
  }, [final]);
  return (
    <section className="transfer-step" aria-labelledby={`${hid}-h`} data-testid="export-run">
      <h2 id={`${hid}-h`} ref={heading} tabIndex={-1}>
        {t('transfer.export.step.run')}
      </h2>
      {query.isError && <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />}
      {!exp ? (
        <Loading />
      ) : (
        <>
          <StateLine state={exp.state} jobId={exp.jobId} />
          {!isFinal(exp.state) && (
            <>
              <Progress value={exp.progress} label={t('transfer.export.progress')} />
              {exp.jobId && (
                <button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate(exp.jobId!)}>
                  {cancel.isPending ? t('transfer.cancelling') : t('transfer.export.cancel')}
                </button>
              )}
              <FormError error={cancel.error} />
            </>
          )}
          {exp.state === 'ready' && (
            <div role="status" className="notice">
              <p>{t('transfer.export.ready', { rows: exp.rowCount ?? 0, bytes: exp.bytes ?? 0 })}</p>
            </div>
          )}
          {exp.state === 'ready' && (
            <p>
              <a className="transfer-download" href={exportDownloadUrl(exp.id)} download>
                {t('transfer.export.download', { name: exp.fileName ?? '' })}
              </a>
            </p>
          )}
          {exp.state === 'cancelled' && (
            <p role="status" className="notice">
              {t('transfer.export.cancelled')}
            </p>
          )}
          {(exp.state === 'failed' || exp.state === 'expired') && (
            <div className="form-error" role="alert">
              <p>{exp.error?.message ?? stateText(exp.state)}</p>
            </div>
          )}
          {isFinal(exp.state) && (
            <button type="button" onClick={onAgain}>
              {t('transfer.export.again')}
            </button>
          )}
        </>
      )}
    </section>
  );
}
