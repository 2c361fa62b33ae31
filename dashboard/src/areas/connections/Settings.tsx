import { useState, type FormEvent } from 'react';
import { ApiError } from '../../api/errors';
import type { Schemas } from '../../api/types';
import { t } from '../../i18n/t';
import { ErrorPanel, Field, FormError, Loading } from '../../ui';
import { useConnectionSettings, useSaveConnectionSettings, type Connection } from './api';
import './connections.css';

type Settings = Schemas['ConnectionOverrides'];

/**
 * The connection-level settings (GET/PUT /connections/{id}/overrides): a display label and
 * colour, PostgreSQL's default schema, the statement timeout and pool size of server databases.
 * An empty field is the default; the hints say what the pool runs under now.
 */
export function ConnectionSettings({ connection: c }: { connection: Connection }) {
  const settings = useConnectionSettings(c.id);
  return (
    <section aria-labelledby="conn-settings" className="conn-card">
      <h2 id="conn-settings">{t('connections.settings.title')}</h2>
      <p>{t('connections.settings.intro')}</p>
      {settings.isPending ? (
        <Loading />
      ) : settings.isError ? (
        <ErrorPanel error={settings.error} onRetry={() => void settings.refetch()} />
      ) : (
        <SettingsForm connection={c} settings={settings.data.overrides} effective={settings.data.effective} />
      )}
    </section>
  );
}

function SettingsForm({
  connection: c,
  settings,
  effective,
}: {
  connection: Connection;
  settings: Settings;
  effective: Schemas['ConnectionEffectiveSettings'];
}) {
  const text = (v: string | number | null) => (v === null ? '' : String(v));
  const [values, setValues] = useState({
    label: text(settings.label),
    color: text(settings.color),
    defaultSchema: text(settings.defaultSchema),
    statementTimeoutMs: text(settings.statementTimeoutMs),
    poolSize: text(settings.poolSize),
  });
  const set = (key: keyof typeof values) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [key]: e.target.value }));
  const server = c.dialect !== 'sqlite';

  const save = useSaveConnectionSettings(c.id);
  const body = () => {
    const number = (v: string) => (v.trim() === '' ? null : Number(v.trim()));
    return {
      label: values.label.trim() || null,
      color: values.color.trim() || null,
      ...(c.dialect === 'postgres' ? { defaultSchema: values.defaultSchema.trim() || null } : {}),
      ...(server ? { statementTimeoutMs: number(values.statementTimeoutMs), poolSize: number(values.poolSize) } : {}),
    };
  };
  const fields = save.error instanceof ApiError ? save.error.fieldErrors() : {};
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!save.isPending) save.mutate(body());
  };

  return (
    <form onSubmit={onSubmit} noValidate className="conn-form">
      <Field
        label="connections.settings.label"
        hint="connections.settings.labelHint"
        name="label"
        value={values.label}
        onChange={set('label')}
        error={fields.label}
        autoComplete="off"
      />
      <Field
        label="connections.settings.color"
        hint="connections.settings.colorHint"
        name="color"
        value={values.color}
        onChange={set('color')}
        error={fields.color}
        autoComplete="off"
        spellCheck={false}
      />
      {c.dialect === 'postgres' && (
        <Field
          label="connections.settings.defaultSchema"
          hint="connections.settings.defaultSchemaHint"
          name="defaultSchema"
          value={values.defaultSchema}
          onChange={set('defaultSchema')}
          error={fields.defaultSchema}
          placeholder={effective.defaultSchema ?? undefined}
          autoComplete="off"
          spellCheck={false}
        />
      )}
      {server && (
        <div className="conn-row">
          <Field
            label="connections.settings.statementTimeout"
            hint="connections.settings.statementTimeoutHint"
            name="statementTimeoutMs"
            inputMode="numeric"
            value={values.statementTimeoutMs}
            onChange={set('statementTimeoutMs')}
            error={fields.statementTimeoutMs}
            placeholder={text(effective.statementTimeoutMs)}
          />
          <Field
            label="connections.settings.poolSize"
            hint="connections.settings.poolSizeHint"
            name="poolSize"
            inputMode="numeric"
            value={values.poolSize}
            onChange={set('poolSize')}
            error={fields.poolSize}
            placeholder={String(effective.poolSize)}
          />
        </div>
      )}
      <p className="hint">
        {server
          ? t('connections.settings.effective', { pool: effective.poolSize, timeout: effective.statementTimeoutMs ?? 0 })
          : t('connections.settings.sqliteNote')}
      </p>
      <div data-testid="settings-outcome">
        <FormError error={save.error} />
        {save.isSuccess && (
          <p className="notice" role="status">
            {t('connections.settings.saved')}
          </p>
        )}
      </div>
      <div className="conn-actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? t('connections.form.saving') : t('connections.settings.save')}
        </button>
      </div>
    </form>
  );
}
