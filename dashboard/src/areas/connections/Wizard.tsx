import { useId, useState, type FormEvent } from 'react';
import { useParams } from 'wouter';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { navigate } from '../../navigation';
import { Field, FormError, useTitle } from '../../ui';
import {
  DIALECT_LABELS,
  DIALECTS,
  paths,
  TLS_LABELS,
  reasonOf,
  useSaveConnection,
  useTestTarget,
  type Connection,
  type Dialect,
  type SaveConnection,
} from './api';
import { ConnectionFailure, ConnectionScreen } from './parts';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { ConnectionSettings } from './Settings';
import './connections.css';

type Entry = 'url' | 'fields';
const ENTRIES: Record<Entry, Entry> = { url: 'url', fields: 'fields' };
type Tls = '' | 'disable' | 'require' | 'verify-full';
const TLS_MODES: ReadonlyArray<{ value: Tls; label: MessageId }> = [
  { value: '', label: 'connections.form.tlsDefault' },
  ...(['disable', 'require', 'verify-full'] as const).map((value) => ({ value, label: TLS_LABELS[value] })),
];

interface Target {
  entry: Entry;
  url: string;
  host: string;
  port: string;
  database: string;
  user: string;
  password: string;
  tls: Tls;
  file: string;
}

const SCHEMES: Record<Dialect, string> = { postgres: 'postgres', mysql: 'mysql', sqlite: 'sqlite' };
const DEFAULT_PORTS: Record<Dialect, string> = { postgres: '5432', mysql: '3306', sqlite: '' };

/** The URL the API takes, from the separate fields (user and password percent-encoded). */
export function buildUrl(dialect: Dialect, v: Target): string {
  if (v.entry === 'url' && dialect !== 'sqlite') return v.url.trim();
  if (dialect === 'sqlite') return v.file.trim() ? `sqlite:${v.file.trim()}` : '';
  const enc = encodeURIComponent;
  const auth = v.user ? `${enc(v.user)}${v.password ? `:${enc(v.password)}` : ''}@` : '';
  const host = v.host.trim();
  const port = v.port.trim() ? `:${v.port.trim()}` : '';
  const query = v.tls ? `?sslmode=${v.tls}` : '';
  return host ? `${SCHEMES[dialect]}://${auth}${host}${port}/${enc(v.database.trim())}${query}` : '';
}

function targetOf(c: Connection | null): Target {
  return {
    entry: 'fields',
    url: '',
    host: c?.host ?? '127.0.0.1',
    port: c?.port != null ? String(c.port) : '',
    database: c && c.dialect !== 'sqlite' ? (c.database ?? '') : '',
    user: c?.user ?? '',
    password: '',
    tls: c?.tls ?? '',
    file: c?.dialect === 'sqlite' ? (c.database ?? '') : '',
  };
}

/** Adding a connection: dialect, where (a URL or its parts), read-only; test, then save. */
export function NewConnection() {
  useTitle('connections.new.title');
  return (
    <>
      <Breadcrumbs items={[{ label: t('connections.title'), href: paths.list }, { label: t('connections.new.title') }]} />
      <h1>{t('connections.new.title')}</h1>
      <p>{t('connections.new.intro')}</p>
      <ConnectionForm connection={null} />
    </>
  );
}

/** Renaming a connection, pointing it elsewhere, or changing read-only (PATCH). */
export function EditConnection() {
  const { id = '' } = useParams<{ id: string }>();
  return (
    <ConnectionScreen id={id} section="connections.tab.edit">
      {(c) => (
        <>
          <section aria-labelledby="conn-edit-main">
            <h2 id="conn-edit-main">{t('connections.edit.main')}</h2>
            <ConnectionForm key={c.updatedAt} connection={c} />
          </section>
          <ConnectionSettings connection={c} />
        </>
      )}
    </ConnectionScreen>
  );
}

function ConnectionForm({ connection }: { connection: Connection | null }) {
  const editing = connection !== null;
  const [name, setName] = useState(connection?.name ?? '');
  const [dialect, setDialect] = useState<Dialect>(connection?.dialect ?? 'postgres');
  const [readOnly, setReadOnly] = useState(connection?.readOnly ?? false);
  const [replaceUrl, setReplaceUrl] = useState(!editing);
  const [target, setTarget] = useState<Target>(() => targetOf(connection));
  const url = buildUrl(dialect, target);
  const sendsUrl = replaceUrl;

  const test = useTestTarget();
  const save = useSaveConnection({ onSuccess: (saved) => navigate(paths.one(saved.id)) });
  const saving = (): SaveConnection => {
    if (!connection) return { create: { name, dialect, url, readOnly } };
    const patch: { name?: string; url?: string; readOnly?: boolean } = {};
    if (name !== connection.name) patch.name = name;
    if (readOnly !== connection.readOnly) patch.readOnly = readOnly;
    if (sendsUrl) patch.url = url;
    return { id: connection.id, patch };
  };
  const fields = save.error instanceof ApiError ? save.error.fieldErrors() : {};

  // Any change makes the last test's answer stale.
  const change = <K extends keyof Target>(key: K, value: Target[K]) => {
    setTarget((v) => ({ ...v, [key]: value }));
    test.reset();
  };
  const chooseDialect = (d: Dialect) => {
    setDialect(d);
    setTarget((v) => ({ ...v, port: v.port === DEFAULT_PORTS[dialect] || v.port === '' ? DEFAULT_PORTS[d] : v.port }));
    test.reset();
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (save.isPending) return;
    test.reset(); // the save tests again: one answer on screen, the save's
    save.mutate(saving());
  };
  const ids = useId();

  return (
    <form onSubmit={onSubmit} noValidate className="conn-form">
      <Field
        label="connections.form.name"
        hint="connections.form.nameHint"
        name="name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fields.name}
        autoComplete="off"
        required
      />

      {!editing ? (
        <fieldset className="conn-choice">
          <legend>{t('connections.form.dialect')}</legend>
          {DIALECTS.map((d) => (
            <label key={d}>
              <input type="radio" name="dialect" value={d} checked={dialect === d} onChange={() => chooseDialect(d)} /> {t(DIALECT_LABELS[d])}
            </label>
          ))}
        </fieldset>
      ) : (
        <p>{t('connections.form.dialectFixed', { dialect: t(DIALECT_LABELS[dialect]) })}</p>
      )}

      {editing && (
        <label className="conn-check">
          <input
            type="checkbox"
            checked={replaceUrl}
            onChange={(e) => {
              setReplaceUrl(e.target.checked);
              test.reset();
            }}
          />{' '}
          {t('connections.form.replaceUrl')}
        </label>
      )}

      {sendsUrl && (
        <fieldset className="conn-target">
          <legend>{t('connections.form.where')}</legend>
          {/* A SQLite database is a file: its path is the whole address, there are no parts to choose between. */}
          {dialect !== 'sqlite' && (
            <fieldset className="conn-choice">
              <legend>{t('connections.form.entry')}</legend>
              <label>
                <input type="radio" name="entry" value={ENTRIES.fields} checked={target.entry === 'fields'} onChange={() => change('entry', 'fields')} />{' '}
                {t('connections.form.entryFields')}
              </label>
              <label>
                <input type="radio" name="entry" value={ENTRIES.url} checked={target.entry === 'url'} onChange={() => change('entry', 'url')} />{' '}
                {t('connections.form.entryUrl')}
              </label>
            </fieldset>
          )}
          {target.entry === 'url' && dialect !== 'sqlite' ? (
            <Field
              label="connections.form.url"
              hint={dialect === 'mysql' ? 'connections.form.urlHintMysql' : 'connections.form.urlHintPostgres'}
              name="url"
              value={target.url}
              onChange={(e) => change('url', e.target.value)}
              error={fields.url}
              autoComplete="off"
              spellCheck={false}
            />
          ) : dialect === 'sqlite' ? (
            <Field
              label="connections.form.file"
              hint="connections.form.fileHint"
              name="file"
              value={target.file}
              onChange={(e) => change('file', e.target.value)}
              error={fields.url}
              autoComplete="off"
              spellCheck={false}
            />
          ) : (
            <>
              <div className="conn-row">
                <Field
                  label="connections.form.host"
                  name="host"
                  value={target.host}
                  onChange={(e) => change('host', e.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
                <Field
                  label="connections.form.port"
                  name="port"
                  value={target.port}
                  inputMode="numeric"
                  onChange={(e) => change('port', e.target.value)}
                  autoComplete="off"
                />
              </div>
              <Field
                label="connections.form.database"
                name="database"
                value={target.database}
                onChange={(e) => change('database', e.target.value)}
                autoComplete="off"
                spellCheck={false}
              />
              <div className="conn-row">
                <Field
                  label="connections.form.user"
                  name="user"
                  value={target.user}
                  onChange={(e) => change('user', e.target.value)}
                  autoComplete="off"
                  spellCheck={false}
                />
                <Field
                  label="connections.form.password"
                  hint={editing ? 'connections.form.passwordHintEdit' : undefined}
                  name="password"
                  type="password"
                  value={target.password}
                  onChange={(e) => change('password', e.target.value)}
                  autoComplete="new-password"
                />
              </div>
              <div className="field">
                <label htmlFor={`${ids}-tls`}>{t('connections.form.tls')}</label>
                <select id={`${ids}-tls`} value={target.tls} onChange={(e) => change('tls', e.target.value as Tls)}>
                  {TLS_MODES.map((m) => (
                    <option key={m.value} value={m.value}>
                      {t(m.label)}
                    </option>
                  ))}
                </select>
              </div>
              {fields.url && <p className="field-error">{fields.url}</p>}
            </>
          )}
          <div className="conn-test">
            <button type="button" className="secondary" disabled={test.isPending || !url} onClick={() => test.mutate({ dialect, url, readOnly })}>
              {test.isPending ? t('connections.form.testing') : t('connections.form.test')}
            </button>
            <div className="conn-test-outcome" data-testid="test-outcome">
              {test.isSuccess && (
                <p className="notice" role="status">
                  {t('connections.form.testOk', { version: test.data.serverVersion, latency: Math.round(test.data.latencyMs) })}
                </p>
              )}
              {test.isError && <ConnectionFailure error={test.error} />}
            </div>
          </div>
        </fieldset>
      )}

      <label className="conn-check">
        <input type="checkbox" name="readOnly" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> {t('connections.form.readOnly')}
      </label>
      <p className="hint">{t('connections.form.readOnlyHint')}</p>

      <div data-testid="save-outcome">
        <FormError error={save.error instanceof ApiError && !reasonOf(save.error) ? save.error : null} />
        {save.isError && reasonOf(save.error) && <ConnectionFailure error={save.error} />}
      </div>
      <div className="conn-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? t('connections.form.saving') : editing ? t('connections.form.saveChanges') : t('connections.form.save')}
        </button>
      </div>
      {!editing && <p className="hint">{t('connections.form.saveHint')}</p>}
    </form>
  );
}
