import { useEffect, useRef, useState } from 'react';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { usePublicApiState, useSetPublicApi } from './api';
import { SectionNav } from './shared';
import { ConfirmDialog } from '../../ui/ConfirmDialog';

/**
 * The public API switch (PA1) and the origins browser keys work from. The origins are the
 * operator's SVC_PUBLIC_API_ORIGINS, read when the instance starts: the API shows them and takes
 * only `{enabled}`, so this screen lists them and says where they are set.
 */
export function Overview() {
  useTitle('publicApi.title');
  const state = usePublicApiState();
  const toggle = useSetPublicApi();
  // Turning it on opens every granted endpoint to the internet, turning it off stops every key: both ask first.
  const [asking, setAsking] = useState(false);
  const outcome = useRef<HTMLDivElement>(null);
  const settled = toggle.isSuccess || toggle.isError ? toggle.submittedAt : 0;
  useEffect(() => {
    if (settled) outcome.current?.focus();
  }, [settled]);

  if (state.isPending) return <Loading />;
  if (state.isError) return <ErrorPanel error={state.error} onRetry={() => void state.refetch()} />;
  const { enabled, served, origins } = state.data;

  return (
    <>
      <h1>{t('publicApi.title')}</h1>
      <SectionNav />
      <p>{t('publicApi.intro')}</p>

      <section className="pa-card" aria-labelledby="pa-switch">
        <h2 id="pa-switch">{t('publicApi.switch.title')}</h2>
        <p className="pa-state" data-testid="public-api-state">
          <span className={enabled ? 'pa-on' : 'pa-off'}>{enabled ? t('publicApi.switch.on') : t('publicApi.switch.off')}</span>
        </p>
        <p className="hint">{enabled ? t('publicApi.switch.onHint') : t('publicApi.switch.offHint')}</p>
        {!served && <p className="pa-warning">{t('publicApi.switch.notServed')}</p>}
        <div ref={outcome} tabIndex={-1} className="outcome">
          {toggle.isError && (
            <div className="form-error" role="alert">
              <p>{errorText(toggle.error)}</p>
            </div>
          )}
          {toggle.isSuccess && (
            <p className="notice" role="status">
              {toggle.data.enabled ? t('publicApi.switch.turnedOn') : t('publicApi.switch.turnedOff')}
            </p>
          )}
        </div>
        <button type="button" disabled={toggle.isPending} onClick={() => setAsking(true)}>
          {toggle.isPending ? t('publicApi.switch.saving') : enabled ? t('publicApi.switch.turnOff') : t('publicApi.switch.turnOn')}
        </button>
        {asking && (
          <ConfirmDialog
            title={enabled ? t('publicApi.switch.confirmOffTitle') : t('publicApi.switch.confirmOnTitle')}
            confirm={enabled ? t('publicApi.switch.turnOff') : t('publicApi.switch.turnOn')}
            cancel={t('publicApi.cancel')}
            pending={toggle.isPending}
            onConfirm={() => toggle.mutate(!enabled, { onSettled: () => setAsking(false) })}
            onCancel={() => setAsking(false)}
          >
            <p>{enabled ? t('publicApi.switch.confirmOffText') : t('publicApi.switch.confirmOnText')}</p>
          </ConfirmDialog>
        )}
      </section>

      <section className="pa-card" aria-labelledby="pa-origins">
        <h2 id="pa-origins">{t('publicApi.origins.title')}</h2>
        <p>{t('publicApi.origins.intro')}</p>
        {origins.length === 0 ? (
          <p>{t('publicApi.origins.none')}</p>
        ) : (
          <ul className="pa-origins" aria-label={t('publicApi.origins.listLabel')}>
            {origins.map((o) => (
              <li key={o}>
                <code>{o}</code>
              </li>
            ))}
          </ul>
        )}
        <p className="hint">{t('publicApi.origins.where')}</p>
      </section>
    </>
  );
}
