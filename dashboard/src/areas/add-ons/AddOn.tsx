import { useId, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading } from '../../ui';
import { connectionName, newer, useCatalog, useConnections, useDownload, useInstalled, useRemoveAddon, useSetEnabled, when, type Addon } from './api';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import type { Outcome } from './Plan';
import { planPath } from './paths';
import { useDocumentTitle, useHistoryOnce } from './title';
import { SettingsForm } from './SettingsForm';
import { ConnectSection } from './Connect';
import { PagesSection } from './Pages';
import { DomainsSection } from './Domains';
import { InstancesSection } from './Instances';
import './addons.css';
import { useManagesAddOns } from './surfaces';
import { Section } from '../../ui/Section';
import { BackLink } from '../../ui/BackLink';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';
import { AddOnsIcon, DeleteIcon, DisableIcon, EnableIcon, ExportIcon, InfoIcon, PackageIcon, SettingsIcon, WarningIcon } from '../../ui/icons';

/** What the list says after a removal. */
export type Removed = { removed: string; droppedTables: string[] };

/**
 * One installed add-on: what it is and where, enable/disable, its settings (a form generated
 * from its settings schema), upgrading to a newer version, and removing it (keeping or dropping
 * its data, confirmed with the tables named).
 */
export function AddOn() {
  const params = useParams<{ key: string }>();
  const key = decodeURIComponent(params.key ?? '');
  const list = useInstalled();
  const connections = useConnections();
  const addon = list.data?.addons.find((a) => a.key === key) ?? null;
  useDocumentTitle(addon?.name ?? key);
  // An install or upgrade just done on the plan screen (history state, read once: a reload does not repeat it).
  const outcome = useHistoryOnce<Outcome>('outcome');
  // Settings, placement, upgrade, removal and the switch need add-ons.manage (decisions DB25 as amended).
  const manages = useManagesAddOns();

  if (list.isPending) return <Loading />;
  if (list.isError) return <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />;
  if (!addon)
    return (
      <>
        <BackLink href="/add-ons">{t('addOns.backToList')}</BackLink>
        <PageHeader title={t('addOns.page.notFound')} />
        <EmptyState icon={AddOnsIcon}>{t('addOns.page.notFoundBody', { key })}</EmptyState>
      </>
    );

  return (
    <>
      <BackLink href="/add-ons">{t('addOns.backToList')}</BackLink>
      <PageHeader
        title={addon.name}
        meta={
          <>
            <Badge tone="neutral" dot={false}>
              {addon.version}
            </Badge>
          </>
        }
        description={addon.description}
      />
      {outcome && (
        <p className="notice" role="status">
          {outcome.outcome === 'installed' ? t('addOns.page.installed', { version: outcome.version }) : t('addOns.page.upgraded', { version: outcome.version })}
        </p>
      )}
      {/* What it is and its lifecycle (switch, upgrade, removal) beside what it does here (settings, places, instances, domains): two columns when wide, one after the other when narrow. */}
      <div className="addons-page">
        <div className="addons-page-side">
          <Status addon={addon} connection={connectionName(connections.data ?? [], addon.connectionId)} manages={manages} />
          {manages && <Upgrade addon={addon} staged={list.data.staged.filter((s) => s.key === addon.key && newer(s.version, addon.version))} />}
          {manages && <Remove addon={addon} />}
        </div>
        <div className="addons-page-main">
          {manages && (
            <Section id="addon-settings" icon={SettingsIcon} title={t('addOns.settings.title')} className="addons-section">
              <SettingsForm addon={addon} />
            </Section>
          )}
          <ConnectSection addon={addon} />
          {manages && <PagesSection addon={addon} />}
          <InstancesSection addon={addon} />
          <DomainsSection addon={addon} />
        </div>
      </div>
    </>
  );
}

function Status({ addon, connection, manages }: { addon: Addon; connection: string; manages: boolean }) {
  const toggle = useSetEnabled(addon);
  return (
    <Section id="addon-status" icon={InfoIcon} title={t('addOns.page.about')} className="addons-section">
      <dl className="addons-facts" data-testid="addon-facts">
        <dt>{t('addOns.fact.status')}</dt>
        <dd>
          <Badge tone={addon.enabled ? 'success' : 'neutral'} testId="addon-status">
            {addon.enabled ? t('addOns.status.enabled') : t('addOns.status.disabled')}
          </Badge>
        </dd>
        <dt>{t('addOns.fact.version')}</dt>
        <dd data-testid="addon-version">{addon.version}</dd>
        <dt>{t('addOns.fact.connection')}</dt>
        <dd>{connection}</dd>
        <dt>{t('addOns.fact.tables')}</dt>
        <dd>{addon.tables.length ? addon.tables.join(', ') : t('addOns.plan.none')}</dd>
        <dt>{t('addOns.fact.endpoints')}</dt>
        <dd>{addon.endpoints.length ? addon.endpoints.join(', ') : t('addOns.plan.none')}</dd>
        <dt>{t('addOns.fact.capabilities')}</dt>
        <dd>{addon.capabilities.length ? addon.capabilities.join(', ') : t('addOns.plan.none')}</dd>
        <dt>{t('addOns.fact.installedAt')}</dt>
        <dd>{when(addon.installedAt)}</dd>
      </dl>
      <p className="hint">{addon.enabled ? t('addOns.page.enabledHint') : t('addOns.page.disabledHint')}</p>
      {toggle.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(toggle.error)}</p>
        </div>
      )}
      {toggle.isSuccess && (
        <p className="notice" role="status">
          {toggle.variables ? t('addOns.page.wasEnabled') : t('addOns.page.wasDisabled')}
        </p>
      )}
      {manages && (
        // Disabling is not the page's main action: a secondary button; enabling a disabled add-on is.
        <button type="button" className={addon.enabled ? 'secondary' : undefined} disabled={toggle.isPending} onClick={() => toggle.mutate(!addon.enabled)}>
          {addon.enabled ? <DisableIcon className="icon" aria-hidden="true" /> : <EnableIcon className="icon" aria-hidden="true" />}
          {addon.enabled ? t('addOns.page.disable', { name: addon.name }) : t('addOns.page.enable', { name: addon.name })}
        </button>
      )}
    </Section>
  );
}

function Upgrade({ addon, staged }: { addon: Addon; staged: Array<{ version: string; verified: boolean }> }) {
  const catalog = useCatalog();
  const [, navigate] = useLocation();
  const download = useDownload({ onSuccess: (s) => navigate(planPath(s.key, s.version)) });
  const entry = catalog.data?.addons.find((e) => e.key === addon.key);
  const offered = (entry?.versions ?? []).filter((v) => v.compatible && newer(v.version, addon.version) && !staged.some((s) => s.version === v.version));
  return (
    <Section id="addon-upgrade" icon={PackageIcon} title={t('addOns.upgrade.title')} className="addons-section">
      {staged.length === 0 && offered.length === 0 && <p>{t('addOns.upgrade.none', { version: addon.version })}</p>}
      {download.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(download.error)}</p>
        </div>
      )}
      <ul className="addons-versions">
        {staged.map((s) => (
          <li key={s.version}>
            <Link href={planPath(addon.key, s.version)}>{t('addOns.upgrade.review', { version: s.version })}</Link>
          </li>
        ))}
        {offered.map((v) => (
          <li key={v.version}>
            <button type="button" disabled={download.isPending} onClick={() => download.mutate({ key: addon.key, version: v.version })}>
              <ExportIcon className="icon" aria-hidden="true" />
              {t('addOns.upgrade.download', { version: v.version })}
            </button>
          </li>
        ))}
      </ul>
      <p className="hint">
        <Link href="/add-ons">{t('addOns.upgrade.uploadHint')}</Link>
      </p>
    </Section>
  );
}

function Remove({ addon }: { addon: Addon }) {
  const [, navigate] = useLocation();
  const [drop, setDrop] = useState(false);
  const [asking, setAsking] = useState(false);
  const groupId = useId();
  const remove = useRemoveAddon(addon, {
    onSuccess: (data) => {
      const state: Removed = { removed: addon.name, droppedTables: data.droppedTables };
      navigate('/add-ons', { state });
    },
  });
  const hasTables = addon.tables.length > 0;
  return (
    <Section
      id="addon-remove"
      icon={WarningIcon}
      title={t('addOns.remove.title')}
      description={t('addOns.remove.intro')}
      className="addons-section danger-zone"
    >
      {hasTables && (
        <fieldset className="addons-choice" aria-describedby={`${groupId}-tables`}>
          <legend>{t('addOns.remove.dataLegend')}</legend>
          <p className="hint" id={`${groupId}-tables`}>
            {t('addOns.remove.tables', { tables: addon.tables.join(', ') })}
          </p>
          <div className="addons-check">
            <input id={`${groupId}-keep`} type="radio" name="data" checked={!drop} onChange={() => setDrop(false)} />
            <label htmlFor={`${groupId}-keep`}>{t('addOns.remove.keep')}</label>
          </div>
          <div className="addons-check">
            <input id={`${groupId}-drop`} type="radio" name="data" checked={drop} onChange={() => setDrop(true)} />
            <label htmlFor={`${groupId}-drop`}>{t('addOns.remove.drop')}</label>
          </div>
        </fieldset>
      )}
      <button type="button" className="danger" onClick={() => setAsking(true)}>
        <DeleteIcon className="icon" aria-hidden="true" />
        {t('addOns.remove.open', { name: addon.name })}
      </button>
      {asking && (
        <ConfirmDialog
          title={t('addOns.remove.confirmTitle', { name: addon.name })}
          confirm={remove.isPending ? t('addOns.remove.removing') : drop ? t('addOns.remove.confirmDrop') : t('addOns.remove.confirmKeep')}
          cancel={t('addOns.remove.cancel')}
          pending={remove.isPending}
          onConfirm={() => remove.mutate(drop)}
          onCancel={() => setAsking(false)}
        >
          {drop ? (
            <>
              <p>{t('addOns.remove.willDrop', { count: addon.tables.length })}</p>
              <ul className="addons-names" data-testid="drop-tables">
                {addon.tables.map((table) => (
                  <li key={table}>
                    <code>{table}</code>
                  </li>
                ))}
              </ul>
            </>
          ) : hasTables ? (
            <p>{t('addOns.remove.willKeep', { tables: addon.tables.join(', ') })}</p>
          ) : (
            <p>{t('addOns.remove.noData')}</p>
          )}
          <p>{t('addOns.remove.endpointsGo', { count: addon.endpoints.length })}</p>
          {remove.isError && (
            <div className="form-error" role="alert">
              <p>{errorText(remove.error)}</p>
            </div>
          )}
        </ConfirmDialog>
      )}
    </Section>
  );
}
