import { useState } from 'react';
import { Link } from 'wouter';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { Breadcrumbs } from '../../shell/Breadcrumbs';
import { errorText, ErrorPanel, Field, FormError, Loading, SelectField, useSubmit, useTitle } from '../../ui';
import { useLlmConfig, useLlmModels, useSaveLlmConfig, useTestLlm, type LlmConfig, type LlmConfigInput } from './api';
import './llm.css';

const MODES: ReadonlyArray<{ value: LlmConfig['mode']; label: MessageId }> = [
  { value: 'off', label: 'llm.settings.modeOff' },
  { value: 'manual', label: 'llm.settings.modeManual' },
  { value: 'provider', label: 'llm.settings.modeProvider' },
];

/** /settings/ai: the assistant's mode, provider, key (write-only), limits; a test call and the provider's models. */
export function AiSettings() {
  useTitle('llm.settings.title');
  const query = useLlmConfig();
  return (
    <>
      <Breadcrumbs items={[{ label: t('llm.settings.crumb'), href: '/settings' }, { label: t('llm.settings.title') }]} />
      <h1>{t('llm.settings.title')}</h1>
      <p>{t('llm.settings.intro')}</p>
      <p>
        <Link href="/ask">{t('llm.settings.toAsk')}</Link>
      </p>
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        query.error instanceof ApiError && query.error.status === 403 ? (
          <div className="form-error" role="alert">
            <p>{t('llm.settings.denied')}</p>
          </div>
        ) : (
          <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />
        )
      ) : (
        <ConfigForm config={query.data} />
      )}
    </>
  );
}

function ConfigForm({ config }: { config: LlmConfig }) {
  const [mode, setMode] = useState<LlmConfig['mode']>(config.mode);
  const [model, setModel] = useState(config.provider?.model ?? '');
  const [saved, setSaved] = useState(false);
  const [showModels, setShowModels] = useState(false);
  const save = useSaveLlmConfig();
  const test = useTestLlm();
  const models = useLlmModels(showModels);
  const form = useSubmit(async (v) => {
    setSaved(false);
    const num = (s: string | undefined) => (s && /^\d+$/.test(s) ? Number(s) : undefined);
    const body: LlmConfigInput = {
      mode,
      ...(v.baseUrl
        ? {
            provider: {
              baseUrl: v.baseUrl,
              model,
              ...(v.clearKey ? { apiKey: null } : v.apiKey ? { apiKey: v.apiKey } : {}),
            },
          }
        : {}),
      limits: {
        ...(num(v.timeoutMs) !== undefined ? { timeoutMs: num(v.timeoutMs) } : {}),
        ...(num(v.maxChanges) !== undefined ? { maxChanges: num(v.maxChanges) } : {}),
      },
    };
    await save.mutateAsync(body);
    setSaved(true);
  });
  const f = (name: string) => form.fields[name];
  const provider = config.provider;
  return (
    <>
      <form className="llm-form" onSubmit={(e) => void form.onSubmit(e)} noValidate>
        <FormError error={form.error} />
        <SelectField
          label="llm.settings.mode"
          name="mode"
          hint="llm.settings.modeHint"
          options={MODES.map((m) => ({ value: m.value, label: t(m.label) }))}
          value={mode}
          onChange={(e) => setMode(e.target.value as LlmConfig['mode'])}
          error={f('mode')}
        />
        <fieldset>
          <legend>{t('llm.settings.provider')}</legend>
          <Field
            label="llm.settings.baseUrl"
            name="baseUrl"
            hint="llm.settings.baseUrlHint"
            defaultValue={provider?.baseUrl ?? ''}
            error={f('provider.baseUrl')}
            autoComplete="off"
          />
          <Field
            label="llm.settings.model"
            name="model"
            value={model}
            onChange={(e) => setModel(e.target.value)}
            error={f('provider.model')}
            autoComplete="off"
          />
          <div className="llm-models">
            <button
              type="button"
              className="secondary"
              onClick={() => (showModels ? void models.refetch() : setShowModels(true))}
              disabled={config.mode !== 'provider'}
            >
              {t('llm.settings.loadModels')}
            </button>
            {models.isError && (
              <p className="field-error" role="alert">
                {errorText(models.error)}
              </p>
            )}
            {models.data && models.data.length > 0 && (
              <ul aria-label={t('llm.settings.modelsLabel')}>
                {models.data.map((m) => (
                  <li key={m.id}>
                    <button type="button" className="link" onClick={() => setModel(m.id)} aria-pressed={model === m.id}>
                      {m.id}
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <Field
            label="llm.settings.apiKey"
            name="apiKey"
            type="password"
            hint={provider?.apiKeySet ? 'llm.settings.apiKeyKept' : 'llm.settings.apiKeyNone'}
            error={f('provider.apiKey')}
            autoComplete="new-password"
          />
          {provider?.apiKeySet && (
            <div className="field checks">
              <label>
                <input type="checkbox" name="clearKey" />
                {t('llm.settings.clearKey')}
              </label>
            </div>
          )}
        </fieldset>
        <fieldset>
          <legend>{t('llm.settings.limits')}</legend>
          <Field
            label="llm.settings.timeoutMs"
            name="timeoutMs"
            inputMode="numeric"
            defaultValue={String(config.limits.timeoutMs)}
            error={f('limits.timeoutMs')}
          />
          <Field
            label="llm.settings.maxChanges"
            name="maxChanges"
            inputMode="numeric"
            defaultValue={String(config.limits.maxChanges)}
            error={f('limits.maxChanges')}
          />
        </fieldset>
        <div className="actions">
          <button type="submit" disabled={form.pending}>
            {form.pending ? t('llm.settings.saving') : t('llm.settings.save')}
          </button>
          <button type="button" className="secondary" disabled={test.isPending || config.mode !== 'provider'} onClick={() => test.mutate()}>
            {t('llm.settings.test')}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {saved && !form.pending && !form.error && (
          <p className="notice" role="status">
            {t('llm.settings.saved')}
          </p>
        )}
        {test.data && (
          <p className="notice" role="status">
            {t('llm.settings.testOk', { model: test.data.model, ms: String(test.data.latencyMs) })}
          </p>
        )}
      </div>
      {test.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(test.error)}</p>
        </div>
      )}
    </>
  );
}
