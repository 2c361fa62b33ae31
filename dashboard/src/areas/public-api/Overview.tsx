import { useEffect, useRef, useState } from 'react';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import { usePublicApiState, useSetPublicApi } from './api';
import { PublicApiHeader } from './shared';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { Badge } from '../../ui/Badge';
import { Section } from '../../ui/Section';
import { DisableIcon, DomainIcon, EnableIcon, PublicApiIcon } from '../../ui/icons';

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
      <PublicApiHeader title={t('publicApi.title')} description={t('publicApi.intro')} />
      <Section id="pa-switch" icon={PublicApiIcon} title={t('publicApi.switch.title')} className="pa-card">
        <p className="pa-state">
          <Badge tone={enabled ? 'success' : 'neutral'} testId="public-api-state">
            {enabled ? t('publicApi.switch.on') : t('publicApi.switch.off')}
          </Badge>
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
        <button type="button" className={enabled ? 'secondary' : undefined} disabled={toggle.isPending} onClick={() => setAsking(true)}>
          {enabled ? <DisableIcon className="icon" aria-hidden="true" /> : <EnableIcon className="icon" aria-hidden="true" />}
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
      </Section>

      <Section id="pa-origins" icon={DomainIcon} title={t('publicApi.origins.title')} description={t('publicApi.origins.intro')} className="pa-card">
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
      </Section>
    </>
  );
}
