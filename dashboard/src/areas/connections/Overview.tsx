import { Link, useParams } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading } from '../../ui';
import { paths, TLS_LABELS, useIntrospect, useSchema, useTestConnection, when, whereOf, type Connection, type EffectiveTable } from './api';
import { ConnectionFailure, ConnectionScreen } from './parts';
import './connections.css';
import { useCan } from '../account/api';

/** A connection's page: where it points, its tables and views (each opens its grid), test and re-read. */
export function ConnectionOverview() {
  const { id = '' } = useParams<{ id: string }>();
  return (
    <ConnectionScreen id={id} section="connections.tab.overview">
      {(c) => <Overview connection={c} />}
    </ConnectionScreen>
  );
}

function Overview({ connection: c }: { connection: Connection }) {
  const schema = useSchema(c.id);
  const canWrite = useCan('connections.write');
  return (
    <>
      <section aria-labelledby="conn-about">
        <h2 id="conn-about">{t('connections.about')}</h2>
        <dl className="conn-facts">
          <dt>{c.dialect === 'sqlite' ? t('connections.fact.file') : t('connections.fact.where')}</dt>
          <dd className="conn-where">{whereOf(c)}</dd>
          {c.user && (
            <>
              <dt>{t('connections.fact.user')}</dt>
              <dd>{c.user}</dd>
            </>
          )}
          {c.tls && (
            <>
              <dt>{t('connections.fact.tls')}</dt>
              <dd>{t(TLS_LABELS[c.tls])}</dd>
            </>
          )}
          <dt>{t('connections.fact.serverVersion')}</dt>
          <dd>{c.serverVersion ?? t('connections.unknown')}</dd>
          <dt>{t('connections.fact.access')}</dt>
          <dd>{c.readOnly ? t('connections.readOnly') : t('connections.readWrite')}</dd>
        </dl>
        {canWrite && (
          <div className="actions">
            <TestNow connection={c} />
          </div>
        )}
      </section>

      <section aria-labelledby="conn-tables">
        <h2 id="conn-tables">{t('connections.tables.title')}</h2>
        {canWrite && <Introspect id={c.id} />}
        {schema.isPending ? (
          <Loading />
        ) : schema.isError ? (
          <ErrorPanel error={schema.error} onRetry={() => void schema.refetch()} />
        ) : schema.data === null ? (
          <p>{t('connections.schema.notRead')}</p>
        ) : (
          <TableLists id={c.id} tables={schema.data.model.tables} />
        )}
      </section>
    </>
  );
}

function TableLists({ id, tables }: { id: string; tables: EffectiveTable[] }) {
  const shown = tables.filter((x) => !x.display.hidden);
  const hidden = tables.length - shown.length;
  const real = shown.filter((x) => x.kind === 'table');
  const views = shown.filter((x) => x.kind === 'view');
  return (
    <>
      <h3>{t('connections.tables.tables', { count: real.length })}</h3>
      {real.length === 0 ? <p>{t('connections.tables.none')}</p> : <TableLinks id={id} tables={real} label="connections.tables.tablesLabel" />}
      <h3>{t('connections.tables.views', { count: views.length })}</h3>
      {views.length === 0 ? <p>{t('connections.tables.noViews')}</p> : <TableLinks id={id} tables={views} label="connections.tables.viewsLabel" />}
      {hidden > 0 && (
        <p className="hint">
          {t('connections.tables.hidden', { count: hidden })} <Link href={paths.overrides(id)}>{t('connections.tables.hiddenLink')}</Link>
        </p>
      )}
    </>
  );
}

function TableLinks({
  id,
  tables,
  label,
}: {
  id: string;
  tables: EffectiveTable[];
  label: 'connections.tables.tablesLabel' | 'connections.tables.viewsLabel';
}) {
  return (
    <ul className="conn-tables" aria-label={t(label)}>
      {tables.map((table) => (
        <li key={table.ref} data-testid="table">
          <Link href={paths.table(id, table.ref)}>{table.display.label}</Link>
          <span className="conn-ref">{table.ref}</span>
          <span className="hint">
            {table.rowEstimate !== null && table.rowEstimate >= 0
              ? t('connections.tables.summaryRows', { columns: table.columns.length, rows: table.rowEstimate })
              : t('connections.tables.summary', { columns: table.columns.length })}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** POST /connections/{id}/test: the database now; the outcome becomes the connection's health. */
function TestNow({ connection }: { connection: Connection }) {
  const test = useTestConnection(connection.id);
  return (
    <div className="conn-test">
      <button type="button" className="secondary" onClick={() => test.mutate()} disabled={test.isPending}>
        {test.isPending ? t('connections.form.testing') : t('connections.testNow')}
      </button>
      <div>
        {test.isSuccess && (
          <p className="notice" role="status">
            {t('connections.form.testOk', { version: test.data.serverVersion, latency: Math.round(test.data.latencyMs) })}
          </p>
        )}
        {test.isError && <ConnectionFailure error={test.error} />}
      </div>
    </div>
  );
}

/** POST /connections/{id}/introspect: reads the schema again; a change stores a snapshot. */
export function Introspect({ id }: { id: string }) {
  const run = useIntrospect(id);
  const outcome = run.data?.data;
  return (
    <div className="conn-test">
      <button type="button" className="secondary" onClick={() => run.mutate()} disabled={run.isPending}>
        {run.isPending ? t('connections.introspect.running') : t('connections.introspect.run')}
      </button>
      <div>
        {outcome && 'job' in outcome && (
          <p className="notice" role="status">
            {t('connections.introspect.background')}
          </p>
        )}
        {outcome && 'snapshot' in outcome && (
          <p className="notice" role="status">
            {outcome.created
              ? t('connections.introspect.changed', {
                  added: outcome.diff?.tablesAdded.length ?? 0,
                  removed: outcome.diff?.tablesRemoved.length ?? 0,
                  changed: outcome.diff?.tablesChanged.length ?? 0,
                  when: when(outcome.snapshot.createdAt),
                })
              : t('connections.introspect.unchanged', { when: when(outcome.snapshot.createdAt) })}{' '}
            {outcome.created && <Link href={paths.snapshots(id)}>{t('connections.introspect.seeDiff')}</Link>}
          </p>
        )}
        {run.isError && (
          <div className="form-error" role="alert">
            <p>{errorText(run.error)}</p>
          </div>
        )}
      </div>
    </div>
  );
}
