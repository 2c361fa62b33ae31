import { useEffect, useId, useRef, useState } from 'react';
import { Link, useParams } from 'wouter';
import { isFinal, useCancelJob, useJob, useJobList, useResults, type Export, type Import, type Job } from './api';
import { t } from '../../i18n/t';
import { ErrorPanel, FormError, Loading, useTitle } from '../../ui';
import { exportDownloadUrl, importReportUrl, kindText, param, Progress, StateBadge, stateText, when } from './shared';
import { BackLink } from '../../ui/BackLink';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { Section } from '../../ui/Section';
import { CloseIcon, ExportIcon, ImportIcon, JobsIcon } from '../../ui/icons';
import { LoadMore } from '../../ui/LoadMore';
import { DataTable } from '../../ui/DataTable';

const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
type JobState = (typeof JOB_STATES)[number];
/** The kinds this area knows by name; others show in the list all the same. */
const KINDS = ['import.run', 'export.run'] as const;
/** The filter's value for "any". */
const ANY = '';
const PAGE = 50;

/** What a job produced, as a link: the export's file, an import's error report, else nothing. */
function ResultLink({ result }: { result: { import?: Import; export?: Export } | undefined }) {
  if (result?.export?.state === 'ready') {
    return (
      <a href={exportDownloadUrl(result.export.id)} download>
        {t('transfer.jobs.download', { name: result.export.fileName ?? result.export.table })}
      </a>
    );
  }
  const imp = result?.import;
  if (imp && isFinal(imp.state) && imp.state !== 'cancelled') {
    return (
      <span>
        {t('transfer.jobs.importResult', { table: imp.table, inserted: imp.counts.inserted, refused: imp.counts.refused, dryRun: String(imp.dryRun) })}
      </span>
    );
  }
  return null;
}

/** "Import into items", "Export of people"; the kind alone until the import or export behind the job is known. */
function jobName(job: Job, result: { import?: Import; export?: Export } | undefined): string {
  const table = result?.import?.table ?? result?.export?.table;
  if (table === undefined) return kindText(job.kind);
  return t('transfer.jobs.what', { kind: result?.import ? 'import' : 'export', table, raw: job.kind });
}

/** Screen 5, jobs: the jobs the person may see, newest first, with their progress; cancel what still runs. */
export function JobsScreen() {
  useTitle('transfer.jobs.title');
  const id = useId();
  const [state, setState] = useState<JobState | ''>('');
  const [kind, setKind] = useState('');
  const list = useJobList(PAGE, state, kind);
  const jobs = list.data?.pages.flatMap((p) => p.jobs) ?? [];
  const active = jobs.some((j) => !isFinal(j.state));
  const results = useResults(
    jobs.some((j) => j.kind === 'import.run' || j.kind === 'export.run'),
    active,
  );
  const cancel = useCancelJob();
  // The pressed Cancel goes away with the running job: the focus goes to the outcome, not to <body>.
  const outcome = useRef<HTMLDivElement>(null);
  const settled = cancel.isSuccess ? cancel.submittedAt : 0;
  useEffect(() => {
    if (settled) outcome.current?.focus();
  }, [settled]);

  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  return (
    <>
      <PageHeader title={t('transfer.jobs.title')} description={t('transfer.jobs.intro')} />
      <div className="transfer-filters filter-bar">
        <div className="field">
          <label htmlFor={`${id}-state`}>{t('transfer.jobs.filterState')}</label>
          <select id={`${id}-state`} value={state} onChange={(e) => setState(e.currentTarget.value as JobState | '')}>
            <option value={ANY}>{t('transfer.jobs.any')}</option>
            {JOB_STATES.map((s) => (
              <option key={s} value={s}>
                {stateText(s)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-kind`}>{t('transfer.jobs.filterKind')}</label>
          <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value={ANY}>{t('transfer.jobs.any')}</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {kindText(k)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <FormError error={cancel.error} />
      <div ref={outcome} tabIndex={-1} className="outcome">
        {cancel.isSuccess && (
          <p className="notice" role="status">
            {t('transfer.jobs.cancelAsked', { kind: kindText(cancel.data.kind) })}
          </p>
        )}
      </div>
      {jobs.length === 0 ? (
        <EmptyState icon={JobsIcon}>{t(state || kind ? 'transfer.jobs.noneMatch' : 'transfer.jobs.empty')}</EmptyState>
      ) : (
        <DataTable
          className="transfer-table"
          stacked
          caption={t('transfer.jobs.caption', { count: jobs.length })}
          columns={[
            {
              id: 'job',
              header: t('transfer.jobs.col.job'),
              rowHeader: true,
              cell: (job: Job) => (
                <>
                  <Link href={`/jobs/${encodeURIComponent(job.id)}`}>{jobName(job, results.data?.get(job.id))}</Link>
                  <span className="transfer-id">{job.id}</span>
                </>
              ),
            },
            { id: 'state', header: t('transfer.jobs.col.state'), cell: (job: Job) => <StateBadge state={job.state} /> },
            {
              id: 'progress',
              header: t('transfer.jobs.col.progress'),
              cell: (job: Job) =>
                isFinal(job.state) ? (
                  job.state === 'succeeded' ? (
                    t('transfer.percent', { value: 1 })
                  ) : (
                    ''
                  )
                ) : (
                  <Progress value={job.progress} label={t('transfer.jobs.progressOf', { kind: kindText(job.kind) })} />
                ),
            },
            { id: 'created', header: t('transfer.jobs.col.created'), className: 'transfer-when', cell: (job: Job) => when(job.createdAt) },
            { id: 'started', header: t('transfer.jobs.col.started'), className: 'transfer-when', cell: (job: Job) => when(job.startedAt) },
            { id: 'finished', header: t('transfer.jobs.col.finished'), className: 'transfer-when', cell: (job: Job) => when(job.finishedAt) },
            { id: 'result', header: t('transfer.jobs.col.result'), cell: (job: Job) => <ResultLink result={results.data?.get(job.id)} /> },
            {
              id: 'actions',
              header: t('transfer.jobs.col.actions'),
              cell: (job: Job) =>
                !isFinal(job.state) && (
                  <button
                    type="button"
                    disabled={cancel.isPending || job.cancelRequested}
                    onClick={() => cancel.mutate(job.id)}
                    className="secondary"
                    aria-label={t('transfer.jobs.cancelOne', { kind: kindText(job.kind), when: when(job.createdAt) })}
                  >
                    <CloseIcon className="icon" aria-hidden="true" />
                    {job.cancelRequested ? t('transfer.cancelling') : t('transfer.jobs.cancel')}
                  </button>
                ),
            },
          ]}
          rows={jobs}
          rowKey={(job) => job.id}
          rowAttributes={(job) => ({ 'data-testid': 'job-row', 'data-kind': job.kind })}
        />
      )}
      <LoadMore list={list} label={t('transfer.jobs.more')} />
    </>
  );
}

/** One job: its state and progress, what it produced, and cancel while it runs. */
export function JobScreen() {
  useTitle('transfer.job.title');
  const params = useParams<{ id: string }>();
  const id = param(params.id);
  const query = useJob(id);
  const job = query.data;
  const results = useResults(job !== undefined && (job.kind === 'import.run' || job.kind === 'export.run'), job !== undefined && !isFinal(job.state));
  const cancel = useCancelJob();
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  const j = job!;
  const result = results.data?.get(j.id);
  return (
    <>
      <BackLink href="/jobs">{t('transfer.job.back')}</BackLink>
      <PageHeader
        title={t('transfer.job.heading', { kind: jobName(j, result) })}
        actions={
          !isFinal(j.state) && (
            <button type="button" className="secondary" disabled={cancel.isPending || j.cancelRequested} onClick={() => cancel.mutate(j.id)}>
              <CloseIcon className="icon" aria-hidden="true" />
              {j.cancelRequested || cancel.isPending ? t('transfer.cancelling') : t('transfer.jobs.cancel')}
            </button>
          )
        }
      />
      <dl className="transfer-counts details-list card">
        <dt>{t('transfer.job.id')}</dt>
        <dd>{j.id}</dd>
        <dt>{t('transfer.jobs.col.state')}</dt>
        <dd>
          <StateBadge state={j.state} testId="job-state" />
        </dd>
        <dt>{t('transfer.jobs.col.created')}</dt>
        <dd>{when(j.createdAt)}</dd>
        <dt>{t('transfer.jobs.col.started')}</dt>
        <dd>{when(j.startedAt)}</dd>
        <dt>{t('transfer.jobs.col.finished')}</dt>
        <dd>{when(j.finishedAt)}</dd>
        <dt>{t('transfer.job.attempts')}</dt>
        <dd>{t('transfer.job.attemptsOf', { attempts: j.attempts, max: j.maxAttempts })}</dd>
        {j.kind !== 'import.run' && j.kind !== 'export.run' && j.result !== null && j.result !== undefined && (
          <>
            <dt>{t('transfer.job.result')}</dt>
            <dd>
              <code>{JSON.stringify(j.result)}</code>
            </dd>
          </>
        )}
        {j.progressMessage && (
          <>
            <dt>{t('transfer.job.message')}</dt>
            <dd>{j.progressMessage}</dd>
          </>
        )}
      </dl>
      {!isFinal(j.state) && (
        <>
          <Progress value={j.progress} label={t('transfer.jobs.progressOf', { kind: kindText(j.kind) })} />
        </>
      )}
      <FormError error={cancel.error} />
      {j.state === 'cancelled' && (
        <p className="notice" role="status">
          {t('transfer.job.cancelled')}
        </p>
      )}
      {j.state === 'failed' && j.error && (
        <div className="form-error" role="alert">
          <p>{j.error.message}</p>
        </div>
      )}
      {result && <JobResult job={j} result={result} />}
    </>
  );
}

function JobResult({ job, result }: { job: Job; result: { import?: Import; export?: Export } }) {
  const id = useId();
  const imp = result.import;
  const exp = result.export;
  return (
    <Section id={`${id}-h`} icon={imp ? ImportIcon : ExportIcon} title={t(imp ? 'transfer.job.import' : 'transfer.job.export')} className="transfer-result">
      {imp && (
        <>
          <dl className="transfer-counts details-list">
            <dt>{t('transfer.job.table')}</dt>
            <dd>{imp.table}</dd>
            <dt>{t('transfer.job.dryRun')}</dt>
            <dd>{t('transfer.yesNo', { value: String(imp.dryRun) })}</dd>
            <dt>{t('transfer.import.count.total')}</dt>
            <dd>{imp.counts.total}</dd>
            <dt>{t('transfer.import.count.inserted')}</dt>
            <dd>{imp.counts.inserted}</dd>
            <dt>{t('transfer.import.count.updated')}</dt>
            <dd>{imp.counts.updated}</dd>
            <dt>{t('transfer.import.count.refused')}</dt>
            <dd>{imp.counts.refused}</dd>
          </dl>
          {imp.counts.refused > 0 && isFinal(job.state) && (
            <p>
              <a href={importReportUrl(imp.id)} download className="button secondary">
                <ExportIcon className="icon" aria-hidden="true" />
                {t('transfer.import.report', { count: imp.counts.refused })}
              </a>
            </p>
          )}
        </>
      )}
      {exp && (
        <>
          <dl className="transfer-counts details-list">
            <dt>{t('transfer.job.table')}</dt>
            <dd>{exp.table}</dd>
            <dt>{t('transfer.export.format')}</dt>
            <dd>{t('transfer.export.formatName', { format: exp.format })}</dd>
            <dt>{t('transfer.job.rows')}</dt>
            <dd>{exp.rowCount ?? ''}</dd>
          </dl>
          {exp.state === 'ready' && (
            <p>
              <a href={exportDownloadUrl(exp.id)} download className="button">
                <ExportIcon className="icon" aria-hidden="true" />
                {t('transfer.export.download', { name: exp.fileName ?? '' })}
              </a>
            </p>
          )}
        </>
      )}
    </Section>
  );
}
