import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, FormError, Loading, useTitle } from '../../ui';
import { DataTable, type DataColumn } from '../../ui/DataTable';
import { StateLine, columnLabel, importReportUrl, param, Progress, stateText, tableLabel, tablePath } from './shared';
import { isFinal, useImport, useImportReport, useStartImport, useTable, useUpload, type Column, type Import, type Table, type Upload } from './api';
import { BackLink } from '../../ui/BackLink';
import { PageHeader } from '../../ui/PageHeader';
import { ImportIcon, PreviewIcon, RunIcon } from '../../ui/icons';

type Guessed = Upload['columns'][number]['type'];
/** The select's value for "skip this column" (no column name is empty). */
const SKIP = '';

/** Which table column types take a value the file's column was guessed to hold without surprise. */
const FITS: Record<Guessed, readonly string[] | 'any'> = {
  empty: 'any',
  string: ['string', 'text', 'enum', 'uuid', 'json', 'other'],
  integer: ['integer', 'bigint', 'decimal', 'float', 'string', 'text', 'other'],
  decimal: ['decimal', 'float', 'string', 'text', 'other'],
  boolean: ['boolean', 'string', 'text', 'other'],
  date: ['date', 'datetime', 'string', 'text', 'other'],
  datetime: ['datetime', 'string', 'text', 'other'],
  json: ['json', 'string', 'text', 'other'],
};
const fits = (guessed: Guessed, column: Column) => {
  const ok = FITS[guessed];
  return ok === 'any' || ok.includes(column.type);
};

/** The mapping a person would start from: each file column into the table column of the same name (case aside). */
function initialMapping(upload: Upload, writable: readonly Column[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  const taken = new Set<string>();
  for (const source of upload.columns) {
    const match = writable.find((c) => c.name === source.name) ?? writable.find((c) => c.name.toLowerCase() === source.name.toLowerCase());
    out[source.name] = match && !taken.has(match.name) ? match.name : null;
    if (match) taken.add(match.name);
  }
  return out;
}

/** The keys an upsert may match on: the primary key and each unique constraint. */
function keyCandidates(table: Table): string[][] {
  return [table.primaryKey?.columns ?? [], ...table.uniques.map((u) => u.columns)].filter((k) => k.length > 0);
}

const cell = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Screen 5, import: upload, what the file holds, the mapping with its types, a dry run, the run, the error report. */
export function ImportScreen() {
  useTitle('transfer.import.title');
  const params = useParams<{ conn: string; table: string }>();
  const conn = param(params.conn);
  const ref = param(params.table);
  const info = useTable(conn, ref);
  if (info.isPending) return <Loading />;
  if (info.isError) return <ErrorPanel error={info.error} onRetry={() => void info.refetch()} />;
  const { table, connection } = info.data;
  if (!table) {
    return (
      <>
        <h1>{t('transfer.import.title')}</h1>
        <p role="alert">{t('transfer.noTable', { table: ref })}</p>
      </>
    );
  }
  return <ImportWizard key={`${conn}/${ref}`} conn={conn} connectionName={connection.name} table={table} />;
}

function ImportWizard({ conn, connectionName, table }: { conn: string; connectionName: string; table: Table }) {
  const [upload, setUpload] = useState<Upload | null>(null);
  const [round, setRound] = useState(0);
  const restart = () => {
    setUpload(null);
    setRound((r) => r + 1);
  };
  return (
    <>
      <BackLink href={tablePath(conn, table.ref)}>{t('transfer.openTable')}</BackLink>
      <PageHeader title={t('transfer.import.heading', { table: tableLabel(table) })} description={t('transfer.import.intro', { connection: connectionName })} />
      <FileStep key={round} upload={upload} onUploaded={setUpload} onRestart={restart} />
      {upload && <FileSummary upload={upload} />}
      {upload && <MappingStep key={upload.id} conn={conn} table={table} upload={upload} onRestart={restart} />}
    </>
  );
}

function FileStep({ upload, onUploaded, onRestart }: { upload: Upload | null; onUploaded: (u: Upload) => void; onRestart: () => void }) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [sent, setSent] = useState<number | null>(null);
  const send = useUpload(setSent, onUploaded);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!file || send.isPending) return;
    setSent(0);
    send.mutate(file);
  };
  return (
    <section className="transfer-step" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{t('transfer.import.step.file')}</h2>
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={`${id}-file`}>{t('transfer.import.file')}</label>
          <p className="hint" id={`${id}-hint`}>
            {t('transfer.import.fileHint')}
          </p>
          <input
            id={`${id}-file`}
            type="file"
            accept=".csv,.tsv,.txt,.json,.jsonl,.ndjson,.xlsx,text/csv,application/json,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            aria-describedby={`${id}-hint`}
            disabled={send.isPending || upload !== null}
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </div>
        <FormError error={send.error} />
        {upload === null && (
          <button type="submit" disabled={!file || send.isPending}>
            <ImportIcon className="icon" aria-hidden="true" />
            {send.isPending ? t('transfer.import.uploading') : t('transfer.import.upload')}
          </button>
        )}
        {sent !== null && (send.isPending || send.isSuccess) && <Progress value={sent} label={t('transfer.import.uploadProgress')} />}
        {upload !== null && (
          <button type="button" className="link" onClick={onRestart}>
            {t('transfer.import.otherFile')}
          </button>
        )}
      </form>
    </section>
  );
}

function FileSummary({ upload }: { upload: Upload }) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const sample = upload.sampleRows.slice(0, 5);
  return (
    <section className="transfer-step" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`} ref={heading} tabIndex={-1}>
        {t('transfer.import.step.summary')}
      </h2>
      <p role="status">
        {t('transfer.import.sniffed', {
          name: upload.fileName,
          format: upload.format,
          rows: upload.rowCount,
          columns: upload.columns.length,
        })}
        {upload.delimiter !== null &&
          ` ${t('transfer.import.delimiter', { delimiter: upload.delimiter === '\t' ? t('transfer.import.tab') : upload.delimiter })}`}
      </p>
      {upload.problems > 0 && <p className="transfer-warning">{t('transfer.import.problems', { count: upload.problems })}</p>}
      <DataTable
        className="transfer-table"
        variant="grid"
        caption={t('transfer.import.sample', { count: sample.length })}
        columns={upload.columns.map((c) => ({
          id: c.name,
          header: (
            <>
              {c.name}
              <span className="transfer-type">{t('transfer.guessed', { type: c.type })}</span>
            </>
          ),
          cell: (row: (typeof sample)[number]) => cell(row[c.name]),
        }))}
        rows={sample}
        rowKey={(_, i) => i}
      />
    </section>
  );
}

interface Options {
  mode: 'insert' | 'upsert';
  key: number;
  atomic: boolean;
}

function MappingStep({ conn, table, upload, onRestart }: { conn: string; table: Table; upload: Upload; onRestart: () => void }) {
  const id = useId();
  const writable = useMemo(() => table.columns.filter((c) => !c.generated), [table]);
  const candidates = useMemo(() => keyCandidates(table), [table]);
  const [mapping, setMapping] = useState(() => initialMapping(upload, writable));
  const [options, setOptions] = useState<Options>({ mode: 'insert', key: 0, atomic: true });
  const [dryRunId, setDryRunId] = useState<string | null>(null);
  const [runId, setRunId] = useState<string | null>(null);

  const start = useStartImport((imp) => (imp.dryRun ? setDryRunId(imp.id) : setRunId(imp.id)));
  const run = (dryRun: boolean) =>
    start.mutate({
      uploadId: upload.id,
      connectionId: conn,
      table: table.ref,
      mapping,
      mode: options.mode,
      ...(options.mode === 'upsert' && candidates[options.key] ? { upsertKey: candidates[options.key] } : {}),
      atomic: options.atomic,
      dryRun,
    });
  const fieldErrors = start.error instanceof ApiError ? start.error.fieldErrors() : {};
  const locked = runId !== null || start.isPending;
  const change = (next: () => void) => {
    next();
    setDryRunId(null);
    start.reset();
  };
  const sampleOf = (name: string) =>
    upload.sampleRows
      .slice(0, 3)
      .map((r) => cell(r[name]))
      .filter((v) => v !== '')
      .join(', ');
  const targetOf = (name: string) => writable.find((c) => c.name === mapping[name]) ?? null;
  /** One row per column of the file: its name heads the row; the target is picked in it. */
  const mappingColumns: ReadonlyArray<DataColumn<Upload['columns'][number]>> = [
    { id: 'source', header: t('transfer.import.col.source'), rowHeader: true, cell: (source) => source.name },
    { id: 'guessed', header: t('transfer.import.col.guessed'), cell: (source) => t('transfer.guessed', { type: source.type }) },
    { id: 'sample', header: t('transfer.import.col.sample'), className: 'transfer-sample', cell: (source) => sampleOf(source.name) },
    {
      id: 'target',
      header: t('transfer.import.col.target'),
      cell: (source) => {
        const error = fieldErrors[`mapping.${source.name}`];
        return (
          <>
            <select
              aria-label={t('transfer.import.mapInto', { column: source.name })}
              disabled={locked}
              value={mapping[source.name] ?? SKIP}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-err-${source.name}` : undefined}
              onChange={(e) => {
                const value = e.currentTarget.value;
                change(() => setMapping((m) => ({ ...m, [source.name]: value === SKIP ? null : value })));
              }}
            >
              <option value={SKIP}>{t('transfer.import.skip')}</option>
              {writable.map((c) => (
                <option key={c.name} value={c.name}>
                  {columnLabel(c)}
                </option>
              ))}
            </select>
            {error && (
              <p className="field-error" id={`${id}-err-${source.name}`}>
                {error}
              </p>
            )}
          </>
        );
      },
    },
    {
      id: 'targetType',
      header: t('transfer.import.col.targetType'),
      cell: (source) => {
        const target = targetOf(source.name);
        return target ? t('transfer.import.targetType', { type: target.nativeType, nullable: String(target.nullable) }) : '';
      },
    },
    {
      id: 'fit',
      header: t('transfer.import.col.fit'),
      cell: (source) => {
        const target = targetOf(source.name);
        return target === null ? (
          t('transfer.import.fit.skipped')
        ) : fits(source.type, target) ? (
          <span className="transfer-ok">{t('transfer.import.fit.ok')}</span>
        ) : (
          <span className="transfer-warning">
            {t('transfer.import.fit.check', { guessed: t('transfer.guessed', { type: source.type }), type: target.nativeType })}
          </span>
        );
      },
    },
  ];

  return (
    <>
      <section className="transfer-step" aria-labelledby={`${id}-h`}>
        <h2 id={`${id}-h`}>{t('transfer.import.step.mapping')}</h2>
        <p>{t('transfer.import.mappingIntro')}</p>
        {/* Each control is locked on its own: a disabled fieldset would also make the table's
            scroll box unreachable by keyboard once it scrolls. */}
        <fieldset className="transfer-plain">
          <legend className="visually-hidden">{t('transfer.import.step.mapping')}</legend>
          <DataTable
            className="transfer-table"
            variant="grid"
            caption={t('transfer.import.mappingCaption')}
            columns={mappingColumns}
            rows={upload.columns}
            rowKey={(source) => source.name}
            rowAttributes={() => ({ 'data-testid': 'mapping-row' })}
          />
          {fieldErrors['mapping'] && <p className="field-error">{fieldErrors['mapping']}</p>}

          <fieldset disabled={locked} className="transfer-choice">
            <legend>{t('transfer.import.mode')}</legend>
            <label>
              <input
                type="radio"
                name={`${id}-mode`}
                checked={options.mode === 'insert'}
                onChange={() => change(() => setOptions((o) => ({ ...o, mode: 'insert' })))}
              />
              {t('transfer.import.mode.insert')}
            </label>
            <label>
              <input
                type="radio"
                name={`${id}-mode`}
                checked={options.mode === 'upsert'}
                disabled={candidates.length === 0}
                onChange={() => change(() => setOptions((o) => ({ ...o, mode: 'upsert' })))}
              />
              {t('transfer.import.mode.upsert')}
            </label>
            {options.mode === 'upsert' && (
              <div className="field">
                <label htmlFor={`${id}-key`}>{t('transfer.import.key')}</label>
                <select id={`${id}-key`} value={options.key} onChange={(e) => change(() => setOptions((o) => ({ ...o, key: Number(e.currentTarget.value) })))}>
                  {candidates.map((k, i) => (
                    <option key={k.join(',')} value={i}>
                      {k.join(', ')}
                    </option>
                  ))}
                </select>
                {fieldErrors['upsertKey'] && <p className="field-error">{fieldErrors['upsertKey']}</p>}
              </div>
            )}
          </fieldset>

          <fieldset disabled={locked} className="transfer-choice">
            <legend>{t('transfer.import.refused')}</legend>
            <label>
              <input type="radio" name={`${id}-atomic`} checked={options.atomic} onChange={() => change(() => setOptions((o) => ({ ...o, atomic: true })))} />
              {t('transfer.import.atomic')}
            </label>
            <label>
              <input type="radio" name={`${id}-atomic`} checked={!options.atomic} onChange={() => change(() => setOptions((o) => ({ ...o, atomic: false })))} />
              {t('transfer.import.perRow')}
            </label>
          </fieldset>
        </fieldset>

        <FormError error={start.error} />
        {runId === null && (
          <div className="actions">
            <button type="button" className="secondary" disabled={start.isPending} onClick={() => run(true)}>
              <PreviewIcon className="icon" aria-hidden="true" />
              {t('transfer.import.dryRun')}
            </button>
            <button type="button" disabled={start.isPending} onClick={() => run(false)}>
              <RunIcon className="icon" aria-hidden="true" />
              {t('transfer.import.run')}
            </button>
          </div>
        )}
      </section>
      {dryRunId && runId === null && <ImportProgress key={dryRunId} id={dryRunId} columns={upload.columns.map((c) => c.name)} />}
      {runId && <ImportProgress key={runId} id={runId} columns={upload.columns.map((c) => c.name)} conn={conn} table={table} onRestart={onRestart} />}
    </>
  );
}

/** One import (a dry run or the real one) as it runs, then its outcome and refused rows. */
function ImportProgress({ id, columns, conn, table, onRestart }: { id: string; columns: string[]; conn?: string; table?: Table; onRestart?: () => void }) {
  const hid = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const query = useImport(id);
  const imp = query.data;
  const final = imp ? isFinal(imp.state) : false;
  const dry = imp?.dryRun ?? false;
  return (
    <section className="transfer-step" aria-labelledby={`${hid}-h`} data-testid={dry ? 'dry-run' : 'import-run'}>
      <h2 id={`${hid}-h`} ref={heading} tabIndex={-1}>
        {t(dry ? 'transfer.import.step.dryRun' : 'transfer.import.step.run')}
      </h2>
      {query.isError && <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />}
      {!imp ? (
        <Loading />
      ) : (
        <>
          <StateLine state={imp.state} jobId={imp.jobId} />
          {!final && <Progress value={imp.progress} label={t('transfer.import.progress')} />}
          <ImportCounts imp={imp} />
          {final && <ImportOutcome imp={imp} />}
          {final && imp.state !== 'cancelled' && <RefusedRows imp={imp} columns={columns} />}
          {final && !dry && (
            <div className="actions">
              {conn && table && <Link href={tablePath(conn, table.ref)}>{t('transfer.import.openRows')}</Link>}
              {onRestart && (
                <button type="button" onClick={onRestart}>
                  {t('transfer.import.another')}
                </button>
              )}
            </div>
          )}
        </>
      )}
    </section>
  );
}

function ImportCounts({ imp }: { imp: Import }) {
  const c = imp.counts;
  return (
    <dl className="transfer-counts details-list">
      <dt>{t('transfer.import.count.total')}</dt>
      <dd>{c.total}</dd>
      <dt>{t(imp.dryRun ? 'transfer.import.count.wouldImport' : 'transfer.import.count.inserted')}</dt>
      <dd>{imp.dryRun ? c.total - c.refused : c.inserted}</dd>
      {!imp.dryRun && imp.mode === 'upsert' && (
        <>
          <dt>{t('transfer.import.count.updated')}</dt>
          <dd>{c.updated}</dd>
        </>
      )}
      <dt>{t('transfer.import.count.refused')}</dt>
      <dd>{c.refused}</dd>
    </dl>
  );
}

function ImportOutcome({ imp }: { imp: Import }) {
  const c = imp.counts;
  if (imp.state === 'succeeded') {
    return (
      <p className="notice" role="status">
        {imp.dryRun
          ? t('transfer.import.dryRunDone', { total: c.total, refused: c.refused })
          : t('transfer.import.done', { inserted: c.inserted, updated: c.updated, refused: c.refused })}
      </p>
    );
  }
  if (imp.state === 'cancelled') {
    return (
      <p className="notice" role="status">
        {t('transfer.import.cancelled')}
      </p>
    );
  }
  return (
    <div className="form-error" role="alert">
      <p>{imp.error?.message ?? stateText(imp.state)}</p>
    </div>
  );
}

const SHOWN_REFUSALS = 100;

/** The error report (line, reason, the source values), read once the run is over, shown as a table, and offered as a file. */
function RefusedRows({ imp, columns }: { imp: Import; columns: string[] }) {
  const report = useImportReport(imp.id);
  if (imp.counts.refused === 0) return null;
  return (
    <div className="transfer-refused">
      <p>
        <a href={importReportUrl(imp.id)} download>
          {t('transfer.import.report', { count: imp.counts.refused })}
        </a>
      </p>
      {report.isPending && <Loading />}
      {report.isError && <p className="field-error">{errorText(report.error)}</p>}
      {report.data && (
        <DataTable
          className="transfer-table"
          variant="grid"
          caption={t('transfer.import.refusedCaption', { shown: Math.min(report.data.length, SHOWN_REFUSALS), count: imp.counts.refused })}
          columns={[
            { id: 'line', header: t('transfer.import.col.line'), cell: (row: string[]) => row[0] },
            { id: 'reason', header: t('transfer.import.col.reason'), cell: (row: string[]) => row[1] },
            ...columns.map((c, j) => ({ id: `source-${c}`, header: c, cell: (row: string[]) => row[j + 2] ?? '' })),
          ]}
          rows={report.data.slice(0, SHOWN_REFUSALS)}
          rowKey={(_, i) => i}
          rowAttributes={() => ({ 'data-testid': 'refused-row' })}
        />
      )}
    </div>
  );
}
