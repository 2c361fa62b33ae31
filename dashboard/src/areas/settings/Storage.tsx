import { useState, type FormEvent } from 'react';
import type { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { Field, FormError, Loading } from '../../ui';
import { LoadError, SettingsScreen } from './common';
import { usePlacement, useRelocate, useRelocationJob, type RelocateBody } from './api';

type Mode = 'test' | 'dry-run' | 'run';

interface TableResult {
  name: string;
  rows: number;
  copied?: number;
  recopied?: number;
}

interface JobResult {
  dryRun: boolean;
  tables: TableResult[];
  rows: number;
  copyMs: number;
  freezeMs: number;
}

/** /settings/storage: where the meta store is, and the wizard that moves it (decisions MR1–MR3). */
/** Where the data can move: a database server (a URL) or the embedded file. */
const TARGETS = { server: 'server', embedded: 'embedded' } as const;
type Target = (typeof TARGETS)[keyof typeof TARGETS];

export function Storage() {
  const placement = usePlacement();
  return (
    <SettingsScreen title="settings.storage.title">
      <p>{t('settings.storage.intro')}</p>
      {placement.isPending ? (
        <Loading />
      ) : placement.isError ? (
        <LoadError error={placement.error} onRetry={() => void placement.refetch()} />
      ) : (
        <>
          <section aria-labelledby="storage-where">
            <h2 id="storage-where">{t('settings.storage.where')}</h2>
            <dl className="settings-facts">
              <dt>{t('settings.storage.dialect')}</dt>
              <dd>{t('settings.storage.dialectValue', { dialect: placement.data.dialect })}</dd>
              <dt>{t('settings.storage.location')}</dt>
              <dd>
                <code>{placement.data.location}</code>
              </dd>
              {placement.data.previous && (
                <>
                  <dt>{t('settings.storage.previous')}</dt>
                  <dd>
                    {t('settings.storage.previousValue', {
                      dialect: placement.data.previous.dialect,
                      at: new Date(placement.data.previous.relocatedAt).toLocaleString(),
                    })}{' '}
                    <code>{placement.data.previous.location}</code>
                  </dd>
                </>
              )}
            </dl>
            {placement.data.previous?.dialect === 'sqlite' && <p>{t('settings.storage.backup')}</p>}
          </section>
          {placement.data.fromEnv ? (
            <p className="notice" role="note">
              {t('settings.storage.fromEnv')}
            </p>
          ) : (
            <Wizard embedded={placement.data.embedded} progress={placement.data.relocation} />
          )}
        </>
      )}
    </SettingsScreen>
  );
}

type Relocation = NonNullable<ReturnType<typeof usePlacement>['data']>['relocation'];

function Wizard({ embedded, progress }: { embedded: boolean; progress: Relocation }) {
  const [target, setTarget] = useState<Target>(embedded ? TARGETS.server : TARGETS.embedded);
  const [url, setUrl] = useState('');
  const [mode, setMode] = useState<Mode | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const relocate = useRelocate();
  const job = useRelocationJob(jobId);

  const start = async (which: Mode, e?: FormEvent) => {
    e?.preventDefault();
    setMode(which);
    setJobId(null);
    const body: RelocateBody = target === 'embedded' ? { target: 'embedded', dryRun: which !== 'run' } : { url: url.trim(), dryRun: which !== 'run' };
    try {
      const queued = await relocate.mutateAsync(body);
      setJobId(queued.id);
    } catch {
      // shown from relocate.error
    }
  };

  const state = job.data?.state;
  const busy = relocate.isPending || (jobId !== null && state !== 'succeeded' && state !== 'failed' && state !== 'cancelled');
  const result = (state === 'succeeded' ? job.data?.result : null) as JobResult | null;

  return (
    <section aria-labelledby="storage-move">
      <h2 id="storage-move">{t('settings.storage.move')}</h2>
      <p>{t('settings.storage.moveIntro')}</p>
      <form className="settings-form" onSubmit={(e) => void start('run', e)} noValidate>
        <FormError error={relocate.error as ApiError | null} />
        <fieldset>
          <legend>{t('settings.storage.target')}</legend>
          <label className="storage-choice">
            <input type="radio" name="target" value={TARGETS.server} checked={target === TARGETS.server} onChange={() => setTarget(TARGETS.server)} />{' '}
            {t('settings.storage.targetServer')}
          </label>
          <label className="storage-choice">
            <input
              type="radio"
              name="target"
              value={TARGETS.embedded}
              checked={target === TARGETS.embedded}
              onChange={() => setTarget(TARGETS.embedded)}
              disabled={embedded}
            />{' '}
            {t('settings.storage.targetEmbedded')}
          </label>
        </fieldset>
        {target === 'server' && (
          <Field
            label="settings.storage.url"
            hint="settings.storage.urlHint"
            name="url"
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        )}
        <div className="storage-actions">
          <button type="button" className="secondary" disabled={busy} onClick={() => void start('test')}>
            {t('settings.storage.test')}
          </button>
          <button type="button" className="secondary" disabled={busy} onClick={() => void start('dry-run')}>
            {t('settings.storage.dryRun')}
          </button>
          <button type="submit" disabled={busy}>
            {t('settings.storage.run')}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {busy && mode && <p role="status">{t(mode === 'run' ? 'settings.storage.running' : 'settings.storage.checking')}</p>}
        {state === 'failed' && (
          <div className="form-error" role="alert">
            <p>{job.data?.error?.message ?? t('settings.storage.failed')}</p>
          </div>
        )}
        {result && mode === 'test' && (
          <p className="notice" role="status">
            {t('settings.storage.testOk')}
          </p>
        )}
        {result && !result.dryRun && (
          <p className="notice" role="status">
            {t('settings.storage.done', { rows: result.rows, copyMs: result.copyMs, freezeMs: result.freezeMs })}
          </p>
        )}
      </div>
      {mode === 'run' && progress && progress.tables.length > 0 && <Progress progress={progress} />}
      {result && mode === 'dry-run' && <Tables tables={result.tables} caption="settings.storage.dryRunCaption" />}
    </section>
  );
}

function Progress({ progress }: { progress: NonNullable<Relocation> }) {
  const done = progress.phase === 'done';
  const rows = progress.tables.reduce((sum, table) => sum + table.rows, 0);
  const copied = progress.tables.reduce((sum, table) => sum + (table.copied ?? 0), 0);
  return (
    <>
      {/* Once done, the status line above says it all: the phase and the freeze are not repeated. */}
      {!done && <p>{t('settings.storage.phase', { phase: progress.phase })}</p>}
      {!done && progress.freezeMs !== null && <p>{t('settings.storage.freeze', { ms: progress.freezeMs })}</p>}
      {!done && rows > 0 && (
        <progress className="storage-progress" max={rows} value={Math.min(copied, rows)} aria-label={t('settings.storage.progressCaption')} />
      )}
      {/* Every table of the store (some sixty): open while it runs, folded away once done. */}
      <details className="storage-details" open={!done}>
        <summary>{t('settings.storage.tablesSummary', { count: progress.tables.length, rows })}</summary>
        <Tables tables={progress.tables} caption="settings.storage.progressCaption" />
      </details>
    </>
  );
}

function Tables({ tables, caption }: { tables: TableResult[]; caption: 'settings.storage.dryRunCaption' | 'settings.storage.progressCaption' }) {
  return (
    <div className="storage-tables">
      <table>
        <caption>{t(caption)}</caption>
        <thead>
          <tr>
            <th scope="col">{t('settings.storage.table')}</th>
            <th scope="col">{t('settings.storage.rows')}</th>
            {caption === 'settings.storage.progressCaption' && <th scope="col">{t('settings.storage.copied')}</th>}
          </tr>
        </thead>
        <tbody>
          {tables.map((row) => (
            <tr key={row.name}>
              <th scope="row">{row.name}</th>
              <td>{row.rows}</td>
              {caption === 'settings.storage.progressCaption' && <td>{row.copied ?? 0}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
