import { useId, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { t } from '../../i18n/t';
import { ErrorPanel, errorText, Loading, useTitle } from '../../ui';
import {
  connectionName,
  newer,
  useCatalog,
  useConnections,
  useDownload,
  useForgetStaged,
  useInstalled,
  useRefreshCatalog,
  useUpload,
  when,
  type Addon,
  type CatalogEntry,
  type Connection,
  type Staged,
} from './api';
import type { Removed } from './AddOn';
import { planPath } from './paths';
import { useManagesAddOns } from './surfaces';
import { useHistoryOnce } from './title';
import './addons.css';
import { AddOnsIcon, ExportIcon, ImportIcon, PackageIcon, RefreshIcon, SearchIcon } from '../../ui/icons';
import { Section } from '../../ui/Section';
import { Badge } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { PageHeader } from '../../ui/PageHeader';

/**
 * Screen 8, Add-ons: what is installed (status, version, connection), the packages waiting to
 * be installed, the catalog (searched, refreshed, a version downloaded) and a package upload.
 * A downloaded or uploaded package goes straight to its plan: nothing is installed unread.
 */
export function AddOns() {
  useTitle('addOns.title');
  const installed = useInstalled();
  const connections = useConnections();
  // A removal just done on the add-on's page (history state, read once: a reload does not repeat it).
  const removed = useHistoryOnce<Removed>('removed');
  const manages = useManagesAddOns();

  if (installed.isPending) return <Loading />;
  if (installed.isError) return <ErrorPanel error={installed.error} onRetry={() => void installed.refetch()} />;
  const { addons, staged } = installed.data;
  const waiting = staged.filter((s) => !addons.some((a) => a.key === s.key && a.version === s.version));
  const installedVersion = (key: string) => addons.find((a) => a.key === key)?.version ?? null;

  return (
    <>
      <PageHeader
        title={t('addOns.title')}
        description={t('addOns.intro')}
        actions={
          manages && (
            <a href="#addons-catalog" className="button">
              <SearchIcon className="icon" aria-hidden="true" />
              {t('addOns.catalog.browse')}
            </a>
          )
        }
      />
      {removed && (
        <p className="notice" role="status">
          {removed.droppedTables.length
            ? t('addOns.removed.dropped', { name: removed.removed, tables: removed.droppedTables.join(', ') })
            : t('addOns.removed.kept', { name: removed.removed })}
        </p>
      )}
      <Section id="addons-installed" icon={AddOnsIcon} title={t('addOns.installed.title')} className="addons-section">
        {addons.length === 0 ? (
          <EmptyState
            icon={AddOnsIcon}
            action={
              manages && (
                <a href="#addons-catalog" className="button secondary">
                  <SearchIcon className="icon" aria-hidden="true" />
                  {t('addOns.catalog.browse')}
                </a>
              )
            }
          >
            {t('addOns.installed.empty')}
          </EmptyState>
        ) : (
          <ul className="addons-list">
            {addons.map((a) => (
              <InstalledItem key={a.key} addon={a} connections={connections.data ?? []} />
            ))}
          </ul>
        )}
      </Section>
      {/* Packages, the catalog and uploads are for those who may install (add-ons.manage, decisions DB25 as amended). */}
      {manages && <StagedSection staged={waiting} installedVersion={installedVersion} />}
      {manages && <CatalogSection />}
      {manages && <UploadSection />}
    </>
  );
}

function InstalledItem({ addon, connections }: { addon: Addon; connections: readonly Connection[] }) {
  return (
    <li className="addons-item" data-testid="installed-addon">
      <p className="addons-item-head">
        <Link href={`/add-ons/${addon.key}`}>{addon.name}</Link>{' '}
        <Badge tone={addon.enabled ? 'success' : 'neutral'}>{addon.enabled ? t('addOns.status.enabled') : t('addOns.status.disabled')}</Badge>
      </p>
      <dl className="addons-facts">
        <dt>{t('addOns.fact.version')}</dt>
        <dd>{addon.version}</dd>
        <dt>{t('addOns.fact.connection')}</dt>
        <dd>{connectionName(connections, addon.connectionId)}</dd>
        <dt>{t('addOns.fact.updatedAt')}</dt>
        <dd>{when(addon.updatedAt)}</dd>
      </dl>
    </li>
  );
}

function StagedSection({ staged, installedVersion }: { staged: Staged[]; installedVersion: (key: string) => string | null }) {
  const forget = useForgetStaged();
  if (staged.length === 0 && !forget.isSuccess && !forget.isError) return null;
  // A version not newer than the one installed cannot be installed (no downgrade): it can only be forgotten.
  const stale = (s: Staged) => {
    const current = installedVersion(s.key);
    return current !== null && !newer(s.version, current);
  };
  return (
    <Section id="addons-staged" icon={PackageIcon} title={t('addOns.staged.title')} description={t('addOns.staged.intro')} className="addons-section">
      {forget.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(forget.error)}</p>
        </div>
      )}
      {forget.isSuccess && (
        <p className="notice" role="status">
          {t('addOns.staged.forgotten', { name: forget.variables.name, version: forget.variables.version })}
        </p>
      )}
      <ul className="addons-list">
        {staged.map((s) => (
          <li key={`${s.key}@${s.version}`} className="addons-item" data-testid="staged-addon">
            <p className="addons-item-head">
              <strong>{t('addOns.nameVersion', { name: s.name, version: s.version })}</strong> <VerifiedBadge verified={s.verified} />
            </p>
            <p className="hint">
              {t('addOns.staged.stagedAt', { when: when(s.stagedAt), source: s.source === 'built-in' ? t('addOns.catalog.builtIn') : s.source })}
            </p>
            <div className="actions">
              {stale(s) ? (
                <span className="hint">{t('addOns.staged.older', { version: installedVersion(s.key) ?? '' })}</span>
              ) : (
                <Link href={planPath(s.key, s.version)}>{t('addOns.staged.review', { name: s.name, version: s.version })}</Link>
              )}
              <button
                type="button"
                className="link"
                disabled={forget.isPending}
                onClick={() => forget.mutate(s)}
                aria-label={t('addOns.staged.forgetLabel', { name: s.name, version: s.version })}
              >
                {t('addOns.staged.forget')}
              </button>
            </div>
          </li>
        ))}
      </ul>
    </Section>
  );
}

export function VerifiedBadge({ verified }: { verified: boolean }) {
  return <Badge tone={verified ? 'success' : 'warning'}>{verified ? t('addOns.verified.yes') : t('addOns.verified.no')}</Badge>;
}

function matches(entry: CatalogEntry, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return [entry.key, entry.name, entry.description].some((s) => s.toLowerCase().includes(q));
}

function CatalogSection() {
  const catalog = useCatalog();
  const [, navigate] = useLocation();
  const [query, setQuery] = useState('');
  const searchId = useId();
  const refresh = useRefreshCatalog();
  const download = useDownload({ onSuccess: (staged) => navigate(planPath(staged.key, staged.version)) });

  const failed = refresh.data?.refresh?.filter((r) => !r.ok) ?? [];
  const entries = catalog.data?.addons.filter((e) => matches(e, query)) ?? [];
  return (
    <Section id="addons-catalog" icon={SearchIcon} title={t('addOns.catalog.title')} className="addons-section">
      <div className="addons-toolbar">
        <div className="field">
          <label htmlFor={searchId}>{t('addOns.catalog.search')}</label>
          <input id={searchId} type="search" value={query} onChange={(e) => setQuery(e.target.value)} />
        </div>
        <button type="button" className="secondary" onClick={() => refresh.mutate()} disabled={refresh.isPending}>
          <RefreshIcon className="icon" aria-hidden="true" />
          {refresh.isPending ? t('addOns.catalog.refreshing') : t('addOns.catalog.refresh')}
        </button>
      </div>
      {refresh.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(refresh.error)}</p>
        </div>
      )}
      {refresh.isSuccess && (
        <div role="status">
          <p className="notice">{t('addOns.catalog.refreshed', { count: refresh.data.sources.length })}</p>
          {failed.map((f) => (
            <p key={f.url} className="field-error">
              {t('addOns.catalog.sourceFailed', { url: f.url, error: f.error ?? '' })}
            </p>
          ))}
        </div>
      )}
      {download.isError && (
        <div className="form-error" role="alert">
          <p>{errorText(download.error)}</p>
        </div>
      )}
      {catalog.isPending ? (
        <Loading />
      ) : catalog.isError ? (
        <ErrorPanel error={catalog.error} onRetry={() => void catalog.refetch()} />
      ) : (
        <>
          <p role="status" className="hint">
            {t('addOns.catalog.count', { count: entries.length })}
          </p>
          <ul className="addons-list">
            {entries.map((e) => (
              <CatalogItem
                key={`${e.source}:${e.key}`}
                entry={e}
                pending={download.isPending}
                onDownload={(version) => download.mutate({ key: e.key, version })}
              />
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}

function CatalogItem({ entry, pending, onDownload }: { entry: CatalogEntry; pending: boolean; onDownload: (version: string) => void }) {
  const headingId = useId();
  return (
    <li className="addons-item" data-testid="catalog-addon" aria-labelledby={headingId}>
      <h3 id={headingId}>{entry.name}</h3>
      <p>{entry.description}</p>
      <p className="hint">
        {entry.source === 'built-in' ? t('addOns.catalog.builtIn') : t('addOns.catalog.from', { source: entry.source })}
        {entry.installed && (
          <>
            {' · '}
            <Link href={`/add-ons/${entry.key}`}>{t('addOns.catalog.installed', { version: entry.installed.version })}</Link>
          </>
        )}
      </p>
      <ul className="addons-versions">
        {entry.versions.map((v) => {
          const staged = entry.staged.find((s) => s.version === v.version);
          return (
            <li key={v.version}>
              <span>{t('addOns.catalog.version', { version: v.version, engine: v.engine })}</span>{' '}
              {!v.compatible ? (
                <Badge tone="warning">{t('addOns.catalog.incompatible')}</Badge>
              ) : entry.installed?.version === v.version ? (
                <Badge tone="success">{t('addOns.catalog.isInstalled')}</Badge>
              ) : staged ? (
                <Link href={planPath(entry.key, v.version)}>{t('addOns.staged.review', { name: entry.name, version: v.version })}</Link>
              ) : (
                <button type="button" className="secondary" disabled={pending} onClick={() => onDownload(v.version)}>
                  <ExportIcon className="icon" aria-hidden="true" />
                  {t('addOns.catalog.download', { name: entry.name, version: v.version })}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </li>
  );
}

function UploadSection() {
  const [, navigate] = useLocation();
  const fileId = useId();
  const input = useRef<HTMLInputElement>(null);
  const upload = useUpload({ onSuccess: (staged) => navigate(planPath(staged.key, staged.version)) });
  const [missing, setMissing] = useState(false);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const file = input.current?.files?.[0];
    setMissing(!file);
    if (file) upload.mutate(file);
  };
  return (
    <Section id="addons-upload" icon={ImportIcon} title={t('addOns.upload.title')} className="addons-section">
      <form onSubmit={onSubmit} noValidate>
        <div className="field">
          <label htmlFor={fileId}>{t('addOns.upload.file')}</label>
          <p className="hint" id={`${fileId}-hint`}>
            {t('addOns.upload.hint')}
          </p>
          <input
            ref={input}
            id={fileId}
            name="file"
            type="file"
            accept=".tgz,application/gzip"
            aria-describedby={`${fileId}-hint`}
            aria-invalid={missing || undefined}
          />
        </div>
        {(missing || upload.isError) && (
          <div className="form-error" role="alert">
            <p>{missing ? t('addOns.upload.missing') : errorText(upload.error)}</p>
          </div>
        )}
        <button type="submit" disabled={upload.isPending}>
          <ImportIcon className="icon" aria-hidden="true" />
          {upload.isPending ? t('addOns.upload.uploading') : t('addOns.upload.submit')}
        </button>
      </form>
    </Section>
  );
}
