import { useEffect, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { errorText, ErrorPanel, Field, FormError, Loading, SelectField, useSubmit, useTitle } from '../../ui';
import { Badge, type BadgeTone } from '../../ui/Badge';
import { AskIcon, AuditIcon, SettingsIcon } from '../../ui/icons';
import { PageHeader } from '../../ui/PageHeader';
import { Section } from '../../ui/Section';
import { useCopy } from '../../ui/useCopy';
import { useCan } from '../account/api';
import {
  useApply,
  useAskConnections,
  useAskTables,
  useCreateRun,
  useDiff,
  useExecute,
  usePrompt,
  useRespond,
  useRun,
  useRuns,
  useUndo,
  type LlmDiff,
  type LlmRun,
} from './api';
import './llm.css';

const STATES: Record<LlmRun['state'], MessageId> = {
  prompted: 'llm.state.prompted',
  running: 'llm.state.running',
  answered: 'llm.state.answered',
  parsed: 'llm.state.parsed',
  invalid: 'llm.state.invalid',
  applied: 'llm.state.applied',
  undone: 'llm.state.undone',
  failed: 'llm.state.failed',
  discarded: 'llm.state.discarded',
};

/** How a run stands, as a badge's colour: done, undone or set aside, waiting for the person, failed. */
const TONES: Record<LlmRun['state'], BadgeTone> = {
  prompted: 'accent',
  running: 'accent',
  answered: 'accent',
  parsed: 'warning',
  invalid: 'danger',
  applied: 'success',
  undone: 'neutral',
  failed: 'danger',
  discarded: 'neutral',
};

const StateBadge = ({ state }: { state: LlmRun['state'] }) => <Badge tone={TONES[state]}>{t(STATES[state])}</Badge>;

const OPS: Record<LlmDiff['changes'][number]['op'], MessageId> = {
  insert: 'llm.op.insert',
  update: 'llm.op.update',
  delete: 'llm.op.delete',
  'create-view': 'llm.op.createView',
  'create-page': 'llm.op.createPage',
};

const when = (ms: number) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
/** The server gives the undo token back to who may undo, while it is valid (decisions LL10). */
const undoable = (run: LlmRun): run is LlmRun & { undoToken: string } =>
  run.state === 'applied' && run.undoToken !== undefined && run.undoExpiresAt !== null && run.undoExpiresAt > Date.now();

/** /ask: a request about a connection's tables becomes a prompt, an answer, a diff, an apply with one undo; the runs so far below. */
export function Ask() {
  useTitle('llm.ask.title');
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const runId = search.get('run') ?? '';
  const isAdmin = useCan('llm.admin');
  return (
    <>
      <Breadcrumbs items={[{ label: t('llm.ask.title') }]} />
      <PageHeader
        title={t('llm.ask.title')}
        description={t('llm.ask.intro')}
        actions={
          isAdmin && (
            <Link href="/settings/ai" className="button secondary">
              <SettingsIcon className="icon" aria-hidden="true" />
              {t('llm.ask.toSettings')}
            </Link>
          )
        }
      />
      <AskForm connection={search.get('connection') ?? ''} table={search.get('table') ?? ''} onRun={(id) => navigate(`/ask?run=${encodeURIComponent(id)}`)} />
      {runId && <RunPanel id={runId} />}
      <History current={runId} />
    </>
  );
}

function AskForm({ connection, table, onRun }: { connection: string; table: string; onRun: (id: string) => void }) {
  const connections = useAskConnections();
  const [connectionId, setConnectionId] = useState(connection);
  const [samples, setSamples] = useState('0');
  useEffect(() => {
    if (!connectionId && connections.data?.[0]) setConnectionId(connections.data[0].id);
  }, [connectionId, connections.data]);
  const tables = useAskTables(connectionId);
  const create = useCreateRun();
  const form = useSubmit(async (v) => {
    const chosen = (tables.data ?? []).filter((tb) => v[`table.${tb.ref}`] === 'on').map((tb) => tb.ref);
    const n = /^\d+$/.test(samples) ? Number(samples) : 0;
    const run = await create.mutateAsync({ request: v.request ?? '', connectionId, includeSampleRows: n, ...(chosen.length ? { tables: chosen } : {}) });
    onRun(run.id);
  });
  if (connections.isPending) return <Loading />;
  if (connections.isError) return <ErrorPanel error={connections.error} onRetry={() => void connections.refetch()} />;
  if (connections.data.length === 0) return <p>{t('llm.ask.noConnections')}</p>;
  return (
    <Section title={t('llm.ask.formLabel')} icon={AskIcon}>
      <form className="llm-form" onSubmit={(e) => void form.onSubmit(e)} noValidate aria-label={t('llm.ask.formLabel')}>
        <FormError error={form.error} />
        <SelectField
          label="llm.ask.connection"
          name="connectionId"
          options={connections.data.map((c) => ({ value: c.id, label: c.name }))}
          value={connectionId}
          onChange={(e) => setConnectionId(e.target.value)}
          error={form.fields['connectionId']}
        />
        {tables.data && tables.data.length > 0 && (
          <fieldset className="llm-tables">
            <legend>{t('llm.ask.tables')}</legend>
            <p className="hint">{t('llm.ask.tablesHint')}</p>
            <ul>
              {tables.data.map((tb) => (
                <li key={tb.ref}>
                  <label>
                    <input type="checkbox" name={`table.${tb.ref}`} defaultChecked={tb.ref === table} />
                    {tb.label}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        )}
        <div className="field">
          <label htmlFor="llm-request">{t('llm.ask.request')}</label>
          <textarea id="llm-request" name="request" rows={3} maxLength={4000} aria-describedby={form.fields['request'] ? 'llm-request-error' : undefined} />
          {form.fields['request'] && (
            <p className="field-error" id="llm-request-error">
              {form.fields['request']}
            </p>
          )}
        </div>
        <Field
          label="llm.ask.samples"
          name="includeSampleRows"
          inputMode="numeric"
          hint="llm.ask.samplesHint"
          value={samples}
          onChange={(e) => setSamples(e.target.value)}
          error={form.fields['includeSampleRows']}
        />
        <p className="hint" role="status">
          {samples === '0' || samples === '' ? t('llm.ask.sendsSchema') : t('llm.ask.sendsSamples', { count: samples })}
        </p>
        <div className="actions">
          <button type="submit" disabled={form.pending || !connectionId}>
            {t('llm.ask.submit')}
          </button>
        </div>
      </form>
    </Section>
  );
}

function RunPanel({ id }: { id: string }) {
  const run = useRun(id);
  if (run.isPending) return <Loading />;
  if (run.isError) return <ErrorPanel error={run.error} onRetry={() => void run.refetch()} />;
  const r = run.data;
  const answerable = ['prompted', 'failed', 'invalid', 'parsed'].includes(r.state);
  return (
    <Section
      className="llm-run"
      id="llm-run-heading"
      title={t('llm.run.heading')}
      actions={
        <span role="status">
          <span className="visually-hidden">{t('llm.run.stateIs', { state: t(STATES[r.state]) })}</span>
          <span aria-hidden="true">
            <StateBadge state={r.state} />
          </span>
        </span>
      }
    >
      <p className="llm-request">{r.request}</p>
      {r.state === 'failed' && r.error && (
        <div className="form-error" role="alert">
          <p>{r.error.message}</p>
        </div>
      )}
      {r.state === 'invalid' && (
        <div className="form-error" role="alert">
          <p>{t('llm.run.invalid')}</p>
          <ul>
            {r.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {answerable && (r.mode === 'manual' ? <ManualAnswer run={r} /> : <ProviderAnswer run={r} />)}
      {r.state === 'running' && <p>{t('llm.run.working')}</p>}
      {r.state === 'parsed' && <DiffView run={r} />}
      {r.state === 'applied' && <Applied run={r} />}
      {r.state === 'undone' && (
        <p className="notice" role="status">
          {t('llm.run.undone')}
        </p>
      )}
    </Section>
  );
}

function ManualAnswer({ run }: { run: LlmRun }) {
  const prompt = usePrompt(run.id, true);
  const { copy, outcome } = useCopy();
  const respond = useRespond(run.id);
  const form = useSubmit(async (v) => {
    await respond.mutateAsync(v.answer ?? '');
  });
  return (
    <div className="llm-manual">
      <div className="field">
        <label htmlFor="llm-prompt">{t('llm.manual.prompt')}</label>
        <p className="hint" id="llm-prompt-hint">
          {t('llm.manual.promptHint')}
        </p>
        <textarea id="llm-prompt" readOnly rows={8} value={prompt.data?.text ?? ''} aria-describedby="llm-prompt-hint" />
      </div>
      <div className="actions">
        <button type="button" className="secondary" disabled={!prompt.data} onClick={() => void copy(prompt.data?.text ?? '')}>
          {t('llm.manual.copy')}
        </button>
        <span role="status">{outcome}</span>
      </div>
      <form onSubmit={(e) => void form.onSubmit(e)} noValidate aria-label={t('llm.manual.answerForm')}>
        <FormError error={form.error} />
        <div className="field">
          <label htmlFor="llm-answer">{t('llm.manual.answer')}</label>
          <textarea id="llm-answer" name="answer" rows={6} />
        </div>
        <div className="actions">
          <button type="submit" disabled={form.pending}>
            {t('llm.manual.submit')}
          </button>
        </div>
      </form>
    </div>
  );
}

function ProviderAnswer({ run }: { run: LlmRun }) {
  const execute = useExecute(run.id);
  return (
    <div className="actions">
      <button type="button" disabled={execute.isPending} onClick={() => execute.mutate()}>
        {run.state === 'prompted' ? t('llm.provider.send') : t('llm.provider.again')}
      </button>
      {execute.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(execute.error)}</p>
        </div>
      )}
    </div>
  );
}

/** The columns a change touches, before and after, as "name: value" lines. */
function Values({ row, only }: { row: Record<string, unknown> | null | undefined; only?: readonly string[] }) {
  if (!row) return <span className="hint">{t('llm.diff.none')}</span>;
  const names = only ?? Object.keys(row);
  return (
    <dl className="llm-values">
      {names.map((n) => (
        <div key={n}>
          <dt>{n}</dt>
          <dd>{row[n] === null || row[n] === undefined ? t('llm.diff.null') : typeof row[n] === 'string' ? (row[n] as string) : JSON.stringify(row[n])}</dd>
        </div>
      ))}
    </dl>
  );
}

function DiffView({ run }: { run: LlmRun }) {
  const diff = useDiff(run.id, true);
  const apply = useApply(run.id);
  const [skip, setSkip] = useState(false);
  if (diff.isPending) return <Loading />;
  if (diff.isError) return <ErrorPanel error={diff.error} onRetry={() => void diff.refetch()} />;
  const d = diff.data;
  const s = d.summary;
  const changed = apply.error instanceof ApiError && apply.error.code === 'LLM_DIFF_CHANGED';
  const doApply = async () => {
    try {
      await apply.mutateAsync({ diffHash: d.hash, ...(skip ? { skipInvalid: true } : {}) });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'LLM_DIFF_CHANGED') void diff.refetch();
    }
  };
  return (
    <div className="llm-diff">
      <h3>{t('llm.diff.heading')}</h3>
      <p>
        {t('llm.diff.summary', {
          insert: String(s.insert),
          update: String(s.update),
          delete: String(s.delete),
          pages: String(s.pages),
          views: String(s.views),
          invalid: String(s.invalid),
        })}
      </p>
      <div className="llm-diff-scroll">
        <table>
          <caption className="visually-hidden">{t('llm.diff.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('llm.diff.change')}</th>
              <th scope="col">{t('llm.diff.before')}</th>
              <th scope="col">{t('llm.diff.after')}</th>
            </tr>
          </thead>
          <tbody>
            {d.changes.map((c) => {
              const keys =
                c.op === 'update' && c.after && c.before
                  ? Object.keys(c.after).filter((k) => JSON.stringify(c.after![k]) !== JSON.stringify(c.before![k]))
                  : undefined;
              return (
                <tr key={c.index} className={c.valid ? undefined : 'llm-invalid'}>
                  <th scope="row">
                    <span>{t(OPS[c.op])}</span> {c.table && <code>{c.table}</code>} {c.key && <code>{c.key}</code>}
                    {!c.valid && (
                      <div className="llm-problems">
                        <strong>{t('llm.diff.invalid')}</strong>
                        <ul>
                          {c.problems.map((p) => (
                            <li key={p}>{p}</li>
                          ))}
                        </ul>
                      </div>
                    )}
                  </th>
                  <td>
                    {c.op === 'insert' || c.op === 'create-page' || c.op === 'create-view' ? (
                      <span className="hint">{t('llm.diff.none')}</span>
                    ) : (
                      <Values row={c.before} only={keys} />
                    )}
                  </td>
                  <td>{c.op === 'delete' ? <span className="hint">{t('llm.diff.deleted')}</span> : <Values row={c.after} only={keys} />}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {changed && (
        <div className="form-error" role="alert">
          <p>{t('llm.diff.changed')}</p>
        </div>
      )}
      {apply.isError && !changed && <FormError error={apply.error} />}
      {s.invalid > 0 && (
        <div className="field checks">
          <label>
            <input type="checkbox" checked={skip} onChange={(e) => setSkip(e.target.checked)} />
            {t('llm.diff.skipInvalid', { count: String(s.invalid) })}
          </label>
        </div>
      )}
      <div className="actions">
        <button type="button" disabled={apply.isPending || (s.invalid > 0 && !skip)} onClick={() => void doApply()}>
          {t('llm.diff.apply')}
        </button>
      </div>
    </div>
  );
}

function Applied({ run }: { run: LlmRun }) {
  const undo = useUndo(run.id);
  const s = run.summary;
  const conflict = undo.error instanceof ApiError && undo.error.code === 'CONFLICT' ? undo.error.params : undefined;
  const listed = <T,>(name: string) => (Array.isArray(conflict?.[name]) ? (conflict[name] as T[]) : []);
  return (
    <div className="llm-applied">
      <p className="notice" role="status">
        {t('llm.applied.notice', {
          insert: String(s?.insert ?? 0),
          update: String(s?.update ?? 0),
          delete: String(s?.delete ?? 0),
          pages: String(s?.pages ?? 0),
          views: String(s?.views ?? 0),
        })}
      </p>
      <Made run={run} />
      {undoable(run) ? (
        <>
          <p>{t('llm.applied.undoUntil', { when: when(run.undoExpiresAt!) })}</p>
          <div className="actions">
            <button type="button" className="secondary" disabled={undo.isPending} onClick={() => undo.mutate(run.undoToken)}>
              {t('llm.applied.undo')}
            </button>
          </div>
        </>
      ) : (
        <p className="hint">{t('llm.applied.noUndo')}</p>
      )}
      {undo.isError && (
        <div className="form-error" role="alert">
          <p>{conflict ? t('llm.applied.conflict') : errorText(undo.error)}</p>
          {conflict && (
            <ul>
              {listed<{ table: string; recordId: string }>('rows').map((row) => (
                <li key={`row/${row.table}/${row.recordId}`}>
                  <code>{row.table}</code> <code>{row.recordId}</code>
                </li>
              ))}
              {listed<{ pageId: string; title: string }>('pages').map((p) => (
                <li key={`page/${p.pageId}`}>{t('llm.applied.conflictPage', { title: p.title })}</li>
              ))}
              {listed<{ viewId: string; name: string }>('views').map((v) => (
                <li key={`view/${v.viewId}`}>{t('llm.applied.conflictView', { name: v.name })}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** The pages (linked) and shared views the run made. */
function Made({ run }: { run: LlmRun }) {
  const { pages, views } = run.made;
  return (
    <>
      {pages.length > 0 && (
        <div className="llm-made">
          <p>{t('llm.applied.madePages')}</p>
          <ul>
            {pages.map((p) => (
              <li key={p.pageId}>
                <Link href={`/p/${encodeURIComponent(p.slug)}`}>{p.title}</Link>
              </li>
            ))}
          </ul>
        </div>
      )}
      {views.length > 0 && (
        <div className="llm-made">
          <p>{t('llm.applied.madeViews')}</p>
          <ul>
            {views.map((v) => (
              <li key={v.viewId}>{v.name}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

function History({ current }: { current: string }) {
  const runs = useRuns();
  return (
    <Section className="llm-history" id="llm-history-heading" title={t('llm.history.heading')} icon={AuditIcon}>
      {runs.isPending ? (
        <Loading />
      ) : runs.isError ? (
        <ErrorPanel error={runs.error} onRetry={() => void runs.refetch()} />
      ) : runs.data.length === 0 ? (
        <p>{t('llm.history.empty')}</p>
      ) : (
        <ul>
          {runs.data.map((r) => (
            <li key={r.id}>
              <Link href={`/ask?run=${encodeURIComponent(r.id)}`} aria-current={r.id === current ? 'true' : undefined}>
                {r.request.length > 80 ? `${r.request.slice(0, 79)}…` : r.request}
              </Link>{' '}
              <span className="llm-history-meta">
                <StateBadge state={r.state} />
                <span className="hint">{when(r.createdAt)}</span>
              </span>
              {undoable(r) && <HistoryUndo run={r} />}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

/** Undo from the history; why it was refused (rows changed since) is told here, the list on the run's own panel. */
function HistoryUndo({ run }: { run: LlmRun & { undoToken: string } }) {
  const undo = useUndo(run.id);
  return (
    <>
      {' '}
      <button
        type="button"
        className="secondary"
        disabled={undo.isPending}
        aria-label={t('llm.history.undo', { request: run.request.slice(0, 80) })}
        onClick={() => undo.mutate(run.undoToken)}
      >
        {t('llm.applied.undo')}
      </button>
      {undo.isError && (
        <span className="field-error" role="alert">
          {' '}
          {undo.error instanceof ApiError && undo.error.code === 'CONFLICT' ? t('llm.applied.conflict') : errorText(undo.error)}
        </span>
      )}
    </>
  );
}
