import { useState } from 'react';
import { ApiError } from '../../api/errors';
import { t, type MessageId } from '../../i18n/t';
import { errorText, Loading } from '../../ui';
import { InfoIcon } from '../../ui/icons';
import { isDenied, LoadError, SettingsScreen } from './common';
import { useSaveTelemetry, useTelemetry, type Telemetry as TelemetryView } from './api';

/**
 * /settings/telemetry: the report's exact JSON in full, then the switch (BR3, BR12). Turning it
 * on is refused in words when the instance has nowhere to send it or may not call out.
 */
export function Telemetry() {
  const query = useTelemetry();
  return (
    <SettingsScreen title="settings.telemetry.title" description="settings.telemetry.intro">
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <LoadError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <TelemetryPanel view={query.data} />
      )}
    </SettingsScreen>
  );
}

const REFUSALS: Record<string, MessageId> = {
  TELEMETRY_NOT_CONFIGURED: 'settings.telemetry.notConfigured',
  NETWORK_FEATURES_DISABLED: 'settings.telemetry.networkOff',
};

function refusal(error: unknown): string {
  if (error instanceof ApiError) {
    const words = REFUSALS[error.code];
    if (words) return t(words);
    if (isDenied(error)) return t('settings.deniedWrite');
  }
  return errorText(error);
}

function TelemetryPanel({ view }: { view: TelemetryView }) {
  const save = useSaveTelemetry();
  const [changed, setChanged] = useState<MessageId | null>(null);
  const toggle = async (enabled: boolean) => {
    setChanged(null);
    try {
      await save.mutateAsync(enabled);
      setChanged(enabled ? 'settings.telemetry.turnedOn' : 'settings.telemetry.turnedOff');
    } catch {
      // Said below, in words.
    }
  };
  const why: MessageId | null = !view.configured ? 'settings.telemetry.notConfigured' : !view.networkFeatures ? 'settings.telemetry.networkOff' : null;
  return (
    <>
      <section className="card settings-panel" aria-labelledby="telemetry-preview">
        <h2 id="telemetry-preview">{t('settings.telemetry.previewTitle')}</h2>
        <p className="hint">{t('settings.telemetry.previewNote')}</p>
        <pre className="telemetry-preview" tabIndex={0} aria-labelledby="telemetry-preview" data-testid="telemetry-preview">
          {JSON.stringify(view.preview, null, 2)}
        </pre>
      </section>
      <section className="card settings-panel" aria-label={t('settings.telemetry.switch')}>
        {/* Why it cannot be turned on, said before trying; once tried, the refusal below says it. */}
        {why && !save.error && (
          <p className="settings-info">
            <InfoIcon className="icon" aria-hidden="true" />
            {t(why)}
          </p>
        )}
        <label className="switch">
          <input type="checkbox" role="switch" checked={view.enabled} disabled={save.isPending} onChange={(e) => void toggle(e.target.checked)} />
          <span className="switch-track" aria-hidden="true" />
          {t('settings.telemetry.switch')}
        </label>
        <p>
          {view.enabled ? t('settings.telemetry.on') : t('settings.telemetry.off')}{' '}
          {view.lastSentAt === null ? t('settings.telemetry.neverSent') : t('settings.telemetry.lastSent', { when: view.lastSentAt })}
        </p>
        {save.error && (
          <div className="form-error" role="alert">
            <p>{refusal(save.error)}</p>
          </div>
        )}
        <div aria-live="polite">
          {changed && (
            <p className="notice" role="status">
              {t(changed)}
            </p>
          )}
        </div>
      </section>
    </>
  );
}
