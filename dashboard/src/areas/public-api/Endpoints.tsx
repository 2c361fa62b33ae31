import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors';
import { t } from '../../i18n/t';
import { navigate } from '../../navigation';
import { ErrorPanel, Field, FormError, Loading, useTitle } from '../../ui';
import { useAppNames, useConnectionNames, useCreateScope, useScopes, type Scope } from './api';
import { PublicApiHeader } from './shared';
import { DataTable } from '../../ui/DataTable';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { AddIcon, EditIcon, EndpointIcon } from '../../ui/icons';
import { Section } from '../../ui/Section';

/** The connection filter's value for every connection. */
const ALL = '';

export const endpointPath = (ref: string) => `/public-api/endpoints/${encodeURIComponent(ref)}`;

/** What an endpoint is, in a word: the app's, an extra one, the table's generated one (stored, edited or not). */
export function scopeState(scope: Scope, appName: (key: string) => string): string {
  if (scope.addonKey) return t('publicApi.endpoints.state.app', { app: appName(scope.addonKey) });
  if (!scope.generated) return t('publicApi.endpoints.state.extra');
  if (scope.virtual) return t('publicApi.endpoints.state.virtual');
  return scope.edited ? t('publicApi.endpoints.state.edited') : t('publicApi.endpoints.state.stored');
}

/** Every endpoint of every connection, and a form to store a table's generated one or add another over a table. */
export function Endpoints() {
  useTitle('publicApi.endpoints.title');
  const scopes = useScopes();
  const connections = useConnectionNames();
  const apps = useAppNames();
  const [connection, setConnection] = useState(ALL);
  const filterId = useId();

  if (scopes.isPending) return <Loading />;
  if (scopes.isError) return <ErrorPanel error={scopes.error} onRetry={() => void scopes.refetch()} />;
  const connectionName = (id: string) => connections.data?.get(id) ?? id;
  const appName = (key: string) => apps.data?.get(key) ?? key;
  const connectionIds = [...new Set(scopes.data.map((s) => s.connectionId))];
  const shown = scopes.data.filter((s) => connection === ALL || s.connectionId === connection);

  return (
    <>
      <PublicApiHeader
        title={t('publicApi.endpoints.title')}
        description={t('publicApi.endpoints.intro')}
        actions={
          connectionIds.length > 0 && (
            <a href="#pa-create-endpoint" className="button">
              <AddIcon className="icon" aria-hidden="true" />
              {t('publicApi.create.title')}
            </a>
          )
        }
      />
      <Section plain id="pa-endpoint-list" icon={EndpointIcon} title={t('publicApi.endpoints.listTitle')}>
        {connectionIds.length > 1 && (
          <div className="field pa-inline">
            <label htmlFor={filterId}>{t('publicApi.endpoints.filterConnection')}</label>
            <select id={filterId} value={connection} onChange={(e) => setConnection(e.target.value)}>
              <option value={ALL}>{t('publicApi.endpoints.allConnections')}</option>
              {connectionIds.map((id) => (
                <option key={id} value={id}>
                  {connectionName(id)}
                </option>
              ))}
            </select>
          </div>
        )}
        <DataTable
          stacked
          className="pa-table"
          caption={t('publicApi.endpoints.listTitle')}
          captionHidden
          empty={<EmptyState icon={EndpointIcon}>{t('publicApi.endpoints.empty')}</EmptyState>}
          columns={[
            { id: 'ref', header: t('publicApi.endpoints.col.ref'), rowHeader: true, cell: (s: Scope) => <Link href={endpointPath(s.ref)}>{s.ref}</Link> },
            { id: 'connection', header: t('publicApi.endpoints.col.connection'), cell: (s: Scope) => connectionName(s.connectionId) },
            { id: 'table', header: t('publicApi.endpoints.col.table'), cell: (s: Scope) => s.table },
            {
              id: 'methods',
              header: t('publicApi.endpoints.col.methods'),
              cell: (s: Scope) =>
                s.methods.length ? (
                  <span className="pa-methods">
                    {s.methods.map((m) => (
                      <Badge key={m} tone={m === 'GET' ? 'success' : m === 'DELETE' ? 'danger' : 'warning'} dot={false}>
                        {m}
                      </Badge>
                    ))}
                  </span>
                ) : (
                  t('publicApi.endpoints.noMethods')
                ),
            },
            {
              id: 'state',
              header: t('publicApi.endpoints.col.state'),
              cell: (s: Scope) => (
                <>
                  {scopeState(s, appName)}
                  {s.filters.length > 0 && (
                    <>
                      {' '}
                      <Badge tone="accent" dot={false}>
                        {t('publicApi.endpoints.filtered', { count: s.filters.length })}
                      </Badge>
                    </>
                  )}
                  {s.problems.length > 0 && (
                    <>
                      {' '}
                      <Badge tone="danger">{t('publicApi.endpoints.problems', { count: s.problems.length })}</Badge>
                    </>
                  )}
                </>
              ),
            },
          ]}
          rows={shown}
          rowKey={(s) => s.ref}
          rowAttributes={() => ({ 'data-testid': 'endpoint-row' })}
        />
      </Section>
      <CreateEndpoint scopes={scopes.data} connectionIds={connectionIds} connectionName={connectionName} />
    </>
  );
}

function CreateEndpoint({ scopes, connectionIds, connectionName }: { scopes: Scope[]; connectionIds: string[]; connectionName: (id: string) => string }) {
  const [connectionId, setConnectionId] = useState(connectionIds[0] ?? '');
  const tables = scopes.filter((s) => s.generated && s.connectionId === connectionId && !s.addonKey);
  const [table, setTable] = useState('');
  const chosen = tables.find((s) => s.table === table) ?? tables[0];
  const connectionField = useId();
  const tableField = useId();
  const [ref, setRef] = useState('');
  // The table's generated endpoint is stored already: there is nothing to create, the editor opens.
  const opens = chosen !== undefined && !chosen.virtual && ref.trim() === '';
  const create = useCreateScope({ onSuccess: (scope) => navigate(endpointPath(scope.ref)) });
  const error = create.error instanceof ApiError ? create.error : null;
  const fields = error?.fieldErrors() ?? {};
  // A name another endpoint has (409 CONFLICT ref-taken) is the name field's problem.
  if (error?.params.reason === 'ref-taken') fields.ref = error.message;
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Without a table the button is disabled (and so is submitting with Enter).
    if (!chosen) return;
    if (opens) navigate(endpointPath(chosen.ref));
    // A new endpoint starts read-only (GET, the generated readable columns: neither secret nor personal); writing is opted into in the editor.
    else create.mutate({ ref: ref.trim() || chosen.ref, connectionId, table: chosen.table, methods: ['GET'], writable: [] });
  };

  if (connectionIds.length === 0) return <p>{t('publicApi.create.noConnections')}</p>;
  return (
    <Section id="pa-create-endpoint" icon={AddIcon} title={t('publicApi.create.title')} description={t('publicApi.create.intro')} className="pa-card">
      <form noValidate onSubmit={onSubmit}>
        <FormError error={error} />
        <div className="pa-row">
          <div className="field">
            <label htmlFor={connectionField}>{t('publicApi.create.connection')}</label>
            <select
              id={connectionField}
              value={connectionId}
              onChange={(e) => {
                setConnectionId(e.target.value);
                setTable('');
              }}
            >
              {connectionIds.map((id) => (
                <option key={id} value={id}>
                  {connectionName(id)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={tableField}>{t('publicApi.create.table')}</label>
            <select
              id={tableField}
              value={chosen?.table ?? ''}
              onChange={(e) => setTable(e.target.value)}
              aria-invalid={fields.table ? true : undefined}
              aria-describedby={fields.table ? `${tableField}-error` : undefined}
            >
              {tables.map((s) => (
                <option key={s.ref} value={s.table}>
                  {s.table}
                </option>
              ))}
            </select>
            {fields.table && (
              <p className="field-error" id={`${tableField}-error`}>
                {fields.table}
              </p>
            )}
          </div>
        </div>
        <Field
          label="publicApi.create.ref"
          hint="publicApi.create.refHint"
          name="ref"
          autoComplete="off"
          placeholder={chosen?.ref ?? ''}
          value={ref}
          onChange={(e) => setRef(e.target.value)}
          error={fields.ref}
        />
        {opens && <p className="hint">{t('publicApi.create.alreadyStored', { ref: chosen.ref })}</p>}
        <button type="submit" disabled={create.isPending || !chosen}>
          {opens ? <EditIcon className="icon" aria-hidden="true" /> : <AddIcon className="icon" aria-hidden="true" />}
          {create.isPending ? t('publicApi.create.submitting') : opens ? t('publicApi.create.open', { ref: chosen.ref }) : t('publicApi.create.submit')}
        </button>
      </form>
    </Section>
  );
}
