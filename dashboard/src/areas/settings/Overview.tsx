import { t, type MessageId } from '../../i18n/t';
import { Loading } from '../../ui';
import { LoadError, SettingsScreen } from './common';
import { useAbout, useSystemInfo } from './api';

/** /settings: what this instance is (read-only), and the way to each settings section. */
export function Overview() {
  const info = useSystemInfo();
  const about = useAbout();
  const yesNo = (value: boolean) => (value ? t('settings.yes') : t('settings.no'));
  return (
    <SettingsScreen title="settings.title">
      <p>{t('settings.intro')}</p>
      <section aria-labelledby="settings-system">
        <h2 id="settings-system">{t('settings.system.title')}</h2>
        {info.isPending || about.isPending ? (
          <Loading />
        ) : info.isError || about.isError ? (
          <LoadError
            error={info.error ?? about.error}
            onRetry={() => {
              void info.refetch();
              void about.refetch();
            }}
          />
        ) : (
          <dl className="settings-facts">
            <Fact label="settings.system.product" value={about.data.name} />
            <Fact label="settings.system.version" value={info.data.version} />
            <Fact label="settings.system.license" value={about.data.license} />
            <Fact label="settings.system.runtime" value={t('settings.system.runtimeValue', { runtime: info.data.runtime })} />
            <Fact label="settings.system.node" value={info.data.node} />
            <Fact label="settings.system.dialect" value={info.data.dialect ?? t('settings.notSet')} />
            <Fact label="settings.system.smtp" value={yesNo(info.data.smtpConfigured)} />
            <Fact label="settings.system.network" value={yesNo(info.data.networkFeaturesAllowed)} />
            <Fact label="settings.system.lanShare" value={yesNo(info.data.lanShare)} />
            <Fact label="settings.system.demo" value={yesNo(info.data.desktopDemo)} />
          </dl>
        )}
      </section>
    </SettingsScreen>
  );
}

function Fact({ label, value }: { label: MessageId; value: string }) {
  return (
    <>
      <dt>{t(label)}</dt>
      <dd>{value}</dd>
    </>
  );
}
