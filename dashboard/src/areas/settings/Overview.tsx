import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useBootstrapPart } from '../../api/bootstrap';
import { t, type MessageId } from '../../i18n/t';
import { DECORATIVE, logoSrc } from '../../shell/branding';
import { Loading } from '../../ui';
import { BrandingIcon, InfoIcon, NotificationsIcon, PreferencesIcon, PublicApiIcon, SecurityIcon, TelemetryIcon, type IconType } from '../../ui/icons';
import { localeName } from '../../shell/prefs';
import { ColourChip, LoadError, SettingsScreen } from './common';
import { useWorkspace, type Workspace } from './api';

/** /settings: how the instance is set up, from one read (GET /settings/workspace, BR4), each part linking to where it is changed (BR13). */
export function Overview() {
  const query = useWorkspace();
  return (
    <SettingsScreen title="settings.title" description="settings.overview.intro">
      {query.isPending ? (
        <Loading />
      ) : query.isError ? (
        <LoadError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <Cards workspace={query.data} />
      )}
    </SettingsScreen>
  );
}

function Cards({ workspace: w }: { workspace: Workspace }) {
  // The version and how it runs come with the bootstrap, already read: still one request (BR13).
  const instance = useBootstrapPart((b) => b.instance).data;
  const defaultsSet = Object.values(w.defaults).filter((v) => v !== null && v !== undefined).length;
  const publicState = !w.publicApi.served ? 'unserved' : w.publicApi.enabled ? 'on' : 'off';
  return (
    <div className="settings-cards">
      <Card id="overview-branding" icon={BrandingIcon} title="settings.overview.brandingTitle" href="/settings/branding" section="settings.branding.link">
        <dl className="settings-facts">
          <Fact label="settings.overview.productName">{w.name}</Fact>
          <Fact label="settings.overview.primary">
            {w.branding.colors.primary ? <ColourChip color={w.branding.colors.primary} /> : t('settings.overview.builtInColour')}
          </Fact>
          <Fact label="settings.overview.logo">
            {w.branding.logo ? (
              <span className="colour-chip">
                <img className="product-logo" src={logoSrc(w.branding.logo)} alt={DECORATIVE} />
                {t('settings.overview.logoSet', { width: String(w.branding.logo.width), height: String(w.branding.logo.height) })}
              </span>
            ) : (
              t('settings.overview.none')
            )}
          </Fact>
        </dl>
      </Card>
      <Card id="overview-defaults" icon={PreferencesIcon} title="settings.overview.defaultsTitle" href="/settings/defaults" section="settings.defaults.link">
        <p>{t('settings.overview.defaultsSet', { count: defaultsSet })}</p>
        <dl className="settings-facts">
          <Fact label="settings.overview.defaultLocale">{localeName(w.locales.default)}</Fact>
          <Fact label="settings.overview.enabledLocales">{w.locales.enabled.map(localeName).join(', ')}</Fact>
        </dl>
      </Card>
      <Card id="overview-email" icon={NotificationsIcon} title="settings.overview.emailTitle" href="/settings/email" section="settings.email.link">
        <p>{t('settings.overview.emailState', { configured: String(w.email.configured) })}</p>
      </Card>
      <Card id="overview-security" icon={SecurityIcon} title="settings.overview.securityTitle" href="/settings/security" section="settings.security.link">
        <p>{t('settings.overview.securityText')}</p>
      </Card>
      <Card
        id="overview-public-api"
        icon={PublicApiIcon}
        title="settings.overview.publicApiTitle"
        href="/public-api"
        section="settings.overview.publicApiTitle"
      >
        <p>{t('settings.overview.publicApiState', { state: publicState })}</p>
        <dl className="settings-facts">
          <Fact label="settings.overview.origins">{w.publicApi.origins.length ? w.publicApi.origins.join(', ') : t('settings.overview.originsAny')}</Fact>
        </dl>
      </Card>
      <Card id="overview-telemetry" icon={TelemetryIcon} title="settings.overview.telemetryTitle" href="/settings/telemetry" section="settings.telemetry.link">
        <p>{t('settings.overview.telemetryState', { enabled: String(w.telemetry.enabled) })}</p>
      </Card>
      <Card id="overview-instance" icon={InfoIcon} title="settings.overview.instanceTitle">
        <dl className="settings-facts">
          {instance && <Fact label="settings.system.version">{instance.version}</Fact>}
          {instance && <Fact label="settings.system.runtime">{t('settings.system.runtimeValue', { runtime: instance.runtime })}</Fact>}
          <Fact label="settings.overview.baseUrl">{w.baseUrl ?? t('settings.overview.baseUrlUnset')}</Fact>
          <Fact label="settings.overview.metaStore">{t('settings.overview.metaValue', { dialect: w.meta.dialect, embedded: String(w.meta.embedded) })}</Fact>
        </dl>
      </Card>
    </div>
  );
}

function Card(props: { id: string; icon: IconType; title: MessageId; href?: string; section?: MessageId; children: ReactNode }) {
  const Icon = props.icon;
  return (
    <section className="card settings-card" aria-labelledby={props.id}>
      <h2 id={props.id}>
        <Icon className="icon" aria-hidden="true" />
        {t(props.title)}
      </h2>
      {props.children}
      {props.href && props.section && (
        <Link href={props.href} className="settings-card-link">
          {t('settings.overview.open', { section: t(props.section) })}
        </Link>
      )}
    </section>
  );
}

function Fact({ label, children }: { label: MessageId; children: ReactNode }) {
  return (
    <>
      <dt>{t(label)}</dt>
      <dd>{children}</dd>
    </>
  );
}
